import { expect } from 'chai';
import {
  type ExportHead,
  type ExportReader,
  type ExportRequest,
  type ExportTable,
  type Row,
  voiceOf,
} from '../../../src/modules/reports/export/index.js';
import { sinkStream } from '../../../src/modules/reports/export/output.js';
import { lookOf, type PdfPage, writePdf } from '../../../src/modules/reports/export/pdf.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * The report PDFs' own rules (issue 58 item 6), below the bytes: the timesheet's weeks start on
 * the member's first day of the week as the timesheet page does, across a DST change; the totals
 * stay with their table (the writer's own records of each page); thousands grouped; lines to
 * sign only for a client.
 */
describe('report PDFs: the timesheet’s weeks', () => {
  let world: ServiceWorld;
  before(() => {
    world = memoryServices({ now: Date.UTC(2026, 10, 20, 12) });
    const { services, owner } = world;
    const audit = services.catalog.projects.create(owner, { name: 'Audit', billable: true, hourlyRate: 80 }).id;
    // Sunday 25 October 2026 in Berlin has 25 hours (CEST to CET at 03:00): an entry at its first hour, one at its last, one just after it.
    const add = [
      { start: '2026-10-25T00:30:00+02:00', end: '2026-10-25T01:30:00+02:00' },
      { start: '2026-10-25T23:00:00+01:00', end: '2026-10-25T23:45:00+01:00' },
      { start: '2026-10-26T00:15:00+01:00', end: '2026-10-26T02:15:00+01:00' },
      { start: '2026-11-01T09:00:00+01:00', end: '2026-11-01T10:00:00+01:00' },
    ].map((e) => ({ ...e, projectId: audit, description: 'work' }));
    services.entries.saveSheet(owner, { add: add as never, shorten: [], remove: [] });
  });
  after(() => world.close());

  const weeksOf = (weekStart: ExportRequest['weekStart'], from: string, to: string) =>
    (
      world.services.reports.exportTable(world.owner, {
        kind: 'weekly',
        format: 'pdf',
        from,
        to,
        timeZone: 'Europe/Berlin',
        weekStart,
        groupBy: 'project',
        subGroupBy: null,
      }).weeks ?? []
    ).map((w) => ({ days: w.days, within: w.within, totals: w.totals.seconds.map((s) => s / 60) }));

  it('a Monday week: seven days from the Monday, those before the range empty and marked outside (not a week of one Sunday)', () => {
    expect(weeksOf('monday', '2026-10-25', '2026-11-01')).to.deep.equal([
      {
        days: ['2026-10-19', '2026-10-20', '2026-10-21', '2026-10-22', '2026-10-23', '2026-10-24', '2026-10-25'],
        within: [false, false, false, false, false, false, true],
        totals: [0, 0, 0, 0, 0, 0, 105],
      },
      {
        days: ['2026-10-26', '2026-10-27', '2026-10-28', '2026-10-29', '2026-10-30', '2026-10-31', '2026-11-01'],
        within: [true, true, true, true, true, true, true],
        totals: [120, 0, 0, 0, 0, 0, 60],
      },
    ]);
  });

  it('a Sunday week: seven days from the Sunday, the days after the range empty and marked outside', () => {
    expect(weeksOf('sunday', '2026-10-25', '2026-11-01')).to.deep.equal([
      {
        days: ['2026-10-25', '2026-10-26', '2026-10-27', '2026-10-28', '2026-10-29', '2026-10-30', '2026-10-31'],
        within: [true, true, true, true, true, true, true],
        totals: [105, 120, 0, 0, 0, 0, 0],
      },
      {
        days: ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07'],
        within: [true, false, false, false, false, false, false],
        totals: [60, 0, 0, 0, 0, 0, 0],
      },
    ]);
  });
});

describe('report PDFs: the totals with their table, thousands grouped, signatures only for a client', () => {
  const head = (client: string | null, reader?: ExportReader): ExportHead => ({
    kind: 'detailed',
    from: '2026-11-01',
    to: '2026-11-30',
    timeZone: 'Europe/Berlin',
    currency: 'EUR',
    members: null,
    groupBy: 'project',
    subGroupBy: null,
    weekStart: 'monday',
    money: true,
    only: [],
    rounded: null,
    client,
    voice: voiceOf(reader),
  });
  /** A table of `count` rows (a project, its hours, its amount), its pages as the writer records them. */
  async function pagesOf(count: number, client: string | null): Promise<PdfPage[]> {
    const rows: Row[] = Array.from({ length: count }, (_, i) => ({ cells: [`Project ${i + 1}`, 3600, 90] }));
    const table: ExportTable = {
      head: head(client),
      columns: [
        { header: 'Project', type: 'text', width: 40 },
        { header: 'Hours', type: 'duration', width: 9 },
        { header: 'Amount', type: 'money', width: 11, money: true },
      ],
      batches: [rows],
      totals: () => ({ seconds: count * 3600, amount: count * 90, count }),
      rows: () => count,
    };
    const pages: PdfPage[] = [];
    const out = sinkStream({ cancelled: false, write: async () => undefined });
    await writePdf(table, out, pages);
    await out.end();
    return pages;
  }

  it('never leaves the totals alone on a page: a table that ends at a page’s foot takes its last rows over with them', async () => {
    // A page holds 32 rows under the head: 21 leave room for the totals and signatures, 22 to 32 end too near the page's
    // foot for them (32 exactly at it), 33 and 36 run over to a second page.
    const orphans: number[] = [];
    let turned = 0;
    for (const count of [21, 22, 27, 32, 33, 36]) {
      const pages = await pagesOf(count, 'Harbour Ltd');
      const closing = pages.filter((p) => p.totals);
      expect(closing, `${count} rows`).to.have.length(1);
      expect(
        pages.reduce((n, p) => n + p.rows, 0),
        `${count} rows`,
      ).to.equal(count);
      expect(pages[pages.length - 1]?.totals, `${count} rows: the totals on the last page`).to.equal(true);
      if ((closing[0] as PdfPage).rows === 0) orphans.push(count);
      if (pages.length > 1 && (pages[pages.length - 1] as PdfPage).rows <= 3) turned += 1;
    }
    expect(orphans, 'tables whose totals stand alone on a page').to.deep.equal([]);
    // The sweep did reach tables whose end is at a page's foot (their last rows turned over with the totals).
    expect(turned).to.be.greaterThan(0);
  });

  it('closes with lines to sign only a report for one client; an internal team summary ends with its totals', async () => {
    const forClient = await pagesOf(10, 'Harbour Ltd');
    expect(forClient.map((p) => [p.rows, p.totals, p.signatures])).to.deep.equal([[10, true, true]]);
    const internal = await pagesOf(10, null);
    expect(internal.map((p) => [p.rows, p.totals, p.signatures])).to.deep.equal([[10, true, false]]);
  });

  it('groups thousands in money, hours and durations: the reader’s locale, and the command line’s PDF too', () => {
    const seconds = 1234 * 3600 + 30 * 60;
    const en = lookOf(head(null, { language: 'en' }));
    expect([en.money(12480), en.hours(seconds), en.duration(seconds)]).to.deep.equal(['€12,480.00', '1,234.50', '1,234:30']);
    const de = lookOf(head(null, { language: 'de' }));
    expect([de.money(12480), de.hours(seconds), de.duration(seconds)]).to.deep.equal(['12.480,00\u00a0€', '1.234,50', '1.234:30']);
    const cli = lookOf(head(null));
    expect([cli.money(12480), cli.hours(seconds), cli.duration(seconds)]).to.deep.equal(['12,480.00 EUR', '1,234.50', '1,234:30']);
  });
});
