import { expect } from 'chai';
import { type ExportRequest } from '../../../src/modules/reports/export/index.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * The report PDFs' own rules (issue 58 item 6), below the bytes: the timesheet's weeks start on
 * the member's first day of the week as the timesheet page does, across a DST change.
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
