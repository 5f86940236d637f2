import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { loadContract } from '../../../src/contract.js';
import { settingsPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * An early-payment discount (Skonto, issue 57 item 4, decisions §12) over the real services on
 * :memory:: the workspace's terms "P % within N days" as typed and kept, said after the due
 * sentence of each invoice issued while they are set (kept by it whatever the settings say later),
 * and written in XRechnung's BT-20 form `#SKONTO#TAGE=N#PROZENT=P.PP#` on a line of its own; the
 * other formats and a credit note say it in words or not at all. The webhooks' invoice keeps the
 * contract's shape. (test/einvoice checks the documents against KoSIT's rules.)
 */

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(loadContract() as object, 'contract');

function setup() {
  const world = memoryServices();
  const { clientId } = freelancer(world as never);
  const { services, workspaceId, ownerId } = world;
  const settings = (text: string) => services.invoices.setSettings(OPERATOR, workspaceId, settingsPatchOfText([['earlyPayment', text]]));
  const issue = () => {
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2026-10-30' });
    return id;
  };
  const xml = async (id: string, format: string, creditNote = false) =>
    (await services.invoices.document(OPERATOR, id, format, { creditNote })).bytes.toString('utf8');
  return { ...world, clientId, settings, issue, xml };
}

describe('invoices service: an early-payment discount (Skonto)', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());
  const stored = () => w.services.invoices.settings(OPERATOR, w.workspaceId).earlyPayment;

  it('takes "P % within N days" as people type it and keeps it one way; blank clears it', () => {
    expect(stored()).to.equal(null);
    for (const [typed, kept] of [
      ['2 % within 10 days', '2 % within 10 days'],
      ['2/10', '2 % within 10 days'],
      ['2% 10 days', '2 % within 10 days'],
      ['2,5 % innerhalb von 10 Tagen', '2.5 % within 10 days'],
      [' 1.75 %  in 1 day ', '1.75 % within 1 day'],
      ['3 % within 365 days', '3 % within 365 days'],
    ]) {
      w.settings(typed as string);
      expect(stored(), typed).to.equal(kept);
    }
    w.settings('');
    expect(stored()).to.equal(null);
  });

  it('refuses terms it cannot read or that are no discount, at the setting, saying what to give; the stored terms stay', () => {
    w.settings('2 % within 10 days');
    for (const [typed, why] of [
      ['two percent', 'is not early-payment terms'],
      ['2.555 % within 10 days', 'is not early-payment terms'],
      ['2 %', 'is not early-payment terms'],
      ['0 % within 10 days', 'is no discount above 0 % and below 100 %'],
      ['99.999 % within 10 days', 'is not early-payment terms'],
      ['2 % within 0 days', 'is no number of days from 1 to 365'],
      ['2 % within 400 days', 'is no number of days from 1 to 365'],
    ]) {
      const error = refusal(() => w.settings(typed as string));
      expect(error.code, typed).to.equal('invalid');
      expect(error.field, typed).to.equal('earlyPayment');
      expect(error.message, typed).to.equal(
        `earlyPayment ${JSON.stringify(typed)} ${why}: give the percentage and the days, such as "2 % within 10 days" (or 2/10).`,
      );
    }
    expect(stored()).to.equal('2 % within 10 days');
  });

  it('an invoice issued with terms says them after its due sentence and keeps them; its invoice keeps the contract’s shape', async () => {
    w.settings('2 % within 10 days');
    const id = w.issue();
    const invoice = w.services.invoices.get(OPERATOR, id);
    expect(invoice.paymentTerms).to.equal(
      'Payable within 14 days, by 13 November 2026. 2 % early-payment discount if paid within 10 days, by 9 November 2026.',
    );
    expect(invoice).not.to.have.property('earlyPayment');
    const validate = ajv.getSchema('contract#/components/schemas/Invoice')!;
    expect(validate(invoice), JSON.stringify(validate.errors)).to.equal(true);
    // A later change of the settings does not change what it was issued with.
    w.settings('3 % within 7 days');
    const ubl = await w.xml(id, 'xrechnung-ubl');
    expect(ubl).to.include(
      '<cbc:Note>Payable within 14 days, by 13 November 2026. 2 % early-payment discount if paid within 10 days, by 9 November 2026.\n#SKONTO#TAGE=10#PROZENT=2.00#\n</cbc:Note>',
    );
    expect(await w.xml(id, 'xrechnung-cii')).to.include('\n#SKONTO#TAGE=10#PROZENT=2.00#\n</ram:Description>');
    // Peppol and the PDF's Factur-X say it in words only: the #SKONTO# line is XRechnung's convention.
    const peppol = await w.xml(id, 'peppol');
    expect(peppol).to.include('2 % early-payment discount if paid within 10 days, by 9 November 2026.</cbc:Note>');
    expect(peppol).not.to.include('#SKONTO#');
    // Its credit note offers no discount.
    w.services.invoices.void(OPERATOR, id, { userId: w.ownerId });
    expect(await w.xml(id, 'xrechnung-ubl', true)).not.to.include('SKONTO');
  });

  it('in German: "Skonto" with a decimal comma in words, a point in the #SKONTO# line', async () => {
    w.services.invoices.setSettings(OPERATOR, w.workspaceId, { language: 'de' });
    w.settings('2,5 % innerhalb von 14 Tagen');
    const id = w.issue();
    expect(w.services.invoices.get(OPERATOR, id).paymentTerms).to.equal(
      'Zahlbar innerhalb von 14 Tagen bis zum 13.11.2026. Bei Zahlung innerhalb von 14 Tagen bis zum 13.11.2026 2,5 % Skonto.',
    );
    expect(await w.xml(id, 'xrechnung-cii')).to.include('2,5 % Skonto.\n#SKONTO#TAGE=14#PROZENT=2.50#\n</ram:Description>');
  });

  it('without terms nothing changes: the due sentence alone, no #SKONTO# line', async () => {
    const id = w.issue();
    expect(w.services.invoices.get(OPERATOR, id).paymentTerms).to.equal('Payable within 14 days, by 13 November 2026.');
    expect(await w.xml(id, 'xrechnung-ubl')).to.include('<cbc:Note>Payable within 14 days, by 13 November 2026.</cbc:Note>');
  });
});
