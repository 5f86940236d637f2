import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

const refused = (fn: () => unknown): { code: string; people: string | undefined } | null => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, people: error.people };
    throw error;
  }
  return null;
};

/**
 * The timesheet's writes (issue 58 item 4): a save of its cells is one write, all or none; it
 * takes time back only from the timesheet's own kind of entry (completed, from the web app,
 * without a description or tags), each as the page read it; its Undo puts every change back.
 */
describe('entries service: the timesheet’s save and its Undo', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  const at = (time: string) => `2026-10-27T${time}:00.000Z`;
  const typed = (from: string, to: string, extra: Record<string, unknown> = {}) =>
    world.services.entries.create(world.owner, { start: at(from), end: at(to), source: 'web', ...extra });
  const spans = () =>
    world.services.entries
      .list(world.owner, { from: '2026-10-27', to: '2026-10-27', limit: 50 })
      .rows.map((e) => `${e.start.slice(11, 16)}–${(e.end ?? '').slice(11, 16)} ${e.description}`)
      .sort();

  it('adds, ends earlier and takes out in one write, and its Undo restores each as it was', () => {
    const { entries } = world.services;
    const first = typed('09:00', '10:00');
    const second = typed('10:00', '11:00');
    const saved = entries.saveSheet(world.owner, {
      add: [{ start: at('13:00'), end: at('13:30'), source: 'web' }],
      shorten: [{ id: first.id, updatedAt: first.updatedAt, end: at('09:30') }],
      remove: [{ id: second.id, updatedAt: second.updatedAt }],
    });
    expect(spans()).to.deep.equal(['09:00–09:30 ', '13:00–13:30 ']);
    expect(saved.removed).to.deep.equal([second.id]);
    expect(saved.shortened.map((s) => [s.id, s.end])).to.deep.equal([[first.id, at('10:00')]]);
    world.clock.advance(2_000);
    entries.undoSheet(world.owner, saved);
    expect(spans()).to.deep.equal(['09:00–10:00 ', '10:00–11:00 ']);
    expect(entries.get(world.owner, second.id).durationSec).to.equal(3600);
  });

  it('never shortens or takes out an entry with a description or tags, a running timer or one from the API: 409, nothing written', () => {
    const { entries, catalog } = world.services;
    const tag = catalog.tags.create(world.owner, { name: 'onsite' });
    const plain = typed('08:00', '08:30');
    const cases = [
      typed('09:00', '10:00', { description: 'Kickoff' }),
      typed('10:00', '11:00', { tagIds: [tag.id] }),
      entries.create(world.owner, { start: at('11:00'), end: at('12:00') }),
    ];
    for (const entry of cases) {
      const outcome = refused(() =>
        entries.saveSheet(world.owner, {
          add: [{ start: at('14:00'), end: at('15:00'), source: 'web' }],
          shorten: [],
          remove: [
            { id: plain.id, updatedAt: plain.updatedAt },
            { id: entry.id, updatedAt: entry.updatedAt },
          ],
        }),
      );
      expect(outcome).to.deep.equal({
        code: 'conflict',
        people: 'Part of this time has a description, tags or a running timer, so the timesheet leaves it as it is: change it on the week.',
      });
    }
    const timer = world.services.timers.start(world.owner, { start: at('12:00') });
    expect(
      refused(() =>
        entries.saveSheet(world.owner, { add: [], shorten: [{ id: timer.id, updatedAt: timer.updatedAt, end: at('12:10') }], remove: [] }),
      )?.code,
    ).to.equal('conflict');
    expect(spans()).to.deep.equal(['08:00–08:30 ', '09:00–10:00 Kickoff', '10:00–11:00 ', '11:00–12:00 ', '12:00– ']);
  });

  it('refuses an entry changed since the page read it (its version), and an Undo of time changed since the save', () => {
    const { entries } = world.services;
    const entry = typed('09:00', '10:00');
    world.clock.advance(1_000);
    entries.update(world.owner, entry.id, { end: at('10:15') });
    expect(
      refused(() =>
        entries.saveSheet(world.owner, { add: [], shorten: [{ id: entry.id, updatedAt: entry.updatedAt, end: at('09:30') }], remove: [] }),
      )?.code,
    ).to.equal('conflict');
    const now = entries.get(world.owner, entry.id);
    const saved = entries.saveSheet(world.owner, {
      add: [],
      shorten: [{ id: now.id, updatedAt: now.updatedAt, end: at('09:30') }],
      remove: [],
    });
    world.clock.advance(1_000);
    entries.update(world.owner, entry.id, { description: 'Kept' });
    expect(refused(() => entries.undoSheet(world.owner, saved))?.code).to.equal('conflict');
    expect(entries.get(world.owner, entry.id)).to.include({ description: 'Kept', end: at('09:30') });
  });
});
