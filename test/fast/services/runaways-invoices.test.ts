import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

const HOUR = 3_600_000;

/** Runaway detection and invoicing, over an in-memory database with a manual clock (no HTTP). */
describe('timers service: runaway detection', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  for (const action of ['flagged', 'capped', 'stopped'] as const) {
    it(`${action}: detected once past the limit, recorded, with its event`, () => {
      const { services, owner, workspaceId, clock } = world;
      services.accounts.setWorkspace(OPERATOR, workspaceId, { runawayLimitSec: 3600, runawayAction: action });
      const started = services.timers.start(owner, {});
      clock.advance(HOUR - 1000);
      expect(services.timers.detectRunaways()).to.equal(0);
      clock.advance(2000);
      const detectedAt = clock.now();
      expect(services.timers.detectRunaways()).to.equal(1);
      expect(services.timers.detectRunaways()).to.equal(0);
      const entry = services.entries.get(owner, started.id);
      expect(entry.runaway).to.include({ action, limitSec: 3600, resolvedAt: null });
      const end = { flagged: null, capped: Date.parse(started.start) + HOUR, stopped: detectedAt }[action];
      expect(entry.end === null ? null : Date.parse(entry.end)).to.equal(end);
      const last = services.events.tail(OPERATOR, workspaceId).at(-1);
      expect(last?.event).to.equal(action === 'flagged' ? 'entry.updated' : 'entry.stopped');
      if (action === 'flagged') {
        // Stopping a flagged timer resolves it, when its author does.
        clock.advance(1000);
        expect(services.timers.stop(owner, {}).runaway?.resolvedAt).to.equal(new Date(clock.now()).toISOString());
      }
    });
  }
});

describe('invoices service', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  it('invoices billable completed entries of a client’s projects in lines by project and rate; void releases them', () => {
    const { services, owner, workspaceId, ownerId } = world;
    const { catalog, entries, invoices } = services;
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const acme = catalog.clients.create(owner, { name: 'Acme' });
    const beta = catalog.projects.create(owner, { name: 'beta', clientId: acme.id, billable: true, hourlyRate: 100 });
    const alpha = catalog.projects.create(owner, { name: 'Alpha', clientId: acme.id, billable: true, hourlyRate: 80.05 });
    const elsewhere = catalog.projects.create(owner, { name: 'Elsewhere', billable: true, hourlyRate: 10 });
    const make = (projectId: string, day: string, billable = true) =>
      entries.create(owner, { projectId, billable, start: `2026-10-${day}T09:00:00Z`, end: `2026-10-${day}T10:00:00Z` }).id;
    const ids = [make(beta.id, '01'), make(alpha.id, '02'), make(alpha.id, '03'), make(alpha.id, '04', false), make(elsewhere.id, '05')];
    catalog.projects.update(owner, alpha.id, { hourlyRate: 90 });
    const late = make(alpha.id, '06');
    const { id } = invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId: acme.id, from: '2026-10-01', to: '2026-10-06' });
    const invoice = invoices.get(OPERATOR, id);
    expect(invoice.lines.map((l) => [l.description, l.hourlyRate, l.quantitySec, l.amount])).to.deep.equal([
      ['Alpha', 80.05, 7200, 160.1],
      ['Alpha', 90, 3600, 90],
      ['beta', 100, 3600, 100],
    ]);
    expect(invoice.total).to.equal(350.1);
    const invoiced = (entryId: string) => entries.get(owner, entryId).invoiceId;
    expect([...ids, late].map(invoiced)).to.deep.equal([id, id, id, null, null, id]);
    expect(() => entries.update(owner, ids[0] as string, { description: 'x' }))
      .to.throw(DomainError)
      .with.property('code', 'conflict');
    invoices.changeStatus(OPERATOR, id, 'void', ownerId);
    expect([...ids, late].map(invoiced)).to.deep.equal([null, null, null, null, null, null]);
    expect(() => invoices.changeStatus(OPERATOR, id, 'sent', ownerId))
      .to.throw(DomainError)
      .with.property('code', 'conflict');
  });
});
