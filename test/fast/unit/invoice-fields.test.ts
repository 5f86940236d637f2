import { expect } from 'chai';
import { applyFill, type Doc, ISSUER_FIELDS, parseValue, partyOf, RECIPIENT_FIELDS } from '../../../src/modules/invoices/fields.js';
import { refusal } from '../../helpers/refusal.js';

const NOT_FILLABLE =
  'cannot be filled: a fill only adds e-invoice values (issuer.<field>, recipient.<field>, lines[N].taxCategory, lines[N].taxRate, paymentTerms, taxBreakdown=lines, taxBreakdown[N].exemptionReason, taxBreakdown[N].exemptionReasonCode); amounts, quantities, rates, descriptions, totals and the status never change.';

const nullParty = (fields: Record<string, unknown>) => Object.fromEntries(Object.keys(fields).map((key) => [key, null]));

const newDoc = (): Doc => ({
  issuer: null,
  recipient: { ...nullParty(RECIPIENT_FIELDS), name: 'Acme GmbH' },
  lines: [
    { description: 'Design', quantitySec: 3600, hourlyRate: 100, amount: 100, taxCategory: null },
    { description: 'Build', quantitySec: 7200, hourlyRate: 100, amount: 200, taxRate: 19 },
  ],
  extras: {},
});

describe('invoices/fields', () => {
  describe('parseValue', () => {
    it('reads a blank value as null for every kind', () => {
      for (const kind of ['text', 'lines', 'country', 'email', 'days', 'boolean', 'percent'] as const) {
        expect(parseValue(kind, '', 'f'), kind).to.equal(null);
        expect(parseValue(kind, '   ', 'f'), kind).to.equal(null);
      }
    });

    it('text is trimmed and at most 500 characters', () => {
      expect(parseValue('text', '  Acme  ', 'f')).to.equal('Acme');
      expect(parseValue('text', 'x'.repeat(500), 'f')).to.equal('x'.repeat(500));
      const error = refusal(() => parseValue('text', 'x'.repeat(501), 'issuer.legalName'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.match(/^issuer\.legalName must be at most 500 characters \(got "x+"\)\.$/);
    });

    it('a country is 2 capital letters', () => {
      expect(parseValue('country', 'DE', 'f')).to.equal('DE');
      expect(parseValue('country', ' AT ', 'f')).to.equal('AT');
      for (const raw of ['de', 'De', 'DEU', 'D', 'D1', 'Ä1']) {
        const error = refusal(() => parseValue('country', raw, 'recipient.country'));
        expect(error.code, raw).to.equal('invalid');
        expect(error.message, raw).to.equal(
          `recipient.country must be an ISO 3166-1 alpha-2 code such as DE (got ${JSON.stringify(raw)}).`,
        );
      }
    });

    it('days are whole numbers from 0 to 365', () => {
      expect(parseValue('days', '0', 'f')).to.equal(0);
      expect(parseValue('days', '30', 'f')).to.equal(30);
      expect(parseValue('days', '365', 'f')).to.equal(365);
      expect(parseValue('days', '007', 'f')).to.equal(7);
      for (const raw of ['366', '-1', '1.5', '1000', 'ten', '1e2']) {
        expect(refusal(() => parseValue('days', raw, 'issuer.paymentTermsDays')).message, raw).to.equal(
          `issuer.paymentTermsDays must be a whole number of days from 0 to 365 (got ${JSON.stringify(raw)}).`,
        );
      }
    });

    it('a percent is from 0 to 100, decimals allowed', () => {
      expect(parseValue('percent', '0', 'f')).to.equal(0);
      expect(parseValue('percent', '19', 'f')).to.equal(19);
      expect(parseValue('percent', '7.5', 'f')).to.equal(7.5);
      expect(parseValue('percent', '100', 'f')).to.equal(100);
      expect(parseValue('percent', '100.0', 'f')).to.equal(100);
      for (const raw of ['100.01', '101', '-1', '.5', '1e2', '19%', '1,5']) {
        expect(refusal(() => parseValue('percent', raw, 'lines[0].taxRate')).message, raw).to.equal(
          `lines[0].taxRate must be a percentage from 0 to 100 (got ${JSON.stringify(raw)}).`,
        );
      }
    });

    it("lines are split on '|', trimmed, blank ones dropped", () => {
      expect(parseValue('lines', 'Main St 1 | Floor 2', 'f')).to.deep.equal(['Main St 1', 'Floor 2']);
      expect(parseValue('lines', 'a||b| |c', 'f')).to.deep.equal(['a', 'b', 'c']);
      expect(parseValue('lines', 'single', 'f')).to.deep.equal(['single']);
    });

    it('lines of nothing but separators are null', () => {
      expect(parseValue('lines', ' | | ', 'f')).to.equal(null);
    });

    it('at most 6 lines, each at most 200 characters', () => {
      expect(parseValue('lines', '1|2|3|4|5|6', 'f')).to.deep.equal(['1', '2', '3', '4', '5', '6']);
      const message = 'issuer.addressLines must be at most 6 lines separated by |, each at most 200 characters';
      expect(refusal(() => parseValue('lines', '1|2|3|4|5|6|7', 'issuer.addressLines')).message).to.equal(
        `${message} (got "1|2|3|4|5|6|7").`,
      );
      expect(parseValue('lines', 'x'.repeat(200), 'f')).to.deep.equal(['x'.repeat(200)]);
      expect(refusal(() => parseValue('lines', `a|${'x'.repeat(201)}`, 'issuer.addressLines')).message.startsWith(message)).to.equal(true);
    });

    it('an email has one @ and no spaces, at most 254 characters', () => {
      expect(parseValue('email', ' billing@acme.test ', 'f')).to.equal('billing@acme.test');
      for (const raw of ['acme.test', 'a b@acme.test', '@acme.test', 'a@', `${'a'.repeat(250)}@b.de`]) {
        expect(refusal(() => parseValue('email', raw, 'issuer.email')).code, raw).to.equal('invalid');
      }
    });

    it('a boolean is exactly true or false', () => {
      expect(parseValue('boolean', 'true', 'f')).to.equal(true);
      expect(parseValue('boolean', 'false', 'f')).to.equal(false);
      for (const raw of ['TRUE', 'yes', '1']) {
        expect(refusal(() => parseValue('boolean', raw, 'issuer.smallBusiness')).message, raw).to.equal(
          `issuer.smallBusiness must be true or false (got ${JSON.stringify(raw)}).`,
        );
      }
    });
  });

  describe('partyOf', () => {
    it('has every field of the list, in its order, and only those', () => {
      const party = partyOf<Record<string, unknown>>(RECIPIENT_FIELDS, { name: 'Acme', city: 'Berlin', extra: 'dropped' });
      expect(Object.keys(party)).to.deep.equal(Object.keys(RECIPIENT_FIELDS));
      expect(party).to.deep.equal({ ...nullParty(RECIPIENT_FIELDS), name: 'Acme', city: 'Berlin' });
    });

    it('reads blank strings, empty arrays, null and missing values as null', () => {
      const party = partyOf<Record<string, unknown>>(ISSUER_FIELDS, {
        legalName: '   ',
        addressLines: [],
        country: null,
        email: undefined,
        city: '',
      });
      expect(party).to.deep.equal(nullParty(ISSUER_FIELDS));
    });

    it('keeps set values as they are (false, 0 and non-empty arrays included)', () => {
      const party = partyOf<Record<string, unknown>>(ISSUER_FIELDS, {
        smallBusiness: false,
        paymentTermsDays: 0,
        addressLines: ['Main St 1'],
        legalName: ' Acme ',
      });
      expect(party.smallBusiness).to.equal(false);
      expect(party.paymentTermsDays).to.equal(0);
      expect(party.addressLines).to.deep.equal(['Main St 1']);
      expect(party.legalName).to.equal(' Acme ');
    });
  });

  describe('applyFill', () => {
    it('adds values to null and absent fields and returns them by path', () => {
      const doc = newDoc();
      const set = applyFill(doc, [
        ['issuer.country', 'DE'],
        ['recipient.city', 'Berlin'],
        ['lines[0].taxCategory', 'S'],
        ['lines[0].taxRate', '19'],
        ['paymentTerms', 'Net 30'],
        ['issuer.paymentTermsDays', '30'],
        ['recipient.addressLines', 'Main St 1|Floor 2'],
      ]);
      expect(set).to.deep.equal({
        'issuer.country': 'DE',
        'recipient.city': 'Berlin',
        'lines[0].taxCategory': 'S',
        'lines[0].taxRate': 19,
        paymentTerms: 'Net 30',
        'issuer.paymentTermsDays': 30,
        'recipient.addressLines': ['Main St 1', 'Floor 2'],
      });
      expect(doc.issuer).to.deep.equal({ ...nullParty(ISSUER_FIELDS), country: 'DE', paymentTermsDays: 30 });
      expect(doc.recipient).to.deep.equal({
        ...nullParty(RECIPIENT_FIELDS),
        name: 'Acme GmbH',
        city: 'Berlin',
        addressLines: ['Main St 1', 'Floor 2'],
      });
      expect(doc.lines[0]).to.deep.equal({
        description: 'Design',
        quantitySec: 3600,
        hourlyRate: 100,
        amount: 100,
        taxCategory: 'S',
        taxRate: 19,
      });
      expect(doc.lines[1]).to.deep.equal({ description: 'Build', quantitySec: 7200, hourlyRate: 100, amount: 200, taxRate: 19 });
      expect(doc.extras).to.deep.equal({ paymentTerms: 'Net 30' });
    });

    it('creates a missing party with every field null but the one filled', () => {
      const doc = newDoc();
      applyFill(doc, [['issuer.legalName', 'Me Ltd']]);
      expect(doc.issuer).to.deep.equal({ ...nullParty(ISSUER_FIELDS), legalName: 'Me Ltd' });
    });

    it('refuses a value that is already set with code conflict', () => {
      const error = refusal(() => applyFill(newDoc(), [['recipient.name', 'Other']]));
      expect(error.code).to.equal('conflict');
      expect(error.message).to.equal('recipient.name is already set ("Acme GmbH"); a fill only adds values that are null or absent.');
      const rate = refusal(() => applyFill(newDoc(), [['lines[1].taxRate', '7']]));
      expect(rate.code).to.equal('conflict');
      expect(rate.message).to.equal('lines[1].taxRate is already set (19); a fill only adds values that are null or absent.');
    });

    it('refuses to fill the same path twice in one fill', () => {
      expect(
        refusal(() =>
          applyFill(newDoc(), [
            ['paymentTerms', 'Net 30'],
            ['paymentTerms', 'Net 10'],
          ]),
        ).code,
      ).to.equal('conflict');
    });

    it('refuses a blank value', () => {
      const doc = newDoc();
      const error = refusal(() => applyFill(doc, [['recipient.email', '   ']]));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('recipient.email: a fill adds a value; a blank one adds nothing.');
      expect(doc.recipient!.email).to.equal(null);
    });

    it('refuses a value its field cannot take', () => {
      const doc = newDoc();
      const error = refusal(() => applyFill(doc, [['recipient.country', 'de']]));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('recipient.country must be an ISO 3166-1 alpha-2 code such as DE (got "de").');
      expect(doc.recipient!.country).to.equal(null);
    });

    it('refuses paths that are not fillable: amounts, totals, unknown party fields', () => {
      for (const path of ['lines[0].amount', 'lines[0].description', 'total', 'status', 'issuer.foo', 'issuer.constructor', 'issuer', '']) {
        const doc = newDoc();
        const error = refusal(() => applyFill(doc, [[path, '1']]));
        expect(error.code, path).to.equal('invalid');
        expect(error.message, path).to.equal(`${path} ${NOT_FILLABLE}`);
        expect(doc, path).to.deep.equal(newDoc());
      }
    });

    it('refuses lines[N] beyond the last line, naming the range', () => {
      const error = refusal(() => applyFill(newDoc(), [['lines[2].taxRate', '19']]));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('lines[2].taxRate: the invoice has 2 lines, lines[0] to lines[1].');
    });

    it('refuses a fill without assignments', () => {
      const error = refusal(() => applyFill(newDoc(), []));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('A fill needs at least one path=value.');
    });
  });
});
