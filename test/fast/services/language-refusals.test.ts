import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { translator } from '../../../src/i18n/index.js';
import { en } from '../../../src/i18n/messages/en.js';
import { parseMailSettings } from '../../../src/modules/mail/service.js';
import { detailWords, errorWords, gaveUpDetail, OUR_DETAILS } from '../../../src/modules/mail/views.js';
import { checkRestorable, createSeriesCheck } from '../../../src/modules/invoices/restore.js';
import { oidcErrors } from '../../../src/modules/oidc/errors.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * The refusals a service words itself, as a German page says them (decisions §14; issue 58):
 * each carries words by key, whose German text is right, while the API's and the command line's
 * English message stays as it was, letter for letter.
 */
interface Said {
  code: string;
  field: string | undefined;
  message: string;
  /** The words for people in German, and in English. */
  de: string;
  en: string;
}

async function refused(fn: () => unknown): Promise<Said> {
  try {
    await fn();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.words, `words of: ${error.message}`).to.not.equal(undefined);
    const words = error.words as NonNullable<DomainError['words']>;
    return {
      code: error.code,
      field: error.field,
      message: error.message,
      de: translator('de')(words.key, words.vars),
      en: translator('en')(words.key, words.vars),
    };
  }
  throw new Error('not refused');
}

/** A restored invoice that follows every rule (test/fast/services/language-refusals.test.ts breaks it one rule at a time). */
const T0 = Date.parse('2026-10-05T09:00:00Z');
const restoreContext = {
  today: '2026-11-02',
  now: Date.parse('2026-11-02T10:00:00Z'),
  deliverable: (address: string) => /^[^\s@,]+@[^\s@,]+$/.test(address),
};
const line = { description: 'Work', quantitySec: 3600, hourlyRate: 100, amount: 100, projectId: null, taxCategory: 'S', taxRate: 19 };
const row = { category: 'S', rate: 19, basisAmount: 100, taxAmount: 19 };
const valid: Record<string, unknown> = {
  number: 'RE-1',
  status: 'sent',
  currency: 'EUR',
  fromDay: '2026-10-01',
  toDay: '2026-10-31',
  issueDate: '2026-10-05',
  dueDate: '2026-10-19',
  paidDate: null,
  creditNoteNumber: null,
  creditNoteDate: null,
  timeZone: 'Europe/Berlin',
  rounding: null,
  note: null,
  lines: JSON.stringify([line]),
  totalCents: 10000,
  extras: JSON.stringify({ taxBreakdown: [row] }),
  issuer: null,
  recipient: null,
  einvoiceFills: '[]',
  paidCents: 0,
  discountCents: 0,
};
type Num = { number: string; kind: 'invoice' | 'credit_note'; issueDate: string; createdAt: number };
const ownNumbers: Num[] = [{ number: 'RE-1', kind: 'invoice', issueDate: '2026-10-05', createdAt: T0 }];
const creditNote: Num = { number: 'GS-1', kind: 'credit_note', issueDate: '2026-10-07', createdAt: T0 + 1 };
const pay = (p: Record<string, unknown> = {}) => ({
  amountCents: 5000,
  discountCents: 0,
  paidOn: '2026-10-10',
  note: null,
  createdAt: T0 + 5,
  ...p,
});
const remind = (r: Record<string, unknown> = {}) => ({
  level: 1,
  daysOverdue: 5,
  amountDueCents: 11900,
  createdAt: Date.parse('2026-10-24T08:00:00Z'),
  recipient: 'billing@example.org',
  files: JSON.stringify(['RE-1.pdf']),
  ...r,
});
const send = (s: Record<string, unknown> = {}) => ({
  document: 'invoice',
  recipient: 'billing@example.org',
  files: JSON.stringify(['RE-1.pdf']),
  createdAt: T0 + 10,
  ...s,
});
const lines = (l: Record<string, unknown>) => JSON.stringify([{ ...line, ...l }]);
const manual = {
  description: 'Licence',
  quantitySec: 0,
  hourlyRate: null,
  projectId: null,
  amount: 250,
  manual: { quantity: 1, unit: 'C62', unitPrice: 250 },
};
const draft = { number: null, status: 'draft', issueDate: null, dueDate: null };

interface RestoreCase {
  rule: string;
  values?: Record<string, unknown>;
  numbers?: Num[];
  sends?: Array<Record<string, unknown>>;
  payments?: Array<Record<string, unknown>>;
  reminders?: Array<Record<string, unknown>>;
}
const RESTORE_CASES: RestoreCase[] = [
  { rule: 'range', values: { fromDay: '2026-10-31', toDay: '2026-10-01' } },
  { rule: 'timeZone', values: { timeZone: 'Mars/Olympus' } },
  { rule: 'roundingRule', values: { rounding: 'sideways-7' } },
  { rule: 'roundingForm', values: { rounding: 'Up 15' } },
  { rule: 'noteLong', values: { note: 'x'.repeat(1001) } },
  { rule: 'noteUnsafe', values: { note: 'a\u202Eb' } },
  { rule: 'fillsNotList', values: { einvoiceFills: '{}' } },
  { rule: 'fillShape', values: { einvoiceFills: JSON.stringify([{ at: 1 }]) } },
  { rule: 'fillValue', values: { einvoiceFills: JSON.stringify([{ at: 'x', by: 'u', fields: { 'issuer.city': 'a\u0007' } }]) } },
  { rule: 'draftCarries', values: { ...draft, dueDate: '2026-10-19' } },
  { rule: 'voidedDraftCarries', values: { ...draft, status: 'void' }, numbers: ownNumbers },
  { rule: 'unnumberedCarries', values: { number: null, creditNoteNumber: 'GS-1' }, numbers: [] },
  { rule: 'paidNoDay', values: { status: 'paid' } },
  { rule: 'paidBeforeIssue', values: { status: 'paid', paidDate: '2026-10-01' } },
  { rule: 'paidDateNotPaid', values: { paidDate: '2026-10-10' } },
  { rule: 'dueDate', values: { dueDate: '2026-10-01' } },
  { rule: 'future', values: { issueDate: '2026-11-05', dueDate: null }, numbers: [{ ...ownNumbers[0]!, issueDate: '2026-11-05' }] },
  { rule: 'draftNumbered', values: { status: 'draft' } },
  { rule: 'numberNoIssueDate', values: { issueDate: null, dueDate: null } },
  { rule: 'numberRecords', numbers: [] },
  { rule: 'noCreditNote', values: { status: 'void' } },
  { rule: 'creditRecords', values: { status: 'void', creditNoteNumber: 'GS-1', creditNoteDate: '2026-10-07' } },
  {
    rule: 'creditBefore',
    values: { status: 'void', creditNoteNumber: 'GS-1', creditNoteDate: '2026-10-04' },
    numbers: [...ownNumbers, { ...creditNote, issueDate: '2026-10-04' }],
  },
  { rule: 'creditNotVoid', values: { creditNoteNumber: 'GS-1' } },
  { rule: 'otherRecords', numbers: [...ownNumbers, { ...creditNote, kind: 'receipt' as never }] },
  { rule: 'linesNotList', values: { lines: '{}' } },
  { rule: 'tooManyLines', values: { lines: JSON.stringify(Array.from({ length: 1001 }, () => line)) } },
  { rule: 'lineShape', values: { lines: JSON.stringify([{ amount: 1 }]) } },
  { rule: 'manualLine', values: { lines: JSON.stringify([{ ...manual, manual: { quantity: -1, unit: 'C62', unitPrice: 250 } }]) } },
  { rule: 'manualUnit', values: { lines: JSON.stringify([{ ...manual, manual: { quantity: 1, unit: 'piece', unitPrice: 250 } }]) } },
  { rule: 'manualTime', values: { lines: JSON.stringify([{ ...manual, quantitySec: 60 }]) } },
  { rule: 'manualAmount', values: { lines: JSON.stringify([{ ...manual, amount: 249 }]) } },
  { rule: 'quantity', values: { lines: lines({ quantitySec: 1.5 }) } },
  { rule: 'rate', values: { lines: lines({ hourlyRate: -1 }) } },
  { rule: 'amount', values: { lines: lines({ amount: 99 }) } },
  { rule: 'taxCategory', values: { lines: lines({ taxCategory: 'X' }) } },
  { rule: 'taxRate', values: { lines: lines({ taxRate: 101 }) } },
  { rule: 'netTotal', values: { totalCents: 9000 } },
  { rule: 'extrasNotObject', values: { extras: '[1]' } },
  { rule: 'breakdownNotList', values: { extras: JSON.stringify({ taxBreakdown: {} }) } },
  { rule: 'breakdown', values: { extras: JSON.stringify({ taxBreakdown: [{ ...row, taxAmount: 20 }] }) } },
  { rule: 'exemptionReason', values: { extras: JSON.stringify({ taxBreakdown: [{ ...row, exemptionReason: 'a\u0007' }] }) } },
  { rule: 'exemptionReasonCode', values: { extras: JSON.stringify({ taxBreakdown: [{ ...row, exemptionReasonCode: 'EXEMPT' }] }) } },
  { rule: 'paymentTerms', values: { extras: JSON.stringify({ taxBreakdown: [row], paymentTerms: 7 }) } },
  { rule: 'earlyPayment', values: { extras: JSON.stringify({ taxBreakdown: [row], earlyPayment: { percent: 120, days: 10 } }) } },
  {
    rule: 'earlyPaymentDraft',
    values: { ...draft, extras: JSON.stringify({ taxBreakdown: [row], earlyPayment: { percent: 2, days: 10 } }) },
    numbers: [],
  },
  {
    rule: 'vatCurrencyShape',
    values: { extras: JSON.stringify({ taxBreakdown: [row], vatCurrency: { currency: 'XYZ', exchangeRate: 1, taxTotal: 1 } }) },
  },
  {
    rule: 'vatCurrencyTotal',
    values: {
      currency: 'USD',
      extras: JSON.stringify({ taxBreakdown: [row], vatCurrency: { currency: 'EUR', exchangeRate: 0.9, taxTotal: 17 } }),
    },
  },
  { rule: 'partyNotObject', values: { issuer: '[]' } },
  { rule: 'partyField', values: { recipient: JSON.stringify({ shoeSize: '42' }) } },
  { rule: 'partyValue', values: { recipient: JSON.stringify({ email: 'nobody@' }) } },
  { rule: 'partyCountry', values: { issuer: JSON.stringify({ country: 'Germany' }) } },
  { rule: 'electronicAddress', values: { recipient: JSON.stringify({ electronicAddress: '12 34', electronicAddressScheme: '0088' }) } },
  { rule: 'electronicScheme', values: { issuer: JSON.stringify({ electronicAddress: 'x@example.org', electronicAddressScheme: '1234' }) } },
  { rule: 'partyIban', values: { issuer: JSON.stringify({ iban: 'DE00 1234' }) } },
  { rule: 'sendDraft', values: draft, numbers: [], sends: [send()] },
  { rule: 'sendVoidedDraft', values: { ...draft, status: 'void' }, numbers: [], sends: [send()] },
  { rule: 'sendOnlyInvoice', sends: [send({ document: 'credit_note' })] },
  { rule: 'sendRecipient', sends: [send({ recipient: 'a, b' })] },
  { rule: 'sendFiles', sends: [send({ files: JSON.stringify(['x.pdf']) })] },
  { rule: 'sendAt', sends: [send({ createdAt: Date.parse('2026-10-01T00:00:00Z') })] },
  { rule: 'paidSums', values: { paidCents: -1 } },
  { rule: 'paymentsNotIssued', values: draft, numbers: [], payments: [pay()] },
  { rule: 'paymentCents', values: { paidCents: 0 }, payments: [pay({ amountCents: 0 })] },
  { rule: 'paymentDay', payments: [pay({ paidOn: '2026-10-01' })] },
  { rule: 'paymentNote', values: { paidCents: 5000 }, payments: [pay({ note: 'a\u0007b' })] },
  { rule: 'paymentAt', payments: [pay({ createdAt: Date.parse('2026-12-01T00:00:00Z') })] },
  { rule: 'paymentsSum', values: { paidCents: 4000 }, payments: [pay()] },
  { rule: 'paidWithout', values: { paidCents: 4000 } },
  { rule: 'paidAbove', values: { paidCents: 20000 }, payments: [pay({ amountCents: 20000 })] },
  { rule: 'paidNotTotal', values: { status: 'paid', paidDate: '2026-10-10', paidCents: 5000 }, payments: [pay()] },
  { rule: 'paidInFull', values: { paidCents: 11900 }, payments: [pay({ amountCents: 11900 })] },
  { rule: 'reminderDraft', values: draft, numbers: [], reminders: [remind()] },
  { rule: 'reminderNoDue', values: { dueDate: null }, reminders: [remind()] },
  { rule: 'reminderLevel', reminders: [remind({ level: 9 })] },
  { rule: 'reminderTwice', reminders: [remind(), remind()] },
  { rule: 'reminderCents', reminders: [remind({ amountDueCents: 0 })] },
  { rule: 'reminderAboveTotal', reminders: [remind({ amountDueCents: 20000 })] },
  { rule: 'reminderAt', reminders: [remind({ createdAt: Date.parse('2026-12-01T00:00:00Z') })] },
  { rule: 'reminderBeforeIssue', reminders: [remind({ createdAt: Date.parse('2026-10-01T00:00:00Z') })] },
  { rule: 'reminderDays', reminders: [remind({ daysOverdue: 0 })] },
  { rule: 'reminderDay', reminders: [remind({ daysOverdue: 1 })] },
  { rule: 'reminderDue', reminders: [remind({ amountDueCents: 5000 })] },
  { rule: 'reminderRecipient', reminders: [remind({ recipient: 'nobody' })] },
  { rule: 'reminderFiles', reminders: [remind({ files: JSON.stringify(['RE-1.xml']) })] },
];

/** Each rule's English message before issue 58's words (letter for letter), without what to do after it (AFTER). */
const RESTORE_MESSAGES: Record<string, string> = {
  range: 'invoice RE-1: its range 2026-10-31 to 2026-10-01 is not two calendar days in order.',
  timeZone: 'invoice RE-1: its time zone: timeZone: "Mars/Olympus" is not an IANA time zone name such as Europe/Berlin.',
  roundingRule:
    'invoice RE-1: its rounding rule: rounding must be none, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes, written as up-15, nearest-6 or down-1 (each entry rounded on its own) (got "sideways-7").',
  roundingForm: 'invoice RE-1: its rounding rule "Up 15" is not written as up-15 or nearest-6 are.',
  noteLong: 'invoice RE-1: its note has 1001 characters, and a note holds at most 1000.',
  noteUnsafe:
    'invoice RE-1: its note must not hold control characters or bidirectional controls (found U+202E): type it again without them.',
  fillsNotList: 'invoice RE-1: its e-invoice fills are not a list.',
  fillShape: 'invoice RE-1: an e-invoice fill is not {at, by, fields}.',
  fillValue:
    'invoice RE-1: a fill of issuer.city must not hold control characters or bidirectional controls (found U+0007): type it again without them.',
  draftCarries:
    'invoice (draft of 2026-10-01 to 2026-10-31): a draft has no number, and this one carries a due date, register records (RE-1 of 2026-10-05).',
  voidedDraftCarries:
    'invoice (voided draft of 2026-10-01 to 2026-10-31): a voided draft has no number, and this one carries register records (RE-1 of 2026-10-05).',
  unnumberedCarries:
    'invoice (invoice of 2026-10-01 to 2026-10-31): an invoice issued before numbers existed has no number, and this one carries a credit note.',
  paidNoDay: 'invoice RE-1: it is paid, and a paid invoice has the day it was paid.',
  paidBeforeIssue: 'invoice RE-1: it was paid on 2026-10-01, before it was issued (2026-10-05).',
  paidDateNotPaid: 'invoice RE-1: it is sent, and only a paid invoice has a paid date.',
  dueDate: 'invoice RE-1: its due date 2026-10-01 is not a day on or after its issue date 2026-10-05.',
  future:
    'invoice RE-1: its issue date 2026-11-05 is after today (2026-11-02, the latest day anywhere), and no document is dated in the future.',
  draftNumbered: 'invoice RE-1: it is a draft, and a draft has no number.',
  numberNoIssueDate: 'invoice RE-1: it has the number RE-1 and no issue date.',
  numberRecords:
    "invoice RE-1: its number RE-1 of 2026-10-05 is not what its register records say (none): every number an invoice carries is one the workspace's register gave it.",
  noCreditNote:
    'invoice RE-1: it was voided after it was issued, and such an invoice has its credit note (its number and date); this one has none.',
  creditRecords:
    "invoice RE-1: its credit note GS-1 of 2026-10-07 is not what its register records say (none): every number is one the workspace's register gave it.",
  creditBefore: 'invoice RE-1: its credit note is dated 2026-10-04, before the invoice (2026-10-05).',
  creditNotVoid: 'invoice RE-1: it is sent, and only an invoice voided after it was issued has a credit note.',
  otherRecords: 'invoice RE-1: it has register records of another kind (RE-1 of 2026-10-05, GS-1 of 2026-10-07).',
  linesNotList: 'invoice RE-1: its lines are not a list.',
  tooManyLines: 'invoice RE-1: it has 1001 lines, and an invoice holds at most 1000.',
  lineShape: 'invoice RE-1: lines[0] is not a line with a description.',
  manualLine:
    'invoice RE-1: lines[0] is not a manual line as a draft takes it: quantity must be a number above 0 and at most 1,000,000 with at most 4 decimals, such as 1, 2.5 or 0,75 (got -1)..',
  manualUnit: 'invoice RE-1: lines[0]\'s unit "piece" is not a UN/ECE code a line takes.',
  manualTime: 'invoice RE-1: lines[0] is a manual line, so it holds no time: its quantitySec is 0, its hourlyRate and projectId null.',
  manualAmount:
    "invoice RE-1: lines[0]'s amount 249 is not its quantity × its unit price (250.00, rounded once to the cent), and a line's net is exactly that.",
  quantity: "invoice RE-1: lines[0]'s quantity 1.5 is not a whole number of seconds.",
  rate: "invoice RE-1: lines[0]'s rate -1 is not a rate (0 to 1,000,000,000).",
  amount:
    "invoice RE-1: lines[0]'s amount 99 is not its rate × its hours (100.00: 3600 seconds at 100 an hour, rounded once to the cent), and a line's net is exactly that.",
  taxCategory: 'invoice RE-1: lines[0]\'s taxCategory "X" is not a VAT category.',
  taxRate: "invoice RE-1: lines[0]'s taxRate 101 is not a percentage from 0 to 100.",
  netTotal: "invoice RE-1: its net total 90.00 is not the sum of its lines (100.00), and an invoice's totals follow from its lines.",
  extrasNotObject: 'invoice RE-1: its extras are not an object.',
  breakdownNotList: 'invoice RE-1: its VAT breakdown is not a list.',
  breakdown:
    'invoice RE-1: its VAT breakdown (S 19 %: basis 100.00, VAT 20.00) is not what its lines make (S 19 %: basis 100.00, VAT 19.00), and its VAT and totals follow from its lines.',
  exemptionReason:
    'invoice RE-1: taxBreakdown[0].exemptionReason must not hold control characters or bidirectional controls (found U+0007): type it again without them.',
  exemptionReasonCode:
    'invoice RE-1: taxBreakdown[0].exemptionReasonCode must be a VATEX code such as VATEX-EU-AE or VATEX-EU-132 (the CEF VATEX code list, upper case); got "EXEMPT".',
  paymentTerms: 'invoice RE-1: paymentTerms must be text (got 7).',
  earlyPayment:
    'invoice RE-1: its early-payment discount {"percent":120,"days":10} is not P % (above 0, below 100, two decimals at most) within 1 to 365 days.',
  earlyPaymentDraft:
    'invoice (draft of 2026-10-01 to 2026-10-31): it has an early-payment discount, and only an issued invoice offers one.',
  vatCurrencyShape: 'invoice RE-1: its VAT in the issuer’s currency is not {currency, exchangeRate, taxTotal}.',
  vatCurrencyTotal: 'invoice RE-1: its VAT total in EUR (17) is not its VAT (19.00) at its exchange rate 0.9 (17.10).',
  partyNotObject: 'invoice RE-1: its issuer is not an object.',
  partyField: "invoice RE-1: recipient.shoeSize is not a field of an invoice's recipient.",
  partyValue: 'invoice RE-1: recipient.email must be an email address (got "nobody@").',
  partyCountry: 'invoice RE-1: issuer.country must be an ISO 3166-1 alpha-2 code such as DE (got "Germany").',
  electronicAddress:
    'invoice RE-1: recipient.electronicAddress "12 34" is not valid for scheme 0088: give a GLN: 13 digits whose last is the GS1 check digit, such as 4000001000005.',
  electronicScheme:
    'invoice RE-1: issuer.electronicAddressScheme "1234" is not an EAS code (the Electronic Address Scheme list e-invoices use): give 0204 for a Leitweg-ID, 9930 for a German VAT identifier, 0088 for a GLN, 0208 for a Belgian enterprise number, 0192 for a Norwegian organisation number, or EM for an email address.',
  partyIban:
    'invoice RE-1: issuer.iban "DE00 1234" is not an IBAN. An IBAN is its country code, two check digits and the account, such as DE89 3704 0044 0532 0130 00 (spaces may group it).',
  sendDraft: 'invoice (draft of 2026-10-01 to 2026-10-31): a send of its invoice by mail is recorded, and a draft is never sent.',
  sendVoidedDraft:
    'invoice (voided draft of 2026-10-01 to 2026-10-31): a send of its invoice by mail is recorded, and a voided draft is never sent.',
  sendOnlyInvoice: 'invoice RE-1: a send of its credit note by mail is recorded, and only the invoice of a sent invoice is sent.',
  sendRecipient: 'invoice RE-1: a send by mail names "a, b", which is not one address mail can go to.',
  sendFiles:
    'invoice RE-1: a send by mail lists the files ["x.pdf"], which are not its invoice\'s documents (RE-1.pdf, RE-1-xrechnung-ubl.xml, RE-1-xrechnung-cii.xml, RE-1-peppol.xml; the PDF first).',
  sendAt: "invoice RE-1: a send by mail is dated 2026-10-01T00:00:00.000Z, before its invoice's day (2026-10-05) or after now.",
  paidSums: 'invoice RE-1: its paid sums (-1, 0) are not whole cents of 0 or more.',
  paymentsNotIssued: 'invoice (draft of 2026-10-01 to 2026-10-31): it records payments, and only an issued invoice takes payments.',
  paymentCents: 'invoice RE-1: a payment of 0 cents (discount 0) is not whole cents above 0.',
  paymentDay: 'invoice RE-1: a payment is dated "2026-10-01", not a day from its issue date 2026-10-05 to today.',
  paymentNote:
    'invoice RE-1: a payment note must not hold control characters or bidirectional controls (found U+0007): type it again without them.',
  paymentAt: 'invoice RE-1: a payment was recorded at 1796083200000, which is not a time up to now.',
  paymentsSum: 'invoice RE-1: its payments add up to 50.00 and a discount of 0.00, and the invoice says 40.00 and 0.00.',
  paidWithout: 'invoice RE-1: it says 40.00 were paid, and it records no payment.',
  paidAbove: 'invoice RE-1: its payments (200.00) are more than its total (119.00).',
  paidNotTotal: 'invoice RE-1: it is paid, and its payments (50.00) are not its total (119.00).',
  paidInFull: 'invoice RE-1: its payments add up to its total (119.00), and such an invoice is paid, not sent.',
  reminderDraft: 'invoice (draft of 2026-10-01 to 2026-10-31): it records a payment reminder, and a draft is never reminded.',
  reminderNoDue: 'invoice RE-1: it records a payment reminder, and an invoice without a due date is never overdue.',
  reminderLevel: "invoice RE-1: a payment reminder is of level 9, and a workspace's levels are 1 to 3.",
  reminderTwice: 'invoice RE-1: it records two payment reminders of level 1, and each level is sent once.',
  reminderCents: 'invoice RE-1: a payment reminder says 0 cents were due, which is not whole cents above 0.',
  reminderAboveTotal: 'invoice RE-1: a payment reminder says 200.00 was due, more than its total (119.00).',
  reminderAt: 'invoice RE-1: a payment reminder was sent at 1796083200000, which is not a time up to now.',
  reminderBeforeIssue: 'invoice RE-1: a payment reminder is dated 2026-10-01T00:00:00.000Z, before its invoice was issued (2026-10-05).',
  reminderDays: 'invoice RE-1: a payment reminder says it was 0 days overdue, which is not a whole number of days from 1.',
  reminderDay:
    'invoice RE-1: a payment reminder is dated 2026-10-24T08:00:00.000Z and says it was 1 days overdue, and its due date 2026-10-19 makes that day 2026-10-20.',
  reminderDue:
    'invoice RE-1: a payment reminder sent at 2026-10-24T08:00:00.000Z says 50.00 was due, and its total (119.00) less the payments recorded before then (0.00) left 119.00 due: a reminder says what was still due when it was sent.',
  reminderRecipient: 'invoice RE-1: a payment reminder names "nobody", which is not one address mail can go to.',
  reminderFiles:
    'invoice RE-1: a payment reminder lists the files ["RE-1.xml"], which are not its invoice\'s documents (RE-1.pdf, RE-1-xrechnung-ubl.xml, RE-1-xrechnung-cii.xml, RE-1-peppol.xml; the PDF first).',
};

describe('services: refusals in the reader’s language', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  it('the input rules (src/kernel/input.ts): an empty or unsafe name, a currency, a rate, a limit, an email', async () => {
    const { accounts } = world.services;
    const ws = world.workspaceId;
    const empty = await refused(() => accounts.setWorkspace(world.owner, ws, { name: '  ' }));
    expect(empty).to.deep.equal({
      code: 'invalid',
      field: 'name',
      message: 'name must not be empty.',
      de: 'Der Name darf nicht leer sein.',
      en: 'The name must not be empty.',
    });
    const unsafe = await refused(() => accounts.setWorkspace(world.owner, ws, { name: 'Acme\u202Egpj.exe' }));
    expect(unsafe.message).to.equal(
      'name must not hold control characters or bidirectional controls (found U+202E): type it again without them.',
    );
    expect(unsafe.de).to.equal(
      'Der Name darf keine Steuerzeichen und keine Steuerzeichen der Schreibrichtung enthalten (gefunden: U+202E): Geben Sie den Text ohne sie erneut ein.',
    );
    const long = await refused(() => accounts.setWorkspace(world.owner, ws, { name: 'x'.repeat(201) }));
    expect([long.message, long.de]).to.deep.equal([
      'name must be at most 200 characters.',
      'Der Name darf höchstens 200 Zeichen lang sein.',
    ]);
    const currency = await refused(() => accounts.setWorkspace(world.owner, ws, { currency: 'usd' }));
    expect(currency).to.deep.equal({
      code: 'invalid',
      field: 'currency',
      message: 'currency must be an ISO 4217 code such as EUR (got "usd").',
      de: 'Die Währung muss ein ISO-4217-Code wie EUR sein (eingegeben: "usd").',
      en: 'The currency must be an ISO 4217 code such as EUR (got "usd").',
    });
    const rate = await refused(() => accounts.setWorkspace(world.owner, ws, { hourlyRate: -1 }));
    expect([rate.field, rate.message, rate.de]).to.deep.equal([
      'hourlyRate',
      'hourly rate must be a number from 0 to 1000000000.',
      'Der Stundensatz muss eine Zahl von 0 bis 1.000.000.000 sein.',
    ]);
    const limit = await refused(() => accounts.setWorkspace(world.owner, ws, { runawayLimitSec: 0 }));
    expect([limit.field, limit.message, limit.de]).to.deep.equal([
      'runawayLimitSec',
      'runaway limit must be a whole number from 1 to 1000000000.',
      'Das Limit für Ausreißer-Timer muss eine ganze Zahl von 1 bis 1.000.000.000 sein.',
    ]);
    const email = await refused(() => accounts.enrollMember(world.owner, { workspaceId: ws, email: 'maya', name: 'Maya' }));
    expect(email).to.deep.equal({
      code: 'invalid',
      field: 'email',
      message: 'email must look like name@example.org (got "maya").',
      de: 'Die E-Mail-Adresse muss wie name@example.org aussehen (eingegeben: "maya").',
      en: 'The email must look like name@example.org (got "maya").',
    });
  });

  it('the accounts service: the last owner, a member already, join domains, the runaway action, a wrong password', async () => {
    const { accounts, sessions } = world.services;
    const ws = world.workspaceId;
    const last = await refused(() => accounts.setMember(world.owner, { workspaceId: ws, userId: world.ownerId, isOwner: false }));
    expect([last.code, last.message, last.de]).to.deep.equal([
      'conflict',
      `Workspace ${ws} would have no owner left; make another member an owner first.`,
      'Dieser Arbeitsbereich hätte keinen Inhaber mehr; machen Sie zuerst ein anderes Mitglied zum Inhaber.',
    ]);
    const bea = world.member({ name: 'Bea' });
    const owners = await refused(() => accounts.setMember(bea, { workspaceId: ws, userId: bea.userId, hourlyRate: 1 }));
    expect([owners.code, owners.de]).to.deep.equal([
      'forbidden',
      'Das können nur die Inhaber des Arbeitsbereichs. Fragen Sie einen von ihnen.',
    ]);
    const open = await refused(() => accounts.setWorkspace(world.owner, ws, { joinDomains: ['gmail.com'] }));
    expect([open.field, open.message, open.de]).to.deep.equal([
      'joinDomains',
      "join domains: anyone can have an address at gmail.com; list your organisation's own domain.",
      'Eine Adresse bei gmail.com kann jeder haben; nennen Sie die eigene Domain Ihrer Organisation.',
    ]);
    const bad = await refused(() => accounts.setWorkspace(world.owner, ws, { joinDomains: ['not a domain'] }));
    expect(bad.de).to.equal('"not a domain" ist kein Domainname wie example.org.');
    const action = await refused(() => accounts.setWorkspace(world.owner, ws, { runawayAction: 'exploded' as never }));
    expect([action.message, action.de]).to.deep.equal([
      'runaway action must be one of flagged, capped, stopped.',
      'Ein Ausreißer-Timer wird markiert, beim Limit gestoppt oder gestoppt.',
    ]);
    const member = await refused(() => accounts.enrollMember(world.owner, { workspaceId: ws, email: 'member1@example.org', name: 'Bea' }));
    expect([member.code, member.de]).to.deep.equal([
      'conflict',
      'Bea (member1@example.org) ist bereits Mitglied dieses Arbeitsbereichs; ändern Sie stattdessen den Zugang in der Liste.',
    ]);
    await sessions.setPassword(OPERATOR, bea.userId, 'correct horse battery');
    const wrong = await refused(() => sessions.changePassword(bea, 'no-session', 'wrong horse', 'a new long password'));
    expect(wrong).to.deep.equal({
      code: 'invalid',
      field: 'current',
      message: 'current password: that is not your current password.',
      de: 'Das ist nicht Ihr aktuelles Passwort.',
      en: 'That is not your current password.',
    });
  });

  it('the identity provider’s way back: its refusals and failures by key, the English message as before', async () => {
    const unknown = await refused(() => {
      throw oidcErrors.unknownPerson('new.bie@joiners.example', 'joiners.example');
    });
    expect(unknown).to.deep.equal({
      code: 'forbidden',
      field: undefined,
      message:
        'No one here signs in as new.bie@joiners.example, and no workspace lets people of joiners.example join. Ask an owner of your workspace to add you on the Members page, or to list joiners.example on the Workspace page.',
      de: 'Niemand meldet sich hier als new.bie@joiners.example an, und kein Arbeitsbereich lässt Personen von joiners.example beitreten. Bitten Sie einen Inhaber Ihres Arbeitsbereichs, Sie auf der Seite Mitglieder hinzuzufügen oder joiners.example auf der Seite Arbeitsbereich einzutragen.',
      en: 'No one here signs in as new.bie@joiners.example, and no workspace lets people of joiners.example join. Ask an owner of your workspace to add you on the Members page, or to list joiners.example on the Workspace page.',
    });
    const unverified = await refused(() => {
      throw oidcErrors.unverifiedEmail('Keycloak', 'ada@example.org');
    });
    expect(unverified.message).to.equal(
      'Keycloak says your address ada@example.org is not verified, so timetrack cannot tell it is yours. Ask your Keycloak administrator to mark the address as verified (email_verified), then sign in again.',
    );
    expect(unverified.de).to.equal(
      'Laut Keycloak ist Ihre Adresse ada@example.org nicht bestätigt, daher kann timetrack nicht erkennen, dass sie Ihnen gehört. Bitten Sie die Administration von Keycloak, die Adresse als bestätigt zu markieren (email_verified), und melden Sie sich dann erneut an.',
    );
    // Without a provider set up, the way back fails, said by key too.
    const done = await world.services.oidc.complete({ query: 'state=x&code=y', cookie: null });
    expect(done.kind).to.equal('failed');
    const failed = done as { message: string; words?: { key: never; vars?: never } };
    expect(failed.message).to.equal('Sign-in through an identity provider is not set up here.');
    expect(translator('de')(failed.words?.key as never)).to.equal(
      'Die Anmeldung über einen Identitätsanbieter ist hier nicht eingerichtet.',
    );
  });

  it('the invoicing service: a client not of the workspace, the issuer for owners only', async () => {
    const { invoices } = world.services;
    const ws = world.workspaceId;
    const client = await refused(() =>
      invoices.create(world.owner, { workspaceId: ws, clientId: 'cli_nope', from: '2026-10-01', to: '2026-10-31' }),
    );
    expect([client.code, client.field, client.de]).to.deep.equal([
      'not_found',
      'clientId',
      'Dieser Kunde gehört nicht zu diesem Arbeitsbereich: Wählen Sie einen aus der Liste.',
    ]);
    expect(client.message).to.match(/^Client cli_nope was not found in workspace /);
    const bea = world.member({ name: 'Bea' });
    const issuer = await refused(() => invoices.setBusinessProfile(bea, ws, { legalName: 'Bea' } as never));
    expect([issuer.code, issuer.message, issuer.de]).to.deep.equal([
      'forbidden',
      "Only the workspace's owners change its invoice issuer.",
      'Nur die Inhaber des Arbeitsbereichs ändern seinen Rechnungssteller.',
    ]);
  });

  it('the invoicing service: only owners act (a key per phrase), a move not allowed, payments, VAT, the exchange rate, a send', async () => {
    const { invoices, catalog, entries } = world.services;
    const ws = world.workspaceId;
    const owner = world.owner;
    invoices.setBusinessProfile(OPERATOR, ws, { legalName: 'Ada Lovelace Design', country: 'DE', taxNumber: '30/123/45678' });
    const clientId = catalog.clients.create(owner, { name: 'Acme', country: 'DE' } as never).id;
    const projectId = catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
    entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T18:30:00Z', billable: true });
    const id = invoices.create(owner, { workspaceId: ws, clientId, from: '2026-10-01', to: '2026-10-31' }).id;

    // Issuing with no VAT rate set: the rate is named, where to set it, in German.
    const tax = await refused(() => invoices.issue(owner, id, { date: '2026-10-30' }));
    expect([tax.code, tax.field]).to.deep.equal(['conflict', 'tax']);
    expect(tax.message).to.match(/^This invoice cannot be issued yet: its tax is not set\. taxRate: /);
    expect(tax.de).to.match(
      /^Diese Rechnung kann noch nicht gestellt werden: Ihre Umsatzsteuer ist nicht festgelegt\. Legen Sie den Regelsteuersatz /,
    );
    invoices.setSettings(OPERATOR, ws, { taxRate: 19 });

    const reader = world.member({ canViewOthersTime: true, canViewOthersMoney: true });
    const issue = await refused(() => invoices.issue(reader, id));
    expect([issue.code, issue.message, issue.de]).to.deep.equal([
      'forbidden',
      "Only the workspace's owners issue invoices; ask an owner, or have them make you one.",
      'Nur die Inhaber des Arbeitsbereichs stellen Rechnungen; fragen Sie einen Inhaber oder lassen Sie sich zum Inhaber machen.',
    ]);
    expect(issue.en).to.equal(issue.message);
    const pay = await refused(() => invoices.pay(reader, id, { amount: '1' }));
    expect(pay.de).to.equal(
      'Nur die Inhaber des Arbeitsbereichs erfassen Zahlungen; fragen Sie einen Inhaber oder lassen Sie sich zum Inhaber machen.',
    );

    const move = await refused(() => invoices.markPaid(owner, id));
    expect([move.code, move.message, move.en, move.de]).to.deep.equal([
      'conflict',
      `Invoice ${id} cannot move from draft to paid: a draft is issued first (to sent), then marked paid; or voided.`,
      'This invoice cannot move from draft to paid: a draft is issued first (to sent), then marked paid; or voided.',
      'Diese Rechnung kann nicht von Entwurf zu „bezahlt“ wechseln: Ein Entwurf wird zuerst gestellt, dann als bezahlt markiert; oder storniert.',
    ]);
    const draftPay = await refused(() => invoices.pay(owner, id, { amount: '1' }));
    expect([draftPay.field, draftPay.de]).to.deep.equal([
      'amount',
      'Diese Rechnung ist ein Entwurf: Stellen Sie sie zuerst (dann erhält sie ihre Nummer und ihr Fälligkeitsdatum); Zahlungen werden zu einer gestellten Rechnung erfasst.',
    ]);
    const rate = await refused(() => invoices.issue(owner, id, { date: '2026-10-30', exchangeRate: 1.1 }));
    expect([rate.field, rate.de]).to.deep.equal([
      'exchangeRate',
      'Diese Rechnung lautet auf EUR, die Währung, in der ihr Aussteller die Umsatzsteuer abrechnet: Sie nimmt keinen Umrechnungskurs. Stellen Sie sie ohne.',
    ]);

    invoices.issue(owner, id, { date: '2026-10-30' });
    invoices.pay(owner, id, { amount: '1000', date: '2026-10-31' });
    const over = await refused(() => invoices.pay(owner, id, { amount: '130.51', date: '2026-10-31' }));
    expect(over.message).to.match(/^A payment of 130\.51 EUR is more than the 130\.50 EUR still due on 2026-0001 /);
    expect([over.field, over.en, over.de]).to.deep.equal([
      'amount',
      'A payment of €130.51 is more than the €130.50 still due (€1,130.50, of which €1,000.00 paid): record at most €130.50; money paid beyond that is given back outside timetrack.',
      'Eine Zahlung von 130,51\u00a0€ ist mehr als die noch fälligen 130,50\u00a0€ (1.130,50\u00a0€, davon 1.000,00\u00a0€ bezahlt): Erfassen Sie höchstens 130,50\u00a0€; darüber hinaus Gezahltes wird außerhalb von timetrack zurückgegeben.',
    ]);
    const amount = await refused(() => invoices.pay(owner, id, { amount: '-3', date: '2026-10-31' }));
    expect(amount.de).to.equal(
      'Geben Sie den erhaltenen Betrag in EUR ein, etwa 250 oder 250,50 (über 0, höchstens zwei Nachkommastellen).',
    );
    const early = await refused(() => invoices.pay(owner, id, { amount: '1', date: '2026-10-29' }));
    expect([early.field, early.de]).to.deep.equal([
      'date',
      'Das Zahlungsdatum 29.10.2026 liegt vor dem Rechnungsdatum 30.10.2026: Wählen Sie diesen Tag oder einen späteren.',
    ]);

    // A send on a server without mail.
    const send = await refused(() => invoices.send(owner, id, { to: 'billing@acme.example', xml: null, message: null } as never));
    expect([send.code, send.de]).to.deep.equal([
      'invalid',
      'Auf diesem Server ist kein Mailversand eingerichtet: Die Person, die timetrack betreibt, richtet ihn ein. Laden Sie bis dahin die Dokumente oben herunter und versenden Sie sie selbst.',
    ]);
    expect(send.message).to.equal('Mail is not set up on this server: the operator sets SMTP_URL and MAIL_FROM and restarts it.');
  });

  it('the invoicing service: a manual line’s refusals at their fields by key (issue 58 item 2)', async () => {
    const { invoices, catalog, entries } = world.services;
    const owner = world.owner;
    const clientId = catalog.clients.create(owner, { name: 'Acme', country: 'DE' } as never).id;
    const projectId = catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
    entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z', billable: true });
    const id = invoices.create(owner, { workspaceId: world.workspaceId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    const line = { description: 'Book', quantity: '1', unit: 'C62', unitPrice: '10' };
    const said = async (input: Record<string, string>) => {
      const r = await refused(() => invoices.addLine(owner, id, { ...line, ...input } as never));
      return [r.field, r.de, r.en];
    };
    expect(await said({ description: ' ' })).to.deep.equal([
      'description',
      'Sagen Sie, was diese Zeile berechnet.',
      'Say what this line bills.',
    ]);
    expect((await said({ description: 'x'.repeat(501) }))[1]).to.equal('Halten Sie die Beschreibung unter 500 Zeichen.');
    expect(await said({ quantity: '0' })).to.deep.equal([
      'quantity',
      'Geben Sie die Menge als Zahl über 0 an, etwa 1 oder 2,5.',
      'Give the quantity as a number above 0, such as 1 or 2.5.',
    ]);
    expect((await said({ unit: 'barrels' }))[1]).to.equal('Wählen Sie eine der angebotenen Einheiten.');
    const price = await refused(() => invoices.addLine(owner, id, { ...line, unitPrice: 'ten' } as never));
    expect([price.field, price.de]).to.deep.equal(['unitPrice', 'Geben Sie den Nettopreis je Einheit als Zahl an, etwa 250 oder 0,30.']);
    expect(price.message).to.match(/^unitPrice must be a net price per unit of 0 or more/);
  });

  it('the invoicing service: a fill’s change of a value that is set, by key, the advice by the invoice’s status (issue 58 item 1)', async () => {
    const { invoices, catalog, entries } = world.services;
    const owner = world.owner;
    invoices.setSettings(OPERATOR, world.workspaceId, { taxRate: 19 });
    const clientId = catalog.clients.create(owner, { name: 'Acme', legalName: 'Acme GmbH', country: 'DE' } as never).id;
    const projectId = catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
    entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z', billable: true });
    const id = invoices.create(owner, { workspaceId: world.workspaceId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    const madeWith = await refused(() => invoices.fill(OPERATOR, id, world.ownerId, [['recipient.legalName', 'Acme AG']]));
    expect(madeWith).to.deep.equal({
      code: 'conflict',
      field: 'recipient.legalName',
      message:
        'recipient.legalName is already set ("Acme GmbH"): the invoice was made with it, and a fill only adds missing values or corrects its own. Set it in the client for the next invoices; for this one, void this draft (it uses no number) and create it again.',
      de: 'Diese Rechnung wurde mit diesem Wert erstellt, den eine Ergänzung nicht ändert (sie fügt fehlende Werte hinzu und korrigiert ihre eigenen). Ändern Sie ihn für die nächsten Rechnungen beim Kunden; um diese zu korrigieren, stornieren Sie diesen Entwurf (er verbraucht keine Nummer) und legen Sie ihn neu an.',
      en: 'This invoice was made with this value, which a fill does not change (it adds missing values and corrects its own). Change it in the client for the next invoices; for this one, void this draft (it uses no number) and create it again.',
    });
    const amounts = await refused(() => invoices.fill(OPERATOR, id, world.ownerId, [['lines[0].taxRate', '7']]));
    expect([amounts.field, amounts.de, amounts.en]).to.deep.equal([
      'lines[0].taxRate',
      'Dieser Wert bestimmt die Beträge der Rechnung, die eine Ergänzung nie ändert. Um ihn zu korrigieren, stornieren Sie diesen Entwurf (er verbraucht keine Nummer) und legen Sie ihn neu an.',
      'This value makes the invoice’s amounts, which a fill never changes: void this draft (it uses no number) and create it again.',
    ]);
    expect(amounts.message).to.match(/^lines\[0\]\.taxRate is already set \(19\) and makes the invoice's amounts/);
  });

  it('the invoicing service: a send whose e-invoice cannot be made says why by key, at its field (issue 58 item 1)', async () => {
    world.close();
    world = memoryServices({
      mail: {
        settings: parseMailSettings({ SMTP_URL: 'smtp://relay.invalid', MAIL_FROM: 'time@example.org' }, []),
        links: () => 'http://localhost:8080/settings',
        relay: async () => ({ status: 'sent', response: '250 ok' }),
      },
    });
    const { invoices, catalog, entries } = world.services;
    const owner = world.owner;
    invoices.setSettings(OPERATOR, world.workspaceId, { taxRate: 19 });
    invoices.setBusinessProfile(OPERATOR, world.workspaceId, {
      legalName: 'Ada Lovelace Design',
      country: 'DE',
      taxNumber: '30/123/45678',
    });
    const clientId = catalog.clients.create(owner, { name: 'Acme', country: 'DE' } as never).id;
    const projectId = catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
    entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z', billable: true });
    const id = invoices.create(owner, { workspaceId: world.workspaceId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    invoices.issue(owner, id);
    const lacks = invoices.documents(owner, id).find((d) => d.format === 'xrechnung-cii' && !d.creditNote)?.missing.length as number;
    expect(lacks).to.be.greaterThan(1);
    const send = await refused(() => invoices.send(owner, id, { to: 'billing@acme.example', xml: 'xrechnung-cii', message: null }));
    expect([send.code, send.field]).to.deep.equal(['invalid', 'xml']);
    expect(send.message).to.match(/^xrechnung-cii cannot be made for this invoice yet: it lacks /);
    expect(send.de).to.equal(
      `Die E-Rechnung xrechnung-cii lässt sich für diese Rechnung noch nicht erstellen: Ihr fehlen ${lacks} Werte, aufgeführt unter Dokumente. Ergänzen Sie sie auf dieser Seite, oder hängen Sie ein anderes Format oder keines an.`,
    );
    expect(send.en).to.equal(
      `The xrechnung-cii e-invoice cannot be made for this invoice yet: it lacks ${lacks} values, listed under Documents. Fill them on this page, or attach another format or none.`,
    );
  });

  it('the imports service: a row’s reasons carry words by key on a run for the Import page; the command line’s report stays English only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-lang-import-'));
    try {
      const path = join(dir, 'toggl.csv');
      const header =
        'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)';
      writeFileSync(
        path,
        [
          header,
          'Ada,ada@example.org,Acme,Website,,Late,Yes,2026-03-02,11:00:00,2026-03-02,10:00:00,01:00:00,,',
          'Ada,ada@example.org,,,Design,Orphan,Yes,2026-03-02,09:00:00,2026-03-02,10:00:00,01:00:00,,',
          'Ada,ada@example.org,Acme,Website,,Empty,Yes,,09:00:00,2026-03-02,10:00:00,01:00:00,,',
          'Ada,ada@example.org,Acme',
        ].join('\n'),
      );
      const ada = world.member({ name: 'Ada' });
      world.services.accounts.setUser(OPERATOR, ada.userId, { email: 'ada@example.org' });
      const request = { workspaceId: world.workspaceId, path, timeZone: 'Europe/Berlin' };
      const page = (await world.services.imports.run(OPERATOR, { ...request, wording: 'page' })).report.refused;
      const say = (language: 'de' | 'en') =>
        page.map((r) => [r.line, r.words === undefined ? r.message : translator(language)(r.words.key, r.words.vars)]);
      expect(say('de')).to.deep.equal([
        [2, 'End time: Das Ende liegt am oder vor dem Beginn'],
        [3, 'Task: Die Aufgabe „Design“ hat kein Projekt; eine Aufgabe gehört zu einem Projekt'],
        [4, 'Start date: leer; jede Zeile braucht ihren Tag'],
        [5, 'Die Zeile hat 3 Zellen und die Kopfzeile 14: Eine Zelle fehlt (oder ein Anführungszeichen ist nicht geschlossen)'],
      ]);
      // The English words are the report's message, letter for letter.
      expect(say('en')).to.deep.equal(page.map((r) => [r.line, r.message]));
      // The command line's (and the API's) report: English messages and nothing else.
      const cli = (await world.services.imports.run(OPERATOR, request)).report.refused;
      expect(cli).to.deep.equal([
        { line: 2, message: 'End time: the end is at or before the start' },
        { line: 3, message: 'Task: task "Design" has no project; a task belongs to a project' },
        { line: 4, message: 'Start date: empty; every row needs its day' },
        { line: 5, message: 'the row has 3 cells and the header 14: a cell is missing (or a quote is not closed)' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the imports service: the rarer reasons (a day or time the file cannot read, a user the workspace lacks, the timetrack format’s records and catalog rows) carry words by key on a run for the Import page (issue 58 item 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-lang-import-'));
    try {
      const ada = world.member({ name: 'Ada' });
      world.services.accounts.setUser(OPERATOR, ada.userId, { email: 'ada@example.org' });
      const toggl = join(dir, 'toggl.csv');
      const row = (email: string, day: string, start: string) =>
        `${email === 'ada@example.org' ? 'Ada' : 'Bob'},${email},Acme,Website,,Work,Yes,${day},${start},${day},23:30:00,01:00:00,,`;
      writeFileSync(
        toggl,
        [
          'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)',
          row('ada@example.org', '2026-02-30', '09:00:00'),
          row('ada@example.org', '2026-03-02', '25:00'),
          row('ada@example.org', '2026-03-02', '13:00 PM'),
          row('ada@example.org', '2026-03-02', 'noon'),
          row('ada@example.org', '2026-03-29', '02:30'),
          row('ada@example.org', '03/04/2026', '09:00'),
          row('bob@example.org', '2026-03-02', '09:00'),
        ].join('\n'),
      );
      const timetrack = join(dir, 'timetrack.csv');
      const record = (kind: string, cells: Record<number, string>) =>
        Array.from({ length: 20 }, (_, i) => (i === 0 ? kind : (cells[i] ?? ''))).join(',');
      writeFileSync(
        timetrack,
        [
          'record,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice',
          record('workspace', { 18: '"{""v"":2}"' }),
          record('workspace', { 18: '"{""v"":1,""hourlyRate"":-5}"' }),
          record('project', { 8: 'Acme', 9: 'Website', 15: 'red' }),
          record('tag', {}),
          record('thing', {}),
        ].join('\n'),
      );
      const request = { workspaceId: world.workspaceId, timeZone: 'Europe/Berlin', dateFormat: 'YMD' as const, wording: 'page' as const };
      const reasons = async (path: string) => {
        const page = (await world.services.imports.run(OPERATOR, { ...request, path })).report.refused;
        for (const r of page) expect(r.words, r.message).to.not.equal(undefined);
        // The English words are the report's message, letter for letter.
        expect(page.map((r) => translator('en')(r.words!.key, r.words!.vars))).to.deep.equal(page.map((r) => r.message));
        return page.map((r) => [r.line, translator('de')(r.words!.key, r.words!.vars)]);
      };
      expect(await reasons(toggl)).to.deep.equal([
        [2, 'Start date: „2026-02-30“ ist kein Tag des Kalenders'],
        [3, 'Start time: „25:00“ ist keine Uhrzeit'],
        [4, 'Start time: „13:00 PM“: Eine Uhrzeit mit AM/PM hat Stunden von 1 bis 12'],
        [5, 'Start time: „noon“ ist keine Uhrzeit: erwartet 14:05, 14:05:30 oder 2:05 PM'],
        [
          6,
          'Start time: 02:30 gibt es an diesem Tag in Europe/Berlin nicht (die Uhren überspringen diese Zeit bei der Umstellung auf Sommerzeit)',
        ],
        [
          7,
          'Start date: „03/04/2026“ liest sich als Tag/Monat oder Monat/Tag; die Datei schreibt Tage nach ISO (2026-03-04), diese Zeile nicht',
        ],
        [
          8,
          'Bob <bob@example.org> passt zu keinem Mitglied des Arbeitsbereichs: Fügen Sie die Person auf der Seite Mitglieder hinzu oder kreuzen Sie „Benutzer der Datei, die zu keinem Mitglied passen, als Mitglieder hinzufügen“ an',
        ],
      ]);
      expect(await reasons(timetrack)).to.deep.equal([
        [2, 'data: ein Datensatz „rate“ der Version 2; diese Version von timetrack liest Version 1'],
        [3, 'data: hourlyRate -5 ist kein Satz (eine Zahl von 0 bis 1.000.000.000 oder null)'],
        [4, 'color: „red“ ist keine Farbe wie #1f77b4'],
        [5, 'tags: Eine Zeile „tag“ nennt genau ein Schlagwort'],
        [6, 'record: „thing“ ist keins von entry, client, project, task, tag'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the identifiers (src/kernel/identifiers.ts): an IBAN, a BIC, a VAT id by key, the country in the reader’s words; on the Import page too, inside a profile’s or a client’s record (issue 58 item 3)', async () => {
    const { invoices } = world.services;
    const profile = (patch: Record<string, string>) =>
      refused(() => invoices.setBusinessProfile(OPERATOR, world.workspaceId, patch as never));
    const iban = await profile({ iban: 'DE89 3704 0044 0532 0130 01' });
    expect(iban).to.deep.include({
      field: 'iban',
      de: 'Die Prüfziffern dieser IBAN stimmen nicht: Eine Ziffer ist vertippt oder zwei sind vertauscht. Kopieren Sie sie von einem Kontoauszug.',
      en: 'This IBAN’s check digits do not match: a digit is mistyped or two are swapped. Copy it from a bank statement.',
    });
    expect((await profile({ iban: 'NL91 ABNA 0417 1643 0' })).de).to.equal(
      'Diese IBAN hat 17 Zeichen, und eine IBAN dieses Landes (Niederlande) hat 18: Eine Ziffer fehlt oder ist zu viel.',
    );
    expect((await profile({ iban: 'NL91 ABNA 0417 1643 0' })).en).to.equal(
      'This IBAN has 17 characters, and one of the Netherlands has 18: a digit is missing or one too many.',
    );
    expect((await profile({ iban: 'not one' })).de).to.match(/^Das ist keine IBAN\. Eine IBAN besteht aus/);
    expect((await profile({ bic: 'COBA' })).de).to.match(/^Das ist keine BIC: Sie hat 8 oder 11 Buchstaben/);
    const vat = await profile({ vatId: 'DE123456789' });
    expect([vat.field, vat.de, vat.en]).to.deep.equal([
      'vatId',
      'Das ist keine gültige USt-IdNr. dieses Landes (Deutschland): Ihre Prüfziffern stimmen nicht, also ist eine Ziffer vertippt oder zwei sind vertauscht. Kopieren Sie sie von einer Rechnung oder einem Brief der Firma, oder prüfen Sie sie im VIES der EU.',
      'This is not a valid VAT ID of Germany: its check digits do not match, so a digit is mistyped or two are swapped. Copy it from an invoice or letter of theirs, or check it in the EU’s VIES.',
    ]);
    expect(vat.message).to.match(/^vatId "DE123456789" fails the check digits of a VAT identifier of DE/);
    expect((await profile({ vatId: '123456789' })).de).to.match(/^Eine USt-IdNr\. beginnt mit den zwei Buchstaben ihres Landes/);
    expect((await profile({ vatId: 'GR094259216' })).de).to.equal('Eine griechische USt-IdNr. beginnt mit EL, nicht GR, etwa EL094259216.');
    expect((await profile({ vatId: 'DE12345' })).de).to.equal(
      'Das ist keine USt-IdNr. dieses Landes (Deutschland): Eine sieht aus wie DE136695976. Prüfen Sie, ob eine Ziffer fehlt oder zu viel ist.',
    );
    expect((await profile({ vatId: 'XX1' })).de).to.match(/^Das ist keine USt-IdNr\.: die zwei Buchstaben ihres Landes/);
    // Inside a timetrack file's record: after the column, in the reader's words; the report's message as before.
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-lang-import-'));
    try {
      const timetrack = join(dir, 'timetrack.csv');
      const json = (value: unknown) => `"${JSON.stringify(value).replace(/"/g, '""')}"`;
      const record = (kind: string, cells: Record<number, string>) =>
        Array.from({ length: 20 }, (_, i) => (i === 0 ? kind : (cells[i] ?? ''))).join(',');
      writeFileSync(
        timetrack,
        [
          'record,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice',
          record('profile', { 18: json({ v: 1, profile: { iban: 'DE89 3704 0044 0532 0130 01' } }) }),
          record('client', { 8: 'Acme', 18: json({ v: 1, client: { vatId: 'DE123456789' } }) }),
        ].join('\n'),
      );
      const request = { workspaceId: world.workspaceId, timeZone: 'Europe/Berlin', wording: 'page' as const, path: timetrack };
      const page = (await world.services.imports.run(OPERATOR, request)).report.refused;
      expect(page.map((r) => [r.line, r.words && translator('de')(r.words.key, r.words.vars)])).to.deep.equal([
        [
          2,
          'data: Die Prüfziffern dieser IBAN stimmen nicht: Eine Ziffer ist vertippt oder zwei sind vertauscht. Kopieren Sie sie von einem Kontoauszug.',
        ],
        [
          3,
          'data: Das ist keine gültige USt-IdNr. dieses Landes (Deutschland): Ihre Prüfziffern stimmen nicht, also ist eine Ziffer vertippt oder zwei sind vertauscht. Kopieren Sie sie von einer Rechnung oder einem Brief der Firma, oder prüfen Sie sie im VIES der EU.',
        ],
      ]);
      expect(page[0]?.message).to.match(/^data: the issuer profile: iban "DE89 3704 0044 0532 0130 01" fails its check digits/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the imports service: another module’s check of a record in a timetrack file’s data cell (a record’s version, the workspace’s settings) carries its words by key on a run for the Import page (issue 58 item 3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-lang-import-'));
    try {
      const timetrack = join(dir, 'timetrack.csv');
      const json = (value: unknown) => `"${JSON.stringify(value).replace(/"/g, '""')}"`;
      const record = (kind: string, cells: Record<number, string>) =>
        Array.from({ length: 20 }, (_, i) => (i === 0 ? kind : (cells[i] ?? ''))).join(',');
      writeFileSync(
        timetrack,
        [
          'record,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice',
          record('profile', { 18: json({ v: 2 }) }),
          record('invoice', { 1: 'inv_1', 2: 'owner@example.org', 8: 'Acme', 18: json({ v: 3 }) }),
          record('expense', { 1: 'exp_1', 2: 'owner@example.org', 8: 'Acme', 9: 'Website', 18: json({ v: 2 }) }),
          record('profile', { 18: json({ v: 1, profile: { iban: 'DE00 1234' } }) }),
          record('client', { 8: 'Acme', 18: json({ v: 1, client: { email: 'not an address' } }) }),
          record('invoicing', { 18: json({ v: 1, settings: { taxRate: 250 } }) }),
          record('project', { 8: 'Acme', 9: 'Website', 18: json({ v: 1, taxCategory: 'X' }) }),
          record('workspace', { 18: json({ v: 1, hourlyRate: null, runawayAction: 'explode' }) }),
        ].join('\n'),
      );
      const request = { workspaceId: world.workspaceId, timeZone: 'Europe/Berlin', wording: 'page' as const, path: timetrack };
      const page = (await world.services.imports.run(OPERATOR, request)).report.refused;
      const say = (language: 'de' | 'en') =>
        page.map((r) => [r.line, r.words === undefined ? r.message : translator(language)(r.words.key, r.words.vars)]);
      expect(say('de').filter(([line]) => [2, 3, 4, 9].includes(line as number))).to.deep.equal([
        [2, 'data: ein Datensatz „profile“ der Version 2; diese Version von timetrack liest Version 1'],
        [3, 'data: ein Datensatz „invoice“ der Version 3; diese Version von timetrack liest Version 1'],
        [4, 'data: ein Datensatz „expense“ der Version 2; diese Version von timetrack liest Version 1'],
        [9, 'data: Ein Ausreißer-Timer wird markiert, beim Limit gestoppt oder gestoppt.'],
      ]);
      // A version's English words are the report's message, letter for letter; the report itself is unchanged.
      expect(say('en').slice(0, 3)).to.deep.equal(page.slice(0, 3).map((r) => [r.line, r.message]));
      expect(page.map((r) => r.message)).to.deep.equal([
        'data: a profile record of version 2; this version of timetrack reads version 1',
        'data: an invoice record of version 3; this version of timetrack reads version 1',
        'data: an expense record of version 2; this version of timetrack reads version 1',
        'data: the issuer profile: iban "DE00 1234" is not an IBAN. An IBAN is its country code, two check digits and the account, such as DE89 3704 0044 0532 0130 00 (spaces may group it).',
        'data: the client\'s invoicing details: email must be an email address (got "not an address").',
        "data: the invoicing settings' numberPattern is missing (every invoice_settings row has one)",
        "data: taxCategory of a project, task, expense or line must be S (a rate of its own) or Z (zero rated), or empty for the invoice's own; reverse charge, intra-community supply, export, exempt and not subject are the client's or the workspace's (got \"X\").",
        'data: runaway action must be one of flagged, capped, stopped.',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the imports service: every other module’s check of a timetrack file’s record in its data cell says its refusal by key, in German without English (issue 58)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-lang-import-'));
    try {
      const timetrack = join(dir, 'timetrack.csv');
      const json = (value: unknown) => `"${JSON.stringify(value).replace(/"/g, '""')}"`;
      const record = (kind: string, cells: Record<number, string>) =>
        Array.from({ length: 20 }, (_, i) => (i === 0 ? kind : (cells[i] ?? ''))).join(',');
      const invoice = { 1: 'inv_1', 2: 'owner@example.org', 8: 'Acme' };
      writeFileSync(
        timetrack,
        [
          'record,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice',
          record('invoice', { ...invoice, 18: json({ v: 1, row: 5 }) }),
          record('invoice', { ...invoice, 18: json({ v: 1, row: {} }) }),
          record('profile', { 18: json({ v: 1, profile: { electronicAddress: '12 34', electronicAddressScheme: '0088' } }) }),
          record('profile', { 18: json({ v: 1, profile: { country: 'Germany' } }) }),
          record('client', { 8: 'Acme', 18: json({ v: 1, client: { country: 'de' } }) }),
          record('invoicing', { 18: json({ v: 1, settings: { taxRate: 19 } }) }),
          record('project', { 8: 'Acme', 9: 'Website', 18: json({ v: 1, taxCategory: 'S', taxRate: 120 }) }),
          record('expense', { 1: 'exp_1', 2: 'owner@example.org', 8: 'Acme', 9: 'Website', 18: json({ v: 1, day: '2026-02-30' }) }),
          record('receipt', { 1: 'exp_1', 18: json({ v: 1, bytes: '***' }) }),
          record('approval', { 18: json({ v: 1, lockedBefore: null, lockZone: null, approvers: 5 }) }),
          record('period', {
            2: 'owner@example.org',
            18: json({ v: 1, startDay: '2026-01-05', from: '2026-01-05T00:00:00Z', to: '2026-01-04T00:00:00Z' }),
          }),
        ].join('\n'),
      );
      const request = { workspaceId: world.workspaceId, timeZone: 'Europe/Berlin', wording: 'page' as const, path: timetrack };
      const page = (await world.services.imports.run(OPERATOR, request)).report.refused;
      for (const r of page) expect(r.words, r.message).to.not.equal(undefined);
      const de = page.map((r) => [r.line, translator('de')(r.words!.key, r.words!.vars)]);
      expect(de).to.deep.equal([
        [2, 'data: der Datensatz der Rechnung hat keine Zeile (row)'],
        [3, 'data: im Datensatz der Rechnung: status fehlt (jede Zeile der Tabelle invoices hat diesen Wert)'],
        [
          4,
          'data: Das ist keine Adresse des Schemas 0088. Erwartet wird eine GLN: 13 Ziffern, deren letzte die GS1-Prüfziffer ist, etwa 4000001000005.',
        ],
        [5, 'data: country muss ein Code nach ISO 3166-1 alpha-2 wie DE sein (angegeben: "Germany").'],
        [6, 'data: country muss ein Code nach ISO 3166-1 alpha-2 in Großbuchstaben wie DE sein (angegeben: "de").'],
        [7, 'data: in den Rechnungseinstellungen: numberPattern fehlt (jede Zeile der Tabelle invoice_settings hat diesen Wert)'],
        [8, 'data: Geben Sie den USt-Satz als Prozentsatz wie 7 oder 19 an (ohne %).'],
        [9, 'data: day: "2026-02-30" ist kein Kalendertag (JJJJ-MM-TT, ein Datum, das es gibt).'],
        [10, 'data: bytes muss Base64 sein'],
        [11, 'data: approvers muss eine Liste von Personen sein'],
        [12, 'data: to muss nach from liegen'],
      ]);
      // The English words of a record's own checks are the report's message, letter for letter (the message itself unchanged).
      expect(page.map((r) => r.message)).to.deep.equal([
        'data: the invoice record has no row',
        "data: the invoice record's status is missing (every invoices row has one)",
        'data: the issuer profile: electronicAddress "12 34" is not valid for scheme 0088: give a GLN: 13 digits whose last is the GS1 check digit, such as 4000001000005.',
        'data: the issuer profile: country must be an ISO 3166-1 alpha-2 code such as DE (got "Germany").',
        'data: the client\'s invoicing details: country must be an ISO 3166-1 alpha-2 code, upper case, such as DE (got "de").',
        "data: the invoicing settings' numberPattern is missing (every invoice_settings row has one)",
        'data: taxCategory S needs taxRate, a percentage above 0 and below 100 with at most 4 decimals, such as 7 or 19 (got 120).',
        'data: day: "2026-02-30" is not a calendar day (YYYY-MM-DD, a date that exists).',
        'data: bytes must be base64',
        'data: approvers must be a list of people',
        'data: to must be after from',
      ]);
      for (const r of page.filter((r) => ![4, 8].includes(r.line)))
        expect(
          translator('en')(r.words!.key, r.words!.vars).replace(/^data: (the issuer profile|the client's invoicing details): /, 'data: '),
        ).to.equal(r.message.replace(/^data: (the issuer profile|the client's invoicing details): /, 'data: '));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the invoices module’s restore of an export: a workspace with numbers of its own, a number given twice, the series together, any other rule (its detail kept) by key (issue 58 item 1)', () => {
    const say = (error: unknown, language: 'de' | 'en') => {
      expect(error).to.be.instanceOf(DomainError);
      const words = (error as DomainError).words;
      expect(words, (error as DomainError).message).to.not.equal(undefined);
      return translator(language)(words!.key, words!.vars);
    };
    const thrown = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      throw new Error('not refused');
    };
    const numbers = (number: string) => [{ number, kind: 'invoice' as const, issueDate: '2026-10-05', createdAt: 1 }];
    const values = (number: string) => ({ number, status: 'sent', fromDay: '2026-10-01', toDay: '2026-10-31' });
    const own = createSeriesCheck({ register: ['2026-0001'], invoices: new Map() });
    const ownNumbers = thrown(() => own.add(2, values('RE-1'), numbers('RE-1')));
    expect((ownNumbers as Error).message).to.equal(
      "invoice RE-1: this workspace has issued numbers of its own (2026-0001), and numbered invoices are restored only into a workspace that has issued none, so that its series goes on from the file's without a gap or a number given twice. Import the file into a new workspace, or leave out its invoices with --skip-invalid.",
    );
    expect(say(ownNumbers, 'de')).to.equal(
      'Rechnung RE-1: Dieser Arbeitsbereich hat eigene Nummern vergeben (2026-0001), und nummerierte Rechnungen werden nur in einen Arbeitsbereich wiederhergestellt, der keine vergeben hat, damit seine Nummernfolge ohne Lücke und ohne doppelte Nummer an die der Datei anschließt. Importieren Sie die Datei in einen neuen Arbeitsbereich, oder importieren Sie die anderen Zeilen ohne ihre Rechnungen.',
    );
    const series = createSeriesCheck({ register: [], invoices: new Map() });
    series.add(2, values('RE-1'), numbers('RE-1'));
    const twice = thrown(() => series.add(3, values('RE-1'), numbers('RE-1')));
    expect(say(twice, 'de')).to.equal(
      'Rechnung RE-1: Die Nummer RE-1 steht zweimal in der Datei (auch bei Rechnung RE-1), und eine Nummer wird nur einmal vergeben. Eine wiederhergestellte Rechnung folgt den Regeln einer gestellten: Importieren Sie die Datei, wie ihr Arbeitsbereich sie exportiert hat, oder lassen Sie ihre Rechnungen weg (auf der Import-Seite: die anderen Zeilen importieren).',
    );
    expect(say(twice, 'en')).to.equal((twice as Error).message);
    const [together] = series.finish('RE-{seq}');
    expect(together?.words && translator('de')(together.words.key, together.words.vars)).to.equal(
      'Rechnung RE-1: Die nummerierten Rechnungen der Datei werden nur gemeinsam oder gar nicht wiederhergestellt, damit ihre Nummernfolge keine Lücke hat, und Rechnung RE-1 wird abgelehnt. Eine wiederhergestellte Rechnung folgt den Regeln einer gestellten: Importieren Sie die Datei, wie ihr Arbeitsbereich sie exportiert hat, oder lassen Sie ihre Rechnungen weg (auf der Import-Seite: die anderen Zeilen importieren).',
    );
    expect(together?.words && translator('en')(together.words.key, together.words.vars)).to.equal(together?.message);
    // Any other rule: the frame and what to do in the reader's language, the rule's own detail as the module wrote it.
    const range = thrown(() =>
      checkRestorable({ ...values('RE-2'), fromDay: '2026-10-31', toDay: '2026-10-01' }, numbers('RE-2'), [], {
        today: '2026-11-02',
        now: Date.parse('2026-11-02T10:00:00Z'),
        deliverable: () => true,
      }),
    );
    expect(say(range, 'de')).to.equal(
      'Rechnung RE-2 lässt sich nicht wiederherstellen: Ihr Zeitraum 2026-10-31 bis 2026-10-01 besteht nicht aus zwei Kalendertagen in der richtigen Reihenfolge. Eine wiederhergestellte Rechnung folgt den Regeln einer gestellten: Importieren Sie die Datei, wie ihr Arbeitsbereich sie exportiert hat, oder lassen Sie ihre Rechnungen weg (auf der Import-Seite: die anderen Zeilen importieren).',
    );
    expect(say(range, 'en')).to.equal((range as Error).message);
  });

  it('the invoices module’s restore of an export: every rule of a restored invoice has words of its own by key, German without the rule’s English, the English message as before (issue 58)', () => {
    const AFTER_EN =
      'A restored invoice follows the rules of an issued one: import the file as its workspace exported it, or leave its invoices out (--skip-invalid; the Import page: import the other rows).';
    const AFTER_DE = translator('de')('invoicing.refused.restore.after');
    // Words of English that no German sentence of these rules holds (the file's own names, values and file names aside).
    const ENGLISH = /\b(is|its|it|and|which|the|of|has|must|give|not|were|with|from|payment|invoice|draft|line|got)\b/i;
    checkRestorable(valid, ownNumbers, [], restoreContext);
    const rules = new Set<string>();
    for (const c of RESTORE_CASES) {
      let error: unknown;
      try {
        checkRestorable(
          { ...valid, ...c.values },
          c.numbers ?? ownNumbers,
          c.sends ?? [],
          restoreContext,
          c.payments ?? [],
          c.reminders ?? [],
        );
      } catch (thrown) {
        error = thrown;
      }
      expect(error, c.rule).to.be.instanceOf(DomainError);
      const { message, words } = error as DomainError;
      expect(message, c.rule).to.equal(`${RESTORE_MESSAGES[c.rule]} ${AFTER_EN}`);
      expect(words?.key, c.rule).to.equal('invoicing.refused.restore.broken');
      const rule = String(words?.vars?.rule);
      expect(rule, c.rule).to.not.equal('invoicing.refused.restore.rule');
      rules.add(rule);
      const de = translator('de')(words!.key, words!.vars);
      const en = translator('en')(words!.key, words!.vars);
      expect(de, c.rule).to.match(/^Rechnung \S.* lässt sich nicht wiederherstellen: [A-Za-zÄÖÜ{„"(]/);
      expect(de.endsWith(` ${AFTER_DE}`), c.rule).to.equal(true);
      const said = de.replace(/^Rechnung (RE-1|\(.*?\)) lässt sich nicht wiederherstellen: /, '').slice(0, -AFTER_DE.length);
      expect(said, `${c.rule}: ${de}`).to.not.match(ENGLISH);
      // The rule's own English (after the invoice and a field's name, which stay as the file writes them) is not in the German.
      const english = (RESTORE_MESSAGES[c.rule] as string).replace(/^invoice (RE-1|\(.*?\)): /, '').replace(/^[\w.[\]]+('s)? /, '');
      expect(de, c.rule).to.not.include(english.slice(0, 25));
      for (const text of [de, en]) expect(text, c.rule).to.not.match(/\{\{|invoicing\.|input\.|integrations\./);
      expect(en.startsWith(`invoice ${RESTORE_MESSAGES[c.rule]!.split(': ')[0]!.slice('invoice '.length)}: `), c.rule).to.equal(true);
      expect(en.endsWith(AFTER_EN), c.rule).to.equal(true);
    }
    // Every rule of restore.ts was walked by its own key (but the same rule of a day not of the calendar, said as written).
    // (A plural's two forms are one rule: `reminderDay_one`, `reminderDay_other`.)
    const all = [...new Set(Object.keys(en.invoicing.refused.restore.rules).map((name) => name.replace(/_(one|other)$/, '')))].map(
      (name) => `invoicing.refused.restore.rules.${name}`,
    );
    expect(all.filter((key) => !rules.has(key))).to.deep.equal(['invoicing.refused.restore.rules.futureText']);
    // A count of days said as one day or several, in both languages.
    const overdue = (count: number, language: 'en' | 'de') =>
      translator(language)('invoicing.refused.restore.rules.reminderDay', { sent: 'S', count, dueDate: '2026-10-19', on: '2026-10-20' });
    expect(overdue(1, 'de')).to.contain('nennt 1 Tag Verzug');
    expect(overdue(2, 'de')).to.contain('nennt 2 Tage Verzug');
    expect(overdue(1, 'en')).to.contain('it was 1 day overdue');
    expect(overdue(2, 'en')).to.contain('it was 2 days overdue');
    // Another check's own words where the rule is another part's (the text rule, a field's kind, an identifier).
    expect([...rules].filter((key) => !key.startsWith('invoicing.refused.restore.rules.')).sort()).to.deep.equal([
      'input.identifiers.ibanForm',
      'input.identifiers.participantRule',
      'input.identifiers.participantScheme',
      'input.refused.unsafe',
      'input.refused.unsafeField',
      'input.refused.value',
      'input.refused.vatex',
    ]);
  });

  it('the invoices module’s restore: every fail() of restore.ts passes its rule’s words (a new rule without them fails here and in the compiler)', () => {
    const source = readFileSync(new URL('../../../src/modules/invoices/restore.ts', import.meta.url), 'utf8');
    const calls: string[] = [];
    for (const match of source.matchAll(/\bfail\(/g)) {
      let depth = 0;
      let end = match.index + 'fail'.length;
      for (; end < source.length; end++) {
        if (source[end] === '(') depth++;
        else if (source[end] === ')' && --depth === 0) break;
      }
      calls.push(source.slice(match.index, end + 1));
    }
    expect(calls.length).to.be.at.least(65);
    // Each call gives its problem in English and its rule's words (rule('…') or another check's, by key), never a problem alone.
    const without = calls.filter((call) => !/\brule\(|words\(/.test(call));
    expect(without).to.deep.equal([]);
  });

  it('the mail log: the details in our own words by key, a relay’s own reply as it came (the Mail page)', () => {
    const said = (detail: string, language: 'de' | 'en') => {
      const w = detailWords(detail);
      return w === null ? null : translator(language)(w.key, w.vars);
    };
    const gaveUp = gaveUpDetail(9, '421 4.7.0 Try again later');
    expect(gaveUp).to.equal('Gave up after 9 attempts; the last: 421 4.7.0 Try again later');
    expect(said(gaveUp, 'en')).to.equal(gaveUp);
    expect(said(gaveUp, 'de')).to.equal('Nach 9 Versuchen aufgegeben; die letzte Antwort: 421 4.7.0 Try again later');
    expect(said(OUR_DETAILS.linkExpired, 'de')).to.equal(
      'Der Link darin ist abgelaufen, bevor das Relay die Nachricht angenommen hat; fordern Sie einen neuen an.',
    );
    expect(said('550 5.1.1 No such user', 'de')).to.equal(null);
  });

  it('the mail log: a failed attempt’s code in a sentence by key (the Mail page), the code itself kept (issue 58 item 4)', () => {
    const said = (code: string | null, language: 'de' | 'en') => {
      const w = errorWords(code);
      return w === null ? null : translator(language)(w.key, w.vars);
    };
    expect(said('connection_refused', 'de')).to.equal('Der Mailserver hat die Verbindung abgelehnt.');
    expect(said('connection_refused', 'en')).to.equal('The relay refused the connection.');
    expect(said('timeout', 'de')).to.equal('Der Mailserver hat nicht rechtzeitig geantwortet.');
    expect(said('auth', 'de')).to.equal(
      'Der Mailserver hat die Anmeldung des Servers nicht angenommen (Benutzer oder Passwort in SMTP_URL).',
    );
    expect(said('rejected', 'de')).to.equal('Der Mailserver hat die Nachricht abgelehnt.');
    // Every code of the relay has its sentence in each language; ours say it in their detail.
    for (const code of [
      'connection_refused',
      'timeout',
      'connection_closed',
      'dns',
      'tls',
      'auth',
      'network',
      'rejected_temporarily',
      'rejected',
    ])
      expect(said(code, 'de'), code)
        .to.be.a('string')
        .and.not.match(/^settings\./);
    expect([said('link_expired', 'de'), said('unreadable', 'de'), said(null, 'de')]).to.deep.equal([null, null, null]);
  });
});
