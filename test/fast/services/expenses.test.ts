import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * Expenses (issue 57 item 1, decisions §12): what members spent for a project, billed by a draft
 * of its client. Who sees them follows the money rules of entries; only the author changes one;
 * receipts are checked by their content and capped at 10 MB.
 */

const PDF = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

function setup() {
  const world = memoryServices();
  const { services, owner } = world;
  const client = services.catalog.clients.create(owner, { name: 'Verlag' });
  const project = services.catalog.projects.create(owner, { name: 'Buch', clientId: client.id, billable: true, hourlyRate: 80 });
  const internal = services.catalog.projects.create(owner, { name: 'Intern', billable: false });
  return { ...world, expenses: services.expenses, clientId: client.id, projectId: project.id, internalId: internal.id };
}

describe('expenses: the service', () => {
  it('records an expense with its exact cents, the workspace currency, its own tax and the project’s billable', () => {
    const { expenses, owner, projectId, internalId, clientId } = setup();
    const e = expenses.add(owner, {
      day: '2026-11-03',
      description: 'Bahnticket',
      amount: '89,90',
      projectId,
      taxCategory: 'S',
      taxRate: '7',
    });
    expect(e).to.include({ day: '2026-11-03', description: 'Bahnticket', amount: 89.9, currency: 'EUR', billable: true, invoiceId: null });
    expect(e).to.include({ projectName: 'Buch', clientId, clientName: 'Verlag', receipt: null });
    expect(e.tax).to.deep.equal({ category: 'S', rate: 7 });
    const inner = expenses.add(owner, {
      day: '2026-11-04',
      description: 'Kaffee',
      amount: '3.10',
      projectId: internalId,
    });
    expect(inner).to.include({ billable: false, amount: 3.1 });
    expect(inner.tax).to.equal(null);
  });

  it('refuses bad input at its field, saying what to give', () => {
    const { expenses, owner, projectId } = setup();
    const base = { day: '2026-11-03', description: 'Taxi', amount: '20', projectId };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ day: '2026-02-30' }, 'day'],
      [{ description: '  ' }, 'description'],
      [{ amount: '0' }, 'amount'],
      [{ amount: '12.345' }, 'amount'],
      [{ amount: '-5' }, 'amount'],
      [{ amount: '100000000' }, 'amount'],
      [{ projectId: '' }, 'projectId'],
      [{ taxCategory: 'AE' }, 'taxCategory'],
      [{ taxCategory: 'S', taxRate: '' }, 'taxRate'],
      [{ billable: 'maybe' }, 'billable'],
    ];
    for (const [patch, field] of cases) {
      const error = refusal(() => expenses.add(owner, { ...base, ...patch }));
      expect(error.code, JSON.stringify(patch)).to.equal('invalid');
      expect(error.field, JSON.stringify(patch)).to.equal(field);
      expect(error.people, JSON.stringify(patch)).to.be.a('string');
    }
    expect(refusal(() => expenses.add(owner, { ...base, projectId: 'prj_nope' })).code).to.equal('not_found');
    expect(expenses.list(owner)).to.have.length(0);
  });

  it('shows a colleague’s expenses only to a member with money rights, and lets only the author change them', () => {
    const world = setup();
    const { expenses, owner, projectId } = world;
    const seesTime = world.member({ canViewOthersTime: true });
    const seesMoney = world.member({ canViewOthersTime: true, canViewOthersMoney: true });
    const mine = expenses.add(seesTime, { day: '2026-11-05', description: 'Porto', amount: '4.20', projectId });
    const owners = expenses.add(owner, { day: '2026-11-06', description: 'Druck', amount: '120', projectId });

    expect(expenses.list(seesTime).map((e) => e.id)).to.deep.equal([mine.id]);
    expect(refusal(() => expenses.get(seesTime, owners.id)).code).to.equal('not_found');
    expect(refusal(() => expenses.receipt(seesTime, owners.id)).code).to.equal('not_found');
    expect(refusal(() => expenses.delete(seesTime, owners.id)).code).to.equal('not_found');

    expect(expenses.list(seesMoney).map((e) => e.id)).to.deep.equal([mine.id, owners.id]);
    expect(expenses.get(seesMoney, mine.id).amount).to.equal(4.2);
    expect(refusal(() => expenses.update(seesMoney, mine.id, { amount: '5' })).code).to.equal('forbidden');
    expect(refusal(() => expenses.delete(owner, mine.id)).code).to.equal('forbidden');

    expect(expenses.update(seesTime, mine.id, { amount: '5,00', description: 'Porto und Umschlag' })).to.include({
      amount: 5,
      description: 'Porto und Umschlag',
    });
    expenses.delete(seesTime, mine.id);
    expect(expenses.list(OPERATOR, { workspaceId: world.workspaceId }).map((e) => e.id)).to.deep.equal([owners.id]);
  });

  it('lists by month and by project', () => {
    const { expenses, owner, projectId, internalId } = setup();
    const add = (day: string, project: string) => expenses.add(owner, { day, description: day, amount: '1', projectId: project }).id;
    const [oct, nov1, nov30, novInternal] = [
      add('2026-10-31', projectId),
      add('2026-11-01', projectId),
      add('2026-11-30', projectId),
      add('2026-11-15', internalId),
    ];
    expect(expenses.list(owner, { month: '2026-11' }).map((e) => e.id)).to.deep.equal([nov1, novInternal, nov30]);
    expect(expenses.list(owner, { month: '2026-11', projectId }).map((e) => e.id)).to.deep.equal([nov1, nov30]);
    expect(expenses.list(owner, { month: '2026-10' }).map((e) => e.id)).to.deep.equal([oct]);
    expect(refusal(() => expenses.list(owner, { month: '2026-13' })).field).to.equal('month');
  });

  it('takes a PDF, PNG, JPEG or WebP receipt by its content and refuses anything else or above 10 MB', () => {
    const { expenses, owner, projectId } = setup();
    const base = { day: '2026-11-03', description: 'Hotel', amount: '99', projectId };
    for (const [bytes, type, name] of [
      [PDF, 'application/pdf', 'rechnung.pdf'],
      [PNG, 'image/png', 'scan.png'],
      [JPEG, 'image/jpeg', 'foto.jpg'],
      [WEBP, 'image/webp', 'foto.webp'],
    ] as const) {
      const e = expenses.add(owner, base, { name: `C:\\Users\\me\\${name.replace(/\..*/, '.html')}`, bytes });
      expect(e.receipt, type).to.deep.equal({
        fileName: name.replace(/\..*/, `.${name.split('.')[1]}`),
        mediaType: type,
        size: bytes.length,
      });
      const file = expenses.receipt(owner, e.id);
      expect(file.mediaType).to.equal(type);
      expect(file.bytes.equals(bytes)).to.equal(true);
    }
    const html = refusal(() => expenses.add(owner, base, { name: 'receipt.pdf', bytes: Buffer.from('<html><script>alert(1)</script>') }));
    expect(html.field).to.equal('receipt');
    expect(html.message).to.contain('PDF, PNG, JPEG or WebP');
    const big = Buffer.concat([PDF, Buffer.alloc(10 * 1_048_576)]);
    const tooBig = refusal(() => expenses.add(owner, base, { name: 'big.pdf', bytes: big }));
    expect(tooBig.field).to.equal('receipt');
    expect(tooBig.people).to.contain('10 MB');
    expect(expenses.list(owner)).to.have.length(4);
  });

  it('replaces and removes a receipt on an edit', () => {
    const { expenses, owner, projectId } = setup();
    const e = expenses.add(owner, { day: '2026-11-03', description: 'Hotel', amount: '99', projectId }, { name: 'a.pdf', bytes: PDF });
    expect(expenses.update(owner, e.id, {}, { name: 'b.png', bytes: PNG }).receipt?.mediaType).to.equal('image/png');
    expect(expenses.update(owner, e.id, {}, null).receipt).to.equal(null);
    expect(refusal(() => expenses.receipt(owner, e.id)).code).to.equal('not_found');
  });

  it('the operator names the workspace and the member', () => {
    const { expenses, workspaceId, ownerId, projectId } = setup();
    expect(refusal(() => expenses.add(OPERATOR, { day: '2026-11-03', description: 'x', amount: '1', projectId })).code).to.equal('invalid');
    const e = expenses.add(OPERATOR, { workspaceId, authorId: ownerId, day: '2026-11-03', description: 'x', amount: '1', projectId });
    expect(e.authorId).to.equal(ownerId);
  });
});

describe('expenses: drafts take them', () => {
  function billing(language: 'en' | 'de' = 'en') {
    const world = setup();
    const { services, owner, workspaceId, ownerId, projectId } = world;
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19, language });
    const other = services.catalog.clients.create(owner, { name: 'Andere' });
    const otherProject = services.catalog.projects.create(owner, { name: 'Fremd', clientId: other.id, billable: true, hourlyRate: 80 });
    services.entries.create(owner, { projectId, start: '2026-11-02T09:00:00Z', end: '2026-11-02T11:00:00Z', billable: true });
    const add = (day: string, amount: string, extra: Record<string, unknown> = {}) =>
      world.expenses.add(owner, { day, description: 'Fachbuch', amount, projectId, taxCategory: 'S', taxRate: '7', ...extra });
    const create = (from = '2026-11-01', to = '2026-11-30') =>
      services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId: world.clientId, from, to }).id;
    return { ...world, add, create, otherProjectId: otherProject.id, get: (id: string) => services.invoices.get(OPERATOR, id) };
  }

  it('takes the client’s un-invoiced billable expenses of the range as lines at their own rate: a breakdown row per rate', () => {
    const w = billing();
    const book = w.add('2026-11-10', '40,00');
    w.add('2026-10-31', '5'); // before the range
    w.add('2026-11-11', '6', { billable: false });
    w.add('2026-11-12', '7', { projectId: w.otherProjectId }); // another client's
    const id = w.create();
    const invoice = w.get(id);
    expect(invoice.lines.map((l) => [l.description, l.amount, l.taxCategory, l.taxRate])).to.deep.equal([
      ['Buch', 160, 'S', 19],
      ['10 Nov 2026 Fachbuch', 40, 'S', 7],
    ]);
    expect(invoice.lines[1]).to.deep.include({ quantitySec: 0, hourlyRate: null, projectId: null });
    expect((invoice.lines[1] as { manual?: unknown }).manual).to.deep.equal({ quantity: 1, unit: 'C62', unitPrice: 40 });
    expect((invoice.taxBreakdown ?? []).map((r) => [r.category, r.rate, r.basisAmount, r.taxAmount])).to.deep.equal([
      ['S', 7, 40, 2.8],
      ['S', 19, 160, 30.4],
    ]);
    expect([invoice.netTotal, invoice.taxTotal, invoice.grossTotal]).to.deep.equal([200, 33.2, 233.2]);
    expect(w.expenses.get(w.owner, book.id).invoiceId).to.equal(id);
  });

  it('locks an invoiced expense until its invoice is voided, and a later draft does not take it twice', () => {
    const w = billing();
    const book = w.add('2026-11-10', '40');
    const id = w.create();
    for (const attempt of [() => w.expenses.update(w.owner, book.id, { amount: '1' }), () => w.expenses.delete(w.owner, book.id)]) {
      const error = refusal(attempt);
      expect(error.code).to.equal('conflict');
      expect(error.message).to.contain(id);
      expect(error.people).to.contain('Voiding the invoice releases it');
    }
    w.services.entries.create(w.owner, {
      projectId: w.projectId,
      start: '2026-11-20T09:00:00Z',
      end: '2026-11-20T10:00:00Z',
      billable: true,
    });
    expect(w.get(w.create()).lines.map((l) => l.description)).to.deep.equal(['Buch']);
    w.services.invoices.changeStatus(OPERATOR, id, 'void', w.ownerId);
    expect(w.expenses.get(w.owner, book.id).invoiceId).to.equal(null);
    expect(w.expenses.update(w.owner, book.id, { amount: '41' }).amount).to.equal(41);
  });

  it('removing an expense’s line from a draft releases that expense (editable, invoiced again); a line of time stays refused', () => {
    const w = billing();
    const first = w.add('2026-11-10', '40');
    const twin = w.add('2026-11-10', '40');
    const taxi = w.add('2026-11-12', '18,50', { description: 'Taxi' });
    const id = w.create();
    // A manual line that reads like an expense's line: removing it frees nothing the draft still bills.
    w.services.invoices.addLine(w.owner, id, { description: '12 Nov 2026 Taxi', quantity: 1, unit: 'C62', unitPrice: '18.5' });
    expect(w.get(id).lines.map((l) => l.description)).to.deep.equal([
      'Buch',
      '10 Nov 2026 Fachbuch',
      '10 Nov 2026 Fachbuch',
      '12 Nov 2026 Taxi',
      '12 Nov 2026 Taxi',
    ]);
    w.services.invoices.removeLine(w.owner, id, 4);
    // Two Taxi lines, one Taxi expense: one line gone, the expense still billed by the other.
    expect(w.expenses.get(w.owner, taxi.id).invoiceId).to.equal(id);
    w.services.invoices.removeLine(w.owner, id, 4);
    expect(w.expenses.get(w.owner, taxi.id).invoiceId).to.equal(null);
    w.services.invoices.removeLine(w.owner, id, 2);
    const held = [first, twin].filter((e) => w.expenses.get(w.owner, e.id).invoiceId === id);
    expect(held).to.have.length(1);
    const invoice = w.get(id);
    expect(invoice.lines.map((l) => [l.description, l.amount])).to.deep.equal([
      ['Buch', 160],
      ['10 Nov 2026 Fachbuch', 40],
    ]);
    expect([invoice.netTotal, invoice.taxTotal]).to.deep.equal([200, 33.2]);
    // Released: it can be edited, and the next draft of its range takes it again.
    expect(w.expenses.update(w.owner, taxi.id, { amount: '19' }).amount).to.equal(19);
    expect(refusal(() => w.services.invoices.removeLine(w.owner, id, 1)).message).to.contain('is time, not a manual line');
    w.services.invoices.changeStatus(OPERATOR, id, 'void', w.ownerId);
    w.services.entries.create(w.owner, {
      projectId: w.projectId,
      start: '2026-11-20T09:00:00Z',
      end: '2026-11-20T10:00:00Z',
      billable: true,
    });
    expect(w.get(w.create()).lines.map((l) => [l.description, l.amount])).to.deep.equal([
      ['Buch', 240],
      ['10 Nov 2026 Fachbuch', 40],
      ['10 Nov 2026 Fachbuch', 40],
      ['12 Nov 2026 Taxi', 19],
    ]);
  });

  it('a draft made before 113ebf7 (its expense lines dated 2026-11-10, as the database held them) releases the expense when its line is removed', () => {
    const w = billing('de');
    const book = w.add('2026-11-10', '40');
    const taxi = w.add('2026-11-12', '18,50', { description: 'Taxi' });
    const id = w.create();
    // Before 113ebf7 an expense's line began with its ISO day in every language: the draft's lines as that code stored them.
    const stored = w.database.sqlite.prepare('select lines from invoices where id = ?').get(id) as { lines: string };
    const old = stored.lines.replace('"10.11.2026 Fachbuch"', '"2026-11-10 Fachbuch"').replace('"12.11.2026 Taxi"', '"2026-11-12 Taxi"');
    expect(old).to.not.equal(stored.lines);
    const { sqlite } = w.database;
    sqlite.transaction(() => sqlite.prepare('update invoices set lines = ? where id = ?').run(old, id))();
    // A line typed to read like the taxi's in today's form: with the old line gone it still bills the taxi, so nothing is freed yet.
    w.services.invoices.addLine(w.owner, id, { description: '12.11.2026 Taxi', quantity: 1, unit: 'C62', unitPrice: '18.5' });
    expect(w.get(id).lines.map((l) => l.description)).to.deep.equal(['Buch', '2026-11-10 Fachbuch', '2026-11-12 Taxi', '12.11.2026 Taxi']);
    w.services.invoices.removeLine(w.owner, id, 2);
    expect(w.expenses.get(w.owner, book.id).invoiceId).to.equal(null);
    w.services.invoices.removeLine(w.owner, id, 2);
    expect(w.expenses.get(w.owner, taxi.id).invoiceId).to.equal(id);
    w.services.invoices.removeLine(w.owner, id, 2);
    expect(w.expenses.get(w.owner, taxi.id).invoiceId).to.equal(null);
    expect(w.get(id).lines.map((l) => l.description)).to.deep.equal(['Buch']);
    // Released: editable, and the next draft of the range takes both again (in today's form).
    expect(w.expenses.update(w.owner, book.id, { amount: '41' }).amount).to.equal(41);
    w.services.invoices.changeStatus(OPERATOR, id, 'void', w.ownerId);
    expect(w.get(w.create()).lines.map((l) => [l.description, l.amount])).to.deep.equal([
      ['Buch', 160],
      ['10.11.2026 Fachbuch', 41],
      ['12.11.2026 Taxi', 18.5],
    ]);
  });

  it('makes a draft of expenses alone when the range has no billable time', () => {
    const w = billing();
    w.add('2026-12-03', '12.5', { taxCategory: '', taxRate: '' });
    const invoice = w.get(w.create('2026-12-01', '2026-12-31'));
    expect(invoice.lines.map((l) => [l.description, l.amount, l.taxRate])).to.deep.equal([['3 Dec 2026 Fachbuch', 12.5, 19]]);
    expect(refusal(() => w.create('2027-01-01', '2027-01-31')).field).to.equal('from');
  });

  it('writes an expense line’s day as the invoice’s language writes dates, as a line of time does', () => {
    const w = billing('de');
    w.add('2026-12-03', '12.5', { taxCategory: '', taxRate: '' });
    const invoice = w.get(w.create('2026-12-01', '2026-12-31'));
    expect(invoice.lines.map((l) => l.description)).to.deep.equal(['03.12.2026 Fachbuch']);
  });
});
