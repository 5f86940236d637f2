import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { runCli } from '../../src/cli/main.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import type { DomainError } from '../../src/errors.js';
import { csvCell, decimalText, tagsCell } from '../../src/modules/imports/export.js';
import { unformula } from '../../src/modules/imports/formats.js';
import { tagsOf } from '../../src/modules/imports/rows.js';
import { type Actor, OPERATOR } from '../../src/principal.js';
import { createServices, type Services } from '../../src/services.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../helpers/smtp.js';
import { NOT_CARRIED, OWNED, SCHEMA_TABLES, workspaceRows } from '../helpers/workspace-tables.js';

const SCOPES = ['entries:read', 'entries:write', 'catalog:read', 'catalog:write', 'reports:read'];

/** `timetrack …` against a server's database (the CLI beside the running server, as an operator runs it). */
async function cli(server: TestServer, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const key = randomBytes(32);
  const code = await runCli(argv, {
    openDatabase: () => openDatabase(server.config.databasePath),
    createServices: (database) => createServices(database, { clock: systemClock, secretKey: key }),
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** The server commits the writes of one turn together (group commit): the command line sees them once it has. */
const committed = () => new Promise((resolve) => setImmediate(resolve));

/** A member of a workspace with a token of every scope and both visibility flags (the reads of the comparison). */
function member(
  services: Services,
  workspaceId: string,
  user: { name: string; email: string },
  options: { owner?: boolean; hourlyRate?: number | null; sees?: { time: boolean; money: boolean } } = {},
) {
  const { id } = services.accounts.createUser(OPERATOR, user);
  services.accounts.addMember(OPERATOR, {
    workspaceId,
    userId: id,
    isOwner: options.owner ?? false,
    canViewOthersTime: options.sees?.time ?? true,
    canViewOthersMoney: options.sees?.money ?? true,
    hourlyRate: options.hourlyRate ?? null,
  });
  const { token } = services.tokens.create(OPERATOR, { workspaceId, userId: id, name: 'export test', scopes: SCOPES });
  return { id, token, actor: services.tokens.authenticate(token)?.actor as Actor };
}

describe('the timetrack format: cells', () => {
  it('writes RFC 4180 cells, formulas prefixed with one quote that the importer takes off exactly', () => {
    expect(
      ['plain', 'a,b', 'say "hi"', 'two\r\nlines', '=SUM(A1)', '+1', '-x', '@home', '\tindent', '\rcr', "'=x", "'plain", "''=y"].map(
        csvCell,
      ),
    ).to.deep.equal([
      'plain',
      '"a,b"',
      '"say ""hi"""',
      '"two\r\nlines"',
      "'=SUM(A1)",
      "'+1",
      "'-x",
      "'@home",
      "'\tindent",
      '"\'\rcr"',
      "''=x",
      "'plain",
      "'''=y",
    ]);
    for (const text of ['=SUM(A1)', "'=x", "''=y", "'plain", '-', "'", 'plain']) {
      const written = csvCell(text)
        .replace(/^"(.*)"$/s, '$1')
        .replace(/""/g, '"');
      expect(unformula(written), text).to.equal(text);
    }
  });

  it('writes tag names in one cell, quoting one that holds a comma or a quote, and reads them back', () => {
    const names = ['plain', 'a,b', 'say "hi"', 'Ümlaut', '=x'];
    expect(tagsCell(names)).to.equal('plain,"a,b","say ""hi""",Ümlaut,=x');
    expect(tagsOf(tagsCell(names), true)).to.deep.equal(names);
    // An older hand-written file: names separated by commas and spaces.
    expect(tagsOf('design, review', true)).to.deep.equal(['design', 'review']);
  });

  it('writes rates as decimals, never in exponent form', () => {
    expect([80.05, 0.1, 1e-7, 16.66667, 1000000000, 0].map(decimalText)).to.deep.equal([
      '80.05',
      '0.1',
      '0.0000001',
      '16.66667',
      '1000000000',
      '0',
    ]);
  });
});

/** The values an issued invoice's PDF needs, as fills of a draft made without a profile or a client's address (issue 56 item 1). */
const ISSUABLE: Array<[string, string]> = [
  ['issuer.legalName', 'Studio'],
  ['issuer.country', 'DE'],
  ['issuer.taxNumber', '30/123/45678'],
  ['recipient.country', 'DE'],
];

describe('timetrack export: a whole workspace that imports back unchanged', function () {
  this.timeout(240_000);
  let source: TestServer;
  let target: TestServer;
  let relay: TestRelay;
  let dir: string;
  before(async () => {
    // The source sends invoices by mail (a real SMTP relay on loopback): the export carries the sends.
    relay = await startRelay();
    [source, target] = await Promise.all([
      startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } }),
      startTestServer(),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'timetrack-export-'));
  });
  after(async () => {
    await Promise.all([source.close(), target.close()]);
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every entry of a workspace through the API (paged), as comparable values: ids become names and emails. */
  async function entriesOf(server: TestServer, token: string, workspaceId: string, invoiceKey: (id: string) => string = (id) => id) {
    const emails = new Map(server.services.accounts.memberDirectory(workspaceId).map((m) => [m.userId, m.email]));
    const tags = new Map(
      ((await server.request('GET', '/api/v1/tags', { token })).body.data as Array<{ id: string; name: string }>).map((t) => [
        t.id,
        t.name,
      ]),
    );
    const rows: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    do {
      const res = await server.request(
        'GET',
        `/api/v1/entries?from=2000-01-01&to=2100-01-01&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token },
      );
      expect(res.status, res.text).to.equal(200);
      for (const e of res.body.data) {
        rows.push({
          author: emails.get(e.authorId),
          description: e.description,
          start: e.start,
          end: e.end,
          durationSec: e.durationSec,
          billable: e.billable,
          hourlyRate: e.hourlyRate,
          amount: e.amount,
          currency: e.currency,
          timeZone: e.timeZone,
          client: e.clientName,
          project: e.projectName,
          color: e.projectColor,
          task: e.taskName,
          tags: (e.tagIds as string[]).map((id) => tags.get(id)).sort(),
          runaway: e.runaway,
          invoice: e.invoiceId === null ? null : invoiceKey(e.invoiceId),
        });
      }
      cursor = res.body.nextCursor;
    } while (cursor);
    const key = (r: Record<string, unknown>) => JSON.stringify([r.start, r.author, r.description, r.end, r.project, r.tags]);
    return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  /** The catalog through the API, by names. */
  async function catalogOf(server: TestServer, token: string) {
    const get = async (path: string) => (await server.request('GET', path, { token })).body.data as Array<Record<string, any>>;
    const clients = await get('/api/v1/clients');
    const clientName = new Map(clients.map((c) => [c.id, c.name]));
    const projects = await get('/api/v1/projects');
    const projectName = new Map(projects.map((p) => [p.id, `${clientName.get(p.clientId) ?? ''}/${p.name}`]));
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    return {
      clients: clients.map(({ id: _id, workspaceId: _w, createdAt: _c, updatedAt: _u, ...c }) => c as { name: string }).sort(byName),
      projects: projects
        .map((p) => ({
          name: `${clientName.get(p.clientId) ?? ''}/${p.name}`,
          color: p.color,
          billable: p.billable,
          hourlyRate: p.hourlyRate,
          estimateSec: p.estimateSec,
          budgetAmount: p.budgetAmount,
          archived: p.archived,
          progress: p.progress,
        }))
        .sort(byName),
      tasks: (await get('/api/v1/tasks'))
        .map((t) => ({
          name: `${projectName.get(t.projectId)}/${t.name}`,
          hourlyRate: t.hourlyRate,
          estimateSec: t.estimateSec,
          archived: t.archived,
        }))
        .sort(byName),
      tags: (await get('/api/v1/tags')).map((t) => t.name).sort(),
    };
  }

  /**
   * The invoicing of a workspace as its owner reads it (decisions 11a): the issuer profile, the
   * settings, the rates, every invoice and credit note whole (ids become names, emails and keys),
   * and the number the next document gets. `key` names an invoice by what survives an import.
   */
  function invoicingOf(server: TestServer, workspaceId: string, actor: Actor) {
    const { services } = server;
    const members = services.accounts.listMembers(OPERATOR, workspaceId);
    const email = new Map(members.map((m) => [m.userId, m.email]));
    const clientName = new Map(services.catalog.clients.list(actor, {}).map((c) => [c.id, c.name]));
    const projectName = new Map(
      services.catalog.projects.list(actor, {}).map((p) => [p.id, `${clientName.get(p.clientId ?? '') ?? ''}/${p.name}`]),
    );
    const invoices = services.invoices.list(OPERATOR, workspaceId);
    // An invoice by what an import keeps: its number, or (a draft) its range, client and lines' projects.
    const key = new Map(
      invoices.map((i) => [
        i.id,
        JSON.stringify([i.number, i.from, i.to, clientName.get(i.clientId), i.lines.map((l) => projectName.get(l.projectId ?? ''))]),
      ]),
    );
    return {
      key: (id: string) => key.get(id) ?? `unknown ${id}`,
      read: {
        profile: services.accounts.businessProfile(workspaceId),
        settings: services.invoices.settings(OPERATOR, workspaceId),
        workspaceRate: services.accounts.getWorkspace(OPERATOR, workspaceId).hourlyRate,
        // Members by the part of the address the two servers share (the reader's own account differs).
        rates: members
          .filter((m) => !m.email.startsWith('reader-'))
          .map((m) => [m.email, m.hourlyRate])
          .sort(),
        invoices: invoices
          .map(({ id, workspaceId: _w, clientId, lines, einvoiceFills, ...rest }) => ({
            ...rest,
            key: key.get(id),
            client: clientName.get(clientId),
            lines: lines.map((l) => ({ ...l, projectId: l.projectId === null ? null : projectName.get(l.projectId) })),
            einvoiceFills: (einvoiceFills as Array<{ by: string }>).map((f) => ({ ...f, by: email.get(f.by)?.replace(/@.*$/, '') })),
          }))
          // Invoices made in the same millisecond are listed by their ids, which an import gives anew.
          .sort((a, b) => ((a.key as string) < (b.key as string) ? -1 : 1)),
        next: services.invoices.upcomingNumber(OPERATOR, workspaceId, members.find((m) => m.isOwner)?.userId),
      },
    };
  }

  // What a random workspace is made of. Names carry umlauts, commas, quotes and formulas; a name
  // is unique by its index (the catalog compares names case-insensitively).
  const NAMES = ['Müller & Söhne', 'Ørsted, Zoë', 'say "hi"', '=SUM(A1)', '+49 Hotline', '-minus', '@home', "'quoted", 'Straße', '東京'];
  const DESCRIPTION = fc.string({
    unit: fc.constantFrom('a', 'Z', ' ', ',', '"', "'", '\n', '\r\n', 'ü', 'ß', '=', '+', '-', '@', '\t', ';', '€', '🙂', 'x'),
    maxLength: 40,
  });
  const RATE = fc.option(
    fc.integer({ min: 0, max: 3_000_000 }).map((n) => n / 10_000),
    { nil: null },
  );
  const ZONE = fc.constantFrom(null, 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe');
  const workspace = fc.record({
    workspaceRate: RATE,
    // The workspace's own row beside its rate (issue 56 item 6): runaway and request settings, join domains.
    space: fc.record({
      runawayLimitSec: fc.constantFrom(3600, 7200, 36000),
      runawayAction: fc.constantFrom('flagged', 'capped', 'stopped'),
      rateLimitPerMin: fc.option(fc.constantFrom(60, 240), { nil: null }),
      joinDomains: fc.constantFrom([], ['example.org'], ['example.org', 'beispiel.de']),
    }),
    // A timer that ran past the runaway limit, as the runaway check records it.
    runaway: fc.boolean(),
    members: fc.array(
      fc.record({ name: fc.constantFrom(...NAMES), rate: RATE, owner: fc.boolean(), time: fc.boolean(), money: fc.boolean() }),
      { minLength: 1, maxLength: 3 },
    ),
    clients: fc.array(
      fc.record({ name: fc.constantFrom(...NAMES), archived: fc.boolean(), details: fc.constantFrom('none', 'domestic', 'reverse') }),
      { maxLength: 3 },
    ),
    // The invoicing (decisions 11a): a profile, settings, invoices of a client's year moved to a status.
    profile: fc.boolean(),
    settings: fc.option(
      fc.record({ numberPattern: fc.constantFrom('{yyyy}-{seq:4}', 'RE-{yy}{mm}-{seq:3}', 'INV {seq}'), taxRate: fc.constantFrom(19, 7) }),
      { nil: null, freq: 5 },
    ),
    invoices: fc.array(
      fc.record({
        client: fc.nat(),
        // A year of the entries, or all of them (null).
        year: fc.option(fc.integer({ min: 2021, max: 2025 }), { nil: null, freq: 2 }),
        status: fc.constantFrom('draft', 'sent', 'paid', 'void'),
        fill: fc.boolean(),
        // A payment of a part before it moves on (issue 57): the payments travel with it.
        part: fc.boolean(),
        // The billable entry each invoice is made for (a member's, on a project of the client): seconds.
        member: fc.nat(),
        seconds: fc.integer({ min: 1, max: 10 * 3600 }),
      }),
      { maxLength: 4 },
    ),
    projects: fc.array(
      fc.record({
        client: fc.nat(),
        clientless: fc.boolean(),
        name: fc.constantFrom(...NAMES),
        billable: fc.boolean(),
        rate: RATE,
        laterRate: fc.option(RATE, { nil: undefined }),
        color: fc.constantFrom('#1f77b4', '#ff7f0e', '#2ca02c'),
        estimateSec: fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null }),
        budget: fc.option(
          fc.integer({ min: 0, max: 100_000_000 }).map((n) => n / 100),
          { nil: null },
        ),
        archived: fc.boolean(),
        // Its own VAT (issue 57 item 2): none, 7 %, zero rated.
        tax: fc.constantFrom(null, 'S', 'Z'),
      }),
      { maxLength: 4 },
    ),
    tasks: fc.array(
      fc.record({
        project: fc.nat(),
        name: fc.constantFrom(...NAMES),
        rate: RATE,
        estimateSec: fc.option(fc.nat({ max: 100_000 }), { nil: null }),
        archived: fc.boolean(),
        tax: fc.constantFrom(null, 'S', 'Z'),
      }),
      {
        maxLength: 4,
      },
    ),
    tags: fc.uniqueArray(fc.constantFrom('design', 'a,b', 'say "hi"', 'Ümlaut', '=formula', '+plus', 'review, later'), { maxLength: 5 }),
    entries: fc.array(
      fc.record({
        member: fc.nat(),
        startMin: fc.integer({ min: 0, max: 5 * 365 * 24 * 60 }),
        seconds: fc.oneof(fc.integer({ min: 1, max: 8 * 3600 }), fc.constantFrom(1, 59, 3599, 4997, 359_999, 540_000)),
        ms: fc.constantFrom(0, 0, 250),
        description: DESCRIPTION,
        project: fc.option(fc.nat(), { nil: null }),
        task: fc.option(fc.nat(), { nil: null }),
        tags: fc.array(fc.nat(), { maxLength: 3 }),
        billable: fc.option(fc.boolean(), { nil: undefined }),
        zone: ZONE,
      }),
      { maxLength: 12 },
    ),
  });

  /** A client's invoicing details (decisions 11a): none, a domestic business, a business abroad under reverse charge. */
  const DETAILS = {
    none: {},
    domestic: {
      legalName: 'Müller & Söhne GmbH',
      addressLines: ['Hauptstr. 1', 'Hinterhaus, 2. OG'],
      postalCode: '10115',
      city: 'Berlin',
      country: 'DE',
      email: 'rechnung@example.org',
      reference: null,
    },
    reverse: {
      legalName: 'Ørsted "Nord" A/S',
      addressLines: ['Kraftværksvej 53'],
      postalCode: '7000',
      city: 'Fredericia',
      country: 'DK',
      vatId: 'DK13156883',
      electronicAddress: 'invoice@example.dk',
      electronicAddressScheme: 'EM',
      taxCategory: 'AE',
      exemptionReason: 'Reverse charge',
      exemptionReasonCode: 'VATEX-EU-AE',
    },
  } satisfies Record<string, Omit<Parameters<Services['catalog']['clients']['create']>[1], 'name'>>;

  type Workspace = typeof workspace extends fc.Arbitrary<infer T> ? T : never;
  let run = 0;
  /** Builds the workspace on the source server through the services (the same ones its API answers from). */
  function build(w: Workspace) {
    run += 1;
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, {
      name: `Round trip ${run}`,
      currency: 'EUR',
      hourlyRate: w.workspaceRate,
    });
    const owner = member(services, workspaceId, { name: 'Reader', email: `reader-${run}@source.example` }, { owner: true });
    services.accounts.setWorkspace(OPERATOR, workspaceId, { ...w.space, joinDomains: [...w.space.joinDomains] });
    const members = w.members.map((m, i) =>
      member(
        services,
        workspaceId,
        { name: `${m.name} ${i}`, email: `m${i}-run${run}@example.org` },
        { hourlyRate: m.rate, owner: m.owner, sees: { time: m.time, money: m.money } },
      ),
    );
    const clients = w.clients.map(
      (c, i) => services.catalog.clients.create(owner.actor, { name: `${c.name} ${i}`, ...DETAILS[c.details] }).id,
    );
    const projects = w.projects.map((p, i) =>
      services.catalog.projects.create(owner.actor, {
        name: `${p.name} ${i}`,
        clientId: p.clientless || clients.length === 0 ? null : (clients[p.client % clients.length] as string),
        billable: p.billable,
        hourlyRate: p.rate,
        color: p.color,
        estimateSec: p.estimateSec,
        budgetAmount: p.budget,
      }),
    );
    const tasks =
      projects.length === 0
        ? []
        : w.tasks.map((t, i) => {
            const project = projects[t.project % projects.length] as { id: string };
            return {
              projectId: project.id,
              id: services.catalog.tasks.create(owner.actor, {
                name: `${t.name} ${i}`,
                projectId: project.id,
                hourlyRate: t.rate,
                estimateSec: t.estimateSec,
              }).id,
            };
          });
    const tags = w.tags.map((name) => services.catalog.tags.create(owner.actor, { name }).id);
    // A project's and a task's own VAT (issue 57 item 2): the export carries it in their `data`.
    const taxed = (kind: 'project' | 'task', id: string, tax: 'S' | 'Z' | null) =>
      tax !== null &&
      services.invoices.setWorkTax(OPERATOR, workspaceId, { kind, id }, { taxCategory: tax, taxRate: tax === 'S' ? 7 : '' });
    w.projects.forEach((p, i) => taxed('project', (projects[i] as { id: string }).id, p.tax));
    w.tasks.forEach((t, i) => tasks[i] && taxed('task', tasks[i].id, t.tax));
    const base = Date.UTC(2021, 0, 1);
    for (const e of w.entries) {
      const project = e.project === null || projects.length === 0 ? null : (projects[e.project % projects.length] as { id: string });
      const ofProject = project ? tasks.filter((t) => t.projectId === project.id) : [];
      const task = e.task === null || ofProject.length === 0 ? null : (ofProject[e.task % ofProject.length] as { id: string });
      const start = base + e.startMin * 60_000 + e.ms;
      services.entries.create((members[e.member % members.length] as { actor: Actor }).actor, {
        start: new Date(start).toISOString(),
        end: new Date(start + e.seconds * 1000).toISOString(),
        description: e.description,
        projectId: project?.id ?? null,
        taskId: task?.id ?? null,
        tagIds: [...new Set(e.tags.filter(() => tags.length > 0).map((n) => tags[n % tags.length] as string))],
        ...(e.billable === undefined ? {} : { billable: e.billable }),
        ...(e.zone === null ? {} : { timeZone: e.zone }),
      });
    }
    // A timer left running past the limit: the runaway check flags, caps or stops it; a flagged one is stopped later.
    if (w.runaway) {
      const timer = (members[0] as { actor: Actor }).actor;
      services.timers.start(timer, { description: 'Left running' });
      source.clock.advance(w.space.runawayLimitSec * 1000 + 60_000);
      services.timers.detectRunaways();
      source.clock.advance(60_000);
      if (services.timers.current(timer)) services.timers.stop(timer);
    }
    // Invoices of the entries (their entries are then invoiced), moved on; a fill by the owner.
    if (w.profile)
      services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
        legalName: 'Studio Ørsted, Zoë',
        addressLines: ['Hauptstr. 1', 'c/o "Hinterhaus"'],
        postalCode: '10115',
        city: 'Berlin',
        country: 'DE',
        vatId: 'DE136695976',
        iban: 'DE89 3704 0044 0532 0130 00',
        paymentTermsDays: 21,
      });
    if (w.settings) services.invoices.setSettings(OPERATOR, workspaceId, w.settings);
    let invoices = 0;
    let billed = 0;
    for (const [i, inv] of w.invoices.entries()) {
      if (clients.length === 0) break;
      const clientId = clients[inv.client % clients.length] as string;
      const projectId = services.catalog.projects.create(owner.actor, {
        name: `Billed ${i}`,
        clientId,
        billable: true,
        hourlyRate: 95.55,
      }).id;
      const start = Date.UTC(inv.year ?? 2023, 5, 15, 9) + i * 60_000;
      services.entries.create((members[inv.member % members.length] as { actor: Actor }).actor, {
        start: new Date(start).toISOString(),
        end: new Date(start + inv.seconds * 1000).toISOString(),
        description: `Billed ${i}`,
        projectId,
      });
      billed += 1;
      let id: string;
      try {
        ({ id } = services.invoices.create(OPERATOR, {
          workspaceId,
          userId: owner.id,
          clientId,
          from: `${inv.year ?? 2021}-01-01`,
          to: `${inv.year ?? 2026}-12-31`,
        }));
      } catch (error) {
        // The entry went on an earlier invoice of all years: nothing left to invoice.
        if ((error as DomainError).code === 'invalid' || (error as DomainError).code === 'conflict') continue;
        throw error;
      }
      invoices += 1;
      if (inv.fill) services.invoices.fill(OPERATOR, id, owner.id, [['recipient.reference', `PO ${invoices}`]]);
      // Issuing needs the tax rate (the settings) and what the PDF needs (issue 56 item 1: the profile, a client with an address); without them the invoice stays a draft.
      if (inv.status === 'draft' || !w.settings || !w.profile || w.clients[inv.client % clients.length]?.details === 'none') continue;
      services.invoices.issue(OPERATOR, id, { userId: owner.id });
      if (inv.part) services.invoices.pay(OPERATOR, id, { userId: owner.id, amount: '0.01', note: `Part of ${invoices}` });
      if (inv.status === 'paid') services.invoices.markPaid(OPERATOR, id, { userId: owner.id });
      if (inv.status === 'void') services.invoices.void(OPERATOR, id, { userId: owner.id });
    }
    // Expenses (issue 57), after the invoices (not on them) so the seed's workspaces stay as they were, before projects are archived: one with a receipt of two parts, one billable without.
    if (run % 2 === 0 && projects.length > 0) {
      const project = (projects[0] as { id: string }).id;
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(60_000)]);
      const spender = (members[run % members.length] as { actor: Actor }).actor;
      services.expenses.add(
        spender,
        { day: '2022-02-02', description: `Spent ${run}`, amount: '9.99', projectId: project },
        { name: `r${run}.png`, bytes: png },
      );
      services.expenses.add(owner.actor, { day: '2022-02-03', description: '+Taxi', amount: '30', projectId: project, billable: true });
    }
    // History: a rate changed after the entries (they keep theirs), rows archived after use.
    w.projects.forEach(
      (p, i) =>
        p.laterRate !== undefined &&
        services.catalog.projects.update(owner.actor, (projects[i] as { id: string }).id, { hourlyRate: p.laterRate }),
    );
    w.tasks.forEach((t, i) => t.archived && tasks[i] && services.catalog.tasks.update(owner.actor, tasks[i].id, { archived: true }));
    w.projects.forEach(
      (p, i) => p.archived && services.catalog.projects.update(owner.actor, (projects[i] as { id: string }).id, { archived: true }),
    );
    w.clients.forEach((c, i) => c.archived && services.catalog.clients.update(owner.actor, clients[i] as string, { archived: true }));
    // Approval and lock (issue 59 item 6), last (they lock the time above), by the run's number so the seed's workspaces stay
    // as they were: weekly or monthly, a lock date, an approver, a period approved, waiting, rejected with a note or withdrawn.
    if (run % 3 !== 0) {
      const first = members[0] as (typeof members)[number];
      services.approvals.setSettings(OPERATOR, workspaceId, {
        approval: run % 2 === 0 ? 'weekly' : 'monthly',
        ...(run % 4 === 1 ? { lockedBefore: '2021-01-04' } : {}),
      });
      const seeing = members.find((_, i) => i > 0 && w.members[i]?.time && !w.members[i]?.owner);
      if (seeing) services.approvals.setApprover(owner.actor, { workspaceId, userId: seeing.id, approver: true });
      const period = services.approvals.submit(first.actor, { day: '2021-01-05' });
      if (run % 4 === 0) services.approvals.approve(owner.actor, period.id, { note: 'Fine' });
      if (run % 4 === 1) services.approvals.reject(OPERATOR, period.id, { note: 'Which client?' });
      if (run % 4 === 2) services.approvals.reopen(first.actor, period.id);
    }
    return { workspaceId, token: owner.token, actor: owner.actor, entries: w.entries.length + billed + (w.runaway ? 1 : 0), invoices };
  }

  it('the round trip compares every table and column of the schema: each table is the workspace’s or says why it is not, each column left out says why', () => {
    const tables = new Map(SCHEMA_TABLES.map((t) => [t.name, t.columns]));
    const unclassified = [...tables.keys()].filter((name) => !OWNED[name] && !NOT_CARRIED[name]);
    expect(unclassified, 'a table neither carried nor said why not').to.deep.equal([]);
    expect([...Object.keys(OWNED), ...Object.keys(NOT_CARRIED)].filter((name) => !tables.has(name))).to.deep.equal([]);
    for (const [name, owned] of Object.entries(OWNED)) {
      for (const [column, reason] of Object.entries(owned.excluded ?? {})) {
        expect(tables.get(name), `${name}.${column}`).to.include(column);
        expect(reason.length, `${name}.${column}: a reason`).to.be.above(20);
      }
      for (const column of [...Object.keys(owned.refs ?? {}), ...Object.keys(owned.json ?? {})])
        expect(tables.get(name), `${name}.${column}`).to.include(column);
    }
  });

  it('gives back the same entries, catalog and rates on another server (fast-check, seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(workspace, async (w) => {
        const built = build(w);
        // The two servers' days agree (a runaway timer moved the source's clock on).
        target.clock.set(Math.max(target.clock.now(), source.clock.now()));
        await committed();
        const file = join(dir, `export-${run}.csv`);
        const exported = await cli(source, 'export', '--workspace', built.workspaceId, '--out', file, '--json');
        expect(exported.code, exported.stderr).to.equal(0);
        expect(exported.json).to.deep.include({ workspaceId: built.workspaceId, path: file, entries: built.entries });

        const { id: into } = target.services.accounts.createWorkspace(OPERATOR, { name: `Into ${run}`, currency: 'EUR' });
        // The comparison's own reader of the target, named apart from the file's members (an import matches a member by name too).
        const reader = member(target.services, into, { name: 'Comparing reader', email: `reader-${run}@target.example` }, { owner: true });
        await committed();
        // In a zone, as the Import page imports (the browser's): an entry without a zone keeps none.
        const imported = await cli(
          target,
          'import',
          file,
          '--workspace',
          into,
          '--create-members',
          '--time-zone',
          'Europe/Berlin',
          '--json',
        );
        expect(imported.code, imported.stdout + imported.stderr).to.equal(0);
        expect(imported.json).to.deep.include({ imported: built.entries, duplicates: 0, refused: [], notices: [] });
        expect(imported.json.restored).to.deep.include({
          profile: w.profile ? 1 : 0,
          invoicing: w.settings ? 1 : 0,
          invoices: built.invoices,
        });

        expect(await catalogOf(target, reader.token)).to.deep.equal(await catalogOf(source, built.token));
        const invoicing = { source: invoicingOf(source, built.workspaceId, built.actor), target: invoicingOf(target, into, reader.actor) };
        expect(invoicing.target.read).to.deep.equal(invoicing.source.read);
        const before = await entriesOf(source, built.token, built.workspaceId, invoicing.source.key);
        expect(before).to.have.length(built.entries);
        expect(await entriesOf(target, reader.token, into, invoicing.target.key)).to.deep.equal(before);
        // Every row of every table the workspace owns, every column the schema has (but those listed with their reason).
        const rows = {
          source: workspaceRows(source.config.databasePath, built.workspaceId),
          target: workspaceRows(target.config.databasePath, into, [`reader-${run}@target.example`]),
        };
        for (const table of Object.keys(OWNED)) expect(rows.target[table], table).to.deep.equal(rows.source[table]);

        // The same file again writes nothing: every entry and invoice is known by its id.
        const again = await cli(target, 'import', file, '--workspace', into, '--create-members', '--json');
        expect(again.json).to.deep.include({ imported: 0, duplicates: built.entries + built.invoices });
        expect(invoicingOf(target, into, reader.actor).read).to.deep.equal(invoicing.source.read);
      }),
      { seed: 20261126, numRuns: 30, endOnFailure: true },
    );
  });

  /** A client's invoicing details as its record names them (the columns of its table but its identity). */
  const CLIENT_FIELDS = [
    'legalName',
    'addressLines',
    'postalCode',
    'city',
    'country',
    'taxId',
    'email',
    'reference',
    'vatId',
    'electronicAddress',
    'electronicAddressScheme',
    'taxCategory',
    'exemptionReason',
    'exemptionReasonCode',
    // Its own rounding rule (issue 56 item 4): the web app's and the command line's, not the API's.
    'rounding',
    // Its own document language (decisions §12), alike.
    'language',
  ];

  it('writes the documented columns with a BOM and CRLF lines, catalog rows first; a member may not export, the range limits entries', async () => {
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Small', currency: 'EUR' });
    const owner = member(services, workspaceId, { name: 'Owner', email: 'owner-small@source.example' }, { owner: true });
    const ada = member(services, workspaceId, { name: 'Ada Lovelace', email: 'ada-small@example.org' });
    const acme = services.catalog.clients.create(owner.actor, { name: 'Acme, Inc.' });
    const site = services.catalog.projects.create(owner.actor, {
      name: 'Site',
      clientId: acme.id,
      billable: true,
      hourlyRate: 80.05,
      color: '#1F77B4',
    });
    services.catalog.tasks.create(owner.actor, { name: 'Unused', projectId: site.id, estimateSec: 3600 });
    const tag = services.catalog.tags.create(owner.actor, { name: 'a "b", c' });
    services.entries.create(ada.actor, {
      start: '2026-03-02T09:00:00Z',
      end: '2026-03-02T10:30:00.250Z',
      description: '=cmd|calc, "quoted"\nsecond line',
      projectId: site.id,
      tagIds: [tag.id],
      timeZone: 'Europe/Berlin',
    });
    services.entries.create(ada.actor, { start: '2026-04-01T09:00:00Z', end: '2026-04-01T10:00:00Z', description: 'April' });
    services.catalog.clients.update(owner.actor, acme.id, { archived: true });
    await committed();
    const file = join(dir, 'small.csv');
    const done = await cli(source, 'export', '--workspace', workspaceId, '--to', '2026-03-31', '--out', file, '--json');
    expect(done.json).to.deep.equal({
      workspaceId,
      path: file,
      entries: 1,
      clients: 1,
      projects: 1,
      tasks: 1,
      tags: 1,
      members: 2,
      invoices: 0,
      bytes: readFileSync(file).length,
    });
    const entryId = (services.entries.list(owner.actor, { from: '2026-03-01', to: '2026-03-31' }).rows[0] as { id: string }).id;
    expect(readFileSync(file, 'utf8')).to.equal(
      '\uFEFFrecord,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice\r\n' +
        // The workspace's own row and each member's (issue 56 item 6): name, settings, join domains; role and visibility.
        'workspace,,,,,,,,,,,,,,,,,,"{""v"":1,""hourlyRate"":null,""name"":""Small"",""runawayLimitSec"":36000,""runawayAction"":""flagged"",""rateLimitPerMin"":null,""joinDomains"":[]}",\r\n' +
        'member,,ada-small@example.org,Ada Lovelace,,,,,,,,,,,,,,,"{""v"":1,""hourlyRate"":null,""isOwner"":false,""canViewOthersTime"":true,""canViewOthersMoney"":true}",\r\n' +
        'member,,owner-small@source.example,Owner,,,,,,,,,,,,,,,"{""v"":1,""hourlyRate"":null,""isOwner"":true,""canViewOthersTime"":true,""canViewOthersMoney"":true}",\r\n' +
        `client,,,,,,,,"Acme, Inc.",,,,,,true,,,,"{""v"":1,""client"":{${CLIENT_FIELDS.map((f) => `""${f}"":null`).join(',')}}}",\r\n` +
        'project,,,,,,,,"Acme, Inc.",Site,,,true,80.05,false,#1f77b4,,,,\r\n' +
        'task,,,,,,,,"Acme, Inc.",Site,Unused,,,,false,,3600,,,\r\n' +
        'tag,,,,,,,,,,,"""a """"b"""", c""",,,,,,,,\r\n' +
        `entry,${entryId},ada-small@example.org,Ada Lovelace,2026-03-02T09:00:00Z,2026-03-02T10:30:00.250Z,Europe/Berlin,"'=cmd|calc, ""quoted""\nsecond line","Acme, Inc.",Site,,"""a """"b"""", c""",true,80.05,,,,,,\r\n`,
    );
    // Who: a member of the workspace may not; another workspace's owner does not see it; a bad range says so.
    expect(() => services.imports.exportWorkspace(ada.actor, { workspaceId })).to.throw('Only an owner of the workspace exports it');
    const stranger = member(
      services,
      services.accounts.createWorkspace(OPERATOR, { name: 'Other' }).id,
      { name: 'S', email: 'stranger@example.org' },
      { owner: true },
    );
    expect(() => services.imports.exportWorkspace(stranger.actor, { workspaceId })).to.throw(
      `Import workspace ${workspaceId} was not found.`,
    );
    const backwards = await cli(
      source,
      'export',
      '--workspace',
      workspaceId,
      '--from',
      '2026-04-01',
      '--to',
      '2026-03-01',
      '--out',
      join(dir, 'never.csv'),
    );
    expect(backwards.code).to.equal(1);
    expect(backwards.stderr).to.include('from must be before to');
    expect(existsSync(join(dir, 'never.csv')) || existsSync(join(dir, 'never.csv.partial'))).to.equal(false);
    const nowhere = await cli(source, 'export', '--workspace', workspaceId, '--out', join(dir, 'missing', 'x.csv'));
    expect(nowhere.code).to.equal(1);
    expect(nowhere.stderr).to.match(/^timetrack: Cannot write .*missing\/x\.csv: ENOENT/);
  });

  it('carries invoices, credit notes and their numbers: the series goes on after them, never into a workspace that numbered its own; an undo takes them back until the series went on', async () => {
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Billing', currency: 'EUR' });
    const owner = member(services, workspaceId, { name: 'Owner', email: 'owner-billing@source.example' }, { owner: true });
    const bea = member(services, workspaceId, { name: 'Bea', email: 'bea-billing@example.org' }, { hourlyRate: 90 });
    services.invoices.setSettings(OPERATOR, workspaceId, { numberPattern: 'RE-{yyyy}-{seq:3}', taxRate: 19 });
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
      legalName: 'Studio Owner',
      addressLines: ['Hauptstr. 1'],
      postalCode: '10115',
      city: 'Berlin',
      country: 'DE',
      email: 'owner@studio.example',
      vatId: 'DE136695976',
    });
    const acme = services.catalog.clients.create(owner.actor, {
      name: 'Acme',
      legalName: 'Acme GmbH',
      addressLines: ['Ring 2'],
      postalCode: '20095',
      city: 'Hamburg',
      country: 'DE',
      vatId: 'DE811569869',
    });
    const site = services.catalog.projects.create(owner.actor, { name: 'Site', clientId: acme.id, billable: true });
    const entry = (day: string) =>
      services.entries.create(bea.actor, { start: `2026-${day}T09:00:00Z`, end: `2026-${day}T10:30:00Z`, projectId: site.id }).id;
    const invoiceOf = (from: string, to: string) =>
      services.invoices.create(OPERATOR, { workspaceId, userId: owner.id, clientId: acme.id, from, to }).id;
    for (const day of ['08-03', '09-03', '10-05']) entry(day);
    const paid = invoiceOf('2026-08-01', '2026-08-31');
    services.invoices.issue(OPERATOR, paid, { userId: owner.id, date: '2026-09-01' });
    // Sent by mail before it was paid: the send is part of the invoice's history.
    const mailed = await services.invoices.send(OPERATOR, paid, { to: 'ap@acme.example', xml: null, message: null, userId: owner.id });
    services.invoices.markPaid(OPERATOR, paid, { userId: owner.id, date: '2026-09-20' });
    const voided = invoiceOf('2026-09-01', '2026-09-30');
    services.invoices.issue(OPERATOR, voided, { userId: owner.id, date: '2026-10-01' });
    services.invoices.void(OPERATOR, voided, { userId: owner.id, date: '2026-10-02' });
    const draft = invoiceOf('2026-10-01', '2026-10-31');
    // A manual line at its own 7 % on the draft (issue 57 item 1): carried, and checked as a draft takes it.
    services.invoices.addLine(OPERATOR, draft, {
      description: 'Lizenz',
      quantity: '1',
      unit: 'LS',
      unitPrice: '100',
      taxCategory: 'S',
      taxRate: '7',
    });
    await committed();
    const file = join(dir, 'billing.csv');
    const exported = await cli(source, 'export', '--workspace', workspaceId, '--out', file, '--json');
    expect(exported.json).to.deep.include({ entries: 3, members: 2, invoices: 3 });

    const byNumber = (server: TestServer, into: string) =>
      server.services.invoices
        .list(OPERATOR, into)
        .map((i) => [i.status, i.number, i.issueDate, i.paidDate, i.creditNote?.number ?? null, i.grossTotal])
        .sort();
    const expected = [
      ['draft', null, null, null, null, 267.65],
      ['paid', 'RE-2026-001', '2026-09-01', '2026-09-20', null, 160.65],
      ['void', 'RE-2026-002', '2026-10-01', null, 'RE-2026-003', 160.65],
    ];
    expect(byNumber(source, workspaceId)).to.deep.equal(expected);

    // Into an empty workspace: all of it, the entries on their invoices, the series going on after RE-2026-003.
    const fresh = () => {
      const { id } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Billing in', currency: 'EUR' });
      const reader = member(target.services, id, { name: 'Owner', email: `owner-${id}@target.example` }, { owner: true });
      return { id, reader };
    };
    // The file's people as members of a workspace (their accounts are made by the first import; --create-members makes no member of an account that exists).
    const joinFile = (workspaceId: string) => {
      for (const m of target.services.accounts
        .memberDirectory(into.id)
        .filter((x) => /billing@(example\.org|source\.example)$/.test(x.email)))
        target.services.accounts.addMember(OPERATOR, { workspaceId, userId: m.userId });
    };
    const into = fresh();
    await committed();
    const done = await target.services.imports.run(into.reader.actor, { workspaceId: into.id, path: file, createMembers: true });
    expect(done.report).to.deep.include({ imported: 3, refused: [], notices: [] });
    // Into a new workspace: its name and settings too, and Bea's role and visibility (the import made her a member; issue 56 item 6).
    expect(done.report.restored).to.deep.equal({ profile: 1, invoicing: 1, rates: 1, invoices: 3, workspace: 1, members: 1 });
    expect(byNumber(target, into.id)).to.deep.equal(expected);
    // Its sends by mail: to whom, when, which files, by whom (the mail itself stays with the server that sent it).
    const sendsOf = (server: TestServer, into: string) =>
      server.services.invoices
        .list(OPERATOR, into)
        .flatMap((i) => server.services.invoices.sends(OPERATOR, i.id))
        .map(({ id: _id, mailId: _mail, delivery: _delivery, by, ...send }) => ({ ...send, by: by.name }));
    expect(sendsOf(source, workspaceId)).to.deep.equal([
      { at: sendsOf(source, workspaceId)[0]?.at, document: 'invoice', to: 'ap@acme.example', files: mailed.files, by: 'Owner' },
    ]);
    expect(sendsOf(target, into.id)).to.deep.equal(sendsOf(source, workspaceId));
    // Which entries are invoiced, and on which: a voided invoice gave its entries back to be invoiced again.
    const invoiced = (server: TestServer, actor: Actor) =>
      server.services.entries
        .list(actor, { from: '2026-08-01', to: '2026-10-31' })
        .rows.map((e) => [e.start, e.invoiceId === null ? null : (server.services.invoices.get(OPERATOR, e.invoiceId).number ?? 'draft')])
        .sort();
    const holding = [
      ['2026-08-03T09:00:00.000Z', 'RE-2026-001'],
      ['2026-09-03T09:00:00.000Z', null],
      ['2026-10-05T09:00:00.000Z', 'draft'],
    ];
    expect(invoiced(source, owner.actor)).to.deep.equal(holding);
    expect(invoiced(target, into.reader.actor)).to.deep.equal(holding);
    const restoredDraft = target.services.invoices.list(OPERATOR, into.id, { status: 'draft' })[0]?.id as string;
    expect(target.services.invoices.get(OPERATOR, restoredDraft).lines[1]).to.deep.equal({
      description: 'Lizenz',
      projectId: null,
      quantitySec: 0,
      hourlyRate: null,
      amount: 100,
      taxCategory: 'S',
      taxRate: 7,
      manual: { quantity: 1, unit: 'LS', unitPrice: 100 },
    });
    expect(target.services.invoices.upcomingNumber(OPERATOR, into.id, into.reader.id)).to.deep.equal({
      number: 'RE-2026-004',
      date: source.services.invoices.upcomingNumber(OPERATOR, workspaceId, owner.id).date,
    });
    expect(source.services.invoices.upcomingNumber(OPERATOR, workspaceId, owner.id).number).to.equal('RE-2026-004');
    expect(target.services.invoices.issue(OPERATOR, restoredDraft, { userId: into.reader.id }).number).to.equal('RE-2026-004');
    expect(services.invoices.issue(OPERATOR, draft, { userId: owner.id }).number).to.equal('RE-2026-004');
    // Undone once the series went on after the restored numbers, RE-2026-001 … 004 would be given again: refused.
    const numberedSince = await target.services.imports.undo(into.reader.actor, done.report.importId as string).catch((e) => e);
    expect([numberedSince.code, numberedSince.message]).to.deep.equal([
      'conflict',
      `Import ${done.report.importId} cannot be undone: the workspace has issued a number since (RE-2026-004) after the numbers of the invoices it restored, and removing them would give that number again. Void what is wrong instead.`,
    ]);

    // Into a workspace that numbered invoices of its own: the numbered ones are refused, naming them; nothing is written.
    const own = fresh();
    target.services.invoices.setSettings(OPERATOR, own.id, { taxRate: 19 });
    const client = target.services.catalog.clients.create(own.reader.actor, { name: 'Mine' });
    const mine = target.services.catalog.projects.create(own.reader.actor, {
      name: 'Mine',
      clientId: client.id,
      billable: true,
      hourlyRate: 10,
    });
    target.services.entries.create(own.reader.actor, { start: '2026-10-01T09:00:00Z', end: '2026-10-01T10:00:00Z', projectId: mine.id });
    const ownInvoice = target.services.invoices.create(OPERATOR, {
      workspaceId: own.id,
      userId: own.reader.id,
      clientId: client.id,
      from: '2026-10-01',
      to: '2026-10-01',
    }).id;
    target.services.invoices.fill(OPERATOR, ownInvoice, own.reader.id, ISSUABLE);
    target.services.invoices.issue(OPERATOR, ownInvoice, { userId: own.reader.id });
    joinFile(own.id);
    await committed();
    const refused = await target.services.imports.run(own.reader.actor, { workspaceId: own.id, path: file, createMembers: true });
    expect(refused.stopped).to.equal(true);
    // (Invoices made in one millisecond are written in the order of their ids.)
    expect(refused.report.refused.map((r) => r.message).sort()).to.deep.equal(
      ['RE-2026-001', 'RE-2026-002 and RE-2026-003'].map(
        (numbers) =>
          `invoice ${numbers}: this workspace has issued numbers of its own (2026-0001), and numbered invoices are restored only into a workspace that has issued none, so that its series goes on from the file's without a gap or a number given twice. Import the file into a new workspace, or leave out its invoices with --skip-invalid.`,
      ),
    );
    expect(target.services.invoices.list(OPERATOR, own.id)).to.have.length(1);
    expect(target.services.entries.list(own.reader.actor, { from: '2026-08-01', to: '2026-10-31' }).rows).to.have.length(1);

    // An undo before the series went on takes the invoices, their numbers and the entries back.
    const again = fresh();
    joinFile(again.id);
    await committed();
    const second = await target.services.imports.run(again.reader.actor, { workspaceId: again.id, path: file, createMembers: true });
    expect(second.report.restored.invoices).to.equal(3);
    expect(await target.services.imports.undo(again.reader.actor, second.report.importId as string)).to.deep.equal({
      importId: second.report.importId,
      deleted: 3,
    });
    expect(target.services.invoices.list(OPERATOR, again.id)).to.deep.equal([]);
    expect(target.services.invoices.upcomingNumber(OPERATOR, again.id, again.reader.id).number).to.equal('RE-2026-001');
  });

  it('follows the rule of who reads invoices and money (issue 54 N7): an owner without money visibility gets no invoices, no project, task or colleagues’ rates, and the file says so in its head', async () => {
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Withheld', currency: 'EUR' });
    const person = (name: string, email: string, flags: { isOwner: boolean; canViewOthersMoney: boolean; hourlyRate?: number }) => {
      const { id } = services.accounts.createUser(OPERATOR, { name, email });
      services.accounts.addMember(OPERATOR, { workspaceId, userId: id, canViewOthersTime: true, ...flags });
      const { token } = services.tokens.create(OPERATOR, { workspaceId, userId: id, name: 'n7', scopes: SCOPES });
      return { id, actor: services.tokens.authenticate(token)?.actor as Actor };
    };
    const olga = person('Olga', 'olga-withheld@source.example', { isOwner: true, canViewOthersMoney: false });
    const max = person('Max', 'max-withheld@source.example', { isOwner: true, canViewOthersMoney: true });
    const bea = person('Bea', 'bea-withheld@example.org', { isOwner: false, canViewOthersMoney: false, hourlyRate: 90 });
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const acme = services.catalog.clients.create(max.actor, { name: 'Acme' });
    const site = services.catalog.projects.create(max.actor, {
      name: 'Site',
      clientId: acme.id,
      billable: true,
      hourlyRate: 80,
      budgetAmount: 1000,
    });
    services.catalog.tasks.create(max.actor, { name: 'Design', projectId: site.id, hourlyRate: 95 });
    services.entries.create(bea.actor, {
      start: '2026-03-02T09:00:00Z',
      end: '2026-03-02T10:00:00Z',
      description: 'Bea',
      projectId: site.id,
    });
    services.entries.create(olga.actor, {
      start: '2026-03-03T09:00:00Z',
      end: '2026-03-03T10:00:00Z',
      description: 'Olga',
      projectId: site.id,
    });
    const invoice = services.invoices.create(OPERATOR, {
      workspaceId,
      userId: max.id,
      clientId: acme.id,
      from: '2026-03-01',
      to: '2026-03-31',
    }).id;
    // What its PDF needs, filled on the invoice (issuing checks it first: issue 56 item 1).
    services.invoices.fill(OPERATOR, invoice, max.id, ISSUABLE);
    services.invoices.issue(OPERATOR, invoice, { userId: max.id, date: '2026-04-01' });
    // As the Workspace page's download and the command line read it: the rows of the file.
    const exported = async (principal: Actor | typeof OPERATOR) => {
      const run = services.imports.exportWorkspace(principal, { workspaceId });
      let text = '';
      for await (const chunk of run.chunks) text += chunk;
      return { text, counts: run.counts, rows: parse(text.replace(/^\uFEFF/, '')) as string[][] };
    };
    const cells = (rows: string[][], record: string) =>
      rows.filter((r) => r[0] === record).map((r) => Object.fromEntries((rows[0] as string[]).map((c, i) => [c, r[i]])));

    const withheld = await exported(olga.actor);
    expect(withheld.counts.invoices).to.equal(0);
    expect(withheld.rows[1]?.slice(0, 1)).to.deep.equal(['withheld']);
    expect(cells(withheld.rows, 'withheld')).to.deep.equal([
      {
        ...Object.fromEntries((withheld.rows[0] as string[]).map((c) => [c, ''])),
        record: 'withheld',
        description:
          "This export leaves out what its exporter may not read (colleagues' money): invoices and credit notes, project and task rates and budgets, and the rates of colleagues' entries (empty: an import gives them the usual rate). An owner who sees colleagues' money, or the operator (timetrack export), exports them.",
        data: '{"v":1,"withheld":["invoices","projectRates","taskRates","budgets","colleaguesEntryRates"]}',
      },
    ]);
    expect(cells(withheld.rows, 'invoice')).to.deep.equal([]);
    expect(cells(withheld.rows, 'project').map((p) => [p['hourlyRate (EUR)'], p.budgetAmount])).to.deep.equal([['', '']]);
    expect(cells(withheld.rows, 'task').map((t) => t['hourlyRate (EUR)'])).to.deep.equal(['']);
    // Olga's own entry keeps its rate; Bea's does not; neither names the invoice that holds it.
    expect(
      cells(withheld.rows, 'entry')
        .map((e) => [e.description, e['hourlyRate (EUR)'], e.invoice])
        .sort(),
    ).to.deep.equal([
      ['Bea', '', ''],
      ['Olga', '80', ''],
    ]);
    // The members' and the workspace's rates stay: an owner reads and sets them on the Members and Workspace pages.
    expect(
      cells(withheld.rows, 'member')
        .map((m) => [m.email, m.data])
        .sort(),
    ).to.deep.include([
      'bea-withheld@example.org',
      '{"v":1,"hourlyRate":90,"isOwner":false,"canViewOthersTime":true,"canViewOthersMoney":false}',
    ]);
    // Who reads money gets it all, as the operator does.
    for (const principal of [max.actor, OPERATOR]) {
      const whole = await exported(principal);
      expect(whole.counts.invoices).to.equal(1);
      expect(cells(whole.rows, 'withheld')).to.deep.equal([]);
      expect(
        cells(whole.rows, 'entry')
          .map((e) => [e.description, e['hourlyRate (EUR)'], e.invoice === invoice])
          .sort(),
      ).to.deep.equal([
        ['Bea', '80', true],
        ['Olga', '80', true],
      ]);
    }

    // Imported, the file says what it lacks; the colleague's entry takes the usual rate there (Bea's own, 90).
    const file = join(dir, 'withheld.csv');
    writeFileSync(file, withheld.text);
    const { id: into } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Withheld in', currency: 'EUR' });
    const done = await target.services.imports.run(OPERATOR, { workspaceId: into, path: file, createMembers: true });
    expect(done.report).to.deep.include({ refused: [], imported: 2 });
    expect(done.report.notices).to.include(
      "The file was exported by someone who may not read colleagues' money, so it leaves out invoices and credit notes, project and task rates and budgets, and the rates of colleagues' entries: those entries get the rate of their task, project, member or workspace here. To carry them, export the workspace as an owner who sees colleagues' money, or with timetrack export.",
    );
    expect(
      target.running.database.sqlite
        .prepare('select description, hourly_rate as rate, invoice_id as invoice from entries where workspace_id = ? order by description')
        .all(into),
    ).to.deep.equal([
      { description: 'Bea', rate: 90, invoice: null },
      { description: 'Olga', rate: 80, invoice: null },
    ]);
    expect(target.services.invoices.list(OPERATOR, into)).to.deep.equal([]);
  });

  it('carries approval and lock (issue 59 item 6): the settings and approvers, each period with its audit (who submitted, approved, rejected, when, with which note), locking its entries again; a second import adds nothing, an undo takes them back', async () => {
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Approved', currency: 'EUR' });
    const owner = member(services, workspaceId, { name: 'Owner', email: 'owner-approved@source.example' }, { owner: true });
    const bea = member(services, workspaceId, { name: 'Bea', email: 'bea-approved@example.org' });
    const cleo = member(services, workspaceId, { name: 'Cleo', email: 'cleo-approved@example.org' });
    services.approvals.setSettings(OPERATOR, workspaceId, { approval: 'weekly', lockedBefore: '2026-02-02' });
    services.approvals.setApprover(owner.actor, { workspaceId, userId: cleo.id, approver: true });
    for (const day of ['2026-03-03', '2026-03-10', '2026-03-17'])
      services.entries.create(bea.actor, { start: `${day}T09:00:00Z`, end: `${day}T11:00:00Z`, description: `Bea ${day}` });
    services.entries.create(cleo.actor, { start: '2026-03-04T09:00:00Z', end: '2026-03-04T10:00:00Z', description: 'Cleo' });
    // Approved by an approver; rejected with a note, then sent again and waiting; submitted and withdrawn (open).
    const approved = services.approvals.submit(bea.actor, { day: '2026-03-03' });
    services.approvals.approve(cleo.actor, approved.id, { note: 'Fine' });
    const waiting = services.approvals.submit(bea.actor, { day: '2026-03-10' });
    services.approvals.reject(owner.actor, waiting.id, { note: 'Name the client, please' });
    services.approvals.submit(bea.actor, { day: '2026-03-10' });
    const withdrawn = services.approvals.submit(bea.actor, { day: '2026-03-17' });
    services.approvals.reopen(bea.actor, withdrawn.id);
    const cleos = services.approvals.submit(cleo.actor, { day: '2026-03-04' });
    services.approvals.approve(OPERATOR, cleos.id);
    await committed();
    const file = join(dir, 'approved.csv');
    const exported = await cli(source, 'export', '--workspace', workspaceId, '--out', file, '--json');
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.json).to.deep.include({ entries: 4 });
    const rows = (parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), { columns: true }) as Array<Record<string, string>>).filter(
      (r) => Object.values(r)[0] === 'approval' || Object.values(r)[0] === 'period',
    );
    expect(rows.map((r) => Object.values(r)[0])).to.deep.equal(['approval', 'period', 'period', 'period', 'period']);

    /** A workspace's approval as comparable values: the settings, each period with its audit, people by name. */
    const approvalOf = (server: TestServer, into: string) => {
      const settings = server.services.approvals.settings(OPERATOR, into);
      const names = new Map(server.services.accounts.memberDirectory(into).map((m) => [m.userId, m.name]));
      const periods = server.services.approvals.list(OPERATOR, into).map((p) => {
        const { audit } = server.services.approvals.period(OPERATOR, p.id);
        return {
          member: p.userName,
          kind: p.kind,
          startDay: p.startDay,
          from: p.from,
          to: p.to,
          state: p.state,
          note: p.note,
          submittedAt: p.submittedAt,
          decidedAt: p.decidedAt,
          decidedBy: p.decidedBy?.name ?? null,
          totals: p.totals,
          audit: audit.map((a) => ({ action: a.action, by: a.by?.name ?? null, note: a.note, at: a.at })),
        };
      });
      return {
        approval: settings.approval,
        lockedBefore: settings.lockedBefore,
        approvers: settings.approvers.map((id) => names.get(id)),
        periods: periods.sort((a, b) => (a.member + a.startDay < b.member + b.startDay ? -1 : 1)),
      };
    };
    const expected = approvalOf(source, workspaceId);
    expect(
      expected.periods.map((p) => [p.member, p.startDay, p.state, p.audit.map((a) => `${a.action} by ${a.by ?? 'the operator'}`)]),
    ).to.deep.equal([
      ['Bea', '2026-03-02', 'approved', ['submitted by Bea', 'approved by Cleo']],
      ['Bea', '2026-03-09', 'submitted', ['submitted by Bea', 'rejected by Owner', 'submitted by Bea']],
      ['Bea', '2026-03-16', 'open', ['submitted by Bea', 'withdrawn by Bea']],
      ['Cleo', '2026-03-02', 'approved', ['submitted by Cleo', 'approved by the operator']],
    ]);

    const { id: into } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Approved in', currency: 'EUR' });
    const reader = member(target.services, into, { name: 'Owner', email: 'owner-approved@target.example' }, { owner: true });
    await committed();
    const done = await target.services.imports.run(reader.actor, { workspaceId: into, path: file, createMembers: true });
    expect(done.report).to.deep.include({ imported: 4, refused: [], notices: [] });
    const restored = approvalOf(target, into);
    expect(restored).to.deep.equal(expected);
    // The approved week locks its entries again, the lock date too: an edit of Bea's approved entry answers 409.
    const beaHere = target.services.accounts.memberDirectory(into).find((m) => m.email === 'bea-approved@example.org');
    const token = target.services.tokens.create(OPERATOR, {
      workspaceId: into,
      userId: beaHere!.userId,
      name: 'bea',
      scopes: SCOPES,
    }).token;
    const entry = target.services.entries
      .list(reader.actor, { from: '2026-03-02', to: '2026-03-08' })
      .rows.find((e) => e.description === 'Bea 2026-03-03');
    const edit = await target.request('PATCH', `/api/v1/entries/${entry!.id}`, { token, json: { description: 'Changed' } });
    expect([edit.status, edit.body.type]).to.deep.equal([409, 'http://localhost:0/problems/conflict']);
    expect(edit.body.detail).to.match(/approved/);

    // The same file again: the periods are there, nothing is added.
    const again = await target.services.imports.run(reader.actor, { workspaceId: into, path: file, createMembers: true });
    expect(again.report).to.deep.include({ imported: 0, duplicates: 4, refused: [] });
    expect(approvalOf(target, into)).to.deep.equal(restored);
    if (again.report.importId) await target.services.imports.undo(reader.actor, again.report.importId);
    expect(approvalOf(target, into)).to.deep.equal(restored);
    // The undo of the first import takes its periods, their audit and the settings with it (its entries were locked by them).
    const undone = await target.services.imports.undo(reader.actor, done.report.importId as string);
    expect(undone.deleted).to.equal(4);
    expect(approvalOf(target, into)).to.deep.equal({ approval: 'off', lockedBefore: null, approvers: [], periods: [] });
    // Someone of the file who is no member here (the owner's address changed in the file): the audit keeps her name.
    const renamed = join(dir, 'approved-renamed.csv');
    const text = readFileSync(file, 'utf8');
    writeFileSync(renamed, text.replace(/""email"":""owner-approved@source\.example""/g, '""email"":""gone@source.example""'));
    expect(readFileSync(renamed, 'utf8')).to.not.equal(text);
    const { id: other } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Approved again', currency: 'EUR' });
    const otherOwner = member(target.services, other, { name: 'Owner', email: 'owner-approved2@target.example' }, { owner: true });
    // Bea and Cleo have accounts here since the first import (--create-members makes no member of an account that exists).
    for (const m of target.services.accounts.memberDirectory(into).filter((x) => /^(bea|cleo)-approved@/.test(x.email)))
      target.services.accounts.addMember(OPERATOR, { workspaceId: other, userId: m.userId });
    await committed();
    const third = await target.services.imports.run(otherOwner.actor, { workspaceId: other, path: renamed, createMembers: true });
    expect(third.report).to.deep.include({ imported: 4, refused: [] });
    const rejected = target.services.approvals.list(OPERATOR, other).find((p) => p.startDay === '2026-03-09');
    expect(target.services.approvals.period(OPERATOR, rejected?.id ?? '').audit.map((a) => a.by)).to.deep.equal([
      { userId: rejected?.userId, name: 'Bea' },
      { userId: null, name: 'Owner' },
      { userId: rejected?.userId, name: 'Bea' },
    ]);
    const left = target.running.database.sqlite.prepare('select count(*) as n from approval_audit where workspace_id = ?').get(into);
    expect(left).to.deep.equal({ n: 0 });
  });

  it('carries expenses and their receipts (issue 57): new ids, author, project and invoice mapped, the receipts’ bytes identical; a second import adds nothing, an undo takes them back, a record of another version is refused', async () => {
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Spent', currency: 'EUR' });
    const owner = member(services, workspaceId, { name: 'Owner', email: 'owner-spent@source.example' }, { owner: true });
    const bea = member(services, workspaceId, { name: 'Bea', email: 'bea-spent@example.org' });
    const acme = services.catalog.clients.create(owner.actor, { name: 'Acme', ...DETAILS.domestic }).id;
    const site = services.catalog.projects.create(owner.actor, { name: 'Site', clientId: acme, billable: true, hourlyRate: 80 }).id;
    const inner = services.catalog.projects.create(owner.actor, { name: 'Inner', clientId: null, billable: false }).id;
    // A receipt of four parts (150,000 bytes: a line holds at most 100,000 characters), one small PDF, one expense without.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(150_000 - 8)]);
    const pdf = Buffer.from('%PDF-1.4\n% a receipt\n%%EOF\n');
    const train = services.expenses.add(
      bea.actor,
      { day: '2026-04-02', description: 'Train, "Berlin"', amount: '49,90', projectId: site },
      { name: 'ticket.png', bytes: png },
    );
    services.expenses.add(
      owner.actor,
      { day: '2026-04-03', description: '=Book', amount: '12.5', projectId: inner, taxCategory: 'S', taxRate: 7 },
      { name: 'book.pdf', bytes: pdf },
    );
    services.expenses.add(bea.actor, { day: '2026-04-04', description: 'Taxi', amount: '20', projectId: site, billable: false });
    services.entries.create(bea.actor, {
      start: '2026-04-02T09:00:00Z',
      end: '2026-04-02T10:00:00Z',
      description: 'Work',
      projectId: site,
    });
    const invoice = services.invoices.create(OPERATOR, {
      workspaceId,
      userId: owner.id,
      clientId: acme,
      from: '2026-04-01',
      to: '2026-04-30',
    });
    expect(services.expenses.get(OPERATOR, train.id)).to.deep.include({ invoiceId: invoice.id });
    await committed();
    const file = join(dir, 'spent.csv');
    const exported = await cli(source, 'export', '--workspace', workspaceId, '--out', file, '--json');
    expect(exported.code, exported.stderr).to.equal(0);
    const kinds = (
      parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), { columns: true, relax_column_count: false }) as Array<
        Record<string, string>
      >
    )
      .map((r) => Object.values(r)[0])
      .filter((k) => k === 'expense' || k === 'receipt');
    expect(kinds).to.deep.equal(['expense', 'receipt', 'receipt', 'receipt', 'receipt', 'expense', 'receipt', 'expense']);

    const { id: into } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Spent in', currency: 'EUR' });
    const reader = member(target.services, into, { name: 'Reader', email: 'reader-spent@target.example' }, { owner: true });
    await committed();
    const count = () => target.running.database.sqlite.prepare('select count(*) as n from expenses where workspace_id = ?').get(into);
    const done = await target.services.imports.run(reader.actor, { workspaceId: into, path: file, createMembers: true });
    expect(done.report).to.deep.include({ imported: 1, refused: [], notices: [] });
    const rows = {
      source: workspaceRows(source.config.databasePath, workspaceId),
      target: workspaceRows(target.config.databasePath, into, ['reader-spent@target.example']),
    };
    expect(rows.source.expenses).to.have.length(3);
    expect(rows.source.expense_receipts).to.have.length(2);
    for (const table of ['expenses', 'expense_receipts', 'invoices']) expect(rows.target[table], table).to.deep.equal(rows.source[table]);
    const moved = target.services.expenses.list(OPERATOR, { workspaceId: into }).find((e) => e.description === 'Train, "Berlin"');
    expect(moved?.id).to.not.equal(train.id);
    expect(target.services.expenses.receipt(OPERATOR, moved?.id as string)).to.deep.equal({
      fileName: 'ticket.png',
      mediaType: 'image/png',
      bytes: png,
    });

    // The same file again adds no expense; its undo and the first's take back what each wrote.
    const again = await target.services.imports.run(reader.actor, { workspaceId: into, path: file, createMembers: true });
    expect(again.report).to.deep.include({ imported: 0, refused: [] });
    expect(count()).to.deep.equal({ n: 3 });
    if (again.report.importId) await target.services.imports.undo(reader.actor, again.report.importId);
    expect(count()).to.deep.equal({ n: 3 });
    await target.services.imports.undo(reader.actor, done.report.importId as string);
    expect(count()).to.deep.equal({ n: 0 });
    expect(
      target.running.database.sqlite.prepare('select count(*) as n from expense_receipts where workspace_id = ?').get(into),
    ).to.deep.equal({ n: 0 });

    // A record of a later version is refused, naming its line and what this version reads.
    const later = join(dir, 'spent-v2.csv');
    writeFileSync(later, readFileSync(file, 'utf8').replace('{""v"":1,""day"":""2026-04-04""', '{""v"":2,""day"":""2026-04-04""'));
    const refused = await target.services.imports.run(reader.actor, { workspaceId: into, path: later, createMembers: true });
    expect(refused.report.refused.map((r) => r.message)).to.deep.equal([
      'data: an expense record of version 2; this version of timetrack reads version 1',
    ]);
  });

  it('a member importing an export takes none of its rates; an owner’s import into a workspace with the catalog keeps the rows there as they are', async () => {
    const { services } = source;
    const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Rates', currency: 'EUR' });
    const owner = member(services, workspaceId, { name: 'Owner', email: 'owner-rates@source.example' }, { owner: true });
    const bea = member(services, workspaceId, { name: 'Bea', email: 'bea-rates@example.org' });
    const p = services.catalog.projects.create(owner.actor, { name: 'Paid', billable: true, hourlyRate: 5000 });
    services.entries.create(bea.actor, { start: '2026-03-02T09:00:00Z', end: '2026-03-02T10:00:00Z', projectId: p.id });
    await committed();
    const file = join(dir, 'rates.csv');
    expect((await cli(source, 'export', '--workspace', workspaceId, '--out', file)).code).to.equal(0);
    const { id: into } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Rates in', currency: 'EUR', hourlyRate: 40 });
    const self = member(target.services, into, { name: 'Bea', email: 'bea-rates-target@example.org' });
    const outcome = await target.services.imports.run(self.actor, { workspaceId: into, path: file });
    expect(outcome.report.notices).to.deep.equal([
      "The file's rates (2 rows) are not imported: rates are an owner's to set. Your entries get the rate of their task, their project, your membership or the workspace, as the entries you track do; an owner can import the file with its rates.",
    ]);
    const entry = target.services.entries.list(self.actor, { from: '2026-03-01', to: '2026-03-31' }).rows[0];
    expect([entry?.hourlyRate, entry?.amount]).to.deep.equal([40, 40]);
    const project = target.services.catalog.projects.list(self.actor, {}).find((x) => x.name === 'Paid');
    expect(project?.hourlyRate ?? null).to.equal(null);
    // A file for the wrong currency is refused before anything is written.
    writeFileSync(file, readFileSync(file, 'utf8').replace('hourlyRate (EUR)', 'hourlyRate (USD)'));
    const { id: other } = target.services.accounts.createWorkspace(OPERATOR, { name: 'Euro', currency: 'EUR' });
    await committed();
    const refused = await cli(target, 'import', file, '--workspace', other, '--create-members', '--json');
    expect(JSON.parse(refused.stderr).error.message).to.match(/^The file's amounts are in USD and the workspace's in EUR/);
  });
});
