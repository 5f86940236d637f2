import type { Address, EInvoice, ElectronicAddress, Line, TaxRow } from './model.js';
import { paymentTermsFor, SPECIFICATION } from './model.js';
import { leaf, node, nodeWith, xmlDocument, type Content } from './xml.js';

/**
 * UN/CEFACT CII D16B (CrossIndustryInvoice) as EN 16931 binds it: XRechnung 3.0's, and
 * Factur-X/ZUGFeRD's EN 16931 profile (guideline `urn:cen.eu:en16931:2017`, the XML inside the
 * PDF). A credit note is type code 381 with positive amounts and the invoice it cancels in
 * InvoiceReferencedDocument. Elements follow the D16B schema's sequences.
 */

const NS = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

/** A calendar day as CII writes it: format 102, YYYYMMDD. */
const day = (name: string, value: string | null, type: 'udt' | 'qdt' = 'udt') =>
  value ? node(name, leaf(`${type}:DateTimeString`, value.replaceAll('-', ''), { format: '102' })) : '';

const address = (a: Address): string =>
  node(
    'ram:PostalTradeAddress',
    leaf('ram:PostcodeCode', a.postalCode),
    leaf('ram:LineOne', a.lines[0]),
    leaf('ram:LineTwo', a.lines[1]),
    leaf('ram:LineThree', a.lines.slice(2).join(', ')),
    leaf('ram:CityName', a.city),
    leaf('ram:CountryID', a.country),
  );

const uri = (e: ElectronicAddress | null): Content =>
  e && node('ram:URIUniversalCommunication', leaf('ram:URIID', e.value, { schemeID: e.scheme }));

const taxRegistration = (id: string | null, scheme: 'VA' | 'FC'): Content =>
  id && node('ram:SpecifiedTaxRegistration', leaf('ram:ID', id, { schemeID: scheme }));

function parties(e: EInvoice): string {
  const { seller, buyer } = e;
  return node(
    'ram:ApplicableHeaderTradeAgreement',
    leaf('ram:BuyerReference', e.buyerReference),
    node(
      'ram:SellerTradeParty',
      // BT-29: with a scheme as GlobalID, without one as ID.
      seller.identifier && !seller.identifier.scheme && leaf('ram:ID', seller.identifier.value),
      seller.identifier?.scheme && leaf('ram:GlobalID', seller.identifier.value, { schemeID: seller.identifier.scheme }),
      leaf('ram:Name', seller.name),
      node('ram:SpecifiedLegalOrganization', leaf('ram:ID', seller.legalRegistration)),
      seller.contact &&
        node(
          'ram:DefinedTradeContact',
          leaf('ram:PersonName', seller.contact.name),
          node('ram:TelephoneUniversalCommunication', leaf('ram:CompleteNumber', seller.contact.phone)),
          node('ram:EmailURIUniversalCommunication', leaf('ram:URIID', seller.contact.email)),
        ),
      address(seller.address),
      uri(seller.electronicAddress),
      taxRegistration(seller.vatId, 'VA'),
      taxRegistration(seller.taxNumber, 'FC'),
    ),
    node(
      'ram:BuyerTradeParty',
      leaf('ram:Name', buyer.name),
      buyer.tradingName && node('ram:SpecifiedLegalOrganization', leaf('ram:TradingBusinessName', buyer.tradingName)),
      address(buyer.address),
      uri(buyer.electronicAddress),
      taxRegistration(buyer.vatId, 'VA'),
    ),
  );
}

const amount = (name: string, value: string, currency?: string) => leaf(name, value, currency ? { currencyID: currency } : undefined);

const tradeTax = (row: TaxRow) =>
  node(
    'ram:ApplicableTradeTax',
    amount('ram:CalculatedAmount', row.tax),
    leaf('ram:TypeCode', 'VAT'),
    leaf('ram:ExemptionReason', row.reason),
    amount('ram:BasisAmount', row.basis),
    leaf('ram:CategoryCode', row.category),
    leaf('ram:ExemptionReasonCode', row.reasonCode),
    leaf('ram:RateApplicablePercent', row.rate),
  );

const lineItem = (item: Line) =>
  node(
    'ram:IncludedSupplyChainTradeLineItem',
    node('ram:AssociatedDocumentLineDocument', leaf('ram:LineID', item.id)),
    node('ram:SpecifiedTradeProduct', leaf('ram:Name', item.name)),
    node('ram:SpecifiedLineTradeAgreement', node('ram:NetPriceProductTradePrice', amount('ram:ChargeAmount', item.price))),
    node('ram:SpecifiedLineTradeDelivery', leaf('ram:BilledQuantity', item.quantity, { unitCode: item.unit })),
    node(
      'ram:SpecifiedLineTradeSettlement',
      node(
        'ram:ApplicableTradeTax',
        leaf('ram:TypeCode', 'VAT'),
        leaf('ram:CategoryCode', item.category),
        leaf('ram:RateApplicablePercent', item.rate),
      ),
      node('ram:SpecifiedTradeSettlementLineMonetarySummation', amount('ram:LineTotalAmount', item.net)),
    ),
  );

function settlement(e: EInvoice, flavour: 'xrechnung' | 'factur-x'): string {
  const c = e.currency;
  return node(
    'ram:ApplicableHeaderTradeSettlement',
    leaf('ram:PaymentReference', e.payment?.reference),
    leaf('ram:TaxCurrencyCode', e.vatCurrency?.code),
    leaf('ram:InvoiceCurrencyCode', c),
    e.payment &&
      node(
        'ram:SpecifiedTradeSettlementPaymentMeans',
        leaf('ram:TypeCode', e.payment.code),
        node('ram:PayeePartyCreditorFinancialAccount', leaf('ram:IBANID', e.payment.iban), leaf('ram:AccountName', e.payment.accountName)),
        node('ram:PayeeSpecifiedCreditorFinancialInstitution', leaf('ram:BICID', e.payment.bic)),
      ),
    ...e.taxes.map(tradeTax),
    node('ram:BillingSpecifiedPeriod', day('ram:StartDateTime', e.period.from), day('ram:EndDateTime', e.period.to)),
    node(
      'ram:SpecifiedTradePaymentTerms',
      leaf('ram:Description', paymentTermsFor(e, flavour === 'xrechnung' ? 'xrechnung' : 'other')),
      day('ram:DueDateDateTime', e.dueDate),
    ),
    node(
      'ram:SpecifiedTradeSettlementHeaderMonetarySummation',
      amount('ram:LineTotalAmount', e.totals.lines),
      amount('ram:TaxBasisTotalAmount', e.totals.taxBasis),
      amount('ram:TaxTotalAmount', e.totals.tax, c),
      e.vatCurrency && amount('ram:TaxTotalAmount', e.vatCurrency.taxTotal, e.vatCurrency.code),
      amount('ram:GrandTotalAmount', e.totals.grand),
      e.totals.prepaid !== '0.00' && amount('ram:TotalPrepaidAmount', e.totals.prepaid),
      amount('ram:DuePayableAmount', e.totals.payable),
    ),
    e.preceding &&
      node(
        'ram:InvoiceReferencedDocument',
        leaf('ram:IssuerAssignedID', e.preceding.number),
        day('ram:FormattedIssueDateTime', e.preceding.issueDate, 'qdt'),
      ),
  );
}

function delivery(e: EInvoice): string {
  return node(
    'ram:ApplicableHeaderTradeDelivery',
    e.deliverTo && node('ram:ShipToTradeParty', leaf('ram:Name', e.deliverTo.name), address(e.deliverTo.address)),
  );
}

/** The CII document of an e-invoice: `xrechnung` or `factur-x` (EN 16931 profile) names the guideline. */
export function ciiOf(e: EInvoice, flavour: 'xrechnung' | 'factur-x'): string {
  const body = nodeWith(
    'rsm:CrossIndustryInvoice',
    { 'xmlns:rsm': NS.rsm, 'xmlns:ram': NS.ram, 'xmlns:qdt': NS.qdt, 'xmlns:udt': NS.udt },
    node(
      'rsm:ExchangedDocumentContext',
      flavour === 'xrechnung' && node('ram:BusinessProcessSpecifiedDocumentContextParameter', leaf('ram:ID', SPECIFICATION.peppolProcess)),
      node(
        'ram:GuidelineSpecifiedDocumentContextParameter',
        leaf('ram:ID', flavour === 'xrechnung' ? SPECIFICATION.xrechnung : SPECIFICATION.facturX),
      ),
    ),
    node(
      'rsm:ExchangedDocument',
      leaf('ram:ID', e.number),
      leaf('ram:TypeCode', e.typeCode),
      day('ram:IssueDateTime', e.issueDate),
      e.note && node('ram:IncludedNote', leaf('ram:Content', e.note)),
    ),
    node(
      'rsm:SupplyChainTradeTransaction',
      ...e.lines.map(lineItem),
      parties(e),
      // The delivery element is required by the schema even when it carries nothing.
      delivery(e) || '<ram:ApplicableHeaderTradeDelivery/>',
      settlement(e, flavour),
    ),
  );
  return xmlDocument(body);
}
