import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { openDatabase } from '../../src/db/database.js';
import { parseMailSettings } from '../../src/modules/mail/service.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { OPERATOR } from '../../src/principal.js';
import { loadSecretKey } from '../../src/secret-key.js';
import { createServices } from '../../src/services.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../helpers/smtp.js';

/**
 * docs/invoicing.md's examples run (issue 56 item 7): every ```sh block of the file, in the order
 * the text has them, through the command line (`runCli`, as `npx timetrack` runs it) against a
 * real server's database, and its `curl` as an HTTP request to that server. `$W`, `$U`, `$C`, `$P`, `$T`,
 * `$TOKEN` and `$ID` are what the text says they are: Ada's workspace, Ada, her client Acme, its project and task, a
 * token of hers and the invoice she made last. What the text shows a command printing (`# {…}`,
 * `# 2026-0002 …` below it, `…` standing for what differs each time) is what it prints. A block
 * added to the file later runs too; two of them are told apart only by what they need around
 * them: the example in another currency runs on a draft in Swiss francs, and the credit note is
 * made the day after the invoice, as the dates the text shows say.
 */
describe('docs/invoicing.md: its examples run', function () {
  this.timeout(120_000);
  let server: TestServer;
  let relay: TestRelay;
  let dir: string;
  const mailEnv = () => ({ SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' });
  const doc = readFileSync(join(PACKAGE_ROOT, 'docs/invoicing.md'), 'utf8');

  before(async () => {
    // The server sends mail through a relay on loopback: the invoice mail the text sends reaches it.
    relay = await startRelay();
    server = await startTestServer({ env: mailEnv() });
    dir = mkdtempSync(join(tmpdir(), 'timetrack-docs-'));
  });
  after(async () => {
    await server.close();
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The ```sh blocks, each as its commands (continuation lines joined) with the output lines shown below each. */
  function blocksOf(text: string): Array<{ line: number; commands: Array<{ text: string; shown: string[] }> }> {
    const blocks: Array<{ line: number; commands: Array<{ text: string; shown: string[] }> }> = [];
    for (const m of text.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)) {
      const line = text.slice(0, m.index).split('\n').length;
      const commands: Array<{ text: string; shown: string[] }> = [];
      const lines = (m[2] as string).replace(/\\\n\s*/g, ' ').split('\n');
      /** A command whose single quotes are not closed yet goes on on the next line (a JSON body over lines). */
      const open = (text: string) => (text.match(/'/g) ?? []).length % 2 === 1;
      for (const raw of lines.map((l) => l.trim()).filter(Boolean)) {
        const last = commands.at(-1);
        if (last && open(last.text)) last.text += `\n${raw}`;
        else if (raw.startsWith('#')) (last as { shown: string[] }).shown.push(raw.replace(/^#\s?/, ''));
        // A comment beside a command (two spaces or more, then #) is no part of it.
        else commands.push({ text: raw.replace(/\s{2,}#.*$/, ''), shown: [] });
      }
      blocks.push({ line, commands });
    }
    return blocks;
  }

  /** A command line split as a POSIX shell splits it: quotes, and `$NAME` replaced outside single quotes. */
  function words(text: string, vars: Record<string, string>): string[] {
    const out: string[] = [];
    let word: string | null = null;
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      if (c === "'") {
        const end = text.indexOf("'", i + 1);
        expect(end, `a closing quote in ${text}`).to.be.above(i);
        word = (word ?? '') + text.slice(i + 1, end);
        i = end;
      } else if (c === '"') {
        let j = i + 1;
        let inner = '';
        for (; text[j] !== '"'; j++) {
          expect(j, `a closing quote in ${text}`).to.be.below(text.length);
          inner += text[j] === '\\' ? (text[++j] as string) : text[j];
        }
        word = (word ?? '') + expand(inner, vars);
        i = j;
      } else if (/\s/.test(c)) {
        if (word !== null) out.push(word);
        word = null;
      } else {
        const rest = /^[^\s'"]+/.exec(text.slice(i))![0];
        word = (word ?? '') + expand(rest, vars);
        i += rest.length - 1;
      }
    }
    if (word !== null) out.push(word);
    return out;
  }
  const expand = (text: string, vars: Record<string, string>) =>
    text.replace(/\$([A-Z_]+)/g, (_, name: string) => {
      expect(vars, `$${name} is bound`).to.have.property(name);
      return vars[name] as string;
    });

  /** `…` in a shown value stands for any text; JSON is compared value by value, text line by line. */
  function matchShown(shown: string[], stdout: string, what: string): void {
    if (shown.length === 0) return;
    const pattern = (text: string) => new RegExp(`^${text.split('…').map(escape).join('.*')}$`);
    const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (shown[0]!.startsWith('{')) {
      const same = (expected: unknown, actual: unknown, at: string): void => {
        if (typeof expected === 'string' && expected.includes('…')) expect(actual, at).to.be.a('string').and.match(pattern(expected));
        else if (Array.isArray(expected)) {
          expect(actual, at).to.be.an('array').with.length(expected.length);
          expected.forEach((e, n) => same(e, (actual as unknown[])[n], `${at}[${n}]`));
        } else if (typeof expected === 'object' && expected !== null) {
          expect(Object.keys(actual as object).sort(), at).to.deep.equal(Object.keys(expected).sort());
          for (const [key, value] of Object.entries(expected)) same(value, (actual as Record<string, unknown>)[key], `${at}.${key}`);
        } else expect(actual, at).to.deep.equal(expected);
      };
      same(JSON.parse(shown[0]!), JSON.parse(stdout), what);
      return;
    }
    // Columns: the text's runs of spaces stand for any run of spaces.
    const printed = stdout.split('\n').map((l) => l.trim().replace(/\s+/g, ' '));
    for (const line of shown) {
      const wanted = new RegExp(`^${line.trim().replace(/\s+/g, ' ').split('…').map(escape).join('\\S*')}$`);
      expect(
        printed.some((p) => wanted.test(p)),
        `${what}: the text shows "${line}"; it printed:\n${stdout}`,
      ).to.equal(true);
    }
  }

  /** `npx timetrack …` with the server's database, clock and mail (as the operator runs it beside the server). */
  async function timetrack(argv: string[]) {
    // The server commits the writes of one turn together (group commit): the command line writes once it has.
    await new Promise((resolve) => setImmediate(resolve));
    let stdout = '';
    let stderr = '';
    // Mail is on where the settings pages have an address (the links a mail may carry point there).
    const mail = { settings: parseMailSettings(mailEnv(), []), links: () => `${server.url}/settings` };
    const code = await runCli(argv, {
      openDatabase: () => openDatabase(server.config.databasePath),
      createServices: (database) =>
        createServices(database, {
          clock: server.clock,
          // The server's key, as the command line beside it reads it (the mail it queues is sealed with it).
          secretKey: loadSecretKey(server.config.databasePath, server.config.secretKey),
          mail,
        }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr };
  }

  /** `curl -X METHOD URL -H … -d BODY` as the same request to the test server. */
  async function curl(argv: string[]) {
    let method = 'GET';
    let url = '';
    let body: unknown;
    let token: string | undefined;
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] as string;
      if (arg === '-X') method = argv[++i] as string;
      else if (arg === '-H') {
        const header = argv[++i] as string;
        const bearer = /^Authorization: Bearer (.+)$/.exec(header);
        if (bearer) token = bearer[1];
      } else if (arg === '-d') body = JSON.parse(argv[++i] as string);
      else url = arg;
    }
    const path = new URL(url).pathname;
    return server.request(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { json: body }) });
  }

  it('every example of the walk-through runs as the text says, and prints what it shows', async () => {
    const { services } = server;
    // Ada, in Berlin, with a token; Acme with a project at 95.00 an hour and ten hours of October
    // in her days: 1 October 00:30 in Berlin is 30 September 22:30 in UTC.
    const ada = server.ownerId;
    services.accounts.setPreferences(OPERATOR, ada, { timeZone: 'Europe/Berlin' });
    const { token } = services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: ada,
      name: 'docs',
      scopes: ['catalog:read', 'catalog:write'],
    });
    const actor = services.tokens.authenticate(token)!.actor;
    const acme = services.catalog.clients.create(actor, { name: 'Acme' }).id;
    const project = services.catalog.projects.create(actor, { name: 'Relaunch', clientId: acme, billable: true, hourlyRate: 95 }).id;
    const task = services.catalog.tasks.create(actor, { name: 'Design', projectId: project }).id;
    for (const [start, hours] of [
      ['2026-09-30T22:30:00Z', 4],
      ['2026-10-14T08:00:00Z', 6],
    ] as const) {
      const at = Date.parse(start);
      services.entries.create(actor, {
        start: start,
        end: new Date(at + hours * 3_600_000).toISOString(),
        description: 'Relaunch',
        projectId: project,
        taskId: task,
      });
    }
    // Not Ada's October: 1 November 00:30 in Berlin.
    services.entries.create(actor, {
      start: '2026-10-31T23:30:00Z',
      end: '2026-11-01T01:30:00Z',
      description: 'November',
      projectId: project,
    });
    await new Promise((resolve) => setImmediate(resolve));

    // $P and $T: her project and its task (a VAT of their own, issue 57 item 2).
    const vars: Record<string, string> = { W: server.workspaceId, U: ada, C: acme, TOKEN: token, P: project, T: task };
    const blocks = blocksOf(doc);
    expect(blocks.length, 'the walk-through has its examples').to.be.at.least(9);
    let ran = 0;
    for (const block of blocks) {
      let bound = vars;
      // The example in another currency: a draft of Ada's in a workspace that invoices in Swiss francs.
      if (block.commands.some((c) => c.text.includes('--exchange-rate'))) bound = { ...vars, ...francs(ada) };
      // The credit note is dated the day after the invoice (the text shows 2026-11-02 and 2026-11-03).
      if (block.commands.some((c) => / --to void/.test(c.text))) server.clock.set(Date.UTC(2026, 10, 3, 10));
      for (const command of block.commands) {
        const where = `docs/invoicing.md line ${block.line}: ${command.text}`;
        const argv = words(command.text, bound);
        if (argv[0] === 'curl') {
          const res = await curl(argv.slice(1));
          expect(res.status, `${where}\n${res.text}`).to.equal(200);
        } else {
          expect(argv.slice(0, 2), where).to.deep.equal(['npx', 'timetrack']);
          // Files go to a directory of the test's own.
          const args = argv.slice(2).map((a, n, all) => (all[n - 1] === '--out' ? join(dir, a) : a));
          const out = await timetrack(args);
          expect(out.code, `${where}\n${out.stdout}${out.stderr}`).to.equal(0);
          matchShown(command.shown, out.stdout, where);
          const file = args[args.indexOf('--out') + 1];
          if (args.includes('--out')) expect(existsSync(file as string), `${where}: writes ${file}`).to.equal(true);
          // The invoice just made is $ID from now on.
          if (args[0] === 'invoice' && args[1] === 'create') {
            const made = services.invoices.list(OPERATOR, bound.W as string)[0]!;
            vars.ID = made.id;
          }
        }
        ran++;
      }
    }
    expect(ran, 'commands found and run').to.be.at.least(14);
    // "The command queues the message in the database; the running server sends it."
    await server.running.scheduler.tick();
    const [mail] = await relay.until(1);
    expect(mail!.parsed.subject).to.equal('Rechnung 2026-0001 von Ada Lovelace Design');
  });

  /** A workspace in Swiss francs of Ada's, with Ada's profile and a draft of hers: W, U and ID for the example that needs them. */
  function francs(ada: string): Record<string, string> {
    const { services } = server;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Ada (CHF)', currency: 'CHF' });
    services.accounts.addMember(OPERATOR, { workspaceId, userId: ada, isOwner: true, canViewOthersTime: true, canViewOthersMoney: true });
    const profile = services.accounts.businessProfile(server.workspaceId) ?? {};
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, profile);
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const { token } = services.tokens.create(OPERATOR, { workspaceId, userId: ada, name: 'chf', scopes: ['catalog:write'] });
    const actor = services.tokens.authenticate(token)!.actor;
    const client = services.catalog.clients.create(actor, { name: 'Zürcher AG', legalName: 'Zürcher AG', country: 'CH' }).id;
    const project = services.catalog.projects.create(actor, { name: 'Beratung', clientId: client, billable: true, hourlyRate: 120 }).id;
    services.entries.create(actor, {
      start: '2026-10-20T08:00:00Z',
      end: '2026-10-20T10:00:00Z',
      description: 'Beratung',
      projectId: project,
    });
    const { id } = services.invoices.create(OPERATOR, { workspaceId, userId: ada, clientId: client, from: '2026-10-01', to: '2026-10-31' });
    return { W: workspaceId, ID: id };
  }
});
