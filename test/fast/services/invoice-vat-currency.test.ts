import { expect } from 'chai';
import type { DomainError } from '../../../src/errors.js';
import { issuerPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices } from '../../helpers/services.js';
import { refusal } from '../../helpers/refusal.js';

/*
 * An invoice in another currency than its issuer's VAT currency states its VAT in that currency
 * too (art. 230 VAT Directive), so issuing it takes an exchange rate; one that carries no VAT
 * (reverse charge, export, a small business) has none to state: no rate is asked, none is taken,
 * nothing is recorded (issue 56 item 10). A German issuer (EUR) invoicing in francs.
 */
function francs(client: Record<string, unknown>) {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.accounts.setWorkspace(OPERATOR, workspaceId, { currency: 'CHF' });
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  services.invoices.setBusinessProfile(
    OPERATOR,
    workspaceId,
    issuerPatchOfText(Object.entries({ legalName: 'Lovelace Design GmbH', country: 'DE', city: 'Berlin', vatId: 'DE136695976' })),
  );
  const clientId = services.catalog.clients.create(owner, { name: 'Client', legalName: 'Client AG', ...client }).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Work', clientId, billable: true, hourlyRate: 100 }).id;
  services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T19:00:00Z', billable: true });
  const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
  const issue = (exchangeRate?: number) =>
    services.invoices.issue(OPERATOR, id, { userId: ownerId, ...(exchangeRate === undefined ? {} : { exchangeRate }) });
  return { world, id, issue, get: () => services.invoices.get(OPERATOR, id) };
}

describe('invoices service: the VAT in the issuer’s currency only where there is VAT (issue 56 item 10)', () => {
  it('a franc invoice with reverse charge (no VAT) issues without an exchange rate, records none and refuses one given; with VAT the rate is still asked', () => {
    const reverse = francs({ country: 'AT', vatId: 'ATU13585627', taxCategory: 'AE' });
    const domestic = francs({ country: 'DE' });
    try {
      expect(reverse.get()).to.deep.include({ currency: 'CHF', taxTotal: 0 });
      const given = refusal(() => reverse.issue(1.0634)) as DomainError;
      expect([given.code, given.field, given.message]).to.deep.equal([
        'invalid',
        'exchangeRate',
        'This invoice carries no VAT, so it states none in EUR either: it takes no exchange rate. Issue it without one.',
      ]);
      expect(reverse.get().status).to.equal('draft');
      expect(reverse.issue()).to.deep.include({ to: 'sent', number: '2026-0001' });
      expect(reverse.get()).to.not.have.property('vatCurrency');

      // With VAT: asked, and recorded (19 % of CHF 1,000.00 at 1.0634 is EUR 202.05).
      expect((refusal(() => domestic.issue()) as DomainError).field).to.equal('exchangeRate');
      domestic.issue(1.0634);
      expect(domestic.get().vatCurrency).to.deep.equal({ currency: 'EUR', exchangeRate: 1.0634, taxTotal: 202.05 });
    } finally {
      reverse.world.close();
      domestic.world.close();
    }
  });
});
