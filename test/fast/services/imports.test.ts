import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { translator } from '../../../src/i18n/index.js';
import { csvCell } from '../../../src/modules/imports/export.js';
import type { ImportRequest } from '../../../src/modules/imports/service.js';
import { type Actor, OPERATOR, type Principal } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

const FIXTURES = new URL('../../fixtures/import/', import.meta.url).pathname;
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

  it('an owner’s --create-members never makes a member of an account that already holds the email (decisions 8a): unmatched, with what to do', async () => {
    // Grace has an account here (another workspace's, say) but is no member of this one.
    const grace = world.services.accounts.createAccount({ name: 'Someone else', email: 'GRACE@example.org' });
    const { report, stopped } = await run({ path: fixture('toggl.csv'), createMembers: true }, world.owner);
    expect(stopped).to.equal(true);
    expect(report.created.users).to.equal(0);
    expect(report.unmatchedUsers).to.deep.equal([{ name: 'Grace Hopper', email: 'grace@example.org', rows: 1, firstLine: 5 }]);
    expect(report.notices).to.deep.equal([
      'One person of the file cannot be made a member by an import (listed as unmatched): add each on the Members page, which sends an invitation; once accepted, import the file again.',
    ]);
    // Nothing names or describes the account that holds the address.
    expect(JSON.stringify(report)).not.to.include('Someone else');
    expect(world.services.accounts.memberDirectory(world.workspaceId).map((m) => m.userId)).not.to.include(grace.id);
    // Skipping her rows imports the rest; she is still no member.
    const rest = await run({ path: fixture('toggl.csv'), createMembers: true, skipInvalid: true }, world.owner);
    expect(rest.report).to.deep.include({ imported: 2 });
    expect(world.services.accounts.memberDirectory(world.workspaceId).map((m) => m.userId)).not.to.include(grace.id);
    // The operator on the server's command line may attach the account (as its member add may).
    const operator = await run({ path: fixture('toggl.csv'), createMembers: true });
    expect(operator.report).to.deep.include({ imported: 1, duplicates: 2, unmatchedUsers: [], notices: [] });
    expect(world.services.accounts.memberDirectory(world.workspaceId).map((m) => m.userId)).to.include(grace.id);
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

  it('refuses rows before the lock date and rows in a member’s submitted week, each at its line (decisions §13); --skip-invalid imports the rest', async () => {
    const { approvals } = world.services;
    // Grace's row (3 March) is after the lock date; Ada's week of 2 March waits for approval.
    approvals.setSettings(OPERATOR, world.workspaceId, { approval: 'weekly', lockedBefore: '2026-03-01' });
    world.services.entries.create(ada, { start: '2026-03-04T09:00:00Z', end: '2026-03-04T10:00:00Z' });
    approvals.submit(ada, { day: '2026-03-04' });
    const { report, stopped } = await run({ path: fixture('toggl.csv'), createMembers: true });
    expect(stopped).to.equal(true);
    expect(report.refused.map((r) => r.line)).to.deep.equal([2, 3]);
    expect(report.refused[0]?.message).to.equal(
      "A new entry starting 2026-03-02T08:00:00.000Z is in Ada Lovelace's week of 2026-03-02 to 2026-03-08, submitted for approval: its time cannot change while it waits. Ada Lovelace can withdraw it, or an approver (an owner, or a member an owner marked as approver) can reopen it.",
    );
    approvals.setSettings(OPERATOR, world.workspaceId, { approval: 'off', lockedBefore: '2026-03-03' });
    const locked = await run({ path: fixture('toggl.csv'), createMembers: true, skipInvalid: true });
    expect(locked.report.refused.map((r) => r.message.slice(0, 63))).to.deep.equal([
      'A new entry starting 2026-03-02T08:00:00.000Z falls before 2026',
      'A new entry starting 2026-03-02T10:00:00.000Z falls before 2026',
    ]);
    expect(locked.report.imported).to.equal(1);
  });

  it('the same file again, once its rows are locked (before the lock date, in a submitted week): duplicates, not refusals (decisions §13)', async () => {
    const { approvals } = world.services;
    expect((await run({ path: fixture('toggl.csv'), createMembers: true })).report).to.deep.include({ imported: 3, duplicates: 0 });
    approvals.setSettings(OPERATOR, world.workspaceId, { approval: 'weekly', lockedBefore: '2026-03-03' });
    approvals.submit(ada, { day: '2026-03-04' });
    for (const skipInvalid of [false, true]) {
      const again = await run({ path: fixture('toggl.csv'), createMembers: true, skipInvalid });
      expect(again.report, `skipInvalid ${skipInvalid}`).to.deep.include({ imported: 0, duplicates: 3, refused: [] });
    }
    expect(entries()).to.have.length(3);
  });

  it('an undo is refused, nothing deleted, while an entry of the import is in an approved week or before the lock date (decisions §13)', async () => {
    const { approvals } = world.services;
    const { report } = await run({ path: fixture('toggl.csv'), createMembers: true });
    const id = report.importId as string;
    approvals.setSettings(OPERATOR, world.workspaceId, { approval: 'weekly' });
    const week = approvals.submit(ada, { day: '2026-03-02' });
    approvals.approve(world.owner, week.id);
    const refused = await refusal(() => world.services.imports.undo(OPERATOR, id));
    expect(refused.code).to.equal('conflict');
    expect(refused.message).to.match(
      new RegExp(
        `^Import ${id} cannot be undone, nothing was deleted: Entry ent_\\w+ is in Ada Lovelace's week of 2026-03-02 to 2026-03-08, approved by Owner`,
      ),
    );
    expect(entries()).to.have.length(3);
    approvals.reopen(world.owner, week.id);
    approvals.setSettings(OPERATOR, world.workspaceId, { lockedBefore: '2026-03-03' });
    expect((await refusal(() => world.services.imports.undo(OPERATOR, id))).message).to.match(/falls before 2026-03-03 \(UTC\)/);
    approvals.setSettings(OPERATOR, world.workspaceId, { lockedBefore: null });
    expect(await world.services.imports.undo(OPERATOR, id)).to.deep.equal({ importId: id, deleted: 3 });
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

  describe('money a file carries (issue 37 item 5): nothing is lost when a format lacks a column', () => {
    const TOGGL =
      'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)\n';
    const togglRow = (description: string, start: string, end: string, amount: string, billable = 'Yes') =>
      `Ada Lovelace,ada@example.org,Acme,Fresh,,${description},${billable},${start.slice(0, 10)},${start.slice(11)},${end.slice(0, 10)},${end.slice(11)},,,${amount}\n`;
    /** The entries by description: [billable, hourlyRate, amount, durationSec]. */
    const money = () => Object.fromEntries(entries().map((e) => [e.description, [e.billable, e.hourlyRate, e.amount, e.durationSec]]));

    it('Kimai without a Billable column: rows are billable (as in Kimai), 3 h at 150 earn 450 on a project the import creates', async () => {
      const path = write(
        'kimai.csv',
        'Date,From,To,Duration,User,Customer,Project,Activity,Description,Tags,Hourly rate\n' +
          '16.03.2026,09:00,12:00,3:00,ada@example.org,Acme,Fresh,Support,Three hours,,150.00\n',
      );
      const { report } = await run({ path });
      expect(report).to.deep.include({
        imported: 1,
        refused: [],
        notices: [
          "The file names no currency: its rates (1 row) are read as EUR, the workspace's currency. (Kimai exports name none: check that its customers bill in EUR.)",
        ],
      });
      expect(money()).to.deep.equal({ 'Three hours': [true, 150, 450, 10800] });
      // Its own Billable column, where the export has one, is read as it says.
      const marked = write(
        'kimai-marked.csv',
        'Date,From,To,Duration,User,Customer,Project,Activity,Description,Tags,Hourly rate,Billable\n' +
          '17.03.2026,09:00,10:00,1:00,ada@example.org,Acme,Fresh,Support,Not billed,,150.00,No\n',
      );
      await run({ path: marked });
      expect(money()['Not billed']).to.deep.equal([false, 150, 0, 3600]);
    });

    it('Toggl: a billable row’s Amount becomes its rate (amount × 3600 ÷ seconds, 4 decimals), which gives the amount back to the cent', async () => {
      const path = write(
        'toggl-amounts.csv',
        TOGGL +
          togglRow('awkward', '2026-03-02 09:00:00', '2026-03-02 10:23:17', '123.45') +
          togglRow('seven seconds', '2026-03-02 11:00:00', '2026-03-02 11:00:07', '0.01') +
          togglRow('three hours', '2026-03-02 12:00:00', '2026-03-02 15:00:00', '450.00') +
          togglRow('eleven seconds', '2026-03-02 16:00:00', '2026-03-02 16:00:11', '1000.00') +
          togglRow('a second short of 100 h', '2026-03-03 00:00:00', '2026-03-07 03:59:59', '99.99') +
          togglRow('150 hours', '2026-03-10 00:00:00', '2026-03-16 06:00:00', '2500.00') +
          togglRow('thirty days', '2026-04-01 00:00:00', '2026-05-01 00:00:13', '77.77') +
          togglRow('not billable', '2026-03-02 17:00:00', '2026-03-02 18:00:00', '0.00', 'No'),
      );
      const { report } = await run({ path });
      expect(report).to.deep.include({ imported: 8, refused: [], notices: [] });
      expect(money()).to.deep.equal({
        awkward: [true, 88.9374, 123.45, 4997],
        'seven seconds': [true, 5.1429, 0.01, 7],
        'three hours': [true, 150, 450, 10800],
        'eleven seconds': [true, 327272.7273, 1000, 11],
        'a second short of 100 h': [true, 0.9999, 99.99, 359999],
        // Past 100 hours 4 decimals no longer give the amount back: the fewest more that do.
        '150 hours': [true, 16.66667, 2500, 540000],
        'thirty days': [true, 0.10801, 77.77, 2592013],
        // Not billable: no rate from the file, the usual resolution (none here).
        'not billable': [false, null, 0, 3600],
      });
    });

    it('Toggl: an Amount column whose heading it cannot read (`Amount ()`) refuses the file, naming the column and what to do; nothing is written', async () => {
      const path = write(
        'toggl-blank-currency.csv',
        TOGGL.replace('Amount (EUR)', 'Amount ()') + togglRow('four hours', '2026-03-02 09:00:00', '2026-03-02 13:00:00', '480.00'),
      );
      expect(await refusal(() => run({ path }))).to.deep.equal({
        code: 'invalid',
        message:
          'The column "Amount ()" holds the rows\' amounts, but timetrack cannot read its heading: after the name it expects a currency code in parentheses, such as "Amount (EUR)". Nothing was imported: read without it, the rows would take the rates of their task, project or member instead of the file\'s money. Export the report again from Toggl with its currency, or, if its amounts are in EUR (the workspace\'s currency), rename the column to "Amount (EUR)" and import the file again.',
      });
      expect(
        (
          await refusal(() =>
            run({
              path: write(
                'symbol.csv',
                TOGGL.replace('Amount (EUR)', 'Amount (€)') + togglRow('x', '2026-03-02 09:00:00', '2026-03-02 10:00:00', '1'),
              ),
            }),
          )
        ).message,
      ).to.match(/^The column "Amount \(€\)" holds the rows' amounts/);
      // A dry run (the check page) refuses the same.
      expect((await refusal(() => run({ path, dryRun: true }))).message).to.match(/^The column "Amount \(\)"/);
      const clockify = write(
        'clockify-rate-heading.csv',
        'Project,Client,Description,Task,User,Email,Tags,Start Date,Start Time,End Date,End Time,Duration (h),Duration (decimal),Billable Rate (Euro)\n' +
          'Fresh,Acme,rated,,Ada,ada@example.org,,03/17/2026,09:00:00,03/17/2026,10:00:00,01:00:00,1.00,95.50\n',
      );
      expect((await refusal(() => run({ path: clockify }))).message).to.match(
        /^The column "Billable Rate \(Euro\)" holds the rows' hourly rates, .* such as "Billable Rate \(EUR\)"\. .* Export the report again from Clockify/,
      );
      expect(entries()).to.deep.equal([]);
    });

    it('the file’s amount wins for its row in an owner’s or the operator’s import, over a task’s rate and over the file’s own rate', async () => {
      const acme = world.services.catalog.clients.create(world.owner, { name: 'Acme' }).id;
      const fresh = world.services.catalog.projects.create(world.owner, {
        name: 'Fresh',
        clientId: acme,
        billable: true,
        hourlyRate: 100,
      }).id;
      world.services.catalog.tasks.create(world.owner, { name: 'Design', projectId: fresh, hourlyRate: 130 });
      const row = (description: string, start: string, end: string, amount: string) =>
        togglRow(description, start, end, amount).replace(',Fresh,,', ',Fresh,Design,');
      const path = write(
        'toggl-task.csv',
        TOGGL +
          row('four hours', '2026-03-02 09:00:00', '2026-03-02 13:00:00', '480.00') +
          row('no amount', '2026-03-03 09:00:00', '2026-03-03 10:00:00', ''),
      );
      const checked = await run({ path, dryRun: true }, world.owner);
      expect(checked.preview.map((r) => [r.description, r.hourlyRate, r.rateFrom])).to.deep.equal([
        ['four hours', 120, 'amount'],
        ['no amount', null, 'resolved'],
      ]);
      const { report } = await run({ path }, world.owner);
      expect(report).to.deep.include({ imported: 2, refused: [] });
      // 480 €, not the task's 4 × 130 = 520 €; the row without an amount takes the task's rate.
      expect(money()).to.deep.equal({ 'four hours': [true, 120, 480, 14400], 'no amount': [true, 130, 130, 3600] });

      // Clockify with both: the amount (what was billed) wins where the rate does not give it back.
      const both = write(
        'clockify-both.csv',
        'Project,Client,Description,Task,User,Email,Tags,Start Date,Start Time,End Date,End Time,Duration (h),Duration (decimal),Billable Rate (EUR),Billable Amount (EUR)\n' +
          'Fresh,Acme,agrees,,Ada,ada@example.org,,03/16/2026,09:00:00,03/16/2026,10:30:00,01:30:00,1.50,80.05,120.08\n' +
          'Fresh,Acme,fixed price,,Ada,ada@example.org,,03/16/2026,11:00:00,03/16/2026,13:00:00,02:00:00,2.00,80.00,200.00\n',
      );
      await run({ path: both });
      expect(money().agrees).to.deep.equal([true, 80.05, 120.08, 5400]);
      expect(money()['fixed price']).to.deep.equal([true, 100, 200, 7200]);
    });

    it('Toggl without a Billable column: an amount above 0 says billable, 0 says not', async () => {
      const path = write(
        'toggl-nobillable.csv',
        'User,Email,Project,Description,Start date,Start time,End date,End time,Amount (EUR)\n' +
          'Ada,ada@example.org,Fresh,paid,2026-03-02,09:00:00,2026-03-02,10:00:00,80.00\n' +
          'Ada,ada@example.org,Fresh,free,2026-03-02,10:00:00,2026-03-02,11:00:00,0.00\n',
      );
      await run({ path });
      expect(money()).to.deep.equal({ paid: [true, 80, 80, 3600], free: [false, null, 0, 3600] });
    });

    it('Clockify without Billable Rate or Billable: the Billable Amount keeps the money; rates with thousands separators are read', async () => {
      const path = write(
        'clockify-amount.csv',
        'Project,Client,Description,Task,User,Email,Tags,Start Date,Start Time,End Date,End Time,Duration (h),Duration (decimal),Billable Amount (EUR)\n' +
          'Fresh,Acme,paid,,Ada,ada@example.org,,03/16/2026,09:00:00,03/16/2026,10:30:00,01:30:00,1.50,"1,234.56"\n' +
          'Fresh,Acme,free,,Ada,ada@example.org,,03/16/2026,11:00:00,03/16/2026,12:00:00,01:00:00,1.00,0.00\n',
      );
      const { report } = await run({ path });
      expect(report).to.deep.include({ imported: 2, refused: [] });
      expect(money()).to.deep.equal({ paid: [true, 823.04, 1234.56, 5400], free: [false, null, 0, 3600] });
      const rated = write(
        'clockify-rate.csv',
        'Project,Client,Description,Task,User,Email,Tags,Start Date,Start Time,End Date,End Time,Duration (h),Duration (decimal),Billable Rate (EUR)\n' +
          'Fresh,Acme,rated,,Ada,ada@example.org,,03/17/2026,09:00:00,03/17/2026,10:00:00,01:00:00,1.00,95.50\n',
      );
      await run({ path: rated });
      // No Billable column and no amount, but a rate: the row was billed.
      expect(money().rated).to.deep.equal([true, 95.5, 95.5, 3600]);
    });

    it('Harvest: Billable Amount without Billable Rate, a rate without Billable?, a row in another currency refused, no Currency named', async () => {
      const path = write(
        'harvest-partial.csv',
        'Date,Client,Project,Task,Notes,Hours,First Name,Last Name,Billable Amount,Currency\n' +
          '2026-03-02,Acme,Fresh,,from amount,1.5,Ada,Lovelace,150.00,Euro - EUR\n' +
          '2026-03-03,Acme,Fresh,,dollars,1,Ada,Lovelace,100.00,US Dollar - USD\n',
      );
      const { report, stopped } = await run({ path });
      expect(stopped).to.equal(true);
      expect(report.refused).to.deep.equal([
        {
          line: 3,
          message: "Currency: USD, and the workspace's money is in EUR: export this row in EUR, or import it into a workspace in USD",
        },
      ]);
      await run({ path, skipInvalid: true });
      expect(money()).to.deep.equal({ 'from amount': [true, 100, 150, 5400] });
      const noCurrency = write(
        'harvest-nocurrency.csv',
        'Date,Client,Project,Task,Notes,Hours,First Name,Last Name,Billable Rate\n' + '2026-03-04,Acme,Fresh,,rated,2,Ada,Lovelace,90\n',
      );
      const second = await run({ path: noCurrency });
      expect(second.report.notices).to.deep.equal([
        "The file names no currency: its rates (1 row) are read as EUR, the workspace's currency.",
      ]);
      expect(money().rated).to.deep.equal([true, 90, 180, 7200]);
    });
  });

  describe('rates of a member’s own history (issue 33, M4)', () => {
    const file = () =>
      write(
        'rates.csv',
        'email,start,end,description,client,project,task,tags,billable,hourlyRate\n' +
          'ada@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,Self-billed,Acme,Fresh,,,true,5000\n' +
          'ada@example.org,2026-03-02T11:00:00Z,2026-03-02T12:00:00Z,No rate,Acme,Fresh,,,true,\n',
      );

    it('a member’s import does not take the file’s rates: the usual resolution applies, and the preview and result say so', async () => {
      world.services.accounts.setWorkspace(OPERATOR, world.workspaceId, { hourlyRate: 60 });
      const preview = await run({ path: file(), dryRun: true }, ada);
      const notice =
        "The file's rates (1 row) are not imported: rates are an owner's to set. Your entries get the rate of their task, their project, your membership or the workspace, as the entries you track do; an owner can import the file with its rates.";
      expect(preview.report.notices).to.deep.equal([notice]);
      expect(preview.preview.map((r) => r.hourlyRate)).to.deep.equal([null, null]);
      // The command line's report has the English notices only; the Import page's has their words by key beside them (issue 58).
      expect(preview.report).to.not.have.property('noticeWords');
      const page = await run({ path: file(), dryRun: true, wording: 'page' }, ada);
      expect(page.report.notices).to.deep.equal([notice]);
      expect(page.report.noticeWords?.map((w) => translator('en')(w.key, w.vars))).to.deep.equal([notice]);
      expect(page.report.noticeWords?.map((w) => translator('de')(w.key, w.vars))).to.deep.equal([
        'Die Stundensätze der Datei (1 Zeile) werden nicht importiert: Stundensätze legt ein Inhaber fest. Ihre Einträge erhalten den Stundensatz ihrer Aufgabe, ihres Projekts, Ihrer Mitgliedschaft oder des Arbeitsbereichs, wie die Einträge, die Sie erfassen; ein Inhaber kann die Datei mit ihren Stundensätzen importieren.',
      ]);
      const { report } = await run({ path: file() }, ada);
      expect(report).to.deep.include({ imported: 2, notices: [notice] });
      expect(entries().map((e) => [e.description, e.authorId, e.billable, e.hourlyRate, e.amount])).to.deep.equal([
        ['Self-billed', ada.userId, true, 60, 60],
        ['No rate', ada.userId, true, 60, 60],
      ]);
    });

    it('an owner’s import takes them, here for one member (the operator’s too: the tests above)', async () => {
      const { report } = await run({ path: file(), user: ada.userId }, world.owner);
      // (A file of the timetrack format names its currency in its rate's header: `hourlyRate (EUR)`.)
      expect(report.notices).to.deep.equal(["The file names no currency: its rates (1 row) are read as EUR, the workspace's currency."]);
      expect(entries().map((e) => [e.authorId, e.hourlyRate, e.amount])).to.deep.equal([
        [ada.userId, 5000, 5000],
        [ada.userId, null, null],
      ]);
    });
  });
});

/**
 * Issue 54 N3: a workspace's export restores invoices only as this server would have issued them.
 * The file is a real export (`exportWorkspace`) of a workspace with a paid invoice, a voided one
 * with its credit note and a draft, changed the way a forged file would be; each change is
 * refused, naming the invoice and the rule, and nothing of the file is written.
 */
describe('imports service: restored invoices follow the rules of issued ones (issue 54 N3)', () => {
  let world: ServiceWorld;
  let dir: string;
  let file: string[][];
  const legitSend = {
    document: 'invoice',
    recipient: 'ap@acme.example',
    files: '["2026-0001.pdf"]',
    mailId: 'msg_from_the_other_server',
    createdAt: Date.UTC(2026, 8, 2, 9),
  };
  before(async () => {
    world = memoryServices();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-restore-'));
    const { services, workspaceId, owner, ownerId } = world;
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
      legalName: 'Studio Owner',
      addressLines: ['Hauptstr. 1'],
      postalCode: '10115',
      city: 'Berlin',
      country: 'DE',
      email: 'owner@studio.example',
      vatId: 'DE136695976',
      iban: 'DE02120300000000202051',
      bic: 'BYLADEM1001',
    });
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const acme = services.catalog.clients.create(owner, {
      name: 'Acme',
      legalName: 'Acme GmbH',
      addressLines: ['Ring 2'],
      postalCode: '20095',
      city: 'Hamburg',
      country: 'DE',
      email: 'ap@acme.example',
      vatId: 'DE811569869',
    }).id;
    const site = services.catalog.projects.create(owner, { name: 'Site', clientId: acme, billable: true, hourlyRate: 90 }).id;
    for (const day of ['08-03', '09-03', '10-05'])
      services.entries.create(owner, { start: `2026-${day}T09:00:00Z`, end: `2026-${day}T10:30:00Z`, projectId: site });
    // A second apart: the export writes them in the order they were made (the refusals below come in that order).
    const invoice = (from: string, to: string) => {
      world.clock.advance(1000);
      return services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId: acme, from, to }).id;
    };
    const paid = invoice('2026-08-01', '2026-08-31');
    services.invoices.issue(OPERATOR, paid, { userId: ownerId, date: '2026-09-01' });
    services.invoices.markPaid(OPERATOR, paid, { userId: ownerId, date: '2026-09-20' });
    const voided = invoice('2026-09-01', '2026-09-30');
    services.invoices.issue(OPERATOR, voided, { userId: ownerId, date: '2026-10-01' });
    services.invoices.void(OPERATOR, voided, { userId: ownerId, date: '2026-10-02' });
    invoice('2026-10-01', '2026-10-31');
    let text = '';
    for await (const chunk of services.imports.exportWorkspace(OPERATOR, { workspaceId }).chunks) text += chunk;
    file = parse(text.replace(/^\uFEFF/, '')) as string[][];
  });
  after(() => {
    world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const DATA = 18;
  /** The file with each row of `record` changed by `change` (its data's JSON), written as the export writes it. */
  let n = 0;
  function forged(record: string, change: (data: any, row: string[]) => void): string {
    const rows = file.map((row) => {
      if (row[0] !== record) return row;
      const copy = [...row];
      const data = JSON.parse(row[DATA] as string);
      change(data, copy);
      copy[DATA] = JSON.stringify(data);
      return copy;
    });
    const path = join(dir, `forged-${++n}.csv`);
    writeFileSync(path, `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`);
    return path;
  }
  /** An invoice row's record by its number (a draft: null). */
  const of = (number: string | null, change: (data: any) => void) => (data: any) => {
    if (data.row.number === number) change(data);
  };
  /** A workspace to restore into, empty, and the import of the file there by the operator (the accounts of the file joined). */
  async function restore(path: string, more: Partial<ImportRequest> = {}) {
    const { id } = world.services.accounts.createWorkspace(OPERATOR, { name: `Restored ${n}`, currency: 'EUR' });
    const outcome = await world.services.imports.run(OPERATOR, { workspaceId: id, path, createMembers: true, ...more });
    return { id, outcome };
  }
  /** Nothing of the file in the workspace: no invoice, entry, client, profile or import. */
  async function nothingWritten(id: string) {
    expect(world.services.invoices.list(OPERATOR, id)).to.deep.equal([]);
    expect(world.services.accounts.businessProfile(id)).to.equal(null);
    expect(await world.services.imports.list(OPERATOR, id)).to.deep.equal([]);
    expect(world.database.sqlite.prepare('select count(*) as n from entries where workspace_id = ?').get(id)).to.deep.equal({ n: 0 });
    expect(world.database.sqlite.prepare('select count(*) as n from clients where workspace_id = ?').get(id)).to.deep.equal({ n: 0 });
  }
  /** The refusals of a file that breaks one rule: stopped, each refusal's message, nothing written. */
  async function refusedWith(path: string): Promise<string[]> {
    const { id, outcome } = await restore(path);
    expect(outcome.stopped, JSON.stringify(outcome.report.refused)).to.equal(true);
    await nothingWritten(id);
    return outcome.report.refused.map((r) => r.message);
  }
  const AFTER =
    'A restored invoice follows the rules of an issued one: import the file as its workspace exported it, or leave its invoices out (--skip-invalid; the Import page: import the other rows).';

  it('restores the export as it was, with a send by mail that fits its invoice; the send names no message of this server', async () => {
    const path = forged(
      'invoice',
      of('2026-0001', (data) => (data.sends = [{ ...legitSend, sentBy: 'usr_unknown' }])),
    );
    const { id, outcome } = await restore(path);
    expect(outcome.report).to.deep.include({ refused: [], imported: 3 });
    // Into a new workspace: its name and settings too, and the role and visibility of the member the import made (issue 56 item 6).
    expect(outcome.report.restored).to.deep.equal({ profile: 1, invoicing: 1, rates: 0, invoices: 3, workspace: 1, members: 1 });
    const restored = world.services.invoices
      .list(OPERATOR, id)
      .map((i) => [i.status, i.number, i.creditNote?.number ?? null, i.grossTotal]);
    expect(restored.sort()).to.deep.equal([
      ['draft', null, null, 160.65],
      ['paid', '2026-0001', null, 160.65],
      ['void', '2026-0002', '2026-0003', 160.65],
    ]);
    const paid = world.services.invoices.list(OPERATOR, id, { status: 'paid' })[0]!;
    // Its payment (marking it paid recorded what was due: issue 57), by the member the import made of its owner.
    expect(world.services.invoices.payments(OPERATOR, paid.id).map((p) => [p.date, p.amount, p.discount, p.note, p.by.name])).to.deep.equal(
      [['2026-09-20', 160.65, 0, null, 'Owner']],
    );
    expect(paid).to.deep.include({ amountDue: 0 });
    const [send] = world.services.invoices.sends(OPERATOR, paid.id);
    expect(send).to.deep.include({
      to: 'ap@acme.example',
      files: ['2026-0001.pdf'],
      mailId: 'restored:msg_from_the_other_server',
      delivery: null,
    });
  });

  it('refuses numbers that disagree with their register records and a number given twice in the file', async () => {
    // The finding: a draft that says it is 2026-0001, beside the register's 2026-0001.
    const beside = await refusedWith(
      forged(
        'invoice',
        of(null, (data) =>
          Object.assign(data.row, { status: 'sent', number: '2026-0001', issueDate: '2026-10-05', dueDate: '2026-10-19' }),
        ),
      ),
    );
    expect(beside).to.deep.equal([
      `invoice 2026-0001: its number 2026-0001 of 2026-10-05 is not what its register records say (none): every number an invoice carries is one the workspace's register gave it. ${AFTER}`,
    ]);
    // The same with its register record: a number given twice in the file.
    const twice = await refusedWith(
      forged(
        'invoice',
        of(null, (data) => {
          Object.assign(data.row, { status: 'sent', number: '2026-0001', issueDate: '2026-10-05', dueDate: '2026-10-19' });
          data.numbers = [{ number: '2026-0001', kind: 'invoice', issueDate: '2026-10-05', createdAt: Date.UTC(2026, 9, 5) }];
        }),
      ),
    );
    // (Refusals come in the order of their lines: the paid 2026-0001 first, refused with its series.)
    expect(twice).to.deep.equal([
      `invoice 2026-0001: the file's numbered invoices are restored together or not at all, so that their series has no gap, and invoice 2026-0001 is refused. ${AFTER}`,
      `invoice 2026-0002: the file's numbered invoices are restored together or not at all, so that their series has no gap, and invoice 2026-0001 is refused. ${AFTER}`,
      `invoice 2026-0001: the number 2026-0001 is given twice in the file (also invoice 2026-0001), and a number is given once. ${AFTER}`,
    ]);
    // A voided invoice without its credit note's record; a draft carrying a paid date.
    expect(
      await refusedWith(
        forged(
          'invoice',
          of('2026-0002', (data) => (data.numbers = data.numbers.slice(0, 1))),
        ),
      ),
    ).to.include(
      `invoice 2026-0002: its credit note 2026-0003 of 2026-10-02 is not what its register records say (none): every number is one the workspace's register gave it. ${AFTER}`,
    );
    expect(
      await refusedWith(
        forged(
          'invoice',
          of(null, (data) => (data.row.paidDate = '2026-10-31')),
        ),
      ),
    ).to.deep.equal([`invoice (draft of 2026-10-01 to 2026-10-31): a draft has no number, and this one carries a paid date. ${AFTER}`]);
  });

  it('restores an invoice issued before numbers existed (no number, no register record) as it was', async () => {
    const path = forged(
      'invoice',
      of(null, (data) => Object.assign(data.row, { status: 'sent', issueDate: '2026-10-31', dueDate: '2026-11-14' })),
    );
    const { id, outcome } = await restore(path);
    expect(outcome.report).to.deep.include({ refused: [] });
    expect(world.services.invoices.list(OPERATOR, id, { status: 'sent' }).map((i) => [i.number, i.issueDate])).to.deep.equal([
      [null, '2026-10-31'],
    ]);
    // Its documents take no number: the series goes on after the file's three numbers.
    expect(world.services.invoices.upcomingNumber(OPERATOR, id, world.ownerId).number).to.equal('2026-0004');
  });

  it('refuses a series with a gap, and an issue date after today that would block every later issue', async () => {
    const gap = await refusedWith(
      forged(
        'invoice',
        of('2026-0002', (data) => {
          data.row.number = '2026-0005';
          data.numbers[0].number = '2026-0005';
        }),
      ),
    );
    expect(gap).to.deep.equal([
      `invoice 2026-0001: the file's numbered invoices are restored together or not at all, so that their series has no gap, and invoice 2026-0005 is refused. ${AFTER}`,
      `invoice 2026-0005: the file's numbers do not run without a gap: its invoice 2026-0005 of 2026-10-01 is the 2nd document of 2026 in the series, which the file's number pattern {yyyy}-{seq:4} numbers 2026-0002 (numbers and dates run together, one after the other). ${AFTER}`,
    ]);
    const future = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => {
          data.row.issueDate = '2099-12-31';
          data.numbers[0].issueDate = '2099-12-31';
        }),
      ),
    );
    expect(future[0]).to.equal(`invoice 2026-0001: it was paid on 2026-09-20, before it was issued (2099-12-31). ${AFTER}`);
    const later = await refusedWith(
      forged(
        'invoice',
        of('2026-0002', (data) => {
          Object.assign(data.row, { issueDate: '2099-12-31', creditNoteDate: '2099-12-31', dueDate: '2100-01-14' });
          data.numbers[0].issueDate = '2099-12-31';
          data.numbers[1].issueDate = '2099-12-31';
        }),
      ),
    );
    expect(later).to.deep.equal([
      `invoice 2026-0001: the file's numbered invoices are restored together or not at all, so that their series has no gap, and invoice 2026-0002 is refused. ${AFTER}`,
      `invoice 2026-0002: its issue date 2099-12-31 is after today (2026-11-03, the latest day anywhere), and no document is dated in the future. ${AFTER}`,
    ]);
  });

  it('refuses totals that do not follow from the lines: a total of 0.01 against a line of 999,999, a line’s amount, a VAT breakdown', async () => {
    const line = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => {
          const lines = JSON.parse(data.row.lines);
          Object.assign(lines[0], { quantitySec: 3600, hourlyRate: 999999, amount: 999999 });
          data.row.lines = JSON.stringify(lines);
          data.row.totalCents = 1;
        }),
      ),
    );
    expect(line[0]).to.equal(
      `invoice 2026-0001: its net total 0.01 is not the sum of its lines (999999.00), and an invoice's totals follow from its lines. ${AFTER}`,
    );
    const amount = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => {
          const lines = JSON.parse(data.row.lines);
          lines[0].amount = 1350;
          data.row.lines = JSON.stringify(lines);
          data.row.totalCents = 135000;
        }),
      ),
    );
    expect(amount[0]).to.equal(
      `invoice 2026-0001: lines[0]'s amount 1350 is not its rate × its hours (135.00: 5400 seconds at 90 an hour, rounded once to the cent), and a line's net is exactly that. ${AFTER}`,
    );
    const vat = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => {
          const extras = JSON.parse(data.row.extras);
          extras.taxBreakdown[0].taxAmount = 0;
          data.row.extras = JSON.stringify(extras);
        }),
      ),
    );
    expect(vat[0]).to.equal(
      `invoice 2026-0001: its VAT breakdown (S 19 %: basis 135.00, VAT 0.00) is not what its lines make (S 19 %: basis 135.00, VAT 25.65), and its VAT and totals follow from its lines. ${AFTER}`,
    );
  });

  it('refuses a forged early-payment discount: terms the settings would refuse, or on a draft (issue 57 item 4)', async () => {
    const withTerms = (number: string | null, earlyPayment: unknown) =>
      forged(
        'invoice',
        of(number, (data) => {
          data.row.extras = JSON.stringify({ ...JSON.parse(data.row.extras), earlyPayment });
        }),
      );
    for (const terms of [
      { percent: 2.555, days: 10 },
      { percent: 0, days: 10 },
      { percent: 2, days: 400 },
      { percent: '2', days: 10 },
      null,
    ])
      expect((await refusedWith(withTerms('2026-0001', terms)))[0], JSON.stringify(terms)).to.equal(
        `invoice 2026-0001: its early-payment discount ${JSON.stringify(terms)} is not P % (above 0, below 100, two decimals at most) within 1 to 365 days. ${AFTER}`,
      );
    expect((await refusedWith(withTerms(null, { percent: 2, days: 10 })))[0]).to.equal(
      `invoice (draft of 2026-10-01 to 2026-10-31): it has an early-payment discount, and only an issued invoice offers one. ${AFTER}`,
    );
  });

  it('refuses forged payments: of a draft, more than its total, sums the invoice does not say, dated before it was issued (issue 57)', async () => {
    const payment = {
      paidOn: '2026-09-20',
      amountCents: 16065,
      discountCents: 0,
      note: null,
      recordedBy: 'usr_x',
      createdAt: Date.UTC(2026, 8, 20),
    };
    const draft = await refusedWith(
      forged(
        'invoice',
        of(null, (data) => {
          data.payments = [{ ...payment, paidOn: '2026-10-31' }];
          data.row.paidCents = 16065;
        }),
      ),
    );
    expect(draft[0]).to.equal(
      `invoice (draft of 2026-10-01 to 2026-10-31): it records payments, and only an issued invoice takes payments. ${AFTER}`,
    );
    const more = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => {
          data.payments = [payment, { ...payment, amountCents: 1 }];
          data.row.paidCents = 16066;
        }),
      ),
    );
    expect(more[0]).to.equal(`invoice 2026-0001: its payments (160.66) are more than its total (160.65). ${AFTER}`);
    const sums = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => (data.row.paidCents = 100)),
      ),
    );
    expect(sums[0]).to.equal(
      `invoice 2026-0001: its payments add up to 160.65 and a discount of 0.00, and the invoice says 1.00 and 0.00. ${AFTER}`,
    );
    const early = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => (data.payments = [{ ...payment, paidOn: '2026-08-31' }])),
      ),
    );
    expect(early[0]).to.equal(
      `invoice 2026-0001: a payment is dated "2026-08-31", not a day from its issue date 2026-09-01 to today. ${AFTER}`,
    );
  });

  it('refuses forged sends by mail: of a draft, to no address, of files that are not its documents, before it was issued', async () => {
    const sent = (number: string | null, send: Record<string, unknown>) =>
      refusedWith(
        forged(
          'invoice',
          of(number, (data) => (data.sends = [{ ...legitSend, sentBy: 'usr_x', ...send }])),
        ),
      );
    expect((await sent(null, {}))[0]).to.equal(
      `invoice (draft of 2026-10-01 to 2026-10-31): a send of its invoice by mail is recorded, and a draft is never sent. ${AFTER}`,
    );
    expect((await sent('2026-0001', { recipient: 'ap@acme.example, eve@evil.example' }))[0]).to.equal(
      `invoice 2026-0001: a send by mail names "ap@acme.example, eve@evil.example", which is not one address mail can go to. ${AFTER}`,
    );
    expect((await sent('2026-0001', { files: '["2026-0001.pdf","invoice.exe"]' }))[0]).to.match(
      /^invoice 2026-0001: a send by mail lists the files \["2026-0001.pdf","invoice.exe"\], which are not its invoice's documents \(2026-0001.pdf, /,
    );
    expect((await sent('2026-0001', { document: 'credit_note', files: '["2026-0001.pdf"]' }))[0]).to.equal(
      `invoice 2026-0001: a send of its credit note by mail is recorded, and only the invoice of a paid invoice is sent. ${AFTER}`,
    );
    expect((await sent('2026-0001', { createdAt: Date.UTC(2026, 0, 1) }))[0]).to.equal(
      `invoice 2026-0001: a send by mail is dated 2026-01-01T00:00:00.000Z, before its invoice's day (2026-09-01) or after now. ${AFTER}`,
    );
  });

  it('refuses party, profile and client values the pages, API and command line refuse: IBAN, VAT id, participant id, bidi', async () => {
    const issuer = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => (data.row.issuer = JSON.stringify({ ...JSON.parse(data.row.issuer), legalName: 'Studio\u202Efdp.exe' }))),
      ),
    );
    expect(issuer[0]).to.equal(
      `invoice 2026-0001: issuer.legalName must not hold control characters or bidirectional controls (found U+202E): type it again without them. ${AFTER}`,
    );
    const recipient = await refusedWith(
      forged(
        'invoice',
        of('2026-0001', (data) => (data.row.recipient = JSON.stringify({ ...JSON.parse(data.row.recipient), vatId: 'DE12' }))),
      ),
    );
    expect(recipient[0]).to.match(/^invoice 2026-0001: recipient\.vatId "DE12" is not a VAT identifier of DE/);
    const iban = await refusedWith(forged('profile', (data) => (data.profile.iban = 'DE02120300000000202052')));
    expect(iban[0]).to.match(/^data: the issuer profile: iban "DE02120300000000202052" fails its check digits \(ISO 13616\)/);
    const peppol = await refusedWith(
      forged('profile', (data) => Object.assign(data.profile, { electronicAddress: '04011000-12345-99', electronicAddressScheme: '0204' })),
    );
    expect(peppol[0]).to.match(/^data: the issuer profile: /);
    const client = await refusedWith(forged('client', (data) => (data.client.legalName = 'Acme\u2066 GmbH')));
    expect(client[0]).to.equal(
      "data: the client's invoicing details: legalName must not hold control characters or bidirectional controls (found U+2066): type it again without them.",
    );
    const vatId = await refusedWith(forged('client', (data) => (data.client.vatId = 'DE12')));
    expect(vatId[0]).to.match(/^data: the client's invoicing details: vatId "DE12" /);
    const country = await refusedWith(forged('client', (data) => (data.client.country = 'Germany')));
    expect(country[0]).to.equal(
      `data: the client's invoicing details: country must be an ISO 3166-1 alpha-2 code, upper case, such as DE (got "Germany").`,
    );
  });

  it('refuses forged payment reminders, naming the invoice and the record, writing nothing; restores one that fits, saying what was due when it was sent (issue 57)', async () => {
    /** A reminder of 2026-0001 seven days after its due date (as its record says it), at 10:00 UTC. */
    let due = '';
    const legit = () => ({
      level: 1,
      daysOverdue: 7,
      amountDueCents: 16065,
      recipient: 'ap@acme.example',
      files: '["2026-0001.pdf"]',
      mailId: 'mail_from_the_other_server',
      createdAt: Date.parse(`${due}T10:00:00Z`) + 7 * 86_400_000,
    });
    const reminded = (number: string | null, ...reminders: Array<Record<string, unknown>>) =>
      forged(
        'invoice',
        of(number, (data) => {
          due = data.row.dueDate ?? '2026-10-31';
          data.reminders = reminders.map((r) => ({ ...legit(), ...r }));
        }),
      );
    const remindersIn = (id: string) =>
      world.database.sqlite.prepare('select count(*) as n from invoice_reminders where workspace_id = ?').get(id);
    /** Refused, nothing written (no reminder either): the first refusal's message. */
    const refused = async (path: string) => {
      const { id, outcome } = await restore(path);
      expect(outcome.stopped, JSON.stringify(outcome.report.refused)).to.equal(true);
      await nothingWritten(id);
      expect(remindersIn(id)).to.deep.equal({ n: 0 });
      expect(outcome.report.refused).to.have.length.of.at.least(1);
      return outcome.report.refused[0]!;
    };

    // One that fits: restored as history, its mail marked restored.
    const { id, outcome } = await restore(reminded('2026-0001', {}));
    expect(outcome.report).to.deep.include({ refused: [], imported: 3 });
    const paid = world.services.invoices.list(OPERATOR, id, { status: 'paid' })[0]!;
    expect(due).to.equal(paid.dueDate);
    expect(world.services.invoices.reminders(OPERATOR, paid.id).map((r) => [r.level, r.daysOverdue, r.amountDue, r.mailId])).to.deep.equal([
      [1, 7, 160.65, 'restored:mail_from_the_other_server'],
    ]);

    // What was due when it was sent (issue 57): its total less the payments recorded before then, as the tick read it.
    const sentAt = new Date(legit().createdAt).toISOString();
    expect((await refused(reminded('2026-0001', { amountDueCents: 10000 }))).message).to.equal(
      `invoice 2026-0001: a payment reminder sent at ${sentAt} says 100.00 was due, and its total (160.65) less the payments recorded before then (0.00) left 160.65 due: a reminder says what was still due when it was sent. ${AFTER}`,
    );
    /** 2026-0001 paid in two parts: 60.65 recorded two days before the reminder, 100.00 recorded after it but dated the day before it. */
    const paidInParts = (reminder: Record<string, unknown>, firstRecordedAt?: number) =>
      forged(
        'invoice',
        of('2026-0001', (data) => {
          due = data.row.dueDate;
          const at = legit().createdAt;
          const part = { discountCents: 0, note: null, recordedBy: 'usr_x' };
          data.payments = [
            { ...part, paidOn: '2026-09-20', amountCents: 6065, createdAt: firstRecordedAt ?? at - 2 * 86_400_000 },
            { ...part, paidOn: '2026-09-21', amountCents: 10000, createdAt: at + 86_400_000 },
          ];
          data.reminders = [{ ...legit(), ...reminder }];
        }),
      );
    const fits = async (path: string) => {
      const restored = await restore(path);
      expect(restored.outcome.report.refused).to.deep.equal([]);
      const invoice = world.services.invoices.list(OPERATOR, restored.id, { status: 'paid' })[0]!;
      return world.services.invoices.reminders(OPERATOR, invoice.id).map((r) => r.amountDue);
    };
    // The part recorded before it counts, the one recorded after it does not (though dated before it).
    expect(await fits(paidInParts({ amountDueCents: 10000 }))).to.deep.equal([100]);
    expect((await refused(paidInParts({}))).message).to.equal(
      `invoice 2026-0001: a payment reminder sent at ${sentAt} says 160.65 was due, and its total (160.65) less the payments recorded before then (60.65) left 100.00 due: a reminder says what was still due when it was sent. ${AFTER}`,
    );
    // A payment recorded in the reminder's own millisecond may have come before it or after it.
    expect(await fits(paidInParts({ amountDueCents: 10000 }, legit().createdAt))).to.deep.equal([100]);
    expect(await fits(paidInParts({}, legit().createdAt))).to.deep.equal([160.65]);
    expect((await refused(paidInParts({ amountDueCents: 6065 }, legit().createdAt))).message).to.match(
      /^invoice 2026-0001: a payment reminder sent at \S+ says 60.65 was due, and its total \(160.65\) less the payments recorded before then \(0.00\) left 160.65 due: /,
    );

    // A sent reminder of a draft.
    expect((await refused(reminded(null, {}))).message).to.equal(
      `invoice (draft of 2026-10-01 to 2026-10-31): it records a payment reminder, and a draft is never reminded. ${AFTER}`,
    );
    // A level outside the levels a workspace has, and one level twice.
    expect((await refused(reminded('2026-0001', { level: 4 }))).message).to.equal(
      `invoice 2026-0001: a payment reminder is of level 4, and a workspace's levels are 1 to 3. ${AFTER}`,
    );
    expect((await refused(reminded('2026-0001', { level: 0 }))).message).to.equal(
      `invoice 2026-0001: a payment reminder is of level 0, and a workspace's levels are 1 to 3. ${AFTER}`,
    );
    expect((await refused(reminded('2026-0001', {}, {}))).message).to.equal(
      `invoice 2026-0001: it records two payment reminders of level 1, and each level is sent once. ${AFTER}`,
    );
    // Dated before the invoice was issued, or on a day its days overdue do not fit.
    expect((await refused(reminded('2026-0001', { createdAt: Date.UTC(2026, 7, 15, 10) }))).message).to.equal(
      `invoice 2026-0001: a payment reminder is dated 2026-08-15T10:00:00.000Z, before its invoice was issued (2026-09-01). ${AFTER}`,
    );
    expect((await refused(reminded('2026-0001', { daysOverdue: 21 }))).message).to.match(
      new RegExp(
        `^invoice 2026-0001: a payment reminder is dated \\S+ and says it was 21 days overdue, and its due date ${due} makes that day \\S+\\. `,
      ),
    );
    expect((await refused(reminded('2026-0001', { daysOverdue: 0, createdAt: Date.parse(`${due}T10:00:00Z`) }))).message).to.equal(
      `invoice 2026-0001: a payment reminder says it was 0 days overdue, which is not a whole number of days from 1. ${AFTER}`,
    );
    // Amounts that are not money: a fraction of a cent, below zero, more than the invoice's total, text.
    expect((await refused(reminded('2026-0001', { amountDueCents: 12.5 }))).message).to.equal(
      `invoice 2026-0001: a payment reminder says 12.5 cents were due, which is not whole cents above 0. ${AFTER}`,
    );
    expect((await refused(reminded('2026-0001', { amountDueCents: -100 }))).message).to.equal(
      `invoice 2026-0001: a payment reminder says -100 cents were due, which is not whole cents above 0. ${AFTER}`,
    );
    expect((await refused(reminded('2026-0001', { amountDueCents: 1_000_000_00 }))).message).to.equal(
      `invoice 2026-0001: a payment reminder says 1000000.00 was due, more than its total (160.65). ${AFTER}`,
    );
    const text = await refused(reminded('2026-0001', { amountDueCents: '160.65' }));
    expect(text.message).to.equal(`data: the invoice record's reminder: amountDueCents must be a number (got "160.65")`);
    // A reminder of another invoice than the one whose record holds it.
    const other = await refused(reminded('2026-0001', { invoiceId: 'inv_not_in_this_file' }));
    expect(other.message).to.equal(
      `data: the invoice record's reminder names invoiceId "inv_not_in_this_file": a reminder is its invoice's, in that invoice's record, and an export names no invoice of its own in it`,
    );
    // To no address mail can go to, with files that are not its documents.
    expect((await refused(reminded('2026-0001', { recipient: 'ap@acme.example, eve@evil.example' }))).message).to.equal(
      `invoice 2026-0001: a payment reminder names "ap@acme.example, eve@evil.example", which is not one address mail can go to. ${AFTER}`,
    );
    expect((await refused(reminded('2026-0001', { files: '["invoice.exe"]' }))).message).to.match(
      /^invoice 2026-0001: a payment reminder lists the files \["invoice.exe"\], which are not its invoice's documents \(2026-0001.pdf, /,
    );
  });

  it('--skip-invalid leaves out every numbered invoice when one is refused (its series would have a gap); drafts and entries come', async () => {
    const path = forged(
      'invoice',
      of('2026-0002', (data) => (data.row.note = 'Note\u202E')),
    );
    const { id, outcome } = await restore(path, { skipInvalid: true });
    expect(outcome.report.refused.map((r) => r.message.slice(0, 40))).to.have.length(2);
    expect(outcome.report.restored.invoices).to.equal(1);
    expect(world.services.invoices.list(OPERATOR, id).map((i) => [i.status, i.number])).to.deep.equal([['draft', null]]);
    expect(world.services.invoices.upcomingNumber(OPERATOR, id, world.ownerId).number).to.equal('2026-0001');
  });
});

/**
 * Issue 57: an expense's receipt that fails its check (size, SHA-256, type by content, a part
 * missing) is not left out silently. As a damaged invoice, it refuses its expense's row: the
 * import stops naming the expense and what to do, nothing is written; with --skip-invalid the
 * rest comes in without that expense.
 */
describe('imports service: an expense whose receipt fails its check is refused, naming it (issue 57)', () => {
  let world: ServiceWorld;
  let dir: string;
  let file: string[][];
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(60_000 - 8, 7)]);
  before(async () => {
    world = memoryServices();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-receipts-'));
    const { services, workspaceId, owner } = world;
    const acme = services.catalog.clients.create(owner, { name: 'Acme' }).id;
    const site = services.catalog.projects.create(owner, { name: 'Site', clientId: acme, billable: true, hourlyRate: 90 }).id;
    services.expenses.add(
      owner,
      { day: '2026-04-02', description: 'Train', amount: '49,90', projectId: site },
      { name: 'ticket.png', bytes: png },
    );
    services.expenses.add(owner, { day: '2026-04-03', description: 'Taxi', amount: '20', projectId: site });
    let text = '';
    for await (const chunk of services.imports.exportWorkspace(OPERATOR, { workspaceId }).chunks) text += chunk;
    file = parse(text.replace(/^\uFEFF/, '')) as string[][];
  });
  after(() => {
    world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const DATA = 18;
  let n = 0;
  /** The export with its rows changed by `change` (a row's data as JSON; false drops the row), written as the export writes it. */
  function forged(change: (data: any, kind: string) => unknown): string {
    const rows = file.flatMap((row) => {
      if (row[0] !== 'expense' && row[0] !== 'receipt') return [row];
      const data = JSON.parse(row[DATA] as string);
      if (change(data, row[0]) === false) return [];
      const copy = [...row];
      copy[DATA] = JSON.stringify(data);
      return [copy];
    });
    const path = join(dir, `forged-${++n}.csv`);
    writeFileSync(path, `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`);
    return path;
  }
  async function restore(path: string, more: Partial<ImportRequest> = {}) {
    const { id } = world.services.accounts.createWorkspace(OPERATOR, { name: `Restored ${++n}`, currency: 'EUR' });
    const outcome = await world.services.imports.run(OPERATOR, { workspaceId: id, path, createMembers: true, ...more });
    const expenses = world.services.expenses.list(OPERATOR, { workspaceId: id });
    return { id, outcome, expenses };
  }
  const WHAT =
    'Export the workspace again on the server it came from and import that file, or import the rest with --skip-invalid and add this expense with its receipt again (timetrack expense add … --receipt FILE).';

  it('restores an untouched export with its receipt', async () => {
    const { outcome, expenses } = await restore(forged(() => true));
    expect(outcome.report.refused).to.deep.equal([]);
    const train = expenses.find((e) => e.description === 'Train');
    expect(world.services.expenses.receipt(OPERATOR, train!.id).bytes.equals(png)).to.equal(true);
  });

  it('refuses the file, writing nothing, for a receipt changed, cut short or of another type than its record says', async () => {
    const expenseLine = file.findIndex((row) => row[0] === 'expense') + 1;
    const cases: Array<[(data: any, kind: string) => unknown, string]> = [
      [
        (data, kind) => {
          if (kind === 'receipt' && data.part === 1) data.bytes = `${data.bytes.slice(0, 40)}AAAA${data.bytes.slice(44)}`;
        },
        'its receipt’s bytes are not the file its record names (size or SHA-256 differ): the file was changed',
      ],
      [(data, kind) => !(kind === 'receipt' && data.part === 1), 'its receipt has 1 of 2 parts'],
      [
        (data, kind) => {
          if (kind === 'expense' && data.receipt) data.receipt.mediaType = 'application/pdf';
        },
        'its receipt’s content is not application/pdf',
      ],
    ];
    for (const [change, why] of cases) {
      const { id, outcome, expenses } = await restore(forged(change));
      expect(outcome.stopped, why).to.equal(true);
      expect(outcome.report.refused).to.deep.equal([
        { line: expenseLine, message: `the expense of 2026-04-02 “Train” (49.90 EUR): ${why}. ${WHAT}` },
      ]);
      expect(expenses).to.deep.equal([]);
      expect(await world.services.imports.list(OPERATOR, id)).to.deep.equal([]);
    }
  });

  it('with --skip-invalid imports the rest, without the expense whose receipt failed; the Import page says its own way', async () => {
    const broken = forged((data, kind) => !(kind === 'receipt' && data.part === 1));
    const { outcome, expenses } = await restore(broken, { skipInvalid: true });
    expect(outcome.stopped).to.equal(false);
    expect(expenses.map((e) => e.description)).to.deep.equal(['Taxi']);
    const page = await restore(broken, { wording: 'page' });
    expect(page.outcome.report.refused[0]?.message).to.equal(
      'the expense of 2026-04-02 “Train” (49.90 EUR): its receipt has 1 of 2 parts. Export the workspace again on the server it came from and import that file, or import the rest without this expense (the button below) and add it with its receipt on the Expenses page.',
    );
  });
});
