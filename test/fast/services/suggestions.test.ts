import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * Suggestions while typing (the web app's timer) come from entry_suggestions, which triggers on
 * entries keep in the transaction of every write (issue 60). After any mix of writes the table
 * must hold exactly what the entries say: per member, each distinct description with its
 * project, task, billable and tags, how many entries have it and the latest start.
 */
describe('suggestions while typing: the table the entries keep', () => {
  let world: ServiceWorld;
  let ada: Actor;
  let dir: string;
  beforeEach(() => {
    world = memoryServices();
    ada = world.member({ name: 'Ada Lovelace' });
    dir = mkdtempSync(join(tmpdir(), 'timetrack-suggest-'));
  });
  afterEach(() => {
    world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The table, and what a grouping of the entries says it must hold, in one order. */
  function table() {
    const db = world.database.sqlite;
    const kept = db
      .prepare(
        `SELECT workspace_id, author_id, description, project_id, task_id, billable, tag_list, uses, last_start FROM entry_suggestions
         ORDER BY 1, 2, 3, 4, 5, 6, 7`,
      )
      .all();
    const truth = db
      .prepare(
        `SELECT workspace_id, author_id, description, ifnull(project_id, '') AS project_id, ifnull(task_id, '') AS task_id, billable,
                ifnull(tag_list, '') AS tag_list, count(*) AS uses, max(start_at) AS last_start
         FROM entries WHERE description <> ''
         GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
      )
      .all();
    return { kept, truth };
  }
  const expectKeptRight = () => {
    const { kept, truth } = table();
    expect(kept).to.deep.equal(truth);
    return kept.length;
  };
  const day = (n: number, hour = 9) => new Date(world.clock.now() - n * 86_400_000 + (hour - 10) * 3_600_000).toISOString();
  const at = (n: number, hours = 1) => ({ start: day(n), end: new Date(Date.parse(day(n)) + hours * 3_600_000).toISOString() });
  const shown = (actor: Actor, text: string) =>
    world.services.entries.suggestions(actor, text).map((s) => [s.description, s.uses, s.lastStart.slice(0, 10)]);

  it('create, edit (text, project, tags, start), delete, Undo and the timesheet’s Undo keep it right', () => {
    const { services, owner } = world;
    const audit = services.catalog.projects.create(owner, { name: 'Audit', billable: true }).id;
    const tag = services.catalog.tags.create(owner, { name: 'onsite' }).id;
    const a = services.entries.create(owner, { ...at(3), description: 'Audit fieldwork', projectId: audit });
    const b = services.entries.create(owner, { ...at(2), description: 'Audit fieldwork', projectId: audit });
    services.entries.create(owner, { ...at(1), description: 'Review' });
    services.entries.create(owner, { ...at(1, 2), description: '' });
    expect(expectKeptRight()).to.equal(2);
    expect(shown(owner, 'aud')).to.deep.equal([['Audit fieldwork', 2, day(2).slice(0, 10)]]);

    // The newer one's text changes: the older one is the latest use left.
    services.entries.update(owner, b.id, { description: 'Audit report' });
    expectKeptRight();
    expect(shown(owner, 'AUDIT')).to.deep.equal([
      ['Audit report', 1, day(2).slice(0, 10)],
      ['Audit fieldwork', 1, day(3).slice(0, 10)],
    ]);
    // Tags, project and start of the other: a new key each time, the old one gone.
    services.entries.update(owner, a.id, { tagIds: [tag] });
    services.entries.update(owner, a.id, { projectId: null });
    services.entries.update(owner, a.id, { start: day(5), end: day(5, 11) });
    expect(expectKeptRight()).to.equal(3);
    const fieldwork = world.services.entries.suggestions(owner, 'fieldwork')[0];
    expect(fieldwork).to.deep.include({
      projectId: null,
      tagIds: [tag],
      uses: 1,
      billable: true,
      lastStart: day(5).replace('.000Z', '.000Z'),
    });

    // Deleted with Undo, restored, deleted for good; the timesheet's cells taken back.
    services.entries.delete(owner, a.id, { undoable: true });
    expectKeptRight();
    expect(shown(owner, 'fieldwork')).to.deep.equal([]);
    services.entries.restore(owner, a.id);
    expect(shown(owner, 'fieldwork')).to.have.length(1);
    services.entries.delete(owner, a.id);
    const saved = services.entries.saveSheet(owner, {
      add: [
        { ...at(4), description: 'Review' },
        { ...at(6), description: 'Review' },
      ],
      shorten: [],
      remove: [],
    });
    expect(shown(owner, 'rev')).to.deep.equal([['Review', 3, day(1).slice(0, 10)]]);
    services.entries.undoSheet(owner, saved);
    expect(shown(owner, 'rev')).to.deep.equal([['Review', 1, day(1).slice(0, 10)]]);
    expectKeptRight();
  });

  it('timers: a running one is suggested, and stays right when it is edited, stopped and deleted', () => {
    const { services } = world;
    services.timers.start(ada, { description: 'Standup' });
    expect(shown(ada, 'stand')).to.deep.equal([['Standup', 1, new Date(world.clock.now()).toISOString().slice(0, 10)]]);
    world.clock.advance(60_000);
    const running = services.timers.current(ada);
    services.entries.update(ada, running!.id, { description: 'Standup call' });
    world.clock.advance(60_000);
    services.timers.stop(ada, {});
    expectKeptRight();
    expect(shown(ada, 'stand').map((s) => s[0])).to.deep.equal(['Standup call']);
    services.entries.delete(ada, running!.id);
    expect(expectKeptRight()).to.equal(0);
  });

  it('an import adds its entries, its undo takes them away', async () => {
    world.services.accounts.setUser(OPERATOR, ada.userId, { email: 'ada@example.org' });
    const path = join(dir, 'toggl.csv');
    writeFileSync(
      path,
      [
        'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)',
        'Ada Lovelace,ada@example.org,Acme,Website,Design,Header,Yes,2026-10-20,09:00:00,2026-10-20,10:30:00,01:30:00,"design, review",120.00',
        'Ada Lovelace,ada@example.org,Acme,Website,Design,Header,Yes,2026-10-21,09:00:00,2026-10-21,10:00:00,01:00:00,"review, design",80.00',
        'Ada Lovelace,ada@example.org,,,,Footer,No,2026-10-22,11:00:00,2026-10-22,11:45:00,00:45:00,,0.00',
      ].join('\n'),
    );
    world.services.entries.create(ada, { ...at(1), description: 'Header' });
    const { report } = await world.services.imports.run(OPERATOR, { workspaceId: world.workspaceId, timeZone: 'Europe/Berlin', path });
    expect(report.imported).to.equal(3);
    expectKeptRight();
    const header = world.services.entries.suggestions(ada, 'head');
    expect(header.map((s) => [s.uses, s.projectName, s.clientName, s.taskName, s.tagIds.length])).to.deep.equal([
      [2, 'Website', 'Acme', 'Design', 2],
      [1, null, null, null, 0],
    ]);
    await world.services.imports.undo(OPERATOR, report.importId as string);
    expect(expectKeptRight()).to.equal(1);
    expect(shown(ada, 'head')).to.deep.equal([['Header', 1, day(1).slice(0, 10)]]);
  });

  it('only the member’s own, used in the last 90 days; the most used first, then the most recent; any case, any letters', () => {
    const { services, owner } = world;
    services.entries.create(owner, { ...at(91), description: 'Ancient' });
    services.entries.create(ada, { ...at(1), description: 'Ada’s own' });
    for (const n of [10, 11]) services.entries.create(owner, { ...at(n), description: 'Ärger mit Öl' });
    services.entries.create(owner, { ...at(2), description: 'ärger später' });
    services.entries.create(owner, { ...at(3), description: 'Old ärger' });
    expect(shown(owner, '')).to.deep.equal([
      ['Ärger mit Öl', 2, day(10).slice(0, 10)],
      ['ärger später', 1, day(2).slice(0, 10)],
      ['Old ärger', 1, day(3).slice(0, 10)],
    ]);
    expect(shown(owner, 'ÄRGER').map((s) => s[0])).to.deep.equal(['Ärger mit Öl', 'ärger später', 'Old ärger']);
    expect(shown(owner, 'ancient')).to.deep.equal([]);
    expect(shown(ada, 'own')).to.deep.equal([['Ada’s own', 1, day(1).slice(0, 10)]]);
    // A use today of the 91-day-old description brings it back, counted with the old one.
    services.entries.create(owner, { ...at(0), description: 'Ancient' });
    expect(shown(owner, 'anc')).to.deep.equal([['Ancient', 2, day(0).slice(0, 10)]]);
    expectKeptRight();
  });

  it('eight at most: the most used, then the most recent, then by description; the rest of the 90 days is left out', () => {
    const { services, owner } = world;
    // Twelve descriptions started the same day at the same hour: only their text orders them.
    for (const n of [12, 3, 7, 1, 11, 5, 9, 2, 10, 4, 8, 6])
      services.entries.create(owner, { ...at(5), description: `Item ${String(n).padStart(2, '0')}` });
    services.entries.create(owner, { ...at(6), description: 'Item 99' });
    services.entries.create(owner, { ...at(40), description: 'Item 99' });
    services.entries.create(owner, { ...at(1), description: 'Item 50' });
    expect(shown(owner, 'item')).to.deep.equal([
      ['Item 99', 2, day(6).slice(0, 10)],
      ['Item 50', 1, day(1).slice(0, 10)],
      ...['01', '02', '03', '04', '05', '06'].map((n) => [`Item ${n}`, 1, day(5).slice(0, 10)]),
    ]);
    expect(shown(owner, 'item 1').map((s) => s[0])).to.deep.equal(['Item 10', 'Item 11', 'Item 12']);
    expectKeptRight();
  });
});
