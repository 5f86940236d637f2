import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  return 'none';
};

/** The entries service's rules of work and rate, over an in-memory database (no HTTP). */
describe('entries service: work and rate', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  const hour = (day: number) => ({
    start: `2026-10-${String(day).padStart(2, '0')}T09:00:00Z`,
    end: `2026-10-${String(day).padStart(2, '0')}T10:00:00Z`,
  });

  it('resolves the rate as the first of task, project, member, workspace, and snapshots it', () => {
    const { services, owner, workspaceId } = world;
    const { catalog, entries, accounts } = services;
    const member = world.member({ hourlyRate: 70 });
    accounts.setWorkspace(OPERATOR, workspaceId, { hourlyRate: 50 });
    const rated = catalog.projects.create(owner, { name: 'Rated', hourlyRate: 90, billable: true });
    const unrated = catalog.projects.create(owner, { name: 'Unrated', billable: true });
    const task = catalog.tasks.create(owner, { name: 'Task', projectId: rated.id, hourlyRate: 120 });
    const plainTask = catalog.tasks.create(owner, { name: 'Plain', projectId: rated.id });
    expect(entries.create(member, { ...hour(1), taskId: task.id }).hourlyRate).to.equal(120);
    expect(entries.create(member, { ...hour(2), taskId: plainTask.id }).hourlyRate).to.equal(90);
    expect(entries.create(member, { ...hour(3), projectId: unrated.id }).hourlyRate).to.equal(70);
    const ownerEntry = entries.create(owner, { ...hour(4), projectId: unrated.id });
    expect(ownerEntry.hourlyRate).to.equal(50);
    // Later rate changes do not rewrite history; a change of work re-resolves it.
    catalog.projects.update(owner, rated.id, { hourlyRate: 95 });
    const kept = entries.update(owner, ownerEntry.id, { description: 'renamed' });
    expect(kept.hourlyRate).to.equal(50);
    expect(entries.update(owner, ownerEntry.id, { projectId: rated.id }).hourlyRate).to.equal(95);
    accounts.setWorkspace(OPERATOR, workspaceId, { hourlyRate: null });
    expect(entries.create(owner, { ...hour(5), projectId: unrated.id }).hourlyRate).to.equal(null);
  });

  it('a task implies its project; a mismatched one is 400, an unknown or foreign one 404, an archived one 400', () => {
    const { services, owner } = world;
    const { catalog, entries } = services;
    const design = catalog.projects.create(owner, { name: 'Design' });
    const other = catalog.projects.create(owner, { name: 'Other' });
    const task = catalog.tasks.create(owner, { name: 'Sketch', projectId: design.id });
    expect(entries.create(owner, { ...hour(1), taskId: task.id }).projectId).to.equal(design.id);
    // A new project drops a task that does not belong to it.
    const moved = entries.update(owner, entries.create(owner, { ...hour(7), taskId: task.id }).id, { projectId: null });
    expect([moved.projectId, moved.taskId]).to.deep.equal([null, null]);
    expect(code(() => entries.create(owner, { ...hour(2), projectId: other.id, taskId: task.id }))).to.equal('invalid');
    expect(code(() => entries.create(owner, { ...hour(3), projectId: 'prj_nope' }))).to.equal('not_found');
    expect(code(() => entries.create(owner, { ...hour(4), tagIds: ['tag_nope'] }))).to.equal('not_found');
    catalog.projects.update(owner, other.id, { archived: true });
    expect(code(() => entries.create(owner, { ...hour(5), projectId: other.id }))).to.equal('invalid');
    // An entry keeps an archived project it has already.
    const onDesign = entries.create(owner, { ...hour(6), projectId: design.id });
    catalog.projects.update(owner, design.id, { archived: true });
    expect(entries.update(owner, onDesign.id, { description: 'still fine' }).projectId).to.equal(design.id);
  });

  it('billable defaults to the project’s; the amount follows the one rounding rule', () => {
    const { services, owner } = world;
    const project = services.catalog.projects.create(owner, { name: 'Cents', billable: true, hourlyRate: 1.15 });
    const half = services.entries.create(owner, { start: '2026-10-01T09:00:00Z', end: '2026-10-01T09:30:00Z', projectId: project.id });
    expect(half.billable).to.equal(true);
    const page = services.entries.list(owner, { from: '2026-10-01', to: '2026-10-01' });
    expect(page.rows.map((r) => r.amount)).to.deep.equal([0.58]);
  });

  it('only the author changes an entry: a colleague who sees it gets forbidden, one who does not not_found', () => {
    const { services, owner } = world;
    const seer = world.member({ canViewOthersTime: true });
    const blind = world.member();
    const entry = services.entries.create(owner, hour(1));
    expect(code(() => services.entries.update(seer, entry.id, { description: 'x' }))).to.equal('forbidden');
    expect(code(() => services.entries.update(blind, entry.id, { description: 'x' }))).to.equal('not_found');
    expect(code(() => services.entries.delete(blind, entry.id))).to.equal('not_found');
    expect(services.entries.get(seer, entry.id).hourlyRate).to.equal(null);
  });
});

/**
 * The repository keeps one prepared UPDATE per set of columns (repository/update.ts): shapes that
 * alternate must each write their own columns of their own row, never a kept statement's others.
 */
describe('entries service: updates of different shapes, one after another', () => {
  it('a stop, an edit and a second stop each change only their row and their columns', () => {
    const world = memoryServices();
    try {
      const { services, owner, clock } = world;
      const member = world.member({});
      const iso = (ms: number) => new Date(ms).toISOString();
      const t0 = clock.now();
      const first = services.timers.start(owner, { start: iso(t0 - 3_600_000), description: 'first' });
      const second = services.timers.start(member, { start: iso(t0 - 1_800_000), description: 'second' });
      const stopped = services.timers.stop(owner, { end: iso(t0) });
      expect([stopped.id, stopped.end, stopped.durationSec, stopped.description]).to.deep.equal([first.id, iso(t0), 3600, 'first']);
      // An edit's shape: description and the rest, but no new times.
      const edited = services.entries.update(owner, first.id, { description: 'renamed' });
      expect([edited.description, edited.end, edited.durationSec]).to.deep.equal(['renamed', iso(t0), 3600]);
      // The stop's kept statement again, on the other member's row.
      clock.advance(60_000);
      const other = services.timers.stop(member, { end: iso(t0 + 60_000) });
      expect([other.id, other.end, other.durationSec, other.description]).to.deep.equal([second.id, iso(t0 + 60_000), 1860, 'second']);
      expect(services.entries.get(owner, first.id)).to.deep.include({ description: 'renamed', end: iso(t0), durationSec: 3600 });
    } finally {
      world.close();
    }
  });
});
