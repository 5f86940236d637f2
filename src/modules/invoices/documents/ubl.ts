import type { Address, Buyer, EInvoice, ElectronicAddress, Line, Seller, TaxRow } from './model.js';
import { paymentTermsFor, SPECIFICATION } from './model.js';
import { leaf, node, nodeWith, xmlDocument, type Content } from './xml.js';

/**
 * UBL 2.1 (Invoice, or CreditNote for a credit note) as EN 16931 binds it: XRechnung 3.0's
 * (CustomizationID …xrechnung_3.0) and Peppol BIS Billing 3.0's (…poacc:billing:3.0). Elements
 * follow the UBL 2.1 schema's sequences.
 */

const NS = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

const vat = () => node('cac:TaxScheme', leaf('cbc:ID', 'VAT'));

const endpoint = (address: ElectronicAddress | null): Content =>
  address && leaf('cbc:EndpointID', address.value, { schemeID: address.scheme });

const postalAddress = (address: Address): string =>
  node(
    'cac:PostalAddress',
    leaf('cbc:StreetName', address.lines[0]),
    leaf('cbc:AdditionalStreetName', address.lines[1]),
    leaf('cbc:CityName', address.city),
    leaf('cbc:PostalZone', address.postalCode),
    // BT-162: the third line; further lines join it (EN 16931 has three).
    address.lines.length > 2 && node('cac:AddressLine', leaf('cbc:Line', address.lines.slice(2).join(', '))),
    node('cac:Country', leaf('cbc:IdentificationCode', address.country)),
  );

function supplier(seller: Seller): string {
  return node(
    'cac:AccountingSupplierParty',
    node(
      'cac:Party',
      endpoint(seller.electronicAddress),
      seller.identifier && node('cac:PartyIdentification', leaf('cbc:ID', seller.identifier.value, { schemeID: seller.identifier.scheme })),
      postalAddress(seller.address),
      seller.vatId && node('cac:PartyTaxScheme', leaf('cbc:CompanyID', seller.vatId), vat()),
      // BT-32, the tax number: a tax scheme other than VAT ("FC", as XRechnung's examples have it).
      seller.taxNumber && node('cac:PartyTaxScheme', leaf('cbc:CompanyID', seller.taxNumber), node('cac:TaxScheme', leaf('cbc:ID', 'FC'))),
      node('cac:PartyLegalEntity', leaf('cbc:RegistrationName', seller.name), leaf('cbc:CompanyID', seller.legalRegistration)),
      seller.contact &&
        node(
          'cac:Contact',
          leaf('cbc:Name', seller.contact.name),
          leaf('cbc:Telephone', seller.contact.phone),
          leaf('cbc:ElectronicMail', seller.contact.email),
        ),
    ),
  );
}

function customer(buyer: Buyer): string {
  return node(
    'cac:AccountingCustomerParty',
    node(
      'cac:Party',
      endpoint(buyer.electronicAddress),
      buyer.tradingName && node('cac:PartyName', leaf('cbc:Name', buyer.tradingName)),
      postalAddress(buyer.address),
      buyer.vatId && node('cac:PartyTaxScheme', leaf('cbc:CompanyID', buyer.vatId), vat()),
      node('cac:PartyLegalEntity', leaf('cbc:RegistrationName', buyer.name)),
    ),
  );
}

const money = (name: string, amount: string, currency: string) => leaf(name, amount, { currencyID: currency });

const taxCategory = (name: string, category: string, rate: string | null, reason?: { reason: string | null; code: string | null }) =>
  node(
    name,
    leaf('cbc:ID', category),
    leaf('cbc:Percent', rate),
    reason && leaf('cbc:TaxExemptionReasonCode', reason.code),
    reason && leaf('cbc:TaxExemptionReason', reason.reason),
    vat(),
  );

const taxSubtotal = (row: TaxRow, currency: string) =>
  node(
    'cac:TaxSubtotal',
    money('cbc:TaxableAmount', row.basis, currency),
    money('cbc:TaxAmount', row.tax, currency),
    taxCategory('cac:TaxCategory', row.category, row.rate, { reason: row.reason, code: row.reasonCode }),
  );

function line(item: Line, e: EInvoice): string {
  const credit = e.creditNote;
  return node(
    credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine',
    leaf('cbc:ID', item.id),
    leaf(credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', item.quantity, { unitCode: item.unit }),
    money('cbc:LineExtensionAmount', item.net, e.currency),
    node('cac:Item', leaf('cbc:Name', item.name), taxCategory('cac:ClassifiedTaxCategory', item.category, item.rate)),
    node('cac:Price', money('cbc:PriceAmount', item.price, e.currency)),
  );
}

/** The UBL document of an e-invoice: `xrechnung` or `peppol` names the CustomizationID. */
export function ublOf(e: EInvoice, flavour: 'xrechnung' | 'peppol'): string {
  const root = e.creditNote ? 'CreditNote' : 'Invoice';
  const c = e.currency;
  const payment =
    e.payment &&
    node(
      'cac:PaymentMeans',
      leaf('cbc:PaymentMeansCode', e.payment.code),
      // A credit note has no cbc:DueDate of its own; there BT-9 goes here.
      e.creditNote && leaf('cbc:PaymentDueDate', e.dueDate),
      leaf('cbc:PaymentID', e.payment.reference),
      node(
        'cac:PayeeFinancialAccount',
        leaf('cbc:ID', e.payment.iban),
        leaf('cbc:Name', e.payment.accountName),
        node('cac:FinancialInstitutionBranch', leaf('cbc:ID', e.payment.bic)),
      ),
    );
  const delivery =
    e.deliverTo &&
    node(
      'cac:Delivery',
      node(
        'cac:DeliveryLocation',
        node(
          'cac:Address',
          leaf('cbc:StreetName', e.deliverTo.address.lines[0]),
          leaf('cbc:AdditionalStreetName', e.deliverTo.address.lines[1]),
          leaf('cbc:CityName', e.deliverTo.address.city),
          leaf('cbc:PostalZone', e.deliverTo.address.postalCode),
          e.deliverTo.address.lines.length > 2 && node('cac:AddressLine', leaf('cbc:Line', e.deliverTo.address.lines.slice(2).join(', '))),
          node('cac:Country', leaf('cbc:IdentificationCode', e.deliverTo.address.country)),
        ),
      ),
      node('cac:DeliveryParty', node('cac:PartyName', leaf('cbc:Name', e.deliverTo.name))),
    );
  const body = nodeWith(
    root,
    { xmlns: NS[root], 'xmlns:cac': NS.cac, 'xmlns:cbc': NS.cbc },
    leaf('cbc:CustomizationID', flavour === 'xrechnung' ? SPECIFICATION.xrechnung : SPECIFICATION.peppol),
    leaf('cbc:ProfileID', SPECIFICATION.peppolProcess),
    leaf('cbc:ID', e.number),
    leaf('cbc:IssueDate', e.issueDate),
    !e.creditNote && leaf('cbc:DueDate', e.dueDate),
    leaf(e.creditNote ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode', e.typeCode),
    leaf('cbc:Note', e.note),
    leaf('cbc:DocumentCurrencyCode', c),
    leaf('cbc:TaxCurrencyCode', e.vatCurrency?.code),
    leaf('cbc:BuyerReference', e.buyerReference),
    node('cac:InvoicePeriod', leaf('cbc:StartDate', e.period.from), leaf('cbc:EndDate', e.period.to)),
    e.preceding &&
      node(
        'cac:BillingReference',
        node('cac:InvoiceDocumentReference', leaf('cbc:ID', e.preceding.number), leaf('cbc:IssueDate', e.preceding.issueDate)),
      ),
    supplier(e.seller),
    customer(e.buyer),
    delivery,
    payment,
    node('cac:PaymentTerms', leaf('cbc:Note', paymentTermsFor(e, flavour === 'xrechnung' ? 'xrechnung' : 'other'))),
    node('cac:TaxTotal', money('cbc:TaxAmount', e.totals.tax, c), ...e.taxes.map((row) => taxSubtotal(row, c))),
    // BT-111: the VAT total in the VAT accounting currency, a tax total of its own without subtotals.
    e.vatCurrency && node('cac:TaxTotal', money('cbc:TaxAmount', e.vatCurrency.taxTotal, e.vatCurrency.code)),
    node(
      'cac:LegalMonetaryTotal',
      money('cbc:LineExtensionAmount', e.totals.lines, c),
      money('cbc:TaxExclusiveAmount', e.totals.taxBasis, c),
      money('cbc:TaxInclusiveAmount', e.totals.grand, c),
      e.totals.prepaid !== '0.00' && money('cbc:PrepaidAmount', e.totals.prepaid, c),
      money('cbc:PayableAmount', e.totals.payable, c),
    ),
    ...e.lines.map((item) => line(item, e)),
  );
  return xmlDocument(body);
}
