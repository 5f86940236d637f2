import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { translator } from '../../../src/i18n/index.js';
import { checkParticipantId, checkVatId } from '../../../src/kernel/identifiers.js';
import { issuerPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices } from '../../helpers/services.js';
import { refusal } from '../../helpers/refusal.js';

/*
 * VAT identifiers by their country's check digits (issue 56 item 9, decisions 14): the ids the
 * issue found accepted fail their check digits, wherever a VAT id is entered (the business
 * profile, a client, an e-invoice fill, an electronic address of a VAT scheme), and a valid id of
 * every country with a pattern passes. The valid examples are python-stdnum's documented ones
 * (DE136695976 the German Federal Central Tax Office's).
 */

/** The five ids of the issue, each of its country's form and none with its check digits. */
const WRONG = ['DE123456789', 'ATU12345678', 'FR00303265045', 'NL123456789B01', 'BE0412345615'];

const VALID = [
  'ATU13585627',
  'BE0776091951',
  'BG175074752',
  'CY10259033P',
  'CZ25123891',
  'DE136695976',
  'DE129273398',
  'DK13585628',
  'EE100931558',
  'EL094259216',
  'ESA78304516',
  'FI20774740',
  'FR40303265045',
  'HR33392005961',
  'HU12892312',
  'IE6433435F',
  'IT00743110157',
  'LT119511515',
  'LU15027442',
  'LV40003521600',
  'MT11679112',
  'NL000099998B57',
  'NL004495445B01',
  'PL8567346215',
  'PT501964843',
  'RO18547290',
  'SE123456789701',
  'SI15012557',
  'SK2021853504',
  'GB980780684',
  'XI980780684',
  'CHE100155212MWST',
  'CHE100155212',
  'NO995525828MVA',
  'NO995525828',
];

/** The same ids with one digit changed (each fails its check digits). */
const MANGLED = [
  'ATU13585628',
  'BE0776091952',
  'BG175074753',
  'CY10259033Q',
  'CZ25123890',
  'DE136695977',
  'DK13585629',
  'EE100931559',
  'EL094259217',
  'ESA78304517',
  'FI20774741',
  'FR40303265046',
  'HR33392005962',
  'HU12892313',
  'IE6433435A',
  'IT00743110158',
  'LT119511516',
  'LU15027443',
  'LV40003521601',
  'MT11679113',
  'NL000099998B58',
  'PL8567346216',
  'PT501964844',
  'RO18547291',
  'SE123456789801',
  'SI15012558',
  'SK2021853505',
  'GB980780685',
  'XI980780685',
  'CHE100155213MWST',
  'NO995525829MVA',
];

const refused = (fn: () => unknown): DomainError => {
  const error = refusal(fn);
  expect(error.code, error.message).to.equal('invalid');
  return error;
};

/** A refusal's words for people in English: by key where the check gives them (issue 58), else as written. */
const saidOf = (error: DomainError): string | undefined =>
  error.words === undefined ? error.people : translator('en')(error.words.key, error.words.vars);

describe('VAT identifiers by their check digits (issue 56 item 9)', () => {
  it("refuses the issue's five ids, each saying its check digits fail, in words for people too", () => {
    for (const id of WRONG) {
      const error = refused(() => checkVatId(id));
      expect(error.field).to.equal('vatId');
      expect(error.message, id).to.match(new RegExp(`^vatId "${id}" fails the check digits of a VAT identifier of ${id.slice(0, 2)}:`));
      expect(saidOf(error), id).to.match(/^This is not a valid VAT ID of (the )?[A-Z][a-z]+: its check digits do not match/);
    }
    expect(saidOf(refused(() => checkVatId('DE123456789')))).to.equal(
      'This is not a valid VAT ID of Germany: its check digits do not match, so a digit is mistyped or two are swapped. Copy it from an invoice or letter of theirs, or check it in the EU’s VIES.',
    );
  });

  it('takes a valid id of every country with a pattern, stored compact, and refuses each with one digit changed', () => {
    for (const id of VALID) expect(checkVatId(id), id).to.equal(id);
    expect(checkVatId('de 136 695 976')).to.equal('DE136695976');
    expect(checkVatId('CHE-100.155.212 MWST')).to.equal('CHE100155212MWST');
    for (const id of MANGLED) expect(refused(() => checkVatId(id)).message, id).to.match(/fails the check digits/);
    // The pattern still comes first: a missing digit is said as such.
    expect(refused(() => checkVatId('DE13669597')).message).to.equal(
      'vatId "DE13669597" is not a VAT identifier of DE: one looks like DE136695976. Check for a missing or extra digit.',
    );
  });

  it('an electronic address of a VAT scheme (9930, 9914, 9957, 9944, 9925) is that VAT id, check digits included', () => {
    const schemes: Record<string, string> = { DE: '9930', AT: '9914', FR: '9957', NL: '9944', BE: '9925' };
    for (const id of WRONG) {
      const error = refused(() => checkParticipantId(id, schemes[id.slice(0, 2)] as string));
      expect(error.field).to.equal('electronicAddress');
      expect(error.message, id).to.match(/fails the check digits of a VAT identifier of/);
    }
    for (const id of ['DE136695976', '136695976', 'ATU13585627', 'FR40303265045', 'NL000099998B57', 'BE0776091951'])
      expect(checkParticipantId(id, schemes[id.slice(0, 2)] ?? '9930'), id).to.equal(id);
  });

  it('every entry point refuses them: the business profile, a client, an e-invoice fill, a Peppol address', () => {
    const world = memoryServices();
    const { services, owner, workspaceId, ownerId } = world;
    try {
      const profile = refused(() => services.invoices.setBusinessProfile(OPERATOR, workspaceId, { vatId: 'DE123456789' }));
      expect(profile.field).to.equal('vatId');
      refused(() => services.invoices.setBusinessProfile(OPERATOR, workspaceId, issuerPatchOfText([['vatId', 'ATU12345678']])));
      refused(() =>
        services.invoices.setBusinessProfile(OPERATOR, workspaceId, { electronicAddress: 'DE123456789', electronicAddressScheme: '9930' }),
      );
      expect(services.accounts.getWorkspace(OPERATOR, workspaceId).businessProfile ?? null).to.equal(null);

      expect(refused(() => services.catalog.clients.create(owner, { name: 'Acme', vatId: 'FR00303265045' })).field).to.equal('vatId');
      refused(() =>
        services.catalog.clients.create(owner, { name: 'Acme', electronicAddress: 'NL123456789B01', electronicAddressScheme: '9944' }),
      );
      const clientId = services.catalog.clients.create(owner, { name: 'Acme' }).id;
      refused(() => services.catalog.clients.update(owner, clientId, { vatId: 'BE0412345615' }));

      // A reverse-charge invoice with two wrong ids can no longer be made: neither id is taken, not even by a fill.
      services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
      services.invoices.setBusinessProfile(OPERATOR, workspaceId, { legalName: 'Studio', country: 'DE', vatId: 'DE136695976' });
      services.catalog.clients.update(owner, clientId, { taxCategory: 'AE', country: 'AT' });
      const projectId = services.catalog.projects.create(owner, { name: 'Work', clientId, billable: true, hourlyRate: 100 }).id;
      services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z', billable: true });
      const { id } = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' });
      const fill = refused(() => services.invoices.fill(OPERATOR, id, ownerId, [['recipient.vatId', 'ATU12345678']]));
      expect(fill.field).to.equal('recipient.vatId');
      refused(() =>
        services.invoices.fill(OPERATOR, id, ownerId, [
          ['recipient.electronicAddressScheme', '9914'],
          ['recipient.electronicAddress', 'ATU12345678'],
        ]),
      );
      expect(services.invoices.get(OPERATOR, id).recipient).to.deep.include({ vatId: null, electronicAddress: null });
      services.invoices.fill(OPERATOR, id, ownerId, [['recipient.vatId', 'ATU13585627']]);
      expect(services.invoices.get(OPERATOR, id).recipient?.vatId).to.equal('ATU13585627');
    } finally {
      world.close();
    }
  });
});
