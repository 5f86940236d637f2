import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DomainError } from '../../src/errors.js';
import type { ImportRequest } from '../../src/modules/imports/service.js';
import { type Actor, OPERATOR, type Principal } from '../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../helpers/services.js';

const FIXTURES = new URL('../fixtures/import/', import.meta.url).pathname;
const fixture = (name: string) => join(FIXTURES, name);

/** The import engine's rules (decisions §10) over an in-memory database: files from test/fixtures/import. */
describe('imports service', () => {
  let world: ServiceWorld;
  let dir: string;
  let ada: Actor;
  beforeEach(() => {
    world = memoryServices();
    ada = world.member({ name: 'Ada Lovelace' });
    // The member helper names emails memberN@example.org: Ada's is made ada@example.org here.
    world.services.accounts.setUser(OPERATOR, ada.userId, { email: 'ada@example.org' });
    dir = mkdtempSync(join(tmpdir(), 'timetrack-import-svc-'));
  });
  afterEach(() => {
    world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (request: Partial<ImportRequest> & { path: string }, principal: Principal = OPERATOR) =>
    world.services.imports.run(principal, { workspaceId: world.workspaceId, timeZone: 'Europe/Berlin', ...request });
  const refusal = async (fn: () => Promise<unknown>): Promise<{ code: string; message: string }> => {
    try {
      await fn();
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, message: error.message };
      throw error;
    }
    return { code: 'none', message: '' };
  };
  /** Every entry of the workspace, oldest first, as the owner sees them through the service. */
  const entries = () =>
    world.services.entries.list(world.owner, { from: '2020-01-01', to: '2030-01-01', limit: 500 }).rows.slice().reverse();
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('refuses the whole file for a user who matches no member, listing them; nothing is written', async () => {
    const { report, stopped } = await run({ path: fixture('toggl.csv') });
    expect(stopped).to.equal(true);
    expect(report).to.deep.include({ importId: null, format: 'toggl', rows: 3, imported: 0, duplicates: 0 });
    expect(report.refused).to.deep.equal([
      {
        line: 5,
        message:
          'Grace Hopper <grace@example.org> matches no member of the workspace: add them (timetrack member add), or import with --create-members',
      },
    ]);
    expect(report.unmatchedUsers).to.deep.equal([{ name: 'Grace Hopper', email: 'grace@example.org', rows: 1, firstLine: 5 }]);
    expect(entries()).to.deep.equal([]);
    expect(await world.services.imports.list(OPERATOR, world.workspaceId)).to.deep.equal([]);
  });

  it('imports a Toggl file: members by email (any case), created when asked, the catalog found or created, times in the zone', async () => {
    const { report } = await run({ path: fixture('toggl.csv'), createMembers: true });
    expect(report.importId).to.match(/^imp_/);
    expect(report).to.deep.include({ rows: 3, imported: 3, duplicates: 0, refused: [], unmatchedUsers: [] });
    expect(report.created).to.deep.equal({ clients: 1, projects: 2, tasks: 1, tags: 3, users: 1 });
    const list = entries();
    expect(list.map((e) => [e.start, e.end, e.description, e.source, e.importId])).to.deep.equal([
      ['2026-03-02T08:00:00.000Z', '2026-03-02T09:30:00.000Z', 'Header, with "quotes"', 'import', report.importId],
      ['2026-03-02T10:00:00.000Z', '2026-03-02T10:45:00.000Z', 'Two\r\nlines', 'import', report.importId],
      ['2026-03-03T08:00:00.000Z', '2026-03-03T08:15:00.000Z', '', 'import', report.importId],
    ]);
    expect(list[0]?.authorId).to.equal(ada.userId);
    expect(list[1]?.authorId).to.equal(ada.userId);
    const grace = world.services.accounts.memberDirectory(world.workspaceId).find((m) => m.email === 'grace@example.org');
    expect(list[2]?.authorId).to.equal(grace?.userId);
    expect(list.map((e) => e.billable)).to.deep.equal([true, false, false]);
    const projects = world.services.catalog.projects.list(world.owner, {});
    expect(projects.map((p) => p.name).sort()).to.deep.equal(['Internal', 'Website']);
    const tags = world.services.catalog.tags.list(world.owner).map((t) => t.name);
    expect(tags).to.deep.equal(['design', 'meeting', 'review']);
    expect(list[0]?.tagIds).to.have.length(2);
    expect(list[0]?.timeZone).to.equal('Europe/Berlin');
    // Each entry recorded its sync event, as every write does.
    const events = world.services.events.tail(OPERATOR, world.workspaceId).filter((e) => e.entity === 'entry');
    expect(events.map((e) => e.event)).to.deep.equal(['entry.created', 'entry.created', 'entry.created']);
  });

  it('skips what an earlier import wrote: the same file twice writes nothing, an overlapping export adds only the new rows', async () => {
    await run({ path: fixture('toggl.csv'), createMembers: true });
    const again = await run({ path: fixture('toggl.csv'), createMembers: true });
    expect(again.report).to.deep.include({ imported: 0, duplicates: 3 });
    expect(entries()).to.have.length(3);
    const later = write(
      'later.csv',
      'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)\n' +
        'Ada Lovelace,ada@example.org,Acme,Website,Design,"Header, with ""quotes""",Yes,2026-03-02,09:00:00,2026-03-02,10:30:00,01:30:00,"review,design",120.00\n' +
        'Ada Lovelace,ada@example.org,Acme,Website,,New work,No,2026-03-04,09:00:00,2026-03-04,10:00:00,01:00:00,,0.00\n',
    );
    const overlap = await run({ path: later });
    expect(overlap.report).to.deep.include({ imported: 1, duplicates: 1 });
    expect(entries().map((e) => e.description)).to.include('New work');
  });

  it('decides day/month order over the whole file, reads semicolons and an entry across midnight', async () => {
    const { report } = await run({ path: fixture('toggl-semicolon-dmy.csv') });
    expect(report).to.deep.include({ imported: 2, refused: [] });
    expect(entries().map((e) => [e.start, e.end])).to.deep.equal([
      ['2026-03-02T22:30:00.000Z', '2026-03-02T23:30:00.000Z'],
      ['2026-03-13T08:00:00.000Z', '2026-03-13T08:30:00.000Z'],
    ]);
  });

  it('reads a file once to check it when no day needs the order decided, twice when one does', async () => {
    const phases = async (path: string, extra: Partial<ImportRequest> = {}) => {
      const seen: string[] = [];
      await run({ path, dryRun: true, createMembers: true, ...extra, progress: (p) => seen.at(-1) !== p.phase && seen.push(p.phase) });
      return seen;
    };
    // ISO days: the users, the date evidence and the checks in one reading.
    expect(await phases(fixture('toggl.csv'))).to.deep.equal(['checking']);
    // 02/03/2026: the order is decided over the whole file first, then the rows are checked.
    expect(await phases(fixture('toggl-semicolon-dmy.csv'))).to.deep.equal(['reading', 'checking']);
    // The order given: one reading again.
    expect(await phases(fixture('toggl-semicolon-dmy.csv'), { dateFormat: 'DMY' })).to.deep.equal(['checking']);
  });

  it('refuses to guess a day/month order no row settles, until --date-format says', async () => {
    const refused = await refusal(() => run({ path: fixture('toggl-undecided.csv') }));
    expect(refused.code).to.equal('invalid');
    expect(refused.message).to.equal(
      'The dates of this file can be read day-first or month-first (line 2: "03/04/2026"), and no day above 12 settles it: say which with --date-format DMY or MDY.',
    );
    const { report } = await run({ path: fixture('toggl-undecided.csv'), dateFormat: 'MDY' });
    expect(report.imported).to.equal(1);
    expect(entries()[0]?.start).to.equal('2026-03-04T08:00:00.000Z');
  });

  it('keeps a file rate exact (80.05 stays 80.05) and rounds the amount once; Clockify month-first 12-hour times', async () => {
    const { report } = await run({ path: fixture('clockify-mdy-12h.csv') });
    expect(report).to.deep.include({ format: 'clockify', imported: 2 });
    const [afternoon, call] = entries();
    expect([call?.start, call?.end, call?.hourlyRate, call?.amount]).to.deep.equal([
      '2026-03-16T08:05:00.000Z',
      '2026-03-16T09:46:00.000Z',
      80.05,
      134.75,
    ]);
    expect([afternoon?.start, afternoon?.end, afternoon?.hourlyRate]).to.deep.equal([
      '2026-03-02T11:30:00.000Z',
      '2026-03-02T12:15:00.000Z',
      95.5,
    ]);
    // The report's total is the sum of its rows, to the cent.
    const summary = world.services.reports.summary(world.owner, {
      from: '2026-03-01',
      to: '2026-03-31',
      groupBy: 'project',
      timeZone: 'UTC',
    });
    expect(summary.totals.amount).to.equal(134.75 + (afternoon?.amount ?? 0));
  });

  it('reads Harvest: hours exact to the second, rows of a day following each other from 09:00, the currency named in words', async () => {
    const { report } = await run({ path: fixture('harvest.csv') });
    expect(report).to.deep.include({ format: 'harvest', imported: 3 });
    expect(entries().map((e) => [e.start, e.end, e.durationSec, e.billable])).to.deep.equal([
      ['2026-03-02T08:00:00.000Z', '2026-03-02T09:41:00.000Z', 6060, true],
      ['2026-03-02T09:41:00.000Z', '2026-03-02T10:11:00.000Z', 1800, true],
      ['2026-03-03T08:00:00.000Z', '2026-03-03T10:00:00.000Z', 7200, false],
    ]);
  });

  it('refuses a file in another currency before anything is written', async () => {
    const refused = await refusal(() => run({ path: fixture('harvest-usd.csv') }));
    expect(refused.message).to.equal(
      "The file's amounts are in USD and the workspace's in EUR: nothing was imported. Export the report in EUR, or import into a workspace that uses USD.",
    );
    expect(entries()).to.deep.equal([]);
  });

  it('reads Kimai: customer and activity, an overnight entry, a user named by email', async () => {
    const { report } = await run({ path: fixture('kimai.csv') });
    expect(report).to.deep.include({ format: 'kimai', imported: 2, refused: [] });
    const [night, morning] = entries();
    expect([night?.start, night?.end, night?.hourlyRate]).to.deep.equal(['2026-03-02T21:00:00.000Z', '2026-03-03T00:00:00.000Z', 70]);
    expect(morning?.start).to.equal('2026-03-16T08:00:00.000Z');
    const task = world.services.catalog.tasks.list(world.owner, {})[0];
    expect(task?.name).to.equal('Support');
    expect(world.services.catalog.clients.list(world.owner, {}).map((c) => c.name)).to.deep.equal(['Acme']);
  });

  it('reads the timetrack format without a time zone', async () => {
    const { report } = await run({ path: fixture('timetrack.csv'), timeZone: undefined });
    expect(report).to.deep.include({ format: 'timetrack', imported: 1 });
    expect(entries()[0]).to.deep.include({ start: '2026-03-02T08:00:00.000Z', hourlyRate: 80.05, amount: 80.05, timeZone: null });
  });

  it('refuses each bad row with its line and column, and writes nothing unless --skip-invalid', async () => {
    const { report, stopped } = await run({ path: fixture('toggl-bad.csv') });
    expect(stopped).to.equal(true);
    expect(report.refused).to.deep.equal([
      { line: 3, message: "Description: 501 characters; an entry's description holds at most 500: shorten it" },
      { line: 4, message: 'Tags: 21 tags; an entry holds at most 20' },
      { line: 5, message: 'End time: the end is at or before the start' },
      { line: 6, message: 'the row has 4 cells and the header 14: a cell is missing (or a quote is not closed)' },
    ]);
    expect(entries()).to.deep.equal([]);
    const skipped = await run({ path: fixture('toggl-bad.csv'), skipInvalid: true });
    expect(skipped.report).to.deep.include({ imported: 2 });
    expect(entries().map((e) => e.description)).to.deep.equal(['Fine row', 'Twenty tags']);
    expect(entries()[1]?.tagIds).to.have.length(20);
  });

  it('refuses a rate that is not a number, a local time in the DST gap, and takes the earlier repeated hour', async () => {
    const rate = await run({ path: fixture('clockify-bad-rate.csv') });
    expect(rate.report.refused).to.deep.equal([
      { line: 2, message: 'Billable Rate: "eighty" is not a number; write a rate such as 80.05' },
    ]);
    const dst = await run({ path: fixture('toggl-dst.csv'), skipInvalid: true });
    expect(dst.report.refused).to.deep.equal([
      { line: 2, message: 'Start time: 02:30 does not exist in Europe/Berlin on that day (the clocks skip it for daylight saving time)' },
    ]);
    expect(entries().map((e) => [e.start, e.end])).to.deep.equal([['2026-10-25T00:30:00.000Z', '2026-10-25T02:30:00.000Z']]);
  });

  it('refuses whole files before reading rows: not UTF-8, empty, a header only, an unknown format, no or an unknown zone', async () => {
    const messages = [];
    for (const request of [
      { path: fixture('latin1.csv') },
      { path: fixture('empty.csv') },
      { path: fixture('header-only.csv') },
      { path: fixture('unknown-format.csv') },
      { path: fixture('toggl.csv'), timeZone: undefined },
      { path: fixture('toggl.csv'), timeZone: 'Mars/Olympus' },
      { path: fixture('toggl.csv'), format: 'harvest' as const },
    ]) {
      messages.push((await refusal(() => run(request))).message.slice(0, 40));
    }
    expect(messages).to.deep.equal([
      'The file is not UTF-8 text. Save it agai',
      'The file is empty: export the detailed r',
      'The file has a header line and no rows: ',
      'No import format matches the columns of ',
      'A toggl file holds local times: say in w',
      'Unknown time zone "Mars/Olympus": use an',
      'This is not a harvest file: it lacks the',
    ]);
  });

  it('a dry run writes nothing and reports what an import would do', async () => {
    const { report } = await run({ path: fixture('toggl.csv'), createMembers: true, dryRun: true });
    expect(report).to.deep.include({ importId: null, dryRun: true, rows: 3, imported: 3, duplicates: 0 });
    expect(report.created).to.deep.equal({ clients: 1, projects: 2, tasks: 1, tags: 3, users: 1 });
    expect(entries()).to.deep.equal([]);
    expect(world.services.catalog.clients.list(world.owner, {})).to.deep.equal([]);
    expect(world.services.accounts.memberDirectory(world.workspaceId).map((m) => m.email)).to.not.include('grace@example.org');
  });

  it('writes every row as --user, ignoring the file’s users', async () => {
    const { report } = await run({ path: fixture('toggl.csv'), user: 'ADA@example.org' });
    expect(report).to.deep.include({ imported: 3, unmatchedUsers: [] });
    expect(entries().map((e) => e.authorId)).to.deep.equal([ada.userId, ada.userId, ada.userId]);
  });

  it('a member imports their own history only; an owner imports the team’s; each sees the imports they may', async () => {
    const { report } = await run({ path: fixture('toggl.csv') }, ada);
    expect(report.imported).to.equal(3);
    expect(entries().map((e) => e.authorId)).to.deep.equal([ada.userId, ada.userId, ada.userId]);
    expect((await refusal(() => run({ path: fixture('toggl.csv'), user: world.ownerId }, ada))).code).to.equal('forbidden');
    expect((await refusal(() => run({ path: fixture('toggl.csv'), createMembers: true }, ada))).code).to.equal('forbidden');
    const other = world.member();
    expect(await world.services.imports.list(other, world.workspaceId)).to.deep.equal([]);
    expect((await refusal(() => world.services.imports.show(other, report.importId as string))).code).to.equal('not_found');
    expect((await refusal(() => world.services.imports.undo(other, report.importId as string))).code).to.equal('not_found');
    expect((await world.services.imports.list(world.owner, world.workspaceId)).map((i) => i.by)).to.deep.equal([ada.userId]);
    const team = await run({ path: fixture('kimai.csv') }, world.owner);
    expect(team.report.imported).to.equal(2);
  });

  it('undo deletes the import’s entries and the catalog it created that nothing uses; its rows can then be imported again', async () => {
    const kept = world.services.catalog.clients.create(world.owner, { name: 'acme' });
    const { report } = await run({ path: fixture('toggl.csv'), createMembers: true });
    const id = report.importId as string;
    expect(await world.services.imports.undo(OPERATOR, id)).to.deep.equal({ importId: id, deleted: 3 });
    expect(entries()).to.deep.equal([]);
    // The client existed before (found by name, any case): it stays; what the import created is gone.
    expect(world.services.catalog.clients.list(world.owner, {}).map((c) => c.id)).to.deep.equal([kept.id]);
    expect(world.services.catalog.projects.list(world.owner, {})).to.deep.equal([]);
    expect(world.services.catalog.tags.list(world.owner)).to.deep.equal([]);
    expect((await world.services.imports.show(OPERATOR, id)).state).to.equal('undone');
    expect((await refusal(() => world.services.imports.undo(OPERATOR, id))).code).to.equal('conflict');
    const again = await run({ path: fixture('toggl.csv'), createMembers: true });
    expect(again.report).to.deep.include({ imported: 3, duplicates: 0 });
  });

  it('uses archived clients, projects and tasks as they are (the history is what it was)', async () => {
    const client = world.services.catalog.clients.create(world.owner, { name: 'Acme' });
    const project = world.services.catalog.projects.create(world.owner, { name: 'Website', clientId: client.id });
    const task = world.services.catalog.tasks.create(world.owner, { name: 'Design', projectId: project.id });
    world.services.catalog.tasks.update(world.owner, task.id, { archived: true });
    world.services.catalog.projects.update(world.owner, project.id, { archived: true });
    world.services.catalog.clients.update(world.owner, client.id, { archived: true });
    const { report } = await run({ path: fixture('toggl.csv'), user: ada.userId });
    expect(report).to.deep.include({ imported: 3, refused: [] });
    expect(report.created).to.deep.include({ clients: 0, tasks: 0 });
    expect(entries()[0]).to.deep.include({ projectId: project.id, taskId: task.id });
  });

  it('refuses to undo an import whose entries were invoiced since, naming them', async () => {
    const { report } = await run({ path: fixture('timetrack.csv') });
    const client = world.services.catalog.clients.list(world.owner, {})[0];
    world.services.invoices.setSettings(OPERATOR, world.workspaceId, { taxRate: 19 });
    world.services.invoices.create(OPERATOR, {
      workspaceId: world.workspaceId,
      userId: world.ownerId,
      clientId: client?.id as string,
      from: '2026-03-01',
      to: '2026-03-31',
    });
    const refused = await refusal(() => world.services.imports.undo(OPERATOR, report.importId as string));
    expect(refused.code).to.equal('conflict');
    expect(refused.message).to.match(new RegExp(`^Import ${report.importId} cannot be undone: 1 of its entries is invoiced since \\(ent_`));
    expect(entries()).to.have.length(1);
  });

  it('an import whose process died is cleaned up and recorded failed', async () => {
    const { report } = await run({ path: fixture('toggl.csv'), createMembers: true });
    const id = report.importId as string;
    // As a kill -9 midway leaves it: still running, owned by a process that is gone.
    const { sqlite } = world.database;
    sqlite.transaction(() => sqlite.prepare("update imports set state = 'running', pid = 999999999 where id = ?").run(id))();
    const shown = await world.services.imports.show(OPERATOR, id);
    expect(shown.state).to.equal('failed');
    expect(shown.failure).to.match(/stopped midway/);
    expect(entries()).to.deep.equal([]);
  });
});
