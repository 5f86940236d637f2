import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { loadContract } from '../../../src/contract.js';
import { createWrite } from '../../../src/db/write.js';
import type { DomainError } from '../../../src/errors.js';
import { createInvoicesRepository } from '../../../src/modules/invoices/repository.js';
import { createInvoicesService, type InvoiceView, issuerPatchOfText, settingsPatchOfText } from '../../../src/modules/invoices/service.js';
import { type Actor, OPERATOR, type Principal } from '../../../src/principal.js';
import { invoicePorts } from '../../../src/services.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';
import { refusal } from '../../helpers/refusal.js';

/*
 * The life of an invoice (decisions §11) over the real services on :memory:, with a manual clock
 * at 2026-11-02T10:00:30Z: settings, creation (lines, tax), issuing (numbers, dates), paid, void
 * and credit notes, and who may do what.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(loadContract() as object, 'contract');
/** The invoice is what the contract's webhook payloads promise. */
function expectContractInvoice(invoice: unknown): void {
  const validate = ajv.getSchema('contract#/components/schemas/Invoice')!;
  expect(validate(invoice), JSON.stringify(validate.errors)).to.equal(true);
}

const expectRefused = (fn: () => unknown, code: DomainError['code'], pattern?: RegExp): DomainError => {
  const error = refusal(fn);
  expect(error.code, error.message).to.equal(code);
  if (pattern) expect(error.message).to.match(pattern);
  return error;
};

function setup(options: { defaultTimeZone?: string } = {}) {
  const world = memoryServices(options);
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  // What every issued invoice's PDF needs (issuing checks it first: issue 56 item 1): both parties' names and countries, a tax number.
  services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
    legalName: 'Ada Lovelace Design',
    country: 'DE',
    taxNumber: '30/123/45678',
  });
  let day = 0;
  const self = {
    ...world,
    client: (name: string, fields: Record<string, unknown> = {}) =>
      services.catalog.clients.create(owner, { name, country: 'DE', ...fields } as never).id,
    project: (name: string, clientId: string | null, hourlyRate: number | null = 100) =>
      services.catalog.projects.create(owner, { name, clientId, billable: true, hourlyRate }).id,
    entry: (projectId: string, start: string, end: string, by: Actor = owner, extra: Record<string, unknown> = {}) =>
      services.entries.create(by, { projectId, start, end, billable: true, ...extra }).id,
    invoiceIdOf: (entryId: string) => services.entries.get(owner, entryId).invoiceId,
    create: (clientId: string, from = '2026-10-01', to = '2026-10-31', more: Record<string, unknown> = {}) =>
      services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from, to, ...more }).id,
    get: (id: string): InvoiceView => services.invoices.get(OPERATOR, id),
    events: () => services.events.tail(OPERATOR, workspaceId, 0, 10_000),
    issue: (id: string, date?: string) => services.invoices.issue(OPERATOR, id, { userId: ownerId, ...(date ? { date } : {}) }),
    /** A draft of one hour (100.00 net) on a day of its own. */
    draft(clientId: string, projectId: string): string {
      const date = new Date(Date.UTC(2026, 0, 1 + day++)).toISOString().slice(0, 10);
      self.entry(projectId, `${date}T09:00:00Z`, `${date}T10:00:00Z`);
      return self.create(clientId, date, date);
    },
  };
  return self;
}

let strangers = 0;
/** An owner of another workspace, as a principal. */
function foreignOwner(world: ServiceWorld): Actor {
  const { accounts, tokens } = world.services;
  const n = ++strangers;
  const workspaceId = accounts.createWorkspace(OPERATOR, { name: `Elsewhere ${n}` }).id;
  const userId = accounts.createUser(OPERATOR, { name: 'Stranger', email: `stranger${n}@example.org` }).id;
  accounts.addMember(OPERATOR, { workspaceId, userId, canViewOthersTime: true, canViewOthersMoney: true, isOwner: true });
  const token = tokens.create(OPERATOR, { workspaceId, userId, name: 't', scopes: ['entries:read'] }).token;
  return tokens.authenticate(token)!.actor;
}

describe('invoices service: settings', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('has defaults, takes each key, and a blank value resets one', () => {
    const { invoices } = w.services;
    const fresh = memoryServices();
    expect(fresh.services.invoices.settings(OPERATOR, fresh.workspaceId)).to.deep.equal({
      numberPattern: '{yyyy}-{seq:4}',
      taxCategory: 'S',
      taxRate: null,
      exemptionReason: null,
      exemptionReasonCode: null,
      language: 'en',
      rounding: null,
      earlyPayment: null,
      reminders: null,
    });
    fresh.close();
    const set = (...pairs: Array<[string, string]>) => invoices.setSettings(OPERATOR, w.workspaceId, settingsPatchOfText(pairs));
    expect(
      set(
        ['numberPattern', ' RE-{yy}{mm}-{seq:3} '],
        ['taxCategory', 'E'],
        ['taxRate', '7.7'],
        ['exemptionReason', ' Kleinunternehmer gemäß § 19 UStG '],
        ['exemptionReasonCode', 'VATEX-EU-132-1A'],
        ['language', 'de'],
        ['rounding', 'Up 15'],
        ['earlyPayment', '2/10'],
        ['reminders', 'on'],
      ),
    ).to.deep.equal({ id: w.workspaceId });
    expect(invoices.settings(OPERATOR, w.workspaceId)).to.deep.equal({
      numberPattern: 'RE-{yy}{mm}-{seq:3}',
      taxCategory: 'E',
      taxRate: 7.7,
      exemptionReason: 'Kleinunternehmer gemäß § 19 UStG',
      exemptionReasonCode: 'VATEX-EU-132-1A',
      language: 'de',
      rounding: 'up-15',
      earlyPayment: '2 % within 10 days',
      reminders: '7, 21',
    });
    set(['numberPattern', ''], ['taxRate', ' '], ['language', ''], ['rounding', 'none'], ['earlyPayment', ''], ['reminders', 'off']);
    expect(invoices.settings(OPERATOR, w.workspaceId)).to.deep.include({
      numberPattern: '{yyyy}-{seq:4}',
      taxRate: null,
      language: 'en',
      rounding: null,
      earlyPayment: null,
      reminders: null,
    });
  });

  it('refuses what is not a setting or not its kind, saying what to give; a refused change changes nothing', () => {
    const { invoices } = w.services;
    const before = invoices.settings(OPERATOR, w.workspaceId);
    const set =
      (...pairs: Array<[string, string]>) =>
      () =>
        invoices.setSettings(OPERATOR, w.workspaceId, settingsPatchOfText(pairs));
    const refused: Array<[Array<[string, string]>, RegExp]> = [
      [
        [['numberPattern', '{yyyy}-0001']],
        /must hold \{seq\} \(or \{seq:N\}, padded with zeros to N digits\) exactly once.*For example \{yyyy\}-\{seq:4\} gives 2026-0001/,
      ],
      [[['numberPattern', '{seq}-{seq}']], /exactly once/],
      [[['numberPattern', '{yyyy}-{n}-{seq}']], /unknown token: the tokens are \{yyyy\}, \{yy\}, \{mm\}, \{seq\} and \{seq:N\}/],
      [[['numberPattern', 'A:{seq}']], /only letters, digits, spaces and \. _ \/ # -/],
      [[['numberPattern', '{seq:12}']], /N from 1 to 9/],
      [[['taxRate', 'nineteen']], /taxRate must be a percentage from 0 to 100, such as 19 or 7\.7, without %/],
      [[['taxRate', '19%']], /without %/],
      [[['taxRate', '101']], /from 0 to 100/],
      [[['taxCategory', 'X']], /taxCategory must be one of S, AE, K, G, E, Z, O/],
      [[['exemptionReasonCode', 'EXEMPT']], /VATEX code such as VATEX-EU-AE/],
      // French and Dutch labels exist, but are not offered yet (decisions §12); anything else is no language of ours.
      [[['language', 'fr']], /language fr \(French\) is not offered yet/],
      [[['language', 'es']], /language must be en or de/],
      [[['rounding', 'up-7']], /rounding must be none, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes, written as up-15/],
      [[['currency', 'USD']], /currency is not an invoicing setting; the settings are numberPattern, taxCategory/],
      // One bad key refuses the whole change.
      [
        [
          ['language', 'de'],
          ['taxRate', 'x'],
        ],
        /taxRate/,
      ],
    ];
    for (const [pairs, pattern] of refused) expectRefused(set(...pairs), 'invalid', pattern);
    expectRefused(() => invoices.setSettings(OPERATOR, w.workspaceId, {}), 'invalid', /at least one/);
    expectRefused(() => invoices.setSettings(OPERATOR, 'ws_unknown', { taxRate: 7 }), 'not_found');
    expect(invoices.settings(OPERATOR, w.workspaceId)).to.deep.equal(before);
  });

  it('owners (whatever they may see) and the operator read and change them; a member who reads invoices is refused; anyone else finds nothing', () => {
    const { invoices } = w.services;
    expect(invoices.setSettings(w.owner, w.workspaceId, { language: 'de' })).to.deep.equal({ id: w.workspaceId });
    expect(invoices.settings(w.owner, w.workspaceId).language).to.equal('de');
    const coOwner = w.member({ isOwner: true });
    expect(invoices.settings(coOwner, w.workspaceId).language).to.equal('de');
    expectRefused(
      () => invoices.setSettings(w.member({ canViewOthersTime: true, canViewOthersMoney: true }), w.workspaceId, { taxRate: 7 }),
      'forbidden',
      /owners/,
    );
    expectRefused(() => invoices.settings(w.member({ canViewOthersMoney: true }), w.workspaceId), 'not_found');
    expectRefused(() => invoices.settings(w.member({ canViewOthersTime: true }), w.workspaceId), 'not_found');
    expectRefused(() => invoices.setSettings(foreignOwner(w), w.workspaceId, { taxRate: 7 }), 'not_found');
    expect(invoices.settings(OPERATOR, w.workspaceId).taxRate).to.equal(19);
  });
});

describe('invoices service: creating', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('makes one line per group and rate for each grouping; a line is rate × its seconds / 3600 rounded once, an entry line the entry', () => {
    const { services, owner, workspaceId, ownerId } = w;
    const acme = w.client('Acme');
    const design = w.project('Design', acme, 100);
    const review = services.catalog.tasks.create(owner, { name: 'Review', projectId: design, hourlyRate: 90 }).id;
    const build = w.project('Build', acme, 0.09);
    const bea = w.member({ name: 'Bea', canViewOthersTime: true });
    w.entry(design, '2026-10-01T09:00:00Z', '2026-10-01T10:00:00Z'); // 100.00
    w.entry(design, '2026-10-02T09:00:00Z', '2026-10-02T09:30:00Z', owner, { taskId: review, description: 'Review of the draft' }); // 45.00
    // 1000 s at 0.09/h = 0.025 each: three entries of 0.03 (half away from zero), one line of 3000 s = 0.075 -> 0.08.
    for (const d of ['03', '04', '05']) w.entry(build, `2026-10-${d}T09:00:00Z`, `2026-10-${d}T09:16:40Z`, owner, { description: 'Build' });
    w.entry(design, '2026-10-06T09:00:00Z', '2026-10-06T11:00:00Z', bea, { description: 'Layout' }); // 200.00
    const preview = (groupBy: string) =>
      services.invoices.preview(OPERATOR, {
        workspaceId,
        userId: ownerId,
        clientId: acme,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: groupBy as never,
      });
    const shape = (groupBy: string) =>
      preview(groupBy).lines.map((l) => [l.description, l.projectId, l.quantitySec, l.hourlyRate, l.amount]);
    const period = 'Services from 1 October 2026 to 31 October 2026';

    expect(shape('project')).to.deep.equal([
      ['Build', build, 3000, 0.09, 0.08],
      ['Design', design, 1800, 90, 45],
      ['Design', design, 10800, 100, 300],
    ]);
    expect(shape('task')).to.deep.equal([
      ['Build', build, 3000, 0.09, 0.08],
      ['Design', design, 10800, 100, 300],
      ['Design – Review', design, 1800, 90, 45],
    ]);
    expect(shape('member')).to.deep.equal([
      ['Bea', design, 7200, 100, 200],
      ['Owner', build, 3000, 0.09, 0.08],
      ['Owner', design, 1800, 90, 45],
      ['Owner', design, 3600, 100, 100],
    ]);
    expect(shape('entry')).to.deep.equal([
      ['1 Oct 2026 Design', design, 3600, 100, 100],
      ['2 Oct 2026 Review of the draft', design, 1800, 90, 45],
      ['3 Oct 2026 Build', build, 1000, 0.09, 0.03],
      ['4 Oct 2026 Build', build, 1000, 0.09, 0.03],
      ['5 Oct 2026 Build', build, 1000, 0.09, 0.03],
      ['6 Oct 2026 Layout', design, 7200, 100, 200],
    ]);
    expect(shape('single')).to.deep.equal([
      [period, build, 3000, 0.09, 0.08],
      [period, design, 1800, 90, 45],
      [period, design, 10800, 100, 300],
    ]);
    // Every line carries the tax; the totals are the lines' sum and its tax, rounded once.
    const byProject = preview('project');
    expect(byProject.lines.every((l) => l.taxCategory === 'S' && l.taxRate === 19)).to.equal(true);
    expect(byProject).to.deep.include({
      total: 345.08,
      netTotal: 345.08,
      taxTotal: 65.57,
      grossTotal: 410.65,
      entryCount: 6,
      currency: 'EUR',
    });
    expect(preview('entry')).to.deep.include({ netTotal: 345.09, taxTotal: 65.57, grossTotal: 410.66 });

    // The preview wrote nothing; creating makes exactly what it showed.
    expect(w.events().filter((e) => e.entity === 'invoice')).to.deep.equal([]);
    expect(services.invoices.list(OPERATOR, workspaceId)).to.deep.equal([]);
    const shown = preview('task');
    const id = w.create(acme, '2026-10-01', '2026-10-31', { groupBy: 'task' });
    const invoice = w.get(id);
    expect(invoice.lines).to.deep.equal(shown.lines);
    expect(invoice).to.deep.include({ netTotal: shown.netTotal, taxTotal: shown.taxTotal, grossTotal: shown.grossTotal });
    expect(invoice.taxBreakdown).to.deep.equal(shown.taxBreakdown);
    expectContractInvoice(invoice);
    expectRefused(() => preview('weekly'), 'invalid', /groupBy must be one of project, task, member, entry, single/);
  });

  it('dates an entry line in the invoice’s zone (the creating member’s days, decisions 11a), across a change of summer time', () => {
    const acme = w.client('Acme');
    const design = w.project('Design', acme, 60);
    const at = (start: string, timeZone?: string, description = '') =>
      w.entry(design, start, new Date(Date.parse(start) + 600_000).toISOString(), w.owner, {
        description,
        ...(timeZone ? { timeZone } : {}),
      });
    at('2026-10-02T03:00:00Z', 'America/Los_Angeles', 'evening call'); // 20:00 on 1 October there, 05:00 on 2 October in Berlin
    at('2026-10-24T22:30:00Z', 'Europe/Berlin', 'before the change'); // 00:30 CEST on 25 October
    at('2026-10-26T22:30:00Z', 'Europe/Berlin', 'after the change'); // 23:30 CET on 26 October (00:30 the next day in summer time)
    at('2026-10-26T23:50:00Z'); // 00:50 CET on 27 October
    const linesIn = (timeZone: string) =>
      w.services.invoices
        .preview(OPERATOR, {
          workspaceId: w.workspaceId,
          userId: w.ownerId,
          clientId: acme,
          from: '2026-10-01',
          to: '2026-10-31',
          groupBy: 'entry',
          timeZone,
        })
        .lines.map((l) => l.description);
    expect(linesIn('Europe/Berlin')).to.deep.equal([
      '2 Oct 2026 evening call',
      '25 Oct 2026 before the change',
      '26 Oct 2026 after the change',
      '27 Oct 2026 Design',
    ]);
    expect(linesIn('UTC')).to.deep.equal([
      '2 Oct 2026 evening call',
      '24 Oct 2026 before the change',
      '26 Oct 2026 after the change',
      '26 Oct 2026 Design',
    ]);
  });

  it('carries the tax of the client or the workspace: standard, reverse charge, small business, zero rated; rounded once per row', () => {
    const { services, workspaceId, ownerId } = w;
    const { invoices } = services;
    const previewOf = (clientId: string) =>
      invoices.preview(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' });
    const clientWith = (name: string, fields: Record<string, unknown>, rate = 100, minutes = 60) => {
      const id = w.client(name, fields);
      const end = new Date(Date.parse('2026-10-01T09:00:00Z') + minutes * 60_000).toISOString();
      w.entry(w.project(`${name} work`, id, rate), '2026-10-01T09:00:00Z', end);
      return id;
    };
    const standard = clientWith('Standard', {}, 1, 30); // 0.50 net
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 7 });
    // 0.50 × 7 % = 0.035: half away from zero, 0.04.
    expect(previewOf(standard).taxBreakdown).to.deep.equal([
      { category: 'S', rate: 7, basisAmount: 0.5, taxAmount: 0.04, exemptionReason: null, exemptionReasonCode: null },
    ]);
    expect(previewOf(standard)).to.deep.include({ netTotal: 0.5, taxTotal: 0.04, grossTotal: 0.54 });

    const reverse = clientWith('Reverse', { taxCategory: 'AE' });
    const reverseRow = { category: 'AE', rate: 0, basisAmount: 100, taxAmount: 0, exemptionReasonCode: 'VATEX-EU-AE' };
    expect(previewOf(reverse).taxBreakdown).to.deep.equal([{ ...reverseRow, exemptionReason: 'Reverse charge' }]);
    expect(previewOf(reverse).lines[0]).to.deep.include({ taxCategory: 'AE', taxRate: 0 });
    invoices.setSettings(OPERATOR, workspaceId, { language: 'de' });
    expect(previewOf(reverse).taxBreakdown![0]!.exemptionReason).to.equal('Steuerschuldnerschaft des Leistungsempfängers');
    const own = clientWith('Own words', { taxCategory: 'K', exemptionReason: 'Steuerfreie innergemeinschaftliche Leistung' });
    expect(previewOf(own).taxBreakdown![0]).to.deep.include({
      category: 'K',
      exemptionReason: 'Steuerfreie innergemeinschaftliche Leistung',
      exemptionReasonCode: 'VATEX-EU-IC',
    });
    const zero = clientWith('Zero', { taxCategory: 'Z' });
    expect(previewOf(zero).taxBreakdown![0]).to.deep.include({ category: 'Z', rate: 0, exemptionReason: null, exemptionReasonCode: null });
    invoices.setSettings(OPERATOR, workspaceId, { language: 'en' });

    // A small business: category E with the settings' reason; a client's own category still wins (S: the rate).
    invoices.setBusinessProfile(OPERATOR, workspaceId, { smallBusiness: true });
    // Without its reason a draft is still made (decisions 11a): the row says none, issuing asks for it.
    expect(previewOf(standard).taxBreakdown).to.deep.equal([
      { category: 'E', rate: 0, basisAmount: 0.5, taxAmount: 0, exemptionReason: null, exemptionReasonCode: null },
    ]);
    expect(previewOf(standard).missingTax.map((m) => m.setting)).to.deep.equal(['exemptionReason']);
    invoices.setSettings(OPERATOR, workspaceId, { exemptionReason: 'Kleinunternehmer gemäß § 19 UStG' });
    expect(previewOf(standard).taxBreakdown).to.deep.equal([
      {
        category: 'E',
        rate: 0,
        basisAmount: 0.5,
        taxAmount: 0,
        exemptionReason: 'Kleinunternehmer gemäß § 19 UStG',
        exemptionReasonCode: null,
      },
    ]);
    // The workspace's reason is for its own category: the reverse-charge client keeps its usual one.
    expect(previewOf(reverse).taxBreakdown![0]!.exemptionReason).to.equal('Reverse charge');
    const taxedAnyway = clientWith('Taxed', { taxCategory: 'S' });
    expect(previewOf(taxedAnyway).taxBreakdown![0]).to.deep.include({ category: 'S', rate: 7, taxAmount: 7 });

    // Category S without a rate (or at 0 %) makes a draft whose lines have no rate and count no tax;
    // issuing it refuses, naming the setting (decisions 11a).
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: null });
    const untaxed = previewOf(taxedAnyway);
    expect(untaxed.lines[0]).to.include({ taxCategory: 'S' }).and.not.have.property('taxRate');
    expect(untaxed).to.deep.include({ taxBreakdown: [], netTotal: 100, taxTotal: 0, grossTotal: 100 });
    expect(untaxed.missingTax).to.deep.equal([
      { setting: 'taxRate', problem: 'the workspace has no VAT rate for the standard rate (category S)' },
    ]);
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 0 });
    expect(previewOf(taxedAnyway).missingTax[0]!.problem).to.match(/must be above 0 %/);
    const draft = w.create(taxedAnyway);
    expectRefused(() => w.issue(draft), 'conflict', new RegExp(`taxRate: the standard rate .*must be above 0 %.*--set taxRate=19`));
    expect(w.get(draft)).to.deep.include({ status: 'draft', number: null, taxTotal: 0 });
    services.invoices.void(OPERATOR, draft, { userId: ownerId });

    // What was made keeps its tax when the settings change.
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const made = w.create(reverse);
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 7, language: 'de' });
    services.catalog.clients.update(w.owner, reverse, { taxCategory: null });
    expect(w.get(made).taxBreakdown).to.deep.equal([{ ...reverseRow, exemptionReason: 'Reverse charge' }]);
    expect(w.get(made).language).to.equal('en');
  });

  it('keeps the language and note it was made with; the note is trimmed, at most 1000 characters', () => {
    const { services, workspaceId } = w;
    const acme = w.client('Acme');
    const design = w.project('Design', acme);
    w.entry(design, '2026-10-01T09:00:00Z', '2026-10-01T10:00:00Z');
    w.entry(design, '2026-10-02T09:00:00Z', '2026-10-02T10:00:00Z');
    services.invoices.setSettings(OPERATOR, workspaceId, { language: 'de' });
    expectRefused(() => w.create(acme, '2026-10-01', '2026-10-01', { note: 'x'.repeat(1001) }), 'invalid', /note must be at most 1000/);
    const id = w.create(acme, '2026-10-01', '2026-10-01', { note: '  Project "Relaunch", PO 4711  ', groupBy: 'single' });
    services.invoices.setSettings(OPERATOR, workspaceId, { language: 'en' });
    expect(w.get(id)).to.deep.include({ language: 'de', note: 'Project "Relaunch", PO 4711' });
    expect(w.get(id).lines[0]!.description).to.equal('Leistungen vom 01.10.2026 bis 01.10.2026');
    expect(w.get(w.create(acme, '2026-10-02', '2026-10-02', { note: '   ' }))).to.deep.include({ language: 'en', note: null });
  });

  it('refuses billable entries without a rate, naming them and what to set; nothing is written', () => {
    const { services, workspaceId } = w;
    const acme = w.client('Acme');
    const unpriced = w.project('Unpriced', acme, null);
    const priced = w.project('Priced', acme, 80);
    const ids = ['01', '02', '03', '04', '05', '06'].map((d) => w.entry(unpriced, `2026-10-${d}T09:00:00Z`, `2026-10-${d}T10:00:00Z`));
    const pricedEntry = w.entry(priced, '2026-10-07T09:00:00Z', '2026-10-07T10:00:00Z');
    const before = w.events().length;
    const error = expectRefused(() => w.create(acme), 'invalid');
    expect(error.message).to.equal(
      `6 billable entries in this range have no hourly rate, so the invoice cannot price them: ${ids
        .slice(0, 5)
        .map((id, i) => `${id} (2026-10-0${i + 1}, Unpriced)`)
        .join(
          ', ',
        )}, …. An entry keeps the rate it was written with: set a rate on its task, project or member (or the workspace's), then change the entry's project or task so it takes the rate, or mark it non-billable; then make the invoice again.`,
    );
    // By entry too (its own reading of the entries).
    expect(expectRefused(() => w.create(acme, '2026-10-01', '2026-10-31', { groupBy: 'entry' }), 'invalid').message).to.equal(
      error.message,
    );
    expect([...ids, pricedEntry].map(w.invoiceIdOf)).to.deep.equal(Array(7).fill(null));
    expect(w.events().length).to.equal(before);
    expect(services.invoices.list(OPERATOR, workspaceId)).to.deep.equal([]);
    // Made non-billable, the rest is invoiced.
    for (const id of ids) services.entries.update(w.owner, id, { billable: false });
    expect(w.get(w.create(acme)).lines.map((l) => l.description)).to.deep.equal(['Priced']);
  });

  it('refuses a range with nothing to invoice and a client of another workspace, saying what to do; nothing is written', () => {
    const { services, workspaceId } = w;
    const acme = w.client('Acme');
    w.entry(w.project('Design', acme), '2026-10-01T09:00:00Z', '2026-10-01T10:00:00Z');
    const foreign = foreignOwner(w);
    const theirs = services.catalog.clients.create(foreign, { name: 'Theirs' }).id;
    expectRefused(
      () => w.create(acme, '2026-09-01', '2026-09-30'),
      'invalid',
      /no billable, un-invoiced, completed entries starting from 2026-09-01 to 2026-09-30 \(days in UTC, both included\)\. Check the range/,
    );
    expectRefused(
      () => w.create(theirs),
      'not_found',
      new RegExp(`Client ${theirs} was not found in workspace ${workspaceId}: invoice one of this workspace's clients`),
    );
    expectRefused(() => w.create(acme, '2026-10-31', '2026-10-01'), 'invalid', /must not be after/);
    expect(services.invoices.list(OPERATOR, workspaceId)).to.deep.equal([]);
    expect(w.events().filter((e) => e.entity === 'invoice')).to.deep.equal([]);
  });
});

describe('invoices service: issuing, paying, voiding', () => {
  let w: ReturnType<typeof setup>;
  let acme: string;
  let design: string;
  beforeEach(() => {
    w = setup();
    acme = w.client('Acme');
    design = w.project('Design', acme, 100);
  });
  afterEach(() => w.close());

  it('issuing gives the series’ next number, the acting member’s local day, the due date and the payment terms', () => {
    const { services, workspaceId, ownerId } = w;
    const first = w.draft(acme, design);
    const events = w.events().length;
    // A member without a zone of their own: the server's (UTC here).
    expect(w.issue(first)).to.deep.equal({ id: first, from: 'draft', to: 'sent', number: '2026-0001' });
    expect(w.get(first)).to.deep.include({
      status: 'sent',
      number: '2026-0001',
      issueDate: '2026-11-02',
      dueDate: '2026-11-16',
      paymentTerms: 'Payable within 14 days, by 16 November 2026.',
      amountDue: 119,
    });
    const [event] = w.events().slice(events);
    expect(event).to.include({ event: 'invoice.status_changed', entityId: first, actorUserId: ownerId });
    expect(event!.payload).to.deep.equal({ invoice: w.get(first), from: 'draft', to: 'sent' });
    expectContractInvoice(w.get(first));

    // Their own zone: 10:00 UTC on 2 November is already 3 November at UTC+14.
    services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Pacific/Kiritimati' });
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, { paymentTermsDays: 30 });
    const second = w.draft(acme, design);
    w.issue(second);
    expect(w.get(second)).to.deep.include({ number: '2026-0002', issueDate: '2026-11-03', dueDate: '2026-12-03' });
    expect(w.get(second).paymentTerms).to.equal('Payable within 30 days, by 3 December 2026.');

    services.invoices.setSettings(OPERATOR, workspaceId, { language: 'de' });
    for (const [days, sentence] of [
      [1, 'Zahlbar innerhalb von 1 Tag bis zum 04.11.2026.'],
      [0, 'Zahlbar sofort (03.11.2026).'],
    ] as const) {
      services.invoices.setBusinessProfile(OPERATOR, workspaceId, { paymentTermsDays: days });
      const id = w.draft(acme, design);
      w.issue(id);
      expect(w.get(id).paymentTerms).to.equal(sentence);
    }
    services.invoices.setSettings(OPERATOR, workspaceId, { language: 'en' });
    const once = w.draft(acme, design);
    w.issue(once);
    expect(w.get(once).paymentTerms).to.equal('Due on receipt (3 November 2026).');
  });

  it('the server’s zone is the day of a member who chose none', () => {
    const east = setup({ defaultTimeZone: 'Pacific/Kiritimati' });
    const client = east.client('Acme');
    const id = east.draft(client, east.project('Design', client));
    east.issue(id);
    expect(east.get(id).issueDate).to.equal('2026-11-03');
    east.close();
  });

  it('{seq} counts invoices and credit notes, restarts each year when the pattern holds one, never skips; a draft has no number', () => {
    const { services, workspaceId } = w;
    const numbers = () =>
      services.invoices
        .list(OPERATOR, workspaceId)
        .flatMap((i) => [i.number, i.creditNote?.number])
        .filter((n): n is string => typeof n === 'string')
        .sort();
    const a = w.draft(acme, design);
    w.issue(a, '2025-12-30');
    expect(services.invoices.void(OPERATOR, a, { userId: w.ownerId, date: '2025-12-31' })).to.deep.equal({
      id: a,
      from: 'sent',
      to: 'void',
      number: '2025-0001',
      creditNote: { number: '2025-0002', issueDate: '2025-12-31' },
    });
    const b = w.draft(acme, design);
    expect(w.issue(b, '2026-01-02').number).to.equal('2026-0001');
    const voided = w.draft(acme, design);
    services.invoices.void(OPERATOR, voided, { userId: w.ownerId });
    expect(w.get(voided)).to.deep.include({ status: 'void', number: null, creditNote: null, issueDate: null });
    const c = w.draft(acme, design);
    expect(w.issue(c, '2026-01-02').number).to.equal('2026-0002');
    // Without a year the series counts every document the workspace issued: 4 so far.
    services.invoices.setSettings(OPERATOR, workspaceId, { numberPattern: 'INV-{seq}' });
    expect(w.issue(w.draft(acme, design), '2026-02-01').number).to.equal('INV-5');
    services.invoices.setSettings(OPERATOR, workspaceId, { numberPattern: 'RE-{yy}{mm}-{seq:3}' });
    // With a year again: the documents of 2026 (2026-0001, 2026-0002, INV-5) and this one.
    expect(w.issue(w.draft(acme, design), '2026-03-15').number).to.equal('RE-2603-004');
    expect(numbers()).to.deep.equal(['2025-0001', '2025-0002', '2026-0001', '2026-0002', 'INV-5', 'RE-2603-004']);
  });

  it('refuses an issue or credit note date before the last document, after today, or not a day; nothing changes', () => {
    const { services } = w;
    const a = w.draft(acme, design);
    w.issue(a, '2026-10-15');
    const b = w.draft(acme, design);
    const events = w.events().length;
    expectRefused(
      () => w.issue(b, '2026-10-14'),
      'conflict',
      /^The issue date 2026-10-14 is before 2026-10-15, the date of 2026-0001, the last document issued in this workspace: numbers and dates run together\. Date it 2026-10-15 or later\.$/,
    );
    expectRefused(() => w.issue(b, '2026-11-03'), 'invalid', /is after today \(2026-11-02 in UTC/);
    expectRefused(() => w.issue(b, '2026-02-30'), 'invalid', /not a calendar day/);
    expectRefused(
      () => services.invoices.void(OPERATOR, a, { userId: w.ownerId, date: '2026-10-01' }),
      'conflict',
      /credit note date 2026-10-01 is before 2026-10-15/,
    );
    expect(w.get(b)).to.deep.include({ status: 'draft', number: null });
    expect(w.get(a)).to.deep.include({ status: 'sent', creditNote: null });
    expect(w.events().length).to.equal(events);
    // The same day as the last document is fine, and the number that was not taken is the next.
    expect(w.issue(b, '2026-10-15').number).to.equal('2026-0002');
  });

  it('after issuing nothing changes but the status, the paid date and fills that add values', () => {
    const { services, workspaceId } = w;
    const id = w.draft(acme, design);
    w.issue(id, '2026-10-20');
    const issued = w.get(id);
    const fill =
      (...pairs: Array<[string, string]>) =>
      () =>
        services.invoices.fill(OPERATOR, id, w.ownerId, pairs);
    expectRefused(
      fill(['taxBreakdown', 'lines']),
      'conflict',
      /would change the taxTotal and grossTotal of 2026-0001, which are fixed once it is issued/,
    );
    expectRefused(fill(['issuer.paymentTermsDays', '30']), 'conflict', /would contradict the due date 2026-11-03/);
    expectRefused(fill(['lines[0].taxRate', '7']), 'conflict', /already set/);
    expectRefused(fill(['lines[0].amount', '1']), 'invalid', /cannot be filled/);
    expectRefused(fill(['paymentTerms', 'Now.']), 'conflict', /already set/);
    services.invoices.fill(OPERATOR, id, w.ownerId, [['recipient.vatId', 'DE136695976']]);
    // Changing the client, the profile and the settings afterwards changes nothing either.
    services.catalog.clients.update(w.owner, acme, { taxCategory: 'AE', city: 'Hamburg' });
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 7, numberPattern: 'X-{seq}' });
    services.invoices.markPaid(OPERATOR, id, { userId: w.ownerId, date: '2026-10-25' });
    const paid = w.get(id);
    const fixed = [
      'lines',
      'taxBreakdown',
      'total',
      'netTotal',
      'taxTotal',
      'grossTotal',
      'number',
      'issueDate',
      'dueDate',
      'paymentTerms',
      'issuer',
      'language',
      'note',
      'creditNote',
      'currency',
      'from',
      'to',
    ] as const;
    for (const key of fixed) expect(paid[key], key).to.deep.equal(issued[key]);
    expect(paid).to.deep.include({ status: 'paid', paidDate: '2026-10-25', amountDue: 0 });
    expect(paid.einvoiceFills).to.have.length(1);
    expect(paid.recipient).to.deep.equal({ ...issued.recipient, vatId: 'DE136695976' });
  });

  it('paid: on the day given or today; paying a draft, an early paid date and voiding a paid invoice are refused, saying what to do', () => {
    const { services } = w;
    const id = w.draft(acme, design);
    const pay = (date?: string) => services.invoices.markPaid(OPERATOR, id, { userId: w.ownerId, ...(date ? { date } : {}) });
    expectRefused(() => pay(), 'conflict', /cannot move from draft to paid: a draft is issued first \(to sent\), then marked paid/);
    w.issue(id, '2026-10-20');
    expectRefused(() => pay('2026-10-19'), 'invalid', /paid date 2026-10-19 is before the issue date 2026-10-20 of 2026-0001/);
    expect(w.get(id).status).to.equal('sent');
    expect(pay()).to.deep.equal({ id, from: 'sent', to: 'paid', number: '2026-0001' });
    expect(w.get(id)).to.deep.include({ status: 'paid', paidDate: '2026-11-02', amountDue: 0, grossTotal: 119 });
    const events = w.events().length;
    expectRefused(() => services.invoices.void(OPERATOR, id, { userId: w.ownerId }), 'conflict', /a paid invoice is final/);
    expectRefused(() => pay(), 'conflict', /cannot move from paid to paid/);
    expect(w.get(id)).to.deep.include({ status: 'paid', creditNote: null });
    expect(w.events().length).to.equal(events);
  });

  it('void: a draft releases its entries and takes no number; an issued invoice releases them and gets its credit note', () => {
    const { services } = w;
    const draftEntry = w.entry(design, '2026-10-01T09:00:00Z', '2026-10-01T10:00:00Z');
    const draft = w.create(acme, '2026-10-01', '2026-10-01');
    expectRefused(() => services.invoices.void(OPERATOR, draft, { userId: w.ownerId, date: '2026-11-01' }), 'invalid', /takes no date/);
    expect(services.invoices.void(OPERATOR, draft, { userId: w.ownerId })).to.deep.equal({ id: draft, from: 'draft', to: 'void' });
    expect(w.invoiceIdOf(draftEntry)).to.equal(null);
    expect(w.get(draft)).to.deep.include({ number: null, creditNote: null, amountDue: 0 });

    const again = w.create(acme, '2026-10-01', '2026-10-01');
    expect(w.invoiceIdOf(draftEntry)).to.equal(again);
    w.issue(again, '2026-10-31');
    const events = w.events().length;
    services.invoices.void(OPERATOR, again, { userId: w.ownerId });
    expect(w.get(again)).to.deep.include({
      status: 'void',
      number: '2026-0001',
      issueDate: '2026-10-31',
      creditNote: { number: '2026-0002', issueDate: '2026-11-02' },
      amountDue: 0,
      grossTotal: 119,
    });
    expect(w.invoiceIdOf(draftEntry)).to.equal(null);
    const recorded = w.events().slice(events);
    expect(recorded.map((e) => e.event)).to.deep.equal(['invoice.status_changed']);
    expect(recorded[0]!.payload).to.deep.include({ from: 'sent', to: 'void' });
    expectContractInvoice(w.get(again));
    // Both stay: the invoice with its number, the credit note referring to it; the entries go on a new invoice.
    expect(w.get(w.create(acme, '2026-10-01', '2026-10-01')).lines).to.have.length(1);
  });

  it('issuing and voiding are each one transaction: when the event log fails, no number is used and nothing changes', () => {
    const { services, database, clock, workspaceId } = w;
    const entryId = w.entry(design, '2026-10-01T09:00:00Z', '2026-10-01T10:00:00Z');
    const id = w.create(acme, '2026-10-01', '2026-10-01');
    const failing = createInvoicesService({
      repo: createInvoicesRepository(database.db),
      ports: invoicePorts(services.accounts, services.catalog, services.entries),
      clock,
      write: createWrite(database.db, () => {
        throw new Error('event log down');
      }),
    });
    expect(() => failing.issue(OPERATOR, id, { userId: w.ownerId })).to.throw('event log down');
    expect(w.get(id)).to.deep.include({ status: 'draft', number: null, issueDate: null });
    expect(w.issue(id).number).to.equal('2026-0001');
    expect(() => failing.void(OPERATOR, id, { userId: w.ownerId })).to.throw('event log down');
    expect(w.get(id)).to.deep.include({ status: 'sent', creditNote: null });
    expect(w.invoiceIdOf(entryId)).to.equal(id);
    services.invoices.void(OPERATOR, id, { userId: w.ownerId });
    expect(w.get(id).creditNote).to.deep.equal({ number: '2026-0002', issueDate: '2026-11-02' });
    expect(services.invoices.list(OPERATOR, workspaceId)).to.have.length(1);
  });

  it('a number is unique in the database: its index refuses a second one, and issuing refuses a number taken, saying what to do', () => {
    const { services, database, workspaceId, clock } = w;
    const a = w.draft(acme, design);
    w.issue(a, '2026-10-01');
    const b = w.draft(acme, design);
    const repo = createInvoicesRepository(database.db);
    const write = createWrite(database.db, null);
    const row = {
      workspaceId,
      number: '2026-0001',
      invoiceId: b,
      kind: 'invoice' as const,
      issueDate: '2026-10-02',
      createdAt: clock.now(),
    };
    expect(() => write(() => repo.insertNumber(row))).to.throw(
      /UNIQUE constraint failed: invoice_numbers\.workspace_id, invoice_numbers\.number/,
    );
    // A number given before under another pattern: A-3, as the next of `A-{seq}` (two documents then) would be.
    write(() => repo.insertNumber({ ...row, number: 'A-3', invoiceId: a, kind: 'credit_note' }));
    services.invoices.setSettings(OPERATOR, workspaceId, { numberPattern: 'A-{seq}' });
    const events = w.events().length;
    expectRefused(
      () => w.issue(b, '2026-10-02'),
      'conflict',
      new RegExp(
        `already taken in workspace ${workspaceId} \\(the number pattern was changed since\\): change numberPattern .*Nothing was changed\\.$`,
      ),
    );
    expect(w.get(b)).to.deep.include({ status: 'draft', number: null });
    expect(w.events().length).to.equal(events);
    services.invoices.setSettings(OPERATOR, workspaceId, { numberPattern: 'B-{seq}' });
    expect(w.issue(b, '2026-10-02').number).to.equal('B-3');
  });
});

describe('invoices service: who may', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('owners who see money make, issue, mark paid and void; members who see colleagues’ time and money read; anyone else finds nothing; the operator names who acts', () => {
    const { services, workspaceId, owner } = w;
    const { invoices } = services;
    const acme = w.client('Acme');
    const design = w.project('Design', acme);
    for (const d of ['01', '02', '03']) w.entry(design, `2026-10-${d}T09:00:00Z`, `2026-10-${d}T10:00:00Z`);
    const input = (from: string, to = from) => ({ workspaceId, clientId: acme, from, to });

    // An owner acts as themselves (their token or session); the event names them.
    const coOwner = w.member({ isOwner: true, canViewOthersMoney: true, name: 'Co' });
    const id = invoices.create(coOwner, input('2026-10-01')).id;
    expect(w.events().at(-1)).to.include({ event: 'invoice.created', actorUserId: coOwner.userId, actorTokenId: coOwner.tokenId });
    expect(invoices.preview(owner, input('2026-10-02')).lines).to.have.length(1);
    expect(invoices.issue(coOwner, id).number).to.equal('2026-0001');
    expect(invoices.markPaid(owner, id).to).to.equal('paid');
    w.clock.advance(1000);
    const other = invoices.create(owner, input('2026-10-02')).id;
    expect(invoices.void(owner, other).to).to.equal('void');
    invoices.fill(owner, id, undefined, [['recipient.email', 'billing@acme.example']]);

    // A member who sees colleagues' time and money reads them, and may do nothing else.
    const reader = w.member({ canViewOthersTime: true, canViewOthersMoney: true });
    expect(invoices.get(reader, id).number).to.equal('2026-0001');
    expect(invoices.list(reader, workspaceId).map((i) => i.id)).to.deep.equal([other, id]);
    const draft = invoices.create(owner, input('2026-10-02')).id;
    const refusedTo = (principal: Principal): Array<[string, () => unknown]> => [
      ['create', () => invoices.create(principal, input('2026-10-03'))],
      ['preview', () => invoices.preview(principal, input('2026-10-03'))],
      ['issue', () => invoices.issue(principal, draft)],
      ['markPaid', () => invoices.markPaid(principal, draft)],
      ['void', () => invoices.void(principal, draft)],
      ['fill', () => invoices.fill(principal, draft, undefined, [['recipient.email', 'x@example.org']])],
    ];
    for (const [what, fn] of refusedTo(reader)) {
      const error = refusal(fn);
      expect(error.code, what).to.equal('forbidden');
      expect(error.message, what).to.match(/^Only the workspace's owners /);
    }

    // Anyone else finds nothing: 404, as for an invoice that does not exist. A member without money visibility;
    // one who sees money but not colleagues' time (an invoice by entry shows their days and descriptions: issue 44 L2);
    // an owner without money visibility (the same rule as the webhooks and the live feed); another workspace's owner.
    const timeOnly = w.member({ canViewOthersTime: true });
    const moneyOnly = w.member({ canViewOthersMoney: true });
    const blindOwner = w.member({ isOwner: true, canViewOthersTime: true });
    for (const principal of [timeOnly, moneyOnly, blindOwner, foreignOwner(w)]) {
      expectRefused(() => invoices.get(principal, id), 'not_found', new RegExp(`^Invoice ${id} was not found\\.$`));
      expectRefused(() => invoices.list(principal, workspaceId), 'not_found');
      for (const [what, fn] of refusedTo(principal)) expect(refusal(fn).code, what).to.equal('not_found');
    }
    expect(invoices.get(OPERATOR, draft)).to.deep.include({ status: 'draft', einvoiceFills: [] });

    // The operator may do everything, naming a member of the workspace who acts.
    expectRefused(() => invoices.issue(OPERATOR, draft), 'invalid', /Name the member who acts/);
    expectRefused(() => invoices.issue(OPERATOR, draft, { userId: foreignOwner(w).userId }), 'not_found', /Member/);
    expect(invoices.issue(OPERATOR, draft, { userId: timeOnly.userId }).number).to.equal('2026-0002');
  });

  it('lists a workspace’s invoices newest first, by status and by client', () => {
    const { services, workspaceId, clock } = w;
    const acme = w.client('Acme');
    const globex = w.client('Globex');
    const ids = [acme, globex, acme].map((client, i) => {
      clock.advance(1000);
      return w.draft(client, w.project(`Project ${i}`, client));
    });
    w.issue(ids[0]!);
    const list = (filter = {}) => services.invoices.list(OPERATOR, workspaceId, filter).map((i) => i.id);
    expect(list()).to.deep.equal([...ids].reverse());
    expect(list({ status: 'draft' })).to.deep.equal([ids[2], ids[1]]);
    expect(list({ status: 'sent', clientId: acme })).to.deep.equal([ids[0]]);
    expect(list({ clientId: globex })).to.deep.equal([ids[1]]);
    expectRefused(
      () => services.invoices.list(OPERATOR, workspaceId, { status: 'open' as never }),
      'invalid',
      /status must be one of draft, sent, paid, void/,
    );
  });
});

describe('invoices service: the one rule of an invoice’s text (issue 54 N4)', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('refuses control and bidirectional characters in the issuer profile, the settings’ exemption reason, a fill and a note, as in a client’s details; nothing changes', () => {
    const { services, workspaceId } = w;
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, { legalName: 'Ada Design', city: 'Berlin' });
    const before = services.accounts.businessProfile(workspaceId);
    const hidden = (found: string) => new RegExp(`must not hold control characters or bidirectional controls \\(found ${found}\\)`);
    for (const [patch, found] of [
      [{ legalName: 'Ada\u202Efdp.exe' }, 'U\\+202E'],
      [{ addressLines: ['Torstraße 5', 'Hinter\u2066haus'] }, 'U\\+2066'],
      [{ email: 'ada\u200F@example.org' }, 'U\\+200F'],
      [{ paymentDetails: 'Pay\u0007 now' }, 'U\\+0007'],
      [{ city: 'Berlin', invoiceFooter: 'Footer\u061C' }, 'U\\+061C'],
    ] as const) {
      const error = expectRefused(
        () => services.invoices.setBusinessProfile(OPERATOR, workspaceId, patch as never),
        'invalid',
        hidden(found),
      );
      expect(error.field, JSON.stringify(patch)).to.be.oneOf(Object.keys(patch));
    }
    // The command line's text form is the same rule.
    expectRefused(
      () => services.invoices.setBusinessProfile(OPERATOR, workspaceId, issuerPatchOfText([['legalName', 'Ada\u202E']])),
      'invalid',
      hidden('U\\+202E'),
    );
    expect(services.accounts.businessProfile(workspaceId)).to.deep.equal(before);
    expectRefused(
      () => services.invoices.setSettings(OPERATOR, workspaceId, { taxCategory: 'E', exemptionReason: 'Kleinunternehmer\u202E' }),
      'invalid',
      hidden('U\\+202E'),
    );
    expect(services.invoices.settings(OPERATOR, workspaceId)).to.deep.include({ taxCategory: 'S', exemptionReason: null });

    const acme = w.client('Acme');
    const design = w.project('Design', acme);
    w.entry(design, '2026-10-01T09:00:00Z', '2026-10-01T10:00:00Z');
    expectRefused(() => w.create(acme, '2026-10-01', '2026-10-01', { note: 'PO 4711\u202E' }), 'invalid', hidden('U\\+202E'));
    expectRefused(() => w.create(acme, '2026-10-01', '2026-10-01', { note: 'PO\u0000 4711' }), 'invalid', hidden('U\\+0000'));
    expect(services.invoices.list(OPERATOR, workspaceId)).to.deep.equal([]);
    // A note is a few lines: its line breaks are kept.
    const id = w.create(acme, '2026-10-01', '2026-10-01', { note: 'PO 4711\r\nProject Relaunch' });
    expect(w.get(id).note).to.equal('PO 4711\r\nProject Relaunch');
    for (const [path, found] of [
      ['recipient.legalName', 'U\\+202E'],
      ['issuer.contactName', 'U\\+202E'],
      ['recipient.reference', 'U\\+202E'],
    ] as const) {
      expectRefused(() => services.invoices.fill(OPERATOR, id, w.ownerId, [[path, 'Acme\u202EGmbH']]), 'invalid', hidden(found));
    }
    expect(w.get(id).einvoiceFills).to.deep.equal([]);
  });
});
