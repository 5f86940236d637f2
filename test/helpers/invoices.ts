import { OPERATOR } from '../../src/principal.js';
import { issuerPatchOfText } from '../../src/modules/invoices/service.js';
import type { TestServer } from './server.js';

/**
 * A freelancer ready to invoice on a test server (docs/invoicing.md's Ada): the business profile
 * and invoicing settings (19 %) set as the command line sets them, a client with every value
 * XRechnung and Peppol need (unless `client` leaves some out), a billable project at 95 an hour
 * and four days of October 2026 on it (10 hours: EUR 950.00 net, 180.50 VAT, 1,130.50 gross).
 */
export function freelancer(server: TestServer, client: Record<string, unknown> = {}) {
  const { services, workspaceId } = server;
  services.invoices.setBusinessProfile(
    OPERATOR,
    workspaceId,
    issuerPatchOfText(
      Object.entries({
        legalName: 'Ada Lovelace Design',
        addressLines: 'Torstraße 5|2. OG',
        postalCode: '10119',
        city: 'Berlin',
        country: 'DE',
        vatId: 'DE136695976',
        contactName: 'Ada Lovelace',
        phone: '+49 30 1234567',
        email: 'ada@example.org',
        electronicAddress: 'DE136695976',
        electronicAddressScheme: '9930',
        iban: 'DE02120300000000202051',
        bic: 'BYLADEM1001',
        paymentTermsDays: '14',
      }),
    ),
  );
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  const owner = services.tokens.authenticate(server.ownerToken)!.actor;
  const clientId = services.catalog.clients.create(owner, {
    name: 'Acme',
    legalName: 'Acme GmbH',
    addressLines: ['Hauptstraße 1'],
    postalCode: '10115',
    city: 'Berlin',
    country: 'DE',
    vatId: 'DE129273398',
    reference: '04011000-12345-03',
    electronicAddress: '04011000-12345-03',
    electronicAddressScheme: '0204',
    ...client,
  } as never).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Relaunch', clientId, billable: true, hourlyRate: 95 }).id;
  for (const day of ['05', '06', '07', '08'])
    services.entries.create(owner, {
      projectId,
      start: `2026-10-${day}T09:00:00Z`,
      end: `2026-10-${day}T11:30:00Z`,
      description: `Relaunch day ${day}`,
      billable: true,
    });
  return { owner, clientId, projectId };
}
