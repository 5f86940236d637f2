import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * When an invoice is overdue (issue 57 item 3): sent, something due, and its due date passed in
 * the workspace's default zone (Europe/Berlin here): overdue from the midnight that ends the due
 * date there, also when that day is 23 hours long (the last Sunday of March) or 25 (of October).
 * Read through the services with their clock.
 */

/** A workspace in Berlin with an invoice of 1,190.00 gross issued on `issueDate` (due 14 days later). */
function setup(issueDate: string) {
  const world = memoryServices({ now: Date.parse(`${issueDate}T10:00:00Z`), defaultTimeZone: 'Europe/Berlin' });
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
    legalName: 'Ada Lovelace Design',
    country: 'DE',
    taxNumber: '30/123/45678',
  });
  const clientId = services.catalog.clients.create(owner, { name: 'Acme', country: 'DE' } as never).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
  const start = Date.parse(`${issueDate}T00:00:00Z`) - 5 * 86_400_000;
  services.entries.create(owner, {
    projectId,
    start: new Date(start).toISOString(),
    end: new Date(start + 10 * 3_600_000).toISOString(),
    billable: true,
  });
  const from = new Date(start - 86_400_000).toISOString().slice(0, 10);
  const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from, to: issueDate }).id;
  services.invoices.issue(OPERATOR, id, { userId: ownerId, date: issueDate });
  const at = (iso: string) => {
    world.clock.set(Date.parse(iso));
    return services.invoices.overdue(OPERATOR, workspaceId).map((o) => ({ id: o.invoice.id, days: o.daysOverdue, due: o.amountDue }));
  };
  return { ...world, id, at };
}

describe('invoices service: overdue in the workspace zone', () => {
  it('an invoice due on an ordinary day is overdue from the next midnight in Berlin (23:00 UTC in winter), not UTC midnight', () => {
    const w = setup('2026-11-02');
    try {
      expect(w.services.invoices.get(OPERATOR, w.id)).to.deep.include({ dueDate: '2026-11-16', amountDue: 1190 });
      expect(w.at('2026-11-16T22:59:59.999Z')).to.deep.equal([]);
      expect(w.at('2026-11-16T23:00:00.000Z')).to.deep.equal([{ id: w.id, days: 1, due: 1190 }]);
      expect(w.at('2026-11-17T22:59:59.999Z')).to.deep.equal([{ id: w.id, days: 1, due: 1190 }]);
      expect(w.at('2026-11-17T23:00:00.000Z')).to.deep.equal([{ id: w.id, days: 2, due: 1190 }]);
      // A partial payment leaves it overdue with less due; the payment of the rest ends it.
      w.services.invoices.pay(OPERATOR, w.id, { amount: '190', userId: w.ownerId, date: '2026-11-17' });
      expect(w.at('2026-11-18T08:00:00Z')).to.deep.equal([{ id: w.id, days: 2, due: 1000 }]);
      w.services.invoices.pay(OPERATOR, w.id, { amount: '1000', userId: w.ownerId, date: '2026-11-18' });
      expect(w.at('2026-11-18T09:00:00Z')).to.deep.equal([]);
    } finally {
      w.close();
    }
  });

  it('due on the last Sunday of March (23 hours in Berlin): overdue from 22:00 UTC that day, and days count calendar days', () => {
    const w = setup('2026-03-15');
    try {
      expect(w.services.invoices.get(OPERATOR, w.id).dueDate).to.equal('2026-03-29');
      expect(w.at('2026-03-29T21:59:59.999Z')).to.deep.equal([]);
      expect(w.at('2026-03-29T22:00:00.000Z')).to.deep.equal([{ id: w.id, days: 1, due: 1190 }]);
      expect(w.at('2026-04-05T21:59:59.999Z')).to.deep.equal([{ id: w.id, days: 7, due: 1190 }]);
      expect(w.at('2026-04-05T22:00:00.000Z')).to.deep.equal([{ id: w.id, days: 8, due: 1190 }]);
    } finally {
      w.close();
    }
  });

  it('due on the last Sunday of October (25 hours in Berlin): overdue from 23:00 UTC that day, not an hour early', () => {
    const w = setup('2026-10-11');
    try {
      expect(w.services.invoices.get(OPERATOR, w.id).dueDate).to.equal('2026-10-25');
      expect(w.at('2026-10-25T22:00:00.000Z')).to.deep.equal([]);
      expect(w.at('2026-10-25T22:59:59.999Z')).to.deep.equal([]);
      expect(w.at('2026-10-25T23:00:00.000Z')).to.deep.equal([{ id: w.id, days: 1, due: 1190 }]);
      expect(w.at('2026-10-26T22:59:59.999Z')).to.deep.equal([{ id: w.id, days: 1, due: 1190 }]);
      expect(w.at('2026-10-26T23:00:00.000Z')).to.deep.equal([{ id: w.id, days: 2, due: 1190 }]);
    } finally {
      w.close();
    }
  });

  it('a voided invoice is never overdue', () => {
    const w = setup('2026-11-02');
    try {
      const { services, ownerId } = w;
      expect(w.at('2026-12-20T12:00:00Z').map((o) => o.id)).to.deep.equal([w.id]);
      services.invoices.void(OPERATOR, w.id, { userId: ownerId, date: '2026-12-20' });
      expect(w.at('2026-12-20T12:00:00Z')).to.deep.equal([]);
    } finally {
      w.close();
    }
  });
});
