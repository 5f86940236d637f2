import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import fc from 'fast-check';
import type { Actor } from '../../src/principal.js';
import { toCents } from '../../src/kernel/money.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { typedClient } from '../helpers/client.js';

/**
 * Exact money over the real services and database: every amount is rate × seconds / 3600 on the
 * rate's decimal, rounded once half away from zero, and every total (project progress, report
 * totals and groups) is exactly the sum of its entries, to the cent; an invoice line is its rate ×
 * its seconds, rounded once, and the invoice's total the sum of its lines.
 */
describe('money: exact amounts, totals that are the sums of their rows', () => {
  let server: TestServer;
  let n = 0;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** Rates as a client writes them: up to three decimals, some on the half cent. */
  const rate = fc.oneof(
    fc.constantFrom(1.005, 1.15, 0.125, 33.333, 0.005, 99.995, 1_000_000_000),
    fc.integer({ min: 0, max: 50_000_000 }).map((units) => units / 1000),
  );

  /** Whether `cents` is rate × seconds / 3600 rounded half away from zero, checked on exact integers. */
  function isExact(hourlyRate: number, seconds: number, cents: number): boolean {
    const [whole = '0', fraction = ''] = String(hourlyRate).split('.');
    const units = BigInt(whole + fraction);
    const scale = 10n ** BigInt(fraction.length);
    // |rate × seconds × 100 / 3600 − cents| ≤ 1/2, and at exactly 1/2 the larger one.
    const difference = units * BigInt(seconds) * 100n - BigInt(cents) * 3600n * scale;
    return 2n * (difference < 0n ? -difference : difference) <= 3600n * scale && !(2n * difference === 3600n * scale);
  }

  it('property: each amount is exact; progress and reports are the sums of their entries, an invoice of its lines', async () => {
    const entry = fc.record({
      project: fc.integer({ min: 0, max: 2 }),
      day: fc.integer({ min: 1, max: 20 }),
      seconds: fc.integer({ min: 1, max: 12 * 3600 }),
      billable: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(rate, { minLength: 3, maxLength: 3 }),
        fc.array(entry, { minLength: 1, maxLength: 25 }),
        async (rates, list) => {
          const { accounts, tokens, catalog, entries, reports, invoices } = server.services;
          const k = ++n;
          const workspaceId = accounts.createWorkspace(OPERATOR, { name: `Money ${k}` }).id;
          const userId = accounts.createUser(OPERATOR, { name: `M ${k}`, email: `money${k}@example.org` }).id;
          accounts.addMember(OPERATOR, { workspaceId, userId, canViewOthersTime: true, canViewOthersMoney: true });
          const token = tokens.create(OPERATOR, {
            workspaceId,
            userId,
            name: 't',
            scopes: ['entries:write', 'catalog:write', 'reports:read'],
          }).token;
          const actor: Actor = tokens.authenticate(token)!.actor;
          const client = catalog.clients.create(actor, { name: 'C' }).id;
          const projects = rates.map((hourlyRate, i) => catalog.projects.create(actor, { name: `P${i}`, clientId: client, hourlyRate }).id);
          const created = list.map((e) => {
            const start = Date.UTC(2026, 9, e.day, 8);
            const { id } = entries.create(actor, {
              projectId: projects[e.project]!,
              billable: e.billable,
              start: new Date(start).toISOString(),
              end: new Date(start + e.seconds * 1000).toISOString(),
            });
            return { ...e, id };
          });
          // Each entry's amount, as the detailed report (and GET /entries) shows it.
          const range = { from: '2026-10-01', to: '2026-10-31' };
          const rows = new Map(reports.detailed(actor, { ...range, limit: 500 }).rows.map((r) => [r.id, toCents(r.amount!)]));
          const amounts = created.map((e) => {
            const cents = rows.get(e.id)!;
            if (e.billable) expect(isExact(rates[e.project]!, e.seconds, cents), `${rates[e.project]} × ${e.seconds} s`).to.equal(true);
            else expect(cents).to.equal(0);
            return { ...e, cents };
          });
          const sum = (rows: Array<{ cents: number }>) => rows.reduce((s, r) => s + r.cents, 0);

          for (const [i, id] of projects.entries()) {
            const progress = catalog.projects.get(actor, id).progress!;
            expect(toCents(progress.amount), `project ${i}`).to.equal(sum(amounts.filter((e) => e.project === i)));
          }

          const summary = reports.summary(actor, { ...range, groupBy: 'project' });
          expect(toCents(summary.totals.amount)).to.equal(sum(amounts));
          expect(summary.groups.reduce((s, g) => s + toCents(g.amount), 0)).to.equal(sum(amounts));

          if (amounts.some((e) => e.billable)) {
            // An invoice line is priced once (decisions §11): its rate × its seconds, so quantity ×
            // price = net on every line; the total is the sum of the lines, its tax rounded once.
            invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
            const invoice = invoices.get(OPERATOR, invoices.create(OPERATOR, { workspaceId, userId, clientId: client, ...range }).id);
            for (const line of invoice.lines)
              expect(
                isExact(line.hourlyRate!, line.quantitySec, toCents(line.amount)),
                `${line.hourlyRate} × ${line.quantitySec} s`,
              ).to.equal(true);
            expect(invoice.lines.reduce((s, l) => s + l.quantitySec, 0)).to.equal(
              amounts.filter((e) => e.billable).reduce((s, e) => s + e.seconds, 0),
            );
            expect(toCents(invoice.total)).to.equal(invoice.lines.reduce((s, l) => s + toCents(l.amount), 0));
            expect(toCents(invoice.grossTotal)).to.equal(toCents(invoice.netTotal) + toCents(invoice.taxTotal));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('rate 1.005 for an hour is 1.01 and 1.15 for half an hour 0.58, over HTTP', async () => {
    const api = typedClient(server);
    const project = await api.POST('/api/v1/projects', { body: { name: 'Half cents', billable: true, hourlyRate: 1.005 } });
    const id = project.data!.data.id;
    await api.POST('/api/v1/entries', { body: { projectId: id, start: '2026-10-01T08:00:00Z', end: '2026-10-01T09:00:00Z' } });
    await api.PATCH('/api/v1/projects/{id}', { params: { path: { id } }, body: { hourlyRate: 1.15 } });
    await api.POST('/api/v1/entries', { body: { projectId: id, start: '2026-10-01T10:00:00Z', end: '2026-10-01T10:30:00Z' } });
    const list = await api.GET('/api/v1/entries', { params: { query: { from: '2026-10-01', to: '2026-10-01', projectIds: [id] } } });
    expect(list.data!.data.map((r) => [r.hourlyRate, r.amount])).to.deep.equal([
      [1.15, 0.58],
      [1.005, 1.01],
    ]);
    const progress = await api.GET('/api/v1/projects/{id}', { params: { path: { id } } });
    expect(progress.data!.data.progress?.amount).to.equal(1.59);
  });
});
