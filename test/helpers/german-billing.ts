import { issuerPatchOfText } from '../../src/modules/invoices/service.js';
import { OPERATOR } from '../../src/principal.js';
import type { ServiceWorld } from './services.js';

/**
 * A German seller who can issue every e-invoice (VAT id, electronic address, bank account) and a
 * German client with a Leitweg-ID, in a workspace of memory services: the start of the e-invoice
 * tier's billing cases (manual lines, expenses, VAT rates). Documents in German at 19 %.
 */
export function germanSellerAndClient(
  w: ServiceWorld,
  names: { seller: string; client: string; clientLegalName: string; clientEmail: string },
): string {
  const { services, owner, workspaceId } = w;
  services.invoices.setBusinessProfile(
    OPERATOR,
    workspaceId,
    issuerPatchOfText(
      Object.entries({
        legalName: names.seller,
        addressLines: 'Torstraße 5',
        postalCode: '10119',
        city: 'Berlin',
        country: 'DE',
        contactName: 'Jörg Weiß',
        phone: '+49 30 1234567',
        email: 'joerg@example.org',
        iban: 'DE02120300000000202051',
        bic: 'BYLADEM1001',
        vatId: 'DE123456788',
        electronicAddress: 'DE123456788',
        electronicAddressScheme: '9930',
      }),
    ),
  );
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19, language: 'de' });
  return services.catalog.clients.create(owner, {
    name: names.client,
    legalName: names.clientLegalName,
    addressLines: ['Königsallee 1'],
    postalCode: '40212',
    city: 'Düsseldorf',
    country: 'DE',
    email: names.clientEmail,
    reference: '04011000-12345-03',
    electronicAddress: '04011000-12345-03',
    electronicAddressScheme: '0204',
  } as never).id;
}
