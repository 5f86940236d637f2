import { DateTime } from 'luxon';
import {
  creditNoteOf,
  type DocumentFormat,
  type DocumentState,
  type FillSlot,
  type InvoicePaymentView,
  type InvoicePreview,
  type InvoiceSendView,
  type InvoiceStatus,
  type InvoiceView,
  type MailOutline,
  MAX_PAYMENT_NOTE,
  MAX_SEND_GREETING,
  MAX_SEND_MESSAGE,
  megabytes,
  type MissingValue,
  asksExchangeRate,
  otherVatCurrency,
  printedLineHours,
  LINE_UNITS,
  unitSymbol,
} from '../../modules/invoices/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { ruleOf, type RoundingRule, type RoundingText } from '../../kernel/rounding.js';
import { errorAt, type FieldErrors, inputField, invalidAt, labelledInput, optionsOf, selectField } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { columnHeads } from '../kit/tables.js';
import { csrfField } from '../kit/layout.js';
import { clockOf } from '../kit/forms.js';
import type { WebPaths } from '../paths.js';
import { formats, type Key, t, translator, type Vars } from '../../i18n/index.js';

/*
 * What the Invoices pages show (decisions §11): the list, the new invoice with its preview, an
 * invoice with its actions, documents and e-invoice fills, the confirmation of an action, and
 * the page of a document that cannot be made. Pure: values in, HTML out.
 */

export const STATUSES: readonly InvoiceStatus[] = ['draft', 'sent', 'paid', 'void'];
const STATUS_KEY: Record<InvoiceStatus, Key> = {
  draft: 'invoices.status.draft',
  sent: 'invoices.status.sent',
  paid: 'invoices.status.paid',
  void: 'invoices.status.void',
};
/** A status as the reader says it: Draft, Issued, Paid, Void; Entwurf, Gestellt, Bezahlt, Storniert. */
const statusLabel = (status: InvoiceStatus): string => t(STATUS_KEY[status]);
export const GROUPINGS: ReadonlyArray<[value: string, label: string]> = [
  ['project', 'A line per project'],
  ['task', 'A line per project and task'],
  ['member', 'A line per member'],
  ['entry', 'A line per entry'],
  ['single', 'One line for the whole period'],
];
export const FORMAT_LABEL: Record<DocumentFormat, string> = {
  pdf: 'PDF (Factur-X / ZUGFeRD EN 16931)',
  'xrechnung-ubl': 'XRechnung 3.0, UBL',
  'xrechnung-cii': 'XRechnung 3.0, CII',
  peppol: 'Peppol BIS Billing 3.0',
};
const GROUPING_KEY: Record<string, Key> = {
  project: 'invoicePage.new.grouping.project',
  task: 'invoicePage.new.grouping.task',
  member: 'invoicePage.new.grouping.member',
  entry: 'invoicePage.new.grouping.entry',
  single: 'invoicePage.new.grouping.single',
};
/** A format's name for an invoice whose PDF is plain (PDF/A without XML) or not. */
export const formatLabel = (format: DocumentFormat, plain: boolean): string =>
  format === 'pdf' && plain ? t('invoicePage.documents.plainPdf') : FORMAT_LABEL[format];

/** The actions an owner takes on an invoice, by the status they start from. */
export type Action = 'issue' | 'pay' | 'void';
/** Each action's words are said when read (`label`, `dateLabel`), in the language of the request reading them. */
const action = (from: readonly InvoiceStatus[], label: Key, dateLabel: Key | null) => ({
  from,
  get label(): string {
    return t(label);
  },
  get dateLabel(): string | null {
    return dateLabel === null ? null : t(dateLabel);
  },
});
export const ACTIONS: Record<Action, { from: readonly InvoiceStatus[]; readonly label: string; readonly dateLabel: string | null }> = {
  issue: action(['draft'], 'invoices.action.issue', 'invoices.action.issueDate'),
  pay: action(['sent'], 'invoices.action.pay', 'invoices.action.paidOn'),
  void: action(['draft', 'sent'], 'invoices.action.void', null),
};

/** A unit price as exact as it was given (2 to 4 places), in the reader's format: `€33.335`, `33,335 €`. */
const price = (amount: number, currency: string): string =>
  new Intl.NumberFormat(formats().locale, { style: 'currency', currency, maximumFractionDigits: 4 }).format(amount);
/** A number written with a decimal point (`2.5833`) in the reader's format with as many places: `2,5833`. */
const exactly = (value: string): string => formats().number(Number(value), value.split('.')[1]?.length ?? 0);
/**
 * A line's hours as its PDF prints them (exact enough that hours × rate gives its net), with the
 * time as people read it beside them (`7.416667 h (7:25)`); or a manual line's quantity and unit.
 */
const hours = (l: InvoiceView['lines'][number]): Html | string =>
  l.manual
    ? `${formats().decimal(l.manual.quantity, 4)} ${unitSymbol(l.manual.unit, formats().language)}`
    : html`${t('invoicePage.lines.hours', { hours: exactly(printedLineHours(l)) })}
        <span class="hint">(${formats().duration(l.quantitySec, false)})</span>`;
/** A document's language by name in the reader's: `German`, `Deutsch`; `French`, `Französisch`. */
const languageName = (code: string): string => {
  const name = new Intl.DisplayNames(formats().locale, { type: 'language' }).of(code) ?? code;
  return `${name.slice(0, 1).toUpperCase()}${name.slice(1)}`;
};
/** A rounding rule in the reader's words: `up to 15 minutes`, `aufgerundet auf 15 Minuten`. */
const ruleWords = (text: RoundingText): string => {
  const rule = ruleOf(text) as RoundingRule;
  const step = rule.minutes === 60 ? t('invoicePage.rule.hour') : t('invoicePage.rule.minutes', { count: rule.minutes });
  return t(rule.mode === 'up' ? 'invoicePage.rule.up' : rule.mode === 'down' ? 'invoicePage.rule.down' : 'invoicePage.rule.nearest', {
    step,
  });
};
const percent = (rate: number | undefined) => (rate === undefined ? '' : `${formats().decimal(rate, 4)} %`);

/** The invoice's name as people say it: its number, or "Draft" (with its client). */
export const titleOf = (invoice: InvoiceView) =>
  invoice.number === null ? t('invoices.draftTitle') : t('invoices.numberedTitle', { number: invoice.number });
const clientNameOf = (invoice: InvoiceView) => invoice.recipient?.name ?? invoice.recipient?.legalName ?? invoice.clientId;
export const statusBadge = (status: InvoiceStatus) =>
  html`<span class="badge status-${status} ${status === 'paid' ? 'good' : status === 'void' ? 'bad' : ''}">${statusLabel(status)}</span>`;

const select = (id: string, name: string, label: string, value: string, options: ReadonlyArray<[string, string]>, errors: FieldErrors) =>
  selectField(id, name, label, optionsOf(options, value), errors[name]);

export interface ListFilter {
  status: string;
  clientId: string;
}

/** What the list says without rows: that the filters match none, or how the first invoice is made. */
function emptyList(paths: WebPaths, filter: ListFilter, canMake: boolean): Html {
  const filtered = filter.status !== '' || filter.clientId !== '';
  return filtered
    ? html`<p class="empty">${t('invoices.list.noMatch')} <a href="${paths.invoices}">${t('invoices.list.showAll')}</a>.</p>`
    : html`<div class="empty">
        <p><strong>${t('invoices.list.noneYet')}</strong></p>
        <p>
          ${t('invoices.list.explain')}
          ${
            canMake
              ? html`${t('invoices.list.startWith')}
                  <a href="${paths.invoices}/new">${t('invoices.new')}</a>${t('invoices.list.thenIssue')}`
              : t('invoices.list.ownersMake')
          }
        </p>
      </div>`;
}

/** The list: filters, the invoices newest first, an empty state that says how to make the first; in the reader's words and formats. */
export function listBody(
  paths: WebPaths,
  invoices: InvoiceView[],
  clients: Array<{ id: string; name: string }>,
  filter: ListFilter,
  canMake: boolean,
  /** The Overdue view (issue 57), shown instead of the table when the filter asks for it. */
  overdue: Html | null = null,
): Html {
  const f = formats();
  const day = (value: string | null) => (value === null ? '–' : f.date(value));
  const empty = emptyList(paths, filter, canMake);
  const label = {
    number: t('invoices.list.number'),
    client: t('invoices.list.client'),
    period: t('invoices.list.period'),
    status: t('invoices.list.status'),
    issued: t('invoices.list.issued'),
    due: t('invoices.list.due'),
    net: t('invoices.list.net'),
    gross: t('invoices.list.gross'),
    amountDue: t('invoices.list.amountDue'),
  };
  return html`<div class="report-head">
      <h1>${t('nav.invoices')}</h1>
      ${canMake ? html`<a class="button" href="${paths.invoices}/new">${t('invoices.new')}</a>` : ''}
    </div>
    <form class="invoice-filter" method="get" action="${paths.invoices}" aria-label="${t('invoices.list.filterLabel')}">
      ${select(
        'filter-status',
        'status',
        label.status,
        filter.status,
        [
          ['', t('invoices.list.anyStatus')],
          ...STATUSES.map((s) => [s, statusLabel(s)] as [string, string]),
          ['overdue', t('reminders.overdue.status')],
        ],
        {},
      )}
      ${select(
        'filter-client',
        'clientId',
        label.client,
        filter.clientId,
        [['', t('invoices.list.everyClient')], ...clients.map((c) => [c.id, c.name] as [string, string])],
        {},
      )}
      <button type="submit" class="secondary">${t('invoices.list.filter')}</button>
    </form>
    ${
      overdue ??
      (invoices.length === 0
        ? empty
        : html`<div class="scroll">
            <table class="rows invoices">
              <caption class="vh">
                ${t('invoices.list.caption')}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${label.number}</th>
                  <th scope="col">${label.client}</th>
                  <th scope="col">${label.period}</th>
                  <th scope="col">${label.status}</th>
                  <th scope="col">${label.issued}</th>
                  <th scope="col">${label.due}</th>
                  <th scope="col" class="num">${label.net}</th>
                  <th scope="col" class="num">${label.gross}</th>
                  <th scope="col" class="num">${label.amountDue}</th>
                </tr>
              </thead>
              <tbody>
                ${invoices.map((i) => {
                  const numberLink = html`<a href="${paths.invoices}/${i.id}">${i.number ?? statusLabel('draft')}</a>`;
                  const row = html`<tr>
                    <td data-label="${label.number}" class="c-number">${numberLink}</td>
                    <td data-label="${label.client}">${clientNameOf(i)}</td>
                    <td data-label="${label.period}" class="c-time">${f.date(i.from)} – ${f.date(i.to)}</td>
                    <td data-label="${label.status}">${statusBadge(i.status)}</td>
                    <td data-label="${label.issued}" class="c-time">${day(i.issueDate)}</td>
                    <td data-label="${label.due}" class="c-time">${day(i.dueDate)}</td>
                    <td data-label="${label.net}" class="num">${f.money(i.netTotal, i.currency)}</td>
                    <td data-label="${label.gross}" class="num">${f.money(i.grossTotal, i.currency)}</td>
                    <td data-label="${label.amountDue}" class="num">${f.money(i.amountDue, i.currency)}</td>
                  </tr>`;
                  // A credit note is a document of its own: a row above the invoice it cancels (it is the newer of the two).
                  const note = creditNoteOf(i);
                  const noteLink = note ? html`<a href="${paths.invoices}/${i.id}#credit-note">${note.number}</a>` : '';
                  return note
                    ? html`<tr class="credit-note">
                          <td data-label="${label.number}" class="c-number">${noteLink}</td>
                          <td data-label="${label.client}">${clientNameOf(i)}</td>
                          <td data-label="${label.period}" class="c-time">
                            ${note.invoiceNumber === null ? t('invoices.list.cancelsIt') : t('invoices.list.cancels', { number: note.invoiceNumber })}
                          </td>
                          <td data-label="${label.status}">
                            <span class="badge status-credit-note">${t('invoices.list.creditNote')}</span>
                          </td>
                          <td data-label="${label.issued}" class="c-time">${f.date(note.issueDate)}</td>
                          <td data-label="${label.due}" class="c-time">–</td>
                          <td data-label="${label.net}" class="num">${f.money(-note.netTotal, note.currency)}</td>
                          <td data-label="${label.gross}" class="num">${f.money(-note.grossTotal, note.currency)}</td>
                          <td data-label="${label.amountDue}" class="num">–</td>
                        </tr>
                        ${row}`
                    : row;
                })}
              </tbody>
            </table>
          </div>`)
    }`;
}

/** The VAT breakdown: a row per category and rate, in the reader's words and formats. */
function breakdown(rows: NonNullable<InvoiceView['taxBreakdown']>, c: string): Html {
  const f = formats();
  const l10n = {
    category: t('invoicePage.breakdown.category'),
    rate: t('invoicePage.breakdown.rate'),
    basis: t('invoicePage.breakdown.basis'),
    vat: t('invoicePage.breakdown.vat'),
    exemption: t('invoicePage.breakdown.exemption'),
  };
  return html`<h2>${t('invoicePage.breakdown.heading')}</h2>
    ${
      rows.length === 0
        ? html`<p class="hint">${t('invoicePage.breakdown.none')}</p>`
        : html`<div class="scroll">
            <table class="rows breakdown">
              <thead>
                <tr>
                  <th scope="col">${l10n.category}</th>
                  <th scope="col" class="num">${l10n.rate}</th>
                  <th scope="col" class="num">${l10n.basis}</th>
                  <th scope="col" class="num">${l10n.vat}</th>
                  <th scope="col">${l10n.exemption}</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr>
                      <td data-label="${l10n.category}">${r.category}</td>
                      <td data-label="${l10n.rate}" class="num">${percent(r.rate)}</td>
                      <td data-label="${l10n.basis}" class="num">${f.money(r.basisAmount, c)}</td>
                      <td data-label="${l10n.vat}" class="num">${f.money(r.taxAmount, c)}</td>
                      <td data-label="${l10n.exemption}">
                        ${[r.exemptionReason, r.exemptionReasonCode].filter(Boolean).join(' · ') || '–'}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}

/** The lines, the VAT breakdown and the totals of an invoice or a preview, in the reader's words and formats. */
function figures(
  doc: Pick<InvoiceView, 'lines' | 'currency' | 'netTotal' | 'taxTotal' | 'grossTotal'> & {
    taxBreakdown?: InvoiceView['taxBreakdown'];
    vatCurrency?: InvoiceView['vatCurrency'];
  },
  /** A draft's page for an owner: each manual line's Remove button posts here. */
  lineForms: { base: string; csrfToken: string } | null = null,
): Html {
  const c = doc.currency;
  const f = formats();
  const exchange = doc.vatCurrency
    ? t('invoicePage.totals.rate', { currency: c, rate: f.decimal(doc.vatCurrency.exchangeRate, 6), vatCurrency: doc.vatCurrency.currency })
    : '';
  const removeLabel = (n: number, description: string) => t('invoicePage.lines.removeLabel', { line: n + 1, description });
  const l10n = {
    description: t('invoicePage.lines.description'),
    quantity: t('invoicePage.lines.quantity'),
    rate: t('invoicePage.lines.rate'),
    vat: t('invoicePage.lines.vat'),
    net: t('invoicePage.lines.net'),
  };
  return html`<h2>${t('invoicePage.lines.heading')}</h2>
    <div class="scroll">
      <table class="rows lines">
        <thead>
          <tr>
            <th scope="col">${l10n.description}</th>
            <th scope="col" class="num">${l10n.quantity}</th>
            <th scope="col" class="num">${l10n.rate}</th>
            <th scope="col" class="num">${l10n.vat}</th>
            <th scope="col" class="num">${l10n.net}</th>
            ${lineForms ? html`<th scope="col"><span class="vh">${t('invoicePage.lines.manualLine')}</span></th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${doc.lines.map(
            (l, n) =>
              html`<tr>
                <td data-label="${l10n.description}">${l.description}</td>
                <td data-label="${l10n.quantity}" class="num">${hours(l)}</td>
                <td data-label="${l10n.rate}" class="num">
                  ${l.manual ? price(l.manual.unitPrice, c) : l.hourlyRate === null ? '–' : f.money(l.hourlyRate, c)}
                </td>
                <td data-label="${l10n.vat}" class="num">
                  ${l.taxCategory ?? ''}
                  ${
                    l.taxCategory && l.taxRate === undefined
                      ? html`<span class="badge bad">${t('invoicePage.lines.notSet')}</span>`
                      : percent(l.taxRate)
                  }
                </td>
                <td data-label="${l10n.net}" class="num">${f.money(l.amount, c)}</td>
                ${
                  lineForms
                    ? html`<td data-label="">
                        ${
                          l.manual
                            ? html`<form method="post" action="${lineForms.base}/lines/remove" class="inline">
                                ${csrfField(lineForms.csrfToken)}
                                <input type="hidden" name="line" value="${String(n + 1)}" />
                                <button type="submit" class="danger" aria-label="${removeLabel(n, l.description)}">
                                  ${t('invoicePage.lines.remove')}
                                </button>
                              </form>`
                            : ''
                        }
                      </td>`
                    : ''
                }
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${breakdown(doc.taxBreakdown ?? [], c)}
    <dl class="facts compact totals">
      <dt>${t('invoicePage.totals.net')}</dt>
      <dd class="num">${f.money(doc.netTotal, c)}</dd>
      <dt>${t('invoicePage.totals.vat')}</dt>
      <dd class="num">${f.money(doc.taxTotal, c)}</dd>
      <dt>${t('invoicePage.totals.gross')}</dt>
      <dd class="num"><strong>${f.money(doc.grossTotal, c)}</strong></dd>
      ${
        // Not "0.00 VAT in EUR" for an invoice issued with a rate before one without VAT took none (issue 56 item 10).
        doc.vatCurrency && doc.taxTotal !== 0
          ? html`<dt>${t('invoicePage.totals.vatIn', { currency: doc.vatCurrency.currency })}</dt>
              <dd class="num">
                ${f.money(doc.vatCurrency.taxTotal, doc.vatCurrency.currency)}
                <span class="hint inline">${exchange}</span>
              </dd>`
          : ''
      }
    </dl>`;
}

/**
 * A draft whose tax is not set yet (decisions 11a: a draft needs no tax settings): which lines
 * count no VAT, and where to set what issuing will ask for.
 */
function taxNotice(paths: WebPaths, doc: Pick<InvoiceView, 'lines' | 'taxBreakdown'>): Html | string {
  const unrated = doc.lines.filter((l) => l.taxCategory && l.taxRate === undefined).length;
  const unexplained = (doc.taxBreakdown ?? []).some((r) => r.category === 'E' && !r.exemptionReason && !r.exemptionReasonCode);
  if (unrated === 0 && !unexplained) return '';
  const what = [unrated > 0 ? t('invoicePage.tax.unrated', { count: unrated }) : '', unexplained ? t('invoicePage.tax.unexplained') : '']
    .filter(Boolean)
    .join(t('invoicePage.tax.and'));
  return html`<div class="notice" role="status">
    ${t('invoicePage.tax.notSet', { what })} <a href="${paths.settings}/workspace">${t('invoicePage.tax.settings')}</a>
    ${t('invoicePage.tax.before')}
  </div>`;
}

export interface NewForm {
  clientId: string;
  from: string;
  to: string;
  groupBy: string;
  note: string;
}

/** The new invoice: client, range, grouping and note; Preview (nothing written) and Create draft. */
export function newBody(
  paths: WebPaths,
  session: SessionView,
  clients: Array<{ id: string; name: string }>,
  form: NewForm,
  errors: FieldErrors,
  preview: InvoicePreview | null,
  formError: Html | string | null,
  zone: string,
): Html {
  const range = errors.from ?? errors.to;
  const f = formats();
  const groupings = GROUPINGS.map(([value]) => [value, t(GROUPING_KEY[value] as Key)] as [string, string]);
  const noteLabel = html`${t('invoicePage.new.note')} <span class="hint inline">${t('invoicePage.new.noteHint')}</span>`;
  return html`<p class="crumbs"><a href="${paths.invoices}">${t('nav.invoices')}</a></p>
    <h1>${t('invoices.new')}</h1>
    <p class="hint">${t('invoicePage.new.hint', { zone })}</p>
    ${formError ? html`<div class="notice error" role="alert">${formError}</div>` : ''}
    <form class="stack wide new-invoice" method="post" action="${paths.invoices}/new" aria-label="${t('invoices.new')}">
      ${csrfField(session.csrfToken)}
      ${
        clients.length === 0
          ? html`<p class="notice error">
              ${t('invoicePage.new.noClients')} <a href="${paths.app}/catalog">${t('invoicePage.where.catalog')}</a>
              ${t('invoicePage.new.noClientsAfter')}
            </p>`
          : ''
      }
      ${select(
        'invoice-client',
        'clientId',
        t('invoicePage.facts.client'),
        form.clientId,
        clients.map((c) => [c.id, c.name] as [string, string]),
        errors,
      )}
      <fieldset class="range" ${range ? html`aria-describedby="invoice-range-error"` : ''}>
        <legend>${t('invoicePage.new.range')}</legend>
        <div class="two">
          <div class="field">
            <label for="invoice-from">${t('invoicePage.new.from')}</label>
            <input id="invoice-from" type="date" name="from" value="${form.from}" required ${range ? html`aria-invalid="true"` : ''} />
          </div>
          <div class="field">
            <label for="invoice-to">${t('invoicePage.new.to')}</label>
            <input id="invoice-to" type="date" name="to" value="${form.to}" required ${range ? html`aria-invalid="true"` : ''} />
          </div>
        </div>
        ${range ? html`<span class="field-error" id="invoice-range-error">${range}</span>` : ''}
      </fieldset>
      ${select('invoice-group', 'groupBy', t('invoicePage.lines.heading'), form.groupBy, groupings, errors)}
      <div class="field">
        <label for="invoice-note">${noteLabel}</label>
        <textarea id="invoice-note" name="note" rows="2" maxlength="1000" ${invalidAt('invoice-note', errors.note)}>${form.note}</textarea>
        ${errorAt('invoice-note', errors.note)}
      </div>
      <div class="actions">
        <button type="submit" name="intent" value="preview" class="secondary">${t('invoicePage.new.preview')}</button>
        <button type="submit" name="intent" value="create">${t('invoicePage.new.create')}</button>
      </div>
    </form>
    ${
      preview
        ? html`<section class="preview" aria-labelledby="preview-heading">
            <h2 id="preview-heading">
              ${t('invoicePage.new.preview')} <span class="hint inline">${t('invoicePage.new.nothingWritten')}</span>
            </h2>
            <p>
              ${t('invoicePage.new.entries', {
                count: preview.entryCount,
                from: f.date(preview.from),
                to: f.date(preview.to),
                zone: preview.timeZone,
                client: String(preview.recipient.name ?? preview.recipient.legalName ?? t('invoicePage.new.theClient')),
                currency: preview.currency,
              })}
            </p>
            ${waitingNotice(preview.waiting)}
            ${
              preview.rounding
                ? html`<p class="rounded-rule">
                    ${t('invoicePage.new.rounded', {
                      rule: ruleWords(preview.rounding.rule),
                      worked: clockOf(preview.rounding.workedSec),
                      billed: clockOf(preview.rounding.billedSec),
                    })}
                  </p>`
                : ''
            }
            ${taxNotice(paths, preview)} ${figures(preview)}
          </section>`
        : ''
    }`;
}

/**
 * Where a missing value is set, as a person reads it (with a link when it is another page), and
 * what works for this invoice (issue 56 item 10): the fill below where it adds or corrects the
 * value, else a new invoice, for a fill never changes a value the invoice was made with or one
 * that went out in a document (the slot says which). The fill is below on the invoice's page, or
 * on that page (`fillAt`) from another one.
 */
function whereOf(paths: WebPaths, invoice: InvoiceView, m: MissingValue, slot: FillSlot | undefined, fillAt: string | null = null): Html {
  const editable = slot !== undefined && slot.state !== 'fixed';
  const renew = t(invoice.status === 'draft' ? 'invoicePage.where.renewDraft' : 'invoicePage.where.renewIssued');
  const kept =
    slot?.state === 'fixed' && slot.because === 'handed-out'
      ? t('invoicePage.where.keptHandedOut', { value: String(slot.value), renew })
      : slot?.state === 'fixed' && slot.because === 'made-with'
        ? t('invoicePage.where.keptMadeWith', { value: String(slot.value), renew })
        : '';
  const correct = slot?.state === 'correctable';
  const fillHere =
    fillAt === null
      ? t(correct ? 'invoicePage.where.correctBelow' : 'invoicePage.where.fillBelow')
      : html`${t(correct ? 'invoicePage.where.correctOn' : 'invoicePage.where.fillOn')}
          <a href="${fillAt}">${t('invoicePage.where.itsPage')}</a>`;
  const fill = editable ? html`, ${t('invoicePage.where.or')} ${fillHere}` : kept;
  const forNew = t('invoicePage.where.forNew');
  switch (m.where) {
    case 'business-profile':
      return html`${t('invoicePage.where.setIn')}
        <a href="${paths.settings}/workspace">${t('invoicePage.where.businessProfile')}</a> ${forNew}${fill}`;
    case 'client':
      return html`${t('invoicePage.where.setOnClient')}
        <a href="${paths.app}/catalog">${t('invoicePage.where.catalog')}</a> ${forNew}${fill}`;
    case 'fill':
      return editable ? html`${fillHere}` : html`${t('invoicePage.where.cannotFill')}`;
    case 'issue':
      return html`${t('invoicePage.where.issueFirst')}`;
  }
}

/** A party as the invoice names it: address and identifiers. */
function partySection(title: string, p: Record<string, unknown> | null): Html {
  return html`<section class="party">
    <h2>${title}</h2>
    ${
      p === null
        ? html`<p class="hint">${t('invoicePage.party.notSet')}</p>`
        : html`<address>
              ${[
                p.legalName ?? p.name,
                ...((p.addressLines as string[] | null) ?? []),
                [p.postalCode, p.city].filter(Boolean).join(' '),
                p.country,
              ]
                .filter((line) => typeof line === 'string' && line !== '')
                .map((line) => html`${line as string}<br />`)}
            </address>
            <dl class="facts">
              ${[
                [t('invoicePage.party.vatId'), p.vatId],
                [t('invoicePage.party.taxNumber'), p.taxNumber],
                [t('invoicePage.party.reference'), p.reference],
                [t('invoicePage.party.contact'), p.contactName],
                [t('invoicePage.party.email'), p.email],
                [t('invoicePage.party.phone'), p.phone],
                [
                  t('invoicePage.party.electronicAddress'),
                  p.electronicAddress
                    ? `${p.electronicAddress as string}${p.electronicAddressScheme ? ` (${p.electronicAddressScheme as string})` : ''}`
                    : null,
                ],
                [t('invoicePage.party.iban'), p.iban],
                [t('invoicePage.party.bic'), p.bic],
              ]
                .filter(([, v]) => typeof v === 'string' && v !== '')
                .map(
                  ([k, v]) =>
                    html`<dt>${k as string}</dt>
                      <dd>${v as string}</dd>`,
                )}
            </dl>`
    }
  </section>`;
}

/** The actions an owner may take from the invoice's status, each to its confirmation page (a GET: nothing written yet). */
function actionsSection(base: string, invoice: InvoiceView, canManage: boolean, today: string): Html | string {
  const allowed = (Object.keys(ACTIONS) as Action[]).filter((a) => ACTIONS[a].from.includes(invoice.status));
  return canManage && allowed.length > 0
    ? html`<section class="invoice-actions" aria-labelledby="actions-heading">
        <h2 id="actions-heading">${t('invoicePage.actions.heading')}</h2>
        <div class="invoice-actions-row">
          ${allowed.map(
            (a) =>
              html`<form method="get" action="${base}/${a}" class="invoice-action">
                ${
                  ACTIONS[a].dateLabel
                    ? html`<div class="field">
                        <label for="action-${a}-date">${ACTIONS[a].dateLabel}</label>
                        <input id="action-${a}-date" type="date" name="date" value="${today}" max="${today}" />
                      </div>`
                    : ''
                }
                <button type="submit" class="${a === 'void' ? 'danger' : ''}">${ACTIONS[a].label}…</button>
              </form>`,
          )}
        </div>
        <p class="hint">${t('invoicePage.actions.confirmFirst')}</p>
      </section>`
    : '';
}

/**
 * The names a missing value may have, by its path (a line's number taken out) and EN 16931 number: the
 * page names it in the reader's words where the invoices module's English label is one of these
 * (the API keeps that label); a label not listed here reads as the module wrote it.
 */
const MISSING_NAMES: Record<string, readonly Key[]> = {
  'issuer.legalName BT-27': ['invoicePage.missingNames.issuerLegalName'],
  'issuer.city BT-37': ['invoicePage.missingNames.issuerCity'],
  'issuer.postalCode BT-38': ['invoicePage.missingNames.issuerPostalCode'],
  'issuer.country BT-40': ['invoicePage.missingNames.issuerCountry'],
  'issuer.contactName BT-41': ['invoicePage.missingNames.issuerContactName'],
  'issuer.phone BT-42': ['invoicePage.missingNames.issuerPhone'],
  'issuer.email BT-43': ['invoicePage.missingNames.issuerEmail'],
  'issuer.vatId BT-31': ['invoicePage.missingNames.issuerVatId', 'invoicePage.missingNames.issuerVatIdOrTaxNumber'],
  'issuer.electronicAddress BT-34': ['invoicePage.missingNames.issuerElectronicAddress', 'invoicePage.missingNames.issuerPeppolAddress'],
  'issuer.electronicAddressScheme BT-34-1': ['invoicePage.missingNames.issuerElectronicAddressScheme'],
  'issuer.iban BT-84': ['invoicePage.missingNames.issuerIban'],
  'recipient.reference BT-10': ['invoicePage.missingNames.recipientReference'],
  'recipient.legalName BT-44': ['invoicePage.missingNames.recipientLegalName'],
  'recipient.city BT-52': ['invoicePage.missingNames.recipientCity'],
  'recipient.postalCode BT-53': ['invoicePage.missingNames.recipientPostalCode'],
  'recipient.country BT-55': ['invoicePage.missingNames.recipientCountry'],
  'recipient.vatId BT-48': ['invoicePage.missingNames.recipientVatId'],
  'recipient.electronicAddress BT-49': [
    'invoicePage.missingNames.recipientElectronicAddress',
    'invoicePage.missingNames.recipientPeppolAddress',
  ],
  'recipient.electronicAddressScheme BT-49-1': ['invoicePage.missingNames.recipientElectronicAddressScheme'],
  'number BT-1': ['invoicePage.missingNames.number'],
  'creditNote BT-1': ['invoicePage.missingNames.creditNote'],
  'lines[].taxCategory BT-151': ['invoicePage.missingNames.lineTaxCategory'],
  'lines[].taxRate BT-152': ['invoicePage.missingNames.lineTaxRate'],
  'taxBreakdown BG-23': ['invoicePage.missingNames.taxBreakdown'],
  'taxBreakdown[].exemptionReason BT-120': ['invoicePage.missingNames.exemptionReason'],
  'paymentTerms BT-20': ['invoicePage.missingNames.paymentTerms'],
};
const english = translator('en');
/**
 * Why a document cannot be made though it lacks no value (the invoices module's English, which the
 * command line keeps), in the reader's words where it is ours; else as the module wrote it.
 */
export const problemText = (problem: string): string =>
  english('invoicePage.documents.mix') === problem ? t('invoicePage.documents.mix') : problem;

/** What an identifier of each scheme is, as the invoices module's label says it (identifiers.ts CHECKS), by key. */
const IDENTIFIER_KINDS: Record<string, Key> = {
  '0088': 'invoicePage.missingNames.identifierKinds.gln',
  '0192': 'invoicePage.missingNames.identifierKinds.norway',
  '0184': 'invoicePage.missingNames.identifierKinds.denmark',
  '0208': 'invoicePage.missingNames.identifierKinds.belgium',
  '0007': 'invoicePage.missingNames.identifierKinds.sweden',
  '0151': 'invoicePage.missingNames.identifierKinds.australia',
};

/**
 * The variants of a value that is there but refused (a rate its category forbids, an identifier's
 * check digits, the seller's identification), by its path and number: a key and the values its
 * label gives (read from the label; the name is used only when its English is the label again).
 */
const MISSING_VARIANTS: Record<string, ReadonlyArray<{ key: Key; vars: (label: string) => Vars | null }>> = {
  'lines[].taxRate BT-152': [
    { key: 'invoicePage.missingNames.lineTaxRateStandard', vars: () => ({}) },
    { key: 'invoicePage.missingNames.lineTaxRateZero', vars: (label) => ({ category: /category (\w+) carries/.exec(label)?.[1] ?? '' }) },
  ],
  'issuer.sellerIdentifier BT-29/BT-30/BT-31': (
    [
      'invoicePage.missingNames.sellerVat.orVatId',
      'invoicePage.missingNames.sellerVat.cannotServe',
      'invoicePage.missingNames.sellerVat.wouldNotServe',
    ] as const
  ).map((vat) => ({ key: 'invoicePage.missingNames.sellerIdentification' as Key, vars: () => ({ vat }) })),
  'issuer.sellerIdentifier BT-29': [
    {
      key: 'invoicePage.missingNames.sellerIdentifierDigits',
      vars: (label) => {
        const read = /^Seller identifier: (".*") is not .* \(scheme (\w+)\); /.exec(label);
        const what = read ? IDENTIFIER_KINDS[read[2] as string] : undefined;
        return read && what ? { value: read[1] as string, what, scheme: read[2] as string } : null;
      },
    },
  ],
};

/** A missing value's name in the reader's words: the name of its path and number whose English is the module's label, else that label. */
export function missingName(m: MissingValue): string {
  const index = /\[(\d+)\]/.exec(m.path);
  const line = index ? { line: Number(index[1]) + 1 } : undefined;
  const at = `${m.path.replace(/\[\d+\]/g, '[]')} ${m.bt}`;
  const key = (MISSING_NAMES[at] ?? []).find((k) => english(k, line) === m.label);
  if (key !== undefined) return t(key, line);
  for (const variant of MISSING_VARIANTS[at] ?? []) {
    const read = variant.vars(m.label);
    const vars = read === null ? null : { ...line, ...read };
    if (vars !== null && english(variant.key, vars) === m.label) return t(variant.key, vars);
  }
  return m.label;
}

/** The missing values of a document, each by name and BT number, with where to set it (in words, with links). */
export function missingItems(
  paths: WebPaths,
  invoice: InvoiceView,
  missing: MissingValue[],
  slotOf: (path: string) => FillSlot | undefined,
  fillAt: string | null = null,
): Html {
  return html`<ul class="refused">
    ${missing.map(
      (m) =>
        html`<li>
          <strong>${missingName(m)}</strong> <span class="hint inline">(${m.bt}, <code>${m.path}</code>)</span>:
          ${whereOf(paths, invoice, m, slotOf(m.path), fillAt)}
        </li>`,
    )}
  </ul>`;
}

/**
 * What the Documents section says first: on a draft, that these are the documents it will have
 * once issued and that issuing checks its PDF first; for a plain PDF's invoice, why it has no
 * e-invoice and what to enter to get one (issue 56 items 1 and 2).
 */
function documentsIntro(paths: WebPaths, invoice: InvoiceView, documents: DocumentState[]): Html | string {
  const plain = documents.some((d) => d.plain);
  const draft = invoice.status === 'draft' ? html`<p class="hint">${t('invoicePage.documents.draftIntro')}</p>` : '';
  const why = plain
    ? html`<div class="notice" role="status" id="plain-pdf">
        <strong>${t('invoicePage.plain.title')}</strong> ${t('invoicePage.plain.why')}
        <a href="${paths.settings}/workspace">${t('invoicePage.plain.profile')}</a>
        ${t('invoicePage.plain.where')}${invoice.status === 'void' ? '' : t('invoicePage.plain.orFill')}.
      </div>`
    : '';
  return html`${draft}${why}`;
}

/** Each document: ready with its download, or each missing value with where to set it; a draft's as they will be once issued. */
function documentRows(
  paths: WebPaths,
  base: string,
  invoice: InvoiceView,
  documents: DocumentState[],
  slotOf: (path: string) => FillSlot | undefined,
): Html[] {
  const draft = invoice.status === 'draft';
  return documents.map((d) => {
    const href = `${base}/document.${d.format === 'pdf' ? 'pdf' : 'xml'}?format=${d.format}${d.creditNote ? '&creditNote=1' : ''}`;
    const name = d.creditNote
      ? t('invoicePage.documents.creditNote', { name: formatLabel(d.format, d.plain) })
      : formatLabel(d.format, d.plain);
    const einvoice = d.format !== 'pdf';
    const none = einvoice && d.plain;
    const ready = d.missing.length === 0 && d.problem === null;
    const taxMissing = (d.taxMissing ?? []).length > 0;
    const refusedText =
      d.problem !== null
        ? t('invoicePage.documents.refused')
        : draft && einvoice
          ? t('invoicePage.documents.willLack', { count: d.missing.length })
          : d.missing.length > 0
            ? t('invoicePage.documents.missing', { count: d.missing.length })
            : t('invoicePage.documents.vatNotSet');
    const readyText = t(
      draft ? (einvoice ? 'invoicePage.documents.readyOnceIssued' : 'invoicePage.documents.readyToIssue') : 'invoicePage.documents.ready',
    );
    const badge = none
      ? html`<span class="badge bad">${t('invoicePage.documents.noEinvoice')}</span>`
      : ready && !(draft && taxMissing)
        ? html`<span class="badge good">${readyText}</span>`
        : html`<span class="badge bad">${refusedText}</span>`;
    // A draft's PDF: what issuing will say, then the draft itself to look at.
    const until = t(d.missing.length > 0 ? 'invoicePage.documents.refusesUntilSet' : 'invoicePage.documents.refusesUntilResolved');
    const issueSays =
      draft && !einvoice && !ready
        ? html`<p class="hint">${until}</p>`
        : draft && !einvoice && taxMissing
          ? html`<p class="hint">${t('invoicePage.documents.refusesUntilVat')}</p>`
          : '';
    const word = t(draft ? 'invoicePage.documents.downloadDraft' : 'invoicePage.documents.download');
    const link = html` <a class="button secondary" href="${href}" download>${word}<span class="vh"> ${name}</span></a>`;
    const download =
      draft && einvoice
        ? ''
        : draft
          ? html`${link} <span class="hint inline">${t('invoicePage.documents.draftMarked')}</span>`
          : ready
            ? link
            : '';
    return html`<li class="document ${ready && !none ? 'ready' : 'missing'}">
      <span class="doc-name">${name}</span>
      ${badge}${download} ${issueSays} ${d.problem !== null ? html`<p class="refused">${problemText(d.problem)}</p>` : ''}
      ${
        none
          ? html`<span class="hint inline">${t('invoicePage.documents.needsIdentifier')}</span>`
          : d.missing.length > 0
            ? missingItems(paths, invoice, d.missing, slotOf)
            : ''
      }
    </li>`;
  });
}

/** What a value of a fill is, as the form names it in the reader's words, and its EN 16931 number (in brackets after it). */
const FILL_LABELS: Record<string, [key: Key, bt: string | null]> = {
  'issuer.legalName': ['invoicePage.fill.values.issuerLegalName', 'BT-27'],
  'issuer.city': ['invoicePage.fill.values.issuerCity', 'BT-37'],
  'issuer.postalCode': ['invoicePage.fill.values.issuerPostalCode', 'BT-38'],
  'issuer.country': ['invoicePage.fill.values.issuerCountry', 'BT-40'],
  'issuer.electronicAddress': ['invoicePage.fill.values.issuerElectronicAddress', 'BT-34'],
  'issuer.electronicAddressScheme': ['invoicePage.fill.values.issuerElectronicAddressScheme', 'BT-34-1'],
  'recipient.electronicAddress': ['invoicePage.fill.values.recipientElectronicAddress', 'BT-49'],
  'recipient.electronicAddressScheme': ['invoicePage.fill.values.recipientElectronicAddressScheme', 'BT-49-1'],
  'recipient.reference': ['invoicePage.fill.values.recipientReference', 'BT-10'],
  'recipient.vatId': ['invoicePage.fill.values.recipientVatId', 'BT-48'],
  'recipient.legalName': ['invoicePage.fill.values.recipientLegalName', 'BT-44'],
  'recipient.city': ['invoicePage.fill.values.recipientCity', 'BT-52'],
  'recipient.postalCode': ['invoicePage.fill.values.recipientPostalCode', 'BT-53'],
  'recipient.country': ['invoicePage.fill.values.recipientCountry', 'BT-55'],
  'recipient.email': ['invoicePage.fill.values.recipientEmail', null],
  'issuer.vatId': ['invoicePage.fill.values.issuerVatId', 'BT-31'],
  'issuer.contactName': ['invoicePage.fill.values.issuerContactName', 'BT-41'],
  'issuer.phone': ['invoicePage.fill.values.issuerPhone', 'BT-42'],
  'issuer.email': ['invoicePage.fill.values.issuerEmail', 'BT-43'],
  'issuer.iban': ['invoicePage.fill.values.issuerIban', 'BT-84'],
  paymentTerms: ['invoicePage.fill.values.paymentTerms', 'BT-20'],
};
/** A fill's value as the form names it (`Seller VAT ID (BT-31)`; a scheme with the codes it takes), or null for one not listed. */
const fillLabel = (path: string): string | null => {
  const known = FILL_LABELS[path];
  if (known === undefined) return null;
  const [key, bt] = known;
  const named = bt === null ? t(key) : `${t(key)} (${bt})`;
  return path.endsWith('Scheme') ? `${named}: ${t('invoicePage.fill.values.scheme')}` : named;
};

/** A day and time as the page shows it, in the viewer's zone. */
const shownAt = (iso: string, zone: string) => {
  const at = DateTime.fromISO(iso, { zone });
  return `${formats().date(at.toISODate() as string)}, ${formats().clock(at.hour * 60 + at.minute)}`;
};

/**
 * Issuing refused before any number was taken (issue 56 item 1): each value the PDF would lack, by
 * name, BT number and where to set it, the VAT settings still missing, in people's words.
 */
export function notReadyHtml(
  paths: WebPaths,
  invoice: InvoiceView,
  refused: { missing: MissingValue[]; taxPeople: string; problem: string | null },
  slotOf: (path: string) => FillSlot | undefined,
): Html {
  return html`<p><strong>${t('invoicePage.notReady.title')}</strong></p>
    ${refused.taxPeople ? html`<p>${refused.taxPeople}</p>` : ''}
    ${
      refused.missing.length > 0
        ? html`<p>${t('invoicePage.notReady.pdfLacks')}</p>
            ${missingItems(paths, invoice, refused.missing, slotOf, `${paths.invoices}/${invoice.id}#fill-heading`)}`
        : ''
    }
    ${refused.problem ? html`<p>${problemText(refused.problem)}</p>` : ''}
    <p>${t('invoicePage.notReady.setThem')}</p>`;
}

/**
 * The e-invoice values of this invoice a fill may set (decisions 14): an input per value the
 * invoice lacks, an input per value a fill set that may still be corrected (no document carrying
 * it went out), and each filled value that went out, with what to do instead. An electronic
 * address and its scheme side by side, in one step.
 */
function fillSection(
  base: string,
  session: SessionView,
  documents: DocumentState[],
  slots: FillSlot[],
  state: { values: Record<string, string>; errors: FieldErrors },
  zone: string,
): Html | string {
  const labels = new Map(documents.flatMap((d) => d.missing.map((m) => [m.path, m] as const)));
  const labelOf = (path: string) => {
    const m = labels.get(path);
    return fillLabel(path) ?? (m ? `${missingName(m)} (${m.bt})` : path);
  };
  const editable = slots.filter((slot) => slot.state !== 'fixed');
  // A fixed value is shown when a fill set it (it went out), or beside the other half of an electronic address being asked.
  const pairOf = (path: string) => path.replace(/Scheme$/, '');
  const shown = slots.filter(
    (slot) =>
      slot.state !== 'fixed' ||
      slot.filledAt !== undefined ||
      editable.some((e) => e !== slot && pairOf(e.path) === pairOf(slot.path) && /electronicAddress/.test(slot.path)),
  );
  if (editable.length === 0 && !shown.some((slot) => slot.filledAt !== undefined)) return '';
  const missing = editable.some((slot) => slot.state === 'empty');
  return html`<section class="fill" aria-labelledby="fill-heading">
    <h2 id="fill-heading">${t(missing ? 'invoicePage.fill.headingMissing' : 'invoicePage.fill.headingFilled')}</h2>
    <p class="hint">${t('invoicePage.fill.hint')}</p>
    ${state.errors.form ? html`<div class="notice error" role="alert">${state.errors.form}</div>` : ''}
    <form class="stack wide" method="post" action="${base}/fill" aria-label="${t('invoicePage.fill.form')}">
      ${csrfField(session.csrfToken)}
      ${shown.map((slot, n) => {
        const id = `fill-${n}`;
        const { path } = slot;
        if (slot.state === 'fixed')
          return html`<div class="field fixed">
            <span class="label">${labelOf(path)}</span>
            <span class="value"><code>${String(slot.value)}</code></span>
            <span class="hint"
              >${
                slot.because === 'handed-out'
                  ? t('invoicePage.fill.wentOut', {
                      last: slot.handedOutAt ? t('invoicePage.fill.last', { at: shownAt(slot.handedOutAt, zone) }) : '',
                    })
                  : t(
                      slot.because === 'amounts'
                        ? 'invoicePage.fill.amounts'
                        : slot.because === 'due-date'
                          ? 'invoicePage.fill.dueDate'
                          : 'invoicePage.fill.madeWith',
                    )
              }</span
            >
            ${errorAt(id, state.errors[path])}
          </div>`;
        const typed = state.values[path] ?? (slot.value === null ? '' : String(slot.value));
        return html`<div class="field">
          <label for="${id}">${labelOf(path)} <span class="hint inline">(${path})</span></label>
          <input
            id="${id}"
            name="${path}"
            value="${typed}"
            ${path === 'taxBreakdown' ? html`placeholder="lines"` : ''}
            ${
              // Refused: the message describes it; else, a filled value, the line saying it can be corrected.
              state.errors[path] !== undefined
                ? invalidAt(id, state.errors[path])
                : slot.state === 'correctable'
                  ? html`aria-describedby="${id}-filled"`
                  : ''
            }
          />
          ${
            slot.state === 'correctable' && slot.filledAt
              ? html`<span class="hint" id="${id}-filled">${t('invoicePage.fill.filled', { at: shownAt(slot.filledAt, zone) })}</span>`
              : ''
          }
          ${errorAt(id, state.errors[path])}
        </div>`;
      })}
      ${editable.length > 0 ? html`<div class="actions"><button type="submit">${t('invoicePage.fill.save')}</button></div>` : ''}
    </form>
  </section>`;
}

/** The Send by mail form's values as typed (or as prefilled). */
export interface SendForm {
  to: string;
  /** The e-invoice format attached beside the PDF, or `none`. */
  xml: string;
  /** The mail's first line (prefilled with the language's greeting; blank: none). */
  greeting: string;
  message: string;
  /** Whether the receipts of its expenses go after the documents (offered only when it has any). */
  withReceipts: boolean;
}

/** The Send by mail section: the whole mail as the invoices service composes it, the form's values and its refusals. */
export interface SendState {
  outline: MailOutline;
  form: SendForm;
  errors: FieldErrors;
}

/**
 * An issued invoice's (or a void one's credit note's) Send by mail form (owners), laid out as the
 * mail itself: its headers, the greeting and the message as fields in their places, the sentence
 * on the attachments for the XML chosen (CSS shows the one of the selected option, without
 * script), the facts and the closing. What is shown is what is sent; nothing is added.
 */
function sendSection(base: string, session: SessionView, state: SendState): Html {
  const { form, errors, outline } = state;
  const creditNote = outline.document === 'credit-note';
  const options: Array<[string, string]> = [
    ...outline.ready.map((f) => [f, t('invoicePage.send.xmlOption', { format: FORMAT_LABEL[f] })] as [string, string]),
    ['none', t('invoicePage.send.none')],
  ];
  const heading = t(creditNote ? 'invoicePage.send.headingCreditNote' : 'invoicePage.send.heading');
  const messageLabel = html`${t('invoicePage.send.message')} <span class="hint inline">${t('invoicePage.send.messageHint')}</span>`;
  return html`<section class="send" aria-labelledby="send-heading">
    <h2 id="send-heading">${heading}</h2>
    ${errors.form ? html`<div class="notice error" role="alert">${errors.form}</div>` : ''}
    ${
      outline.enabled
        ? html`<form class="stack wide mail-form" method="post" action="${base}/send" aria-label="${heading}">
            ${csrfField(session.csrfToken)}
            <div class="field">
              <label for="send-to">${t('invoicePage.send.to')}</label>
              <input id="send-to" type="email" name="to" value="${form.to}" autocomplete="email" ${invalidAt('send-to', errors.to)} />
              ${errors.to ? errorAt('send-to', errors.to) : html`<p class="hint">${t('invoicePage.send.toHint')}</p>`}
            </div>
            ${select('send-xml', 'xml', t('invoicePage.send.xml'), form.xml, options, errors)}
            ${receiptsField(outline.receipts, form.withReceipts, errors.withReceipts)}
            <div class="mail-preview" role="group" aria-labelledby="mail-preview-heading">
              <p class="mail-preview-title" id="mail-preview-heading">${t('invoicePage.send.preview')}</p>
              <dl class="facts compact mail-head">
                <dt>${t('invoicePage.send.from')}</dt>
                <dd>${outline.from.name}${outline.from.address ? html` &lt;${outline.from.address}&gt;` : ''}</dd>
                <dt>${t('invoicePage.send.replyTo')}</dt>
                <dd>
                  ${
                    outline.replyTo ??
                    html`<span class="hint inline"
                      >${t('invoicePage.send.noReplyTo', { address: outline.from.address ?? t('invoicePage.send.theServer') })}</span
                    >`
                  }
                </dd>
                <dt>${t('invoicePage.send.subject')}</dt>
                <dd>${outline.subject}</dd>
              </dl>
              <div class="mail-body">
                ${inputField(
                  'send-greeting',
                  html`${t('invoicePage.send.greeting')} <span class="hint inline">${t('invoicePage.send.greetingHint')}</span>`,
                  html`name="greeting"`,
                  form.greeting,
                  errors.greeting,
                  html`maxlength="${MAX_SEND_GREETING}" autocomplete="off"`,
                )}
                <p class="mail-text">${outline.opening}</p>
                <div class="field">
                  <label for="send-message">${messageLabel}</label>
                  <textarea
                    id="send-message"
                    name="message"
                    rows="3"
                    maxlength="${MAX_SEND_MESSAGE}"
                    ${invalidAt('send-message', errors.message)}
                  >
${form.message}</textarea>
                  ${errorAt('send-message', errors.message)}
                </div>
                ${Object.entries(outline.files).map(([format, text]) => (text ? html`<p class="mail-text" data-xml="${format}">${text}</p>` : ''))}
                <dl class="facts compact mail-facts">
                  ${outline.facts.map(
                    ([k, v]) =>
                      html`<dt>${k}</dt>
                        <dd>${v}</dd>`,
                  )}
                </dl>
                <p class="mail-text closing">${outline.closing}</p>
              </div>
            </div>
            <div class="actions"><button type="submit">${heading}</button></div>
          </form>`
        : html`<p class="hint">${t('invoicePage.send.noMail')}</p>`
    }
  </section>`;
}

/**
 * The Send form's "Attach the receipts" (issue 57): offered when the invoice's expenses have
 * receipts, saying how many and how large beside what a mail carries; a refusal (too large
 * together with the documents) is said at it.
 */
function receiptsField(receipts: MailOutline['receipts'], checked: boolean, error: string | undefined): Html | string {
  if (receipts === null) return '';
  const hint = t('invoices.send.withReceiptsHint', {
    count: receipts.count,
    size: megabytes(receipts.bytes),
    limit: megabytes(receipts.limit),
  });
  return html`<div class="field">
    <label class="check" for="send-receipts"
      ><input
        id="send-receipts"
        type="checkbox"
        name="withReceipts"
        value="yes"
        ${checked ? html`checked` : ''}
        aria-describedby="send-receipts-hint${error ? ' send-receipts-error' : ''}"
        ${error ? html`aria-invalid="true"` : ''}
      />
      ${t('invoices.send.withReceipts')}</label
    >
    <p class="hint" id="send-receipts-hint">${hint}</p>
    ${errorAt('send-receipts', error)}
  </div>`;
}

/** The sends by mail of an invoice and its credit note: when (in the viewer's zone), what, to whom, by whom, and where the message stands. */
function sendsSection(sends: InvoiceSendView[], zone: string, mailPage: string | null): Html | string {
  if (sends.length === 0) return '';
  const f = formats();
  const label = {
    when: t('invoicePage.sends.when'),
    what: t('invoicePage.sends.what'),
    to: t('invoicePage.sends.to'),
    files: t('invoicePage.sends.files'),
    by: t('invoicePage.sends.by'),
    delivery: t('invoicePage.sends.delivery'),
  };
  const STATE: Record<string, Key> = {
    queued: 'invoicePage.sends.state.queued',
    sent: 'invoicePage.sends.state.sent',
    failed: 'invoicePage.sends.state.failed',
  };
  return html`<section class="sends" aria-labelledby="sends-heading">
    <h2 id="sends-heading">${t('invoicePage.sends.heading')}</h2>
    <div class="scroll">
      <table class="rows sends">
        ${columnHeads([label.when, label.what, label.to, label.files, label.by, label.delivery])}
        <tbody>
          ${sends.map(
            (x) =>
              html`<tr>
                <td data-label="${label.when}" class="c-time">${f.dateTime(Date.parse(x.at), zone)}</td>
                <td data-label="${label.what}">
                  ${t(x.document === 'credit-note' ? 'invoicePage.sends.creditNote' : 'invoicePage.sends.invoice')}
                </td>
                <td data-label="${label.to}">${x.to}</td>
                <td data-label="${label.files}">${x.files.join(', ')}</td>
                <td data-label="${label.by}">${x.by.name ?? x.by.userId}</td>
                <td data-label="${label.delivery}">
                  ${
                    x.delivery === null
                      ? html`<span class="hint inline">${t('invoicePage.sends.gone')}</span>`
                      : html`<span class="badge ${x.delivery === 'sent' ? 'good' : x.delivery === 'failed' ? 'bad' : ''}"
                          >${STATE[x.delivery] ? t(STATE[x.delivery] as Key) : x.delivery}</span
                        >`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${mailPage ? html`<p class="hint">${t('invoicePage.sends.relay')} <a href="${mailPage}">${t('invoicePage.sends.mailPage')}</a>.</p>` : ''}
  </section>`;
}

/** With approval on (decisions §13): the range's billable time still waiting for approval, which the invoice does not take. */
export function waitingNotice(waiting: { entries: number; seconds: number } | null | undefined): Html | string {
  if (!waiting || waiting.entries === 0) return '';
  const time = formats().duration(waiting.seconds, false);
  return html`<p class="notice waiting" role="status">${t('invoicePage.waiting', { time, count: waiting.entries })}</p>`;
}

/** The Record payment form's values as typed (or as prefilled). */
export interface PaymentForm {
  amount: string;
  date: string;
  note: string;
}

/** The Payments section: its state (the form's values and refusals), or null for an invoice that takes none and has none. */
export interface PaymentsState {
  payments: InvoicePaymentView[];
  form: PaymentForm;
  errors: FieldErrors;
}

/** An amount as the form prefills it: two places, a point. */
export const amountField = (amount: number): string => amount.toFixed(2);

/**
 * The payments recorded against an issued invoice (issue 57), oldest first, and for owners of a
 * sent one the form that records the next: the amount (prefilled with what is still due), the day
 * the money arrived (a calendar day; today in the viewer's zone prefilled) and a note.
 */
function paymentsSection(
  base: string,
  session: SessionView,
  invoice: InvoiceView,
  canManage: boolean,
  state: PaymentsState,
): Html | string {
  const c = invoice.currency;
  const f = formats();
  const takes = canManage && invoice.status === 'sent';
  if (!takes && state.payments.length === 0) return '';
  const { form, errors } = state;
  // Sums in whole cents: what arrived, and the early-payment discount a payment settled it with.
  const cents = (pick: (p: InvoicePaymentView) => number) => state.payments.reduce((sum, p) => sum + Math.round(pick(p) * 100), 0);
  const discount = cents((p) => p.discount) / 100;
  // A paid invoice marked paid before payments were recorded has none: all of it (less a discount) was paid.
  const paid = invoice.status === 'paid' ? invoice.grossTotal - discount : cents((p) => p.amount) / 100;
  const discountOf = (p: InvoicePaymentView) => t('invoicePage.payments.discount', { amount: f.money(p.discount, c) });
  const label = {
    receivedOn: t('invoicePage.payments.receivedOn'),
    amount: t('invoicePage.payments.amount'),
    note: t('invoicePage.payments.note'),
    recordedBy: t('invoicePage.payments.recordedBy'),
  };
  return html`<section class="payments" aria-labelledby="payments-heading">
    <h2 id="payments-heading">${t('invoicePage.payments.heading')}</h2>
    ${
      state.payments.length === 0
        ? html`<p class="hint">${t('invoicePage.payments.none')}</p>`
        : html`<div class="scroll">
            <table class="rows payments">
              <thead>
                <tr>
                  <th scope="col">${label.receivedOn}</th>
                  <th scope="col" class="num">${label.amount}</th>
                  <th scope="col">${label.note}</th>
                  <th scope="col">${label.recordedBy}</th>
                </tr>
              </thead>
              <tbody>
                ${state.payments.map(
                  (p) =>
                    html`<tr>
                      <td data-label="${label.receivedOn}" class="c-time">${f.date(p.date)}</td>
                      <td data-label="${label.amount}" class="num">
                        ${f.money(p.amount, c)} ${p.discount > 0 ? html`<span class="hint inline">${discountOf(p)}</span>` : ''}
                      </td>
                      <td data-label="${label.note}">${p.note ?? ''}</td>
                      <td data-label="${label.recordedBy}">${p.by.name ?? p.by.userId}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <dl class="facts compact totals">
      <dt>${t('invoicePage.payments.total')}</dt>
      <dd class="num">${f.money(invoice.grossTotal, c)}</dd>
      <dt>${t('invoicePage.payments.paid')}</dt>
      <dd class="num">${f.money(paid, c)}</dd>
      ${
        discount > 0
          ? html`<dt>${t('invoicePage.payments.earlyDiscount')}</dt>
              <dd class="num">${f.money(discount, c)}</dd>`
          : ''
      }
      <dt>${t('invoicePage.payments.stillDue')}</dt>
      <dd class="num"><strong>${f.money(invoice.amountDue, c)}</strong></dd>
    </dl>
    ${
      takes
        ? html`${errors.form ? html`<div class="notice error" role="alert">${errors.form}</div>` : ''}
            <form class="stack payment-form" method="post" action="${base}/payments" aria-label="${t('invoicePage.payments.formLabel')}">
              ${csrfField(session.csrfToken)}
              <div class="two">
                ${inputField(
                  'payment-amount',
                  t('invoicePage.payments.amountReceived', { currency: c }),
                  html`name="amount" inputmode="decimal" required`,
                  form.amount,
                  errors.amount,
                )}
                ${inputField('payment-date', label.receivedOn, html`type="date" name="date" required`, form.date, errors.date)}
              </div>
              ${inputField(
                'payment-note',
                html`${t('invoicePage.payments.noteLabel')} <span class="hint inline">${t('invoicePage.payments.noteHint')}</span>`,
                html`name="note" maxlength="${MAX_PAYMENT_NOTE}"`,
                form.note,
                errors.note,
              )}
              <p class="hint">${t('invoicePage.payments.hint')}</p>
              <div class="actions"><button type="submit">${t('invoicePage.payments.record')}</button></div>
            </form>`
        : ''
    }
  </section>`;
}

/** The invoice as a whole: facts, parties, figures, its actions, its documents and the e-invoice fill. */
export function detailBody(
  paths: WebPaths,
  session: SessionView,
  invoice: InvoiceView,
  options: {
    canManage: boolean;
    documents: DocumentState[];
    /** What a fill may do at each value the form asks about (the documents' missing values) and each value a fill set. */
    slots: FillSlot[];
    fill: { values: Record<string, string>; errors: FieldErrors };
    today: string;
    /** The Send by mail section (an issued invoice or a credit note, owners), or null. */
    send: SendState | null;
    /** The sends by mail recorded, oldest first. */
    sends: InvoiceSendView[];
    /** The viewer's time zone (the sends' times). */
    zone: string;
    /** A draft's range's billable time still waiting for approval (decisions §13), or null. */
    waiting?: { entries: number; seconds: number } | null;
    /** The rounding rule its lines were made with (null: not rounded). */
    rounding: RoundingText | null;
    /** Its payments and the form that records one. */
    payments: PaymentsState;
    /** The payment reminders mailed for it (issue 57): their section (invoices-overdue.ts), or nothing. */
    reminders?: Html | string;
    /** A draft's Add a line form (owners), or null. */
    line?: LineForm | null;
  },
): Html {
  const c = invoice.currency;
  const base = `${paths.invoices}/${invoice.id}`;
  const slots = options.canManage && invoice.status !== 'void' ? options.slots : [];
  const actions = actionsSection(base, invoice, options.canManage, options.today);
  const docRows = documentRows(paths, base, invoice, options.documents, (path) => slots.find((slot) => slot.path === path));
  const fill = fillSection(base, session, options.documents, slots, options.fill, options.zone);
  // Manual lines (decisions §12): an owner adds and removes them while the invoice is a draft.
  const lineForm = options.canManage && invoice.status === 'draft' ? (options.line ?? { values: {}, errors: {} }) : null;
  // A refused fill with no fill form left to show it (nothing left to fill or correct): at the top.
  const fillRefused =
    fill === '' && options.fill.errors.form ? html`<div class="notice error" role="alert">${options.fill.errors.form}</div>` : '';
  const f = formats();
  const day = (value: string | null) => (value === null ? '–' : f.date(value));
  const zone = html`<span class="hint inline">${t('invoicePage.facts.daysIn', { zone: invoice.timeZone })}</span>`;
  const servicePeriod = html`${f.date(invoice.from)} – ${f.date(invoice.to)} ${zone}`;
  const note = invoice.creditNote;
  const creditNoteOf = note ? t('invoicePage.facts.creditNoteOf', { number: note.number, date: f.date(note.issueDate) }) : '';
  return html`<p class="crumbs"><a href="${paths.invoices}">${t('nav.invoices')}</a></p>
    <div class="report-head">
      <h1>${titleOf(invoice)} ${statusBadge(invoice.status)}</h1>
    </div>
    ${fillRefused} ${invoice.status === 'draft' ? html`${waitingNotice(options.waiting)} ${taxNotice(paths, invoice)}` : ''}
    <dl class="facts invoice-facts">
      <dt>${t('invoicePage.facts.client')}</dt>
      <dd>${clientNameOf(invoice)}</dd>
      <dt>${t('invoicePage.facts.number')}</dt>
      <dd>${invoice.number ?? t('invoicePage.facts.numberNone')}</dd>
      <dt>${t('invoicePage.facts.issueDate')}</dt>
      <dd>${day(invoice.issueDate)}</dd>
      <dt>${t('invoicePage.facts.dueDate')}</dt>
      <dd>${day(invoice.dueDate)}</dd>
      ${
        invoice.paidDate
          ? html`<dt>${t('invoicePage.facts.paidOn')}</dt>
              <dd>${f.date(invoice.paidDate)}</dd>`
          : ''
      }
      <dt>${t('invoicePage.facts.servicePeriod')}</dt>
      <dd>${servicePeriod}</dd>
      <dt>${t('invoicePage.facts.amountDue')}</dt>
      <dd><strong>${f.money(invoice.amountDue, c)}</strong></dd>
      ${
        invoice.paymentTerms
          ? html`<dt>${t('invoicePage.facts.paymentTerms')}</dt>
              <dd>${invoice.paymentTerms}</dd>`
          : ''
      }
      ${
        invoice.creditNote
          ? html`<dt id="credit-note">${t('invoicePage.facts.creditNote')}</dt>
              <dd>${creditNoteOf}</dd>`
          : ''
      }
      ${
        invoice.note
          ? html`<dt>${t('invoicePage.facts.note')}</dt>
              <dd>${invoice.note}</dd>`
          : ''
      }
      <dt>${t('invoicePage.facts.language')}</dt>
      <dd>${languageName(invoice.language)}</dd>
      <dt>${t('invoicePage.facts.rounding')}</dt>
      <dd>
        ${
          options.rounding === null
            ? t('invoicePage.facts.roundingNone')
            : t('invoicePage.facts.roundingEach', { rule: ruleWords(options.rounding) })
        }
        <span class="hint inline">${t('invoicePage.facts.roundingKept')}</span>
      </dd>
    </dl>
    ${actions} ${paymentsSection(base, session, invoice, options.canManage, options.payments)}
    <section class="documents" aria-labelledby="documents-heading">
      <h2 id="documents-heading">${t('invoicePage.documents.heading')}</h2>
      ${documentsIntro(paths, invoice, options.documents)}
      <ul class="documents">
        ${docRows}
      </ul>
    </section>
    ${options.send ? sendSection(base, session, options.send) : ''}
    ${sendsSection(options.sends, options.zone, options.canManage ? `${paths.settings}/mail` : null)} ${options.reminders ?? ''} ${fill}
    <div class="parties">
      ${partySection(t('invoicePage.party.from'), invoice.issuer as Record<string, unknown> | null)}
      ${partySection(t('invoicePage.party.to'), invoice.recipient as Record<string, unknown> | null)}
    </div>
    ${figures(invoice, lineForm ? { base, csrfToken: session.csrfToken } : null)} ${lineForm ? addLineSection(base, session, lineForm) : ''}`;
}

/** What the Add a line form holds: as sent (or empty), with its refusals at their fields. */
export interface LineForm {
  values: Record<string, string>;
  errors: FieldErrors;
}

/** The units a manual line is billed in, as the form's choices name them in the reader's words (a unit without words: its English name). */
const UNIT_KEY: Record<string, Key> = {
  C62: 'invoicePage.addLine.units.C62',
  LS: 'invoicePage.addLine.units.LS',
  HUR: 'invoicePage.addLine.units.HUR',
  DAY: 'invoicePage.addLine.units.DAY',
  WEE: 'invoicePage.addLine.units.WEE',
  MON: 'invoicePage.addLine.units.MON',
  ANN: 'invoicePage.addLine.units.ANN',
  KMT: 'invoicePage.addLine.units.KMT',
  PG: 'invoicePage.addLine.units.PG',
};
const unitChoices = (): ReadonlyArray<[string, string]> =>
  LINE_UNITS.map((u) => [u.code, UNIT_KEY[u.code] ? t(UNIT_KEY[u.code] as Key) : u.name]);
const taxChoices = (): ReadonlyArray<[string, string]> => [
  ['', t('invoicePage.addLine.invoiceVat')],
  ['S', t('invoicePage.addLine.standard')],
  ['Z', t('invoicePage.addLine.zero')],
];

/** A draft's Add a line form (owners): a manual line, not time (decisions §12), after its other lines. */
function addLineSection(base: string, session: SessionView, form: LineForm): Html {
  const v = (name: string) => form.values[name] ?? '';
  const e = form.errors;
  const heading = t('invoicePage.addLine.heading');
  return html`<section class="add-line" aria-labelledby="add-line-heading">
    <h2 id="add-line-heading">${heading}</h2>
    <p class="hint">${t('invoicePage.addLine.hint')}</p>
    ${e.form ? html`<div class="notice error" role="alert">${e.form}</div>` : ''}
    <form class="stack wide" method="post" action="${base}/lines" aria-label="${heading}">
      ${csrfField(session.csrfToken)}
      ${labelledInput('line-description', 'description', t('invoicePage.addLine.description'), v('description'), e, html`maxlength="500" required`)}
      <div class="two">
        ${labelledInput('line-quantity', 'quantity', t('invoicePage.addLine.quantity'), v('quantity'), e, html`inputmode="decimal" required`)}
        ${select('line-unit', 'unit', t('invoicePage.addLine.unit'), v('unit') || 'C62', unitChoices(), e)}
      </div>
      ${labelledInput('line-price', 'unitPrice', t('invoicePage.addLine.price'), v('unitPrice'), e, html`inputmode="decimal" required`)}
      <div class="two">
        ${select('line-tax', 'taxCategory', t('invoicePage.addLine.vat'), v('taxCategory'), taxChoices(), e)}
        ${labelledInput('line-rate', 'taxRate', t('invoicePage.addLine.rate'), v('taxRate'), e, html`inputmode="decimal"`)}
      </div>
      <button type="submit">${t('invoicePage.addLine.submit')}</button>
    </form>
  </section>`;
}

/** The confirmation of an action, before anything is written: what it does, its date, Confirm and Cancel. Works without script. */
export function confirmBody(
  paths: WebPaths,
  session: SessionView,
  invoice: InvoiceView,
  action: Action,
  date: string,
  errors: FieldErrors,
  formError: Html | string | null,
  exchangeRate = '',
): Html {
  const base = `${paths.invoices}/${invoice.id}`;
  const gross = formats().money(invoice.grossTotal, invoice.currency);
  const number = invoice.number ?? t('invoicePage.confirm.thisInvoice');
  // An invoice in another currency than the issuer's VAT currency states its VAT in both: issuing takes the rate
  // (not when it carries no VAT: issue 56 item 10), and the field stays to show a refusal about it.
  const vatCurrency =
    action !== 'issue' ? null : (asksExchangeRate(invoice) ?? (errors.exchangeRate !== undefined ? otherVatCurrency(invoice) : null));
  const what: Record<Action, Html> = {
    issue: html`<p>${t('invoicePage.confirm.issue', { client: clientNameOf(invoice), gross })}</p>`,
    pay: html`<p>${t('invoicePage.confirm.pay', { number, gross })}</p>`,
    void:
      invoice.status === 'draft'
        ? html`<p>${t('invoicePage.confirm.voidDraft')}</p>`
        : html`<p>${t('invoicePage.confirm.void', { number, gross })}</p>`,
  };
  const dateLabel = ACTIONS[action].dateLabel;
  return html`<p class="crumbs"><a href="${paths.invoices}">${t('nav.invoices')}</a> › <a href="${base}">${titleOf(invoice)}</a></p>
    <h1>${ACTIONS[action].label}: ${titleOf(invoice)}</h1>
    ${formError ? html`<div class="notice error" role="alert">${formError}</div>` : ''} ${what[action]}
    <form class="stack" method="post" action="${base}/${action}" aria-label="${ACTIONS[action].label} ${titleOf(invoice)}">
      ${csrfField(session.csrfToken)}
      ${
        dateLabel
          ? html`<div class="field">
              <label for="confirm-date">${dateLabel}</label>
              <input id="confirm-date" type="date" name="date" value="${date}" ${invalidAt('confirm-date', errors.date)} />
              ${errorAt('confirm-date', errors.date)}
            </div>`
          : ''
      }
      ${
        vatCurrency
          ? inputField(
              'confirm-rate',
              html`${t('invoicePage.confirm.rate', { vatCurrency, currency: invoice.currency })}
                <span class="hint">${t('invoicePage.confirm.rateHint', { vatCurrency, currency: invoice.currency })}</span>`,
              html`name="exchangeRate" inputmode="decimal" required`,
              exchangeRate,
              errors.exchangeRate,
            )
          : ''
      }
      <div class="actions">
        <button type="submit" class="${action === 'void' ? 'danger' : ''}">${ACTIONS[action].label}</button>
        <a class="button secondary" href="${base}">${t('invoicePage.confirm.cancel')}</a>
      </div>
    </form>`;
}

/** A document that cannot be made: each missing value by name and BT number, and where to set it. */
export function missingBody(
  paths: WebPaths,
  invoice: InvoiceView,
  state: Pick<DocumentState, 'format' | 'creditNote' | 'missing' | 'plain'>,
  slots: FillSlot[],
): Html {
  const base = `${paths.invoices}/${invoice.id}`;
  const slotOf = (path: string) => slots.find((slot) => slot.path === path);
  const none = state.plain && state.format !== 'pdf' && invoice.status !== 'draft';
  const identifier = state.missing.filter((m) => m.path === 'issuer.sellerIdentifier');
  const others = none ? state.missing.filter((m) => m.path !== 'issuer.sellerIdentifier') : state.missing;
  const what = state.creditNote ? t('invoicePage.plain.creditNote') : titleOf(invoice);
  return html`<p class="crumbs"><a href="${paths.invoices}">${t('nav.invoices')}</a> › <a href="${base}">${titleOf(invoice)}</a></p>
    <h1>${t('invoicePage.plain.cannotMake', { what, format: FORMAT_LABEL[state.format] })}</h1>
    ${
      none
        ? html`<p>${t('invoicePage.plain.format')}</p>
            ${missingItems(paths, invoice, identifier, slotOf, `${base}#fill-heading`)}
            ${others.length > 0 ? html`<p>${t('invoicePage.plain.alsoLacks')}</p>` : ''}`
        : html`<p>${t('invoicePage.plain.lacks')}</p>`
    }
    ${others.length > 0 ? missingItems(paths, invoice, others, slotOf, `${base}#fill-heading`) : ''}
    <p><a href="${base}">${t('invoices.backTo', { title: titleOf(invoice) })}</a></p>`;
}
