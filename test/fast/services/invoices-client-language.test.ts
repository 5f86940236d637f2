import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import type { DomainError } from '../../../src/errors.js';
import { type InvoiceView, settingsPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * A client's own document language (decisions §12, issue 57 item 5): unset, the workspace's
 * invoicing language; set (en, de), the client's wins on its invoices; an invoice keeps the
 * language it was made with; French and Dutch are refused as not offered yet.
 */

function setup() {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  return {
    ...world,
    settings: (...pairs: Array<[string, string]>) => services.invoices.setSettings(OPERATOR, workspaceId, settingsPatchOfText(pairs)),
    /** A client with one billable hour on a project of its own in October 2026. */
    client: (name: string) => {
      const id = services.catalog.clients.create(owner, { name, country: 'DE' }).id;
      const projectId = services.catalog.projects.create(owner, { name: `${name} site`, clientId: id, billable: true, hourlyRate: 100 }).id;
      services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z', billable: true });
      return id;
    },
    create: (clientId: string) =>
      services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id,
    get: (id: string): InvoiceView => services.invoices.get(OPERATOR, id),
    language: (clientId: string, value: unknown) => services.invoices.setClientLanguage(OPERATOR, workspaceId, clientId, value),
  };
}

describe('invoices service: a client’s own document language (decisions §12)', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });

  it('the client’s language wins over the workspace’s; unset, the workspace’s; blank unsets it', () => {
    w.settings(['language', 'en']);
    const acme = w.client('Acme');
    const globex = w.client('Globex');
    expect(w.language(acme, 'de')).to.deep.equal({ id: acme });
    expect([...w.services.invoices.clientLanguages(OPERATOR, w.workspaceId)]).to.deep.equal([[acme, 'de']]);
    const a = w.get(w.create(acme));
    const g = w.get(w.create(globex));
    expect([a.language, g.language]).to.deep.equal(['de', 'en']);
    // A German workspace and an English client: the client's still wins.
    w.settings(['language', 'de']);
    w.language(globex, 'en');
    w.services.invoices.changeStatus(OPERATOR, g.id, 'void', w.ownerId);
    expect(w.get(w.create(globex)).language).to.equal('en');
    // Blank gives it back to the workspace's.
    w.language(globex, ' ');
    expect(w.services.invoices.clientLanguages(OPERATOR, w.workspaceId).has(globex)).to.equal(false);
  });

  it('an issued invoice keeps the language it was made with, after the client’s and the workspace’s change, and when voided', () => {
    w.services.invoices.setBusinessProfile(OPERATOR, w.workspaceId, {
      legalName: 'Ada Lovelace Design',
      country: 'DE',
      vatId: 'DE136695976',
    });
    const acme = w.client('Acme');
    w.language(acme, 'de');
    const id = w.create(acme);
    w.services.invoices.issue(OPERATOR, id, { userId: w.ownerId });
    const issued = w.get(id);
    expect(issued.language).to.equal('de');
    expect(issued.paymentTerms).to.match(/^Zahlbar/);
    w.language(acme, 'en');
    w.settings(['language', 'en']);
    expect(w.get(id)).to.deep.equal(issued);
    w.services.invoices.changeStatus(OPERATOR, id, 'void', w.ownerId);
    expect(w.get(id).language).to.equal('de');
  });

  it('refuses French and Dutch as not offered yet, and any other value, at the language', () => {
    const acme = w.client('Acme');
    for (const [value, words] of [
      ['fr', /^language fr \(French\) is not offered yet: the French labels exist, but invoices are made in en or de only/],
      ['nl', /^language nl \(Dutch\) is not offered yet/],
      ['es', /^language must be en or de \(the documents' labels; got "es"\)\.$/],
    ] as const) {
      let refused: DomainError | undefined;
      try {
        w.language(acme, value);
      } catch (error) {
        refused = error as DomainError;
      }
      expect([refused?.code, refused?.field], value).to.deep.equal(['invalid', 'language']);
      expect(refused?.message, value).to.match(words);
    }
    // The workspace's setting refuses them alike.
    expect(() => w.settings(['language', 'fr'])).to.throw(/language fr \(French\) is not offered yet/);
    expect(w.services.invoices.clientLanguages(OPERATOR, w.workspaceId).size).to.equal(0);
  });

  it('who sets it: owners and the operator; a member is refused, a stranger finds nothing; the API’s client does not carry it', () => {
    const acme = w.client('Acme');
    const member = w.member({ canViewOthersTime: true, canViewOthersMoney: true });
    expect(refusal(() => w.services.invoices.setClientLanguage(member, w.workspaceId, acme, 'de')).code).to.equal('forbidden');
    expect(refusal(() => w.services.invoices.clientLanguages(member, w.workspaceId)).code).to.equal('forbidden');
    expect(refusal(() => w.services.invoices.setClientLanguage(w.member(), w.workspaceId, acme, 'de')).code).to.equal('not_found');
    expect(refusal(() => w.services.invoices.setClientLanguage(w.owner, w.workspaceId, 'cli_nothing', 'de')).code).to.equal('not_found');
    expect(w.services.invoices.setClientLanguage(w.owner, w.workspaceId, acme, ' DE ')).to.deep.equal({ id: acme });
    expect(w.services.invoices.clientLanguages(w.owner, w.workspaceId).get(acme)).to.equal('de');
    // The API's client does not carry it (the contract is unchanged): a web app and command line setting.
    expect(w.services.catalog.clients.get(w.owner, acme)).to.not.have.property('language');
  });

  it('travels with the whole-workspace export: an import restores each client’s and each invoice’s; a file with fr is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-language-'));
    try {
      const acme = w.client('Acme');
      w.client('Globex');
      w.language(acme, 'de');
      w.create(acme);
      let text = '';
      for await (const chunk of w.services.imports.exportWorkspace(OPERATOR, { workspaceId: w.workspaceId }).chunks) text += chunk;
      expect(text).to.contain('""language"":""de""');
      const restore = async (file: string) => {
        const path = join(dir, `export-${Date.now()}-${Math.random()}.csv`);
        writeFileSync(path, file);
        const { id } = w.services.accounts.createWorkspace(OPERATOR, { name: 'Restored', currency: 'EUR' });
        return { id, outcome: await w.services.imports.run(OPERATOR, { workspaceId: id, path, createMembers: true }) };
      };
      const { id, outcome } = await restore(text);
      expect(outcome.report.refused).to.deep.equal([]);
      const clients = new Map(w.services.catalog.clients.list({ ...w.owner, workspaceId: id }, {}).map((c) => [c.name, c.id]));
      expect([...w.services.invoices.clientLanguages(OPERATOR, id)]).to.deep.equal([[clients.get('Acme'), 'de']]);
      expect(w.services.invoices.list(OPERATOR, id).map((i) => i.language)).to.deep.equal(['de']);

      const forged = await restore(text.replace('""language"":""de""', '""language"":""fr""'));
      expect(forged.outcome.stopped).to.equal(true);
      expect(forged.outcome.report.refused.map((r) => r.message).join(' ')).to.match(/language fr \(French\) is not offered yet/);
      expect(w.services.invoices.list(OPERATOR, forged.id)).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('workspace invoicing --client (the command line)', () => {
    async function cli(...argv: string[]) {
      let stdout = '';
      let stderr = '';
      const code = await runCli([...argv, '--json'], {
        openDatabase: () => ({ ...w.database, close: () => {} }),
        createServices: () => w.services,
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
      });
      return { code, out: stdout ? JSON.parse(stdout) : undefined, error: stderr ? JSON.parse(stderr).error : undefined };
    }

    it('prints and sets a client’s language beside its rounding; refuses fr saying it is not offered yet', async () => {
      const ws = w.workspaceId;
      const acme = w.client('Acme');
      expect((await cli('workspace', 'invoicing', ws, '--client', acme)).out).to.deep.equal({
        client: acme,
        rounding: null,
        language: null,
      });
      expect((await cli('workspace', 'invoicing', ws, '--client', acme, '--set', 'language=de')).out).to.deep.equal({ id: acme });
      expect((await cli('workspace', 'invoicing', ws, '--client', acme)).out).to.deep.equal({
        client: acme,
        rounding: null,
        language: 'de',
      });
      expect(w.get(w.create(acme)).language).to.equal('de');

      const fr = await cli('workspace', 'invoicing', ws, '--client', acme, '--set', 'rounding=up-15', '--set', 'language=fr');
      expect([fr.code, fr.error.code]).to.deep.equal([1, 'invalid']);
      expect(fr.error.message).to.match(/^language fr \(French\) is not offered yet/);
      // Nothing of the refused command was written.
      expect((await cli('workspace', 'invoicing', ws, '--client', acme)).out).to.deep.equal({
        client: acme,
        rounding: null,
        language: 'de',
      });
      expect((await cli('workspace', 'invoicing', ws, '--client', acme, '--set', 'language=')).out).to.deep.equal({ id: acme });
      expect((await cli('workspace', 'invoicing', ws, '--client', acme)).out.language).to.equal(null);
    });
  });
});
