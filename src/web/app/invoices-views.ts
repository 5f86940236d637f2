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
import { roundingWords, type RoundingText } from '../../kernel/rounding.js';
import { errorAt, type FieldErrors, inputField, invalidAt, labelledInput, optionsOf, selectField } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { columnHeads } from '../kit/tables.js';
import { csrfField } from '../kit/layout.js';
import { clockOf } from '../kit/forms.js';
import type { WebPaths } from '../paths.js';
import { formats, type Key, t } from '../../i18n/index.js';

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
/** A format's name for an invoice whose PDF is plain (PDF/A without XML) or not. */
export const formatLabel = (format: DocumentFormat, plain: boolean): string =>
  format === 'pdf' && plain ? 'PDF (PDF/A, without e-invoice)' : FORMAT_LABEL[format];

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

const moneyFormats = new Map<string, Intl.NumberFormat>();
/** An amount in its currency: `EUR 1,190.00`. */
export const money = (amount: number, currency: string): string => {
  let format = moneyFormats.get(currency);
  if (!format) moneyFormats.set(currency, (format = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' })));
  return format.format(amount);
};
/** A unit price as exact as it was given (2 to 4 places): `EUR 33.335`. */
const price = (amount: number, currency: string): string =>
  new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code', maximumFractionDigits: 4 }).format(amount);
/** A line's hours as its PDF prints them: exact enough that hours × rate gives its net. */
const hours = (l: InvoiceView['lines'][number]) =>
  l.manual ? `${l.manual.quantity} ${unitSymbol(l.manual.unit, 'en')}` : `${printedLineHours(l)} h`;
const percent = (rate: number | undefined) => (rate === undefined ? '' : `${rate} %`);

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

/** The lines, the VAT breakdown and the totals of an invoice or a preview. */
function figures(
  doc: Pick<InvoiceView, 'lines' | 'currency' | 'netTotal' | 'taxTotal' | 'grossTotal'> & {
    taxBreakdown?: InvoiceView['taxBreakdown'];
    vatCurrency?: InvoiceView['vatCurrency'];
  },
  /** A draft's page for an owner: each manual line's Remove button posts here. */
  lineForms: { base: string; csrfToken: string } | null = null,
): Html {
  const c = doc.currency;
  return html`<h2>Lines</h2>
    <div class="scroll">
      <table class="rows lines">
        <thead>
          <tr>
            <th scope="col">Description</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col" class="num">Rate</th>
            <th scope="col" class="num">VAT</th>
            <th scope="col" class="num">Net</th>
            ${lineForms ? html`<th scope="col"><span class="vh">Manual line</span></th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${doc.lines.map(
            (l, n) =>
              html`<tr>
                <td data-label="Description">${l.description}</td>
                <td data-label="Quantity" class="num">${hours(l)}</td>
                <td data-label="Rate" class="num">
                  ${l.manual ? price(l.manual.unitPrice, c) : l.hourlyRate === null ? '–' : money(l.hourlyRate, c)}
                </td>
                <td data-label="VAT" class="num">
                  ${l.taxCategory ?? ''}
                  ${l.taxCategory && l.taxRate === undefined ? html`<span class="badge bad">not set</span>` : percent(l.taxRate)}
                </td>
                <td data-label="Net" class="num">${money(l.amount, c)}</td>
                ${
                  lineForms
                    ? html`<td data-label="">
                        ${
                          l.manual
                            ? html`<form method="post" action="${lineForms.base}/lines/remove" class="inline">
                                ${csrfField(lineForms.csrfToken)}
                                <input type="hidden" name="line" value="${String(n + 1)}" />
                                <button type="submit" class="danger" aria-label="Remove line ${String(n + 1)}: ${l.description}">
                                  Remove
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
    <h2>VAT</h2>
    ${
      (doc.taxBreakdown ?? []).length === 0
        ? html`<p class="hint">No VAT breakdown.</p>`
        : html`<div class="scroll">
            <table class="rows breakdown">
              <thead>
                <tr>
                  <th scope="col">Category</th>
                  <th scope="col" class="num">Rate</th>
                  <th scope="col" class="num">Basis</th>
                  <th scope="col" class="num">VAT</th>
                  <th scope="col">Exemption</th>
                </tr>
              </thead>
              <tbody>
                ${(doc.taxBreakdown ?? []).map(
                  (r) =>
                    html`<tr>
                      <td data-label="Category">${r.category}</td>
                      <td data-label="Rate" class="num">${percent(r.rate)}</td>
                      <td data-label="Basis" class="num">${money(r.basisAmount, c)}</td>
                      <td data-label="VAT" class="num">${money(r.taxAmount, c)}</td>
                      <td data-label="Exemption">${[r.exemptionReason, r.exemptionReasonCode].filter(Boolean).join(' · ') || '–'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <dl class="facts compact totals">
      <dt>Net</dt>
      <dd class="num">${money(doc.netTotal, c)}</dd>
      <dt>VAT</dt>
      <dd class="num">${money(doc.taxTotal, c)}</dd>
      <dt>Gross</dt>
      <dd class="num"><strong>${money(doc.grossTotal, c)}</strong></dd>
      ${
        // Not "0.00 VAT in EUR" for an invoice issued with a rate before one without VAT took none (issue 56 item 10).
        doc.vatCurrency && doc.taxTotal !== 0
          ? html`<dt>VAT in ${doc.vatCurrency.currency}</dt>
              <dd class="num">
                ${money(doc.vatCurrency.taxTotal, doc.vatCurrency.currency)}
                <span class="hint inline">(1 ${c} = ${doc.vatCurrency.exchangeRate} ${doc.vatCurrency.currency})</span>
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
  const what = [
    unrated > 0 ? `the VAT rate is not set (${unrated === 1 ? 'one line counts' : `${unrated} lines count`} no VAT yet)` : '',
    unexplained ? 'the reason for the exemption (category E) is not set' : '',
  ]
    .filter(Boolean)
    .join(', and ');
  return html`<div class="notice" role="status">
    Tax not set: ${what}. Set it in the <a href="${paths.settings}/workspace">invoicing settings</a> (Settings › Workspace) before issuing:
    issuing refuses until it is set, then takes it.
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
  return html`<p class="crumbs"><a href="${paths.invoices}">Invoices</a></p>
    <h1>New invoice</h1>
    <p class="hint">
      The client's billable, completed entries that start in the range (days in your time zone, ${zone}, both included, as your Reports read
      them) and are on no invoice yet become the lines. Preview shows what it would be; Create draft writes it and marks those entries
      invoiced. A draft has no number until it is issued.
    </p>
    ${formError ? html`<div class="notice error" role="alert">${formError}</div>` : ''}
    <form class="stack wide new-invoice" method="post" action="${paths.invoices}/new" aria-label="New invoice">
      ${csrfField(session.csrfToken)}
      ${
        clients.length === 0
          ? html`<p class="notice error">
              There are no clients yet: add one on the <a href="${paths.app}/catalog">Catalog</a> page, with its projects.
            </p>`
          : ''
      }
      ${select(
        'invoice-client',
        'clientId',
        'Client',
        form.clientId,
        clients.map((c) => [c.id, c.name] as [string, string]),
        errors,
      )}
      <fieldset class="range" ${range ? html`aria-describedby="invoice-range-error"` : ''}>
        <legend>Range</legend>
        <div class="two">
          <div class="field">
            <label for="invoice-from">From</label>
            <input id="invoice-from" type="date" name="from" value="${form.from}" required ${range ? html`aria-invalid="true"` : ''} />
          </div>
          <div class="field">
            <label for="invoice-to">To (included)</label>
            <input id="invoice-to" type="date" name="to" value="${form.to}" required ${range ? html`aria-invalid="true"` : ''} />
          </div>
        </div>
        ${range ? html`<span class="field-error" id="invoice-range-error">${range}</span>` : ''}
      </fieldset>
      ${select('invoice-group', 'groupBy', 'Lines', form.groupBy, GROUPINGS, errors)}
      <div class="field">
        <label for="invoice-note">Note <span class="hint inline">(printed on the invoice; optional)</span></label>
        <textarea id="invoice-note" name="note" rows="2" maxlength="1000" ${invalidAt('invoice-note', errors.note)}>${form.note}</textarea>
        ${errorAt('invoice-note', errors.note)}
      </div>
      <div class="actions">
        <button type="submit" name="intent" value="preview" class="secondary">Preview</button>
        <button type="submit" name="intent" value="create">Create draft</button>
      </div>
    </form>
    ${
      preview
        ? html`<section class="preview" aria-labelledby="preview-heading">
            <h2 id="preview-heading">Preview <span class="hint inline">(nothing written yet)</span></h2>
            <p>
              ${preview.entryCount} ${preview.entryCount === 1 ? 'entry' : 'entries'} from ${preview.from} to ${preview.to} (days in
              ${preview.timeZone}), for ${String(preview.recipient.name ?? preview.recipient.legalName ?? 'the client')}, in
              ${preview.currency}.
            </p>
            ${waitingNotice(preview.waiting)}
            ${
              preview.rounding
                ? html`<p class="rounded-rule">
                    Each entry rounded ${roundingWords(preview.rounding.rule)} before the lines are made:
                    ${clockOf(preview.rounding.workedSec)} tracked, ${clockOf(preview.rounding.billedSec)} invoiced.
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
  const renew =
    invoice.status === 'draft'
      ? 'void this draft (it uses no number) and create it again'
      : 'void this invoice (its credit note cancels it) and issue a new one';
  const kept =
    slot?.state === 'fixed' && slot.because === 'handed-out'
      ? html`; this invoice keeps ${String(slot.value)}, which went out in a document of it: ${renew}`
      : slot?.state === 'fixed' && slot.because === 'made-with'
        ? html`; this invoice keeps ${String(slot.value)}, which it was made with: ${renew}`
        : '';
  const verb = slot?.state === 'correctable' ? 'correct' : 'fill';
  const fillHere =
    fillAt === null ? html`${verb} it below for this invoice` : html`${verb} it for this invoice on <a href="${fillAt}">its page</a>`;
  const fill = editable ? html`, or ${fillHere}` : kept;
  switch (m.where) {
    case 'business-profile':
      return html`set it in the <a href="${paths.settings}/workspace">business profile</a> (for new invoices)${fill}`;
    case 'client':
      return html`set it on the client in the <a href="${paths.app}/catalog">Catalog</a> (for new invoices)${fill}`;
    case 'fill':
      return editable ? fillHere : html`it cannot be filled on this invoice`;
    case 'issue':
      return html`issue the invoice first`;
  }
}

/** A party as the invoice names it: address and identifiers. */
function partySection(title: string, p: Record<string, unknown> | null): Html {
  return html`<section class="party">
    <h2>${title}</h2>
    ${
      p === null
        ? html`<p class="hint">Not set.</p>`
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
                ['VAT ID', p.vatId],
                ['Tax number', p.taxNumber],
                ['Reference', p.reference],
                ['Contact', p.contactName],
                ['Email', p.email],
                ['Phone', p.phone],
                [
                  'Electronic address',
                  p.electronicAddress
                    ? `${p.electronicAddress as string}${p.electronicAddressScheme ? ` (${p.electronicAddressScheme as string})` : ''}`
                    : null,
                ],
                ['IBAN', p.iban],
                ['BIC', p.bic],
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
        <h2 id="actions-heading">Actions</h2>
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
        <p class="hint">Each asks you to confirm first.</p>
      </section>`
    : '';
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
          <strong>${m.label}</strong> <span class="hint inline">(${m.bt}, <code>${m.path}</code>)</span>:
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
  const draft =
    invoice.status === 'draft'
      ? html`<p class="hint">
          Once issued, this invoice will have these documents. Issuing checks its PDF first, as its download will, and refuses, before any
          number is taken, while it lacks a value; an e-invoice's values may also be set or filled after issuing.
        </p>`
      : '';
  const why = plain
    ? html`<div class="notice" role="status" id="plain-pdf">
        <strong>A plain PDF, without e-invoice.</strong> This invoice’s issuer has no VAT ID, register entry or seller identifier (BT-31,
        BT-30, BT-29), and every e-invoice (XRechnung, Peppol, the XML inside a Factur-X PDF) must identify the seller by one of them. A
        small business under § 19 UStG need not issue e-invoices (§ 34a UStDV), so its PDF carries none. To have the e-invoices too, enter
        your VAT ID, your register entry or a seller identifier in the <a href="${paths.settings}/workspace">business profile</a>
        (Settings › Workspace › Invoice issuer) for the invoices made from then
        on${invoice.status === 'void' ? '' : ', or fill one below for this invoice'}.
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
    const name = `${d.creditNote ? 'Credit note: ' : ''}${formatLabel(d.format, d.plain)}`;
    const einvoice = d.format !== 'pdf';
    const none = einvoice && d.plain;
    const ready = d.missing.length === 0 && d.problem === null;
    const lacks = `${d.missing.length} ${d.missing.length === 1 ? 'value' : 'values'}`;
    const taxMissing = (d.taxMissing ?? []).length > 0;
    const refusedText =
      d.problem !== null ? 'refused' : draft && einvoice ? `will lack ${lacks}` : d.missing.length > 0 ? `missing ${lacks}` : 'VAT not set';
    const readyText = draft ? (einvoice ? 'ready once issued' : 'ready to issue') : 'ready';
    const badge = none
      ? html`<span class="badge bad">no e-invoice</span>`
      : ready && !(draft && taxMissing)
        ? html`<span class="badge good">${readyText}</span>`
        : html`<span class="badge bad">${refusedText}</span>`;
    // A draft's PDF: what issuing will say, then the draft itself to look at.
    const issueSays =
      draft && !einvoice && !ready
        ? html`<p class="hint">Issuing refuses until ${d.missing.length > 0 ? 'these are set' : 'this is resolved'}:</p>`
        : draft && !einvoice && taxMissing
          ? html`<p class="hint">Issuing refuses until the VAT is set (above).</p>`
          : '';
    const download =
      draft && einvoice
        ? ''
        : draft
          ? html` <a class="button secondary" href="${href}" download>Download the draft<span class="vh"> ${name}</span></a>
              <span class="hint inline">marked DRAFT, without number</span>`
          : ready
            ? html` <a class="button secondary" href="${href}" download>Download<span class="vh"> ${name}</span></a>`
            : '';
    return html`<li class="document ${ready && !none ? 'ready' : 'missing'}">
      <span class="doc-name">${name}</span>
      ${badge}${download} ${issueSays} ${d.problem !== null ? html`<p class="refused">${d.problem}</p>` : ''}
      ${
        none
          ? html`<span class="hint inline">It needs your VAT ID, register entry or seller identifier first (above).</span>`
          : d.missing.length > 0
            ? missingItems(paths, invoice, d.missing, slotOf)
            : ''
      }
    </li>`;
  });
}

/** What a value of a fill is, as the form names it (its EN 16931 number in brackets). */
const FILL_LABELS: Record<string, string> = {
  'issuer.electronicAddress': 'Seller electronic address (BT-34)',
  'issuer.electronicAddressScheme':
    'Seller electronic address scheme (BT-34-1): an EAS code such as 0204 Leitweg-ID, 9930 German VAT ID, 0088 GLN or EM email',
  'recipient.electronicAddress': 'Buyer electronic address (BT-49)',
  'recipient.electronicAddressScheme':
    'Buyer electronic address scheme (BT-49-1): an EAS code such as 0204 Leitweg-ID, 9930 German VAT ID, 0088 GLN or EM email',
  'recipient.reference': 'Buyer reference (BT-10)',
  'recipient.vatId': 'Buyer VAT ID (BT-48)',
  'recipient.legalName': 'Buyer name (BT-44)',
  'recipient.email': 'Buyer email',
  'issuer.vatId': 'Seller VAT ID (BT-31)',
  'issuer.contactName': 'Seller contact (BT-41)',
  'issuer.phone': 'Seller telephone (BT-42)',
  'issuer.email': 'Seller email (BT-43)',
  'issuer.iban': 'IBAN (BT-84)',
  paymentTerms: 'Payment terms (BT-20)',
};

/** A day and time as the page shows it, in the viewer's zone. */
const shownAt = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toFormat('d LLL yyyy, HH:mm');

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
  return html`<p><strong>This invoice cannot be issued yet; no number was taken.</strong></p>
    ${refused.taxPeople ? html`<p>${refused.taxPeople}</p>` : ''}
    ${
      refused.missing.length > 0
        ? html`<p>Its PDF would lack these values:</p>
            ${missingItems(paths, invoice, refused.missing, slotOf, `${paths.invoices}/${invoice.id}#fill-heading`)}`
        : ''
    }
    ${refused.problem ? html`<p>${refused.problem}</p>` : ''}
    <p>Set them, then issue it again.</p>`;
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
    return FILL_LABELS[path] ?? (m ? `${m.label} (${m.bt})` : path);
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
    <h2 id="fill-heading">${missing ? 'Fill missing e-invoice values' : 'E-invoice values filled on this invoice'}</h2>
    <p class="hint">
      A fill adds a value this invoice lacks, for its documents only; it changes no amount. A value filled here can be corrected until a
      document carrying it is downloaded or sent by mail; after that, void the invoice and issue a new one. Leave a field as it is to skip
      it. For the next invoices, set the value in the business profile or on the client instead.
    </p>
    ${state.errors.form ? html`<div class="notice error" role="alert">${state.errors.form}</div>` : ''}
    <form class="stack wide" method="post" action="${base}/fill" aria-label="E-invoice values">
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
                  ? html`Went out in a document of this invoice (downloaded or sent by
                    mail${slot.handedOutAt ? `, last ${shownAt(slot.handedOutAt, zone)}` : ''}): it can no longer change. To correct it,
                    void this invoice and issue a new one.`
                  : slot.because === 'amounts'
                    ? 'It makes the invoice’s amounts, which a fill never changes.'
                    : slot.because === 'due-date'
                      ? 'The invoice’s due date follows from it.'
                      : 'The invoice was made with it.'
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
              ? html`<span class="hint" id="${id}-filled"
                  >Filled ${shownAt(slot.filledAt, zone)}; no document carrying it went out yet, so it can still be corrected.</span
                >`
              : ''
          }
          ${errorAt(id, state.errors[path])}
        </div>`;
      })}
      ${editable.length > 0 ? html`<div class="actions"><button type="submit">Save values</button></div>` : ''}
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
    ...outline.ready.map((f) => [f, `${FORMAT_LABEL[f]} (XML)`] as [string, string]),
    ['none', 'None: the PDF alone'],
  ];
  const heading = creditNote ? 'Send the credit note by mail' : 'Send by mail';
  return html`<section class="send" aria-labelledby="send-heading">
    <h2 id="send-heading">${heading}</h2>
    ${errors.form ? html`<div class="notice error" role="alert">${errors.form}</div>` : ''}
    ${
      outline.enabled
        ? html`<form class="stack wide mail-form" method="post" action="${base}/send" aria-label="${heading}">
            ${csrfField(session.csrfToken)}
            <div class="field">
              <label for="send-to">To</label>
              <input id="send-to" type="email" name="to" value="${form.to}" autocomplete="email" ${invalidAt('send-to', errors.to)} />
              ${errors.to ? errorAt('send-to', errors.to) : html`<p class="hint">The client's email as stored on the invoice; type another address to send it there.</p>`}
            </div>
            ${select('send-xml', 'xml', 'E-invoice beside the PDF', form.xml, options, errors)}
            ${receiptsField(outline.receipts, form.withReceipts, errors.withReceipts)}
            <div class="mail-preview" role="group" aria-labelledby="mail-preview-heading">
              <p class="mail-preview-title" id="mail-preview-heading">The mail, as it will be sent</p>
              <dl class="facts compact mail-head">
                <dt>From</dt>
                <dd>${outline.from.name}${outline.from.address ? html` &lt;${outline.from.address}&gt;` : ''}</dd>
                <dt>Reply-To</dt>
                <dd>
                  ${
                    outline.replyTo ??
                    html`<span class="hint inline"
                      >none: replies go to ${outline.from.address ?? 'the server'}. Set the issuer's email (Settings › Workspace › Invoice
                      issuer) for the next invoices.</span
                    >`
                  }
                </dd>
                <dt>Subject</dt>
                <dd>${outline.subject}</dd>
              </dl>
              <div class="mail-body">
                ${inputField(
                  'send-greeting',
                  html`Greeting <span class="hint inline">(the mail's first line; empty: none)</span>`,
                  html`name="greeting"`,
                  form.greeting,
                  errors.greeting,
                  html`maxlength="${MAX_SEND_GREETING}" autocomplete="off"`,
                )}
                <p class="mail-text">${outline.opening}</p>
                <div class="field">
                  <label for="send-message">Your message <span class="hint inline">(optional; its own paragraph here)</span></label>
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
        : html`<p class="hint">Mail is not set up on this server: download the documents above and send them yourself.</p>`
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
  return html`<section class="sends" aria-labelledby="sends-heading">
    <h2 id="sends-heading">Sent by mail</h2>
    <div class="scroll">
      <table class="rows sends">
        ${columnHeads(['When', 'What', 'To', 'Files', 'By', 'Delivery'])}
        <tbody>
          ${sends.map(
            (x) =>
              html`<tr>
                <td data-label="When" class="c-time">${DateTime.fromISO(x.at, { zone }).toFormat('yyyy-MM-dd HH:mm')}</td>
                <td data-label="What">${x.document === 'credit-note' ? 'Credit note' : 'Invoice'}</td>
                <td data-label="To">${x.to}</td>
                <td data-label="Files">${x.files.join(', ')}</td>
                <td data-label="By">${x.by.name ?? x.by.userId}</td>
                <td data-label="Delivery">
                  ${
                    x.delivery === null
                      ? html`<span class="hint inline">no longer in the mail log</span>`
                      : html`<span class="badge ${x.delivery === 'sent' ? 'good' : x.delivery === 'failed' ? 'bad' : ''}"
                          >${x.delivery}</span
                        >`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${mailPage ? html`<p class="hint">The relay's answers are on the <a href="${mailPage}">Mail page</a>.</p>` : ''}
  </section>`;
}

/** With approval on (decisions §13): the range's billable time still waiting for approval, which the invoice does not take. */
export function waitingNotice(waiting: { entries: number; seconds: number } | null | undefined): Html | string {
  if (!waiting || waiting.entries === 0) return '';
  const time = `${Math.floor(waiting.seconds / 3600)}:${String(Math.floor((waiting.seconds % 3600) / 60)).padStart(2, '0')} h`;
  return html`<p class="notice waiting" role="status">
    ${time} of billable time in this range (${waiting.entries} ${waiting.entries === 1 ? 'entry' : 'entries'}) still waits for approval: it
    is not on this invoice, which takes approved time only. Once approved, it goes on a later invoice.
  </p>`;
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
  const takes = canManage && invoice.status === 'sent';
  if (!takes && state.payments.length === 0) return '';
  const { form, errors } = state;
  // Sums in whole cents: what arrived, and the early-payment discount a payment settled it with.
  const cents = (pick: (p: InvoicePaymentView) => number) => state.payments.reduce((sum, p) => sum + Math.round(pick(p) * 100), 0);
  const discount = cents((p) => p.discount) / 100;
  // A paid invoice marked paid before payments were recorded has none: all of it (less a discount) was paid.
  const paid = invoice.status === 'paid' ? invoice.grossTotal - discount : cents((p) => p.amount) / 100;
  return html`<section class="payments" aria-labelledby="payments-heading">
    <h2 id="payments-heading">Payments</h2>
    ${
      state.payments.length === 0
        ? html`<p class="hint">No payment recorded yet.</p>`
        : html`<div class="scroll">
            <table class="rows payments">
              <thead>
                <tr>
                  <th scope="col">Received on</th>
                  <th scope="col" class="num">Amount</th>
                  <th scope="col">Note</th>
                  <th scope="col">Recorded by</th>
                </tr>
              </thead>
              <tbody>
                ${state.payments.map(
                  (p) =>
                    html`<tr>
                      <td data-label="Received on" class="c-time">${p.date}</td>
                      <td data-label="Amount" class="num">
                        ${money(p.amount, c)}
                        ${p.discount > 0 ? html`<span class="hint inline">+ ${money(p.discount, c)} early-payment discount</span>` : ''}
                      </td>
                      <td data-label="Note">${p.note ?? ''}</td>
                      <td data-label="Recorded by">${p.by.name ?? p.by.userId}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <dl class="facts compact totals">
      <dt>Total</dt>
      <dd class="num">${money(invoice.grossTotal, c)}</dd>
      <dt>Paid</dt>
      <dd class="num">${money(paid, c)}</dd>
      ${
        discount > 0
          ? html`<dt>Early-payment discount</dt>
              <dd class="num">${money(discount, c)}</dd>`
          : ''
      }
      <dt>Still due</dt>
      <dd class="num"><strong>${money(invoice.amountDue, c)}</strong></dd>
    </dl>
    ${
      takes
        ? html`${errors.form ? html`<div class="notice error" role="alert">${errors.form}</div>` : ''}
            <form class="stack payment-form" method="post" action="${base}/payments" aria-label="Record a payment">
              ${csrfField(session.csrfToken)}
              <div class="two">
                ${inputField('payment-amount', `Amount received (${c})`, html`name="amount" inputmode="decimal" required`, form.amount, errors.amount)}
                ${inputField('payment-date', 'Received on', html`type="date" name="date" required`, form.date, errors.date)}
              </div>
              ${inputField(
                'payment-note',
                html`Note <span class="hint inline">(optional, e.g. the bank's reference)</span>`,
                html`name="note" maxlength="${MAX_PAYMENT_NOTE}"`,
                form.note,
                errors.note,
              )}
              <p class="hint">
                At most what is still due. When nothing is left to pay, the invoice is paid on that day. The day is the one the money
                arrived (a calendar day; today in your time zone is prefilled).
              </p>
              <div class="actions"><button type="submit">Record payment</button></div>
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
  return html`<p class="crumbs"><a href="${paths.invoices}">Invoices</a></p>
    <div class="report-head">
      <h1>${titleOf(invoice)} ${statusBadge(invoice.status)}</h1>
    </div>
    ${fillRefused} ${invoice.status === 'draft' ? html`${waitingNotice(options.waiting)} ${taxNotice(paths, invoice)}` : ''}
    <dl class="facts invoice-facts">
      <dt>Client</dt>
      <dd>${clientNameOf(invoice)}</dd>
      <dt>Number</dt>
      <dd>${invoice.number ?? 'none yet (given when issued)'}</dd>
      <dt>Issue date</dt>
      <dd>${invoice.issueDate ?? '–'}</dd>
      <dt>Due date</dt>
      <dd>${invoice.dueDate ?? '–'}</dd>
      ${
        invoice.paidDate
          ? html`<dt>Paid on</dt>
              <dd>${invoice.paidDate}</dd>`
          : ''
      }
      <dt>Service period</dt>
      <dd>${invoice.from} – ${invoice.to} <span class="hint inline">(days in ${invoice.timeZone})</span></dd>
      <dt>Amount due</dt>
      <dd><strong>${money(invoice.amountDue, c)}</strong></dd>
      ${
        invoice.paymentTerms
          ? html`<dt>Payment terms</dt>
              <dd>${invoice.paymentTerms}</dd>`
          : ''
      }
      ${
        invoice.creditNote
          ? html`<dt id="credit-note">Credit note</dt>
              <dd>${invoice.creditNote.number} of ${invoice.creditNote.issueDate}</dd>`
          : ''
      }
      ${
        invoice.note
          ? html`<dt>Note</dt>
              <dd>${invoice.note}</dd>`
          : ''
      }
      <dt>Language</dt>
      <dd>${invoice.language === 'de' ? 'German' : 'English'}</dd>
      <dt>Rounding</dt>
      <dd>
        ${options.rounding === null ? 'none: the time as tracked' : `each entry ${roundingWords(options.rounding)}`}
        <span class="hint inline">(as it was made; the settings changed later do not change it)</span>
      </dd>
    </dl>
    ${actions} ${paymentsSection(base, session, invoice, options.canManage, options.payments)}
    <section class="documents" aria-labelledby="documents-heading">
      <h2 id="documents-heading">Documents</h2>
      ${documentsIntro(paths, invoice, options.documents)}
      <ul class="documents">
        ${docRows}
      </ul>
    </section>
    ${options.send ? sendSection(base, session, options.send) : ''}
    ${sendsSection(options.sends, options.zone, options.canManage ? `${paths.settings}/mail` : null)} ${options.reminders ?? ''} ${fill}
    <div class="parties">
      ${partySection('From', invoice.issuer as Record<string, unknown> | null)}
      ${partySection('To', invoice.recipient as Record<string, unknown> | null)}
    </div>
    ${figures(invoice, lineForm ? { base, csrfToken: session.csrfToken } : null)} ${lineForm ? addLineSection(base, session, lineForm) : ''}`;
}

/** What the Add a line form holds: as sent (or empty), with its refusals at their fields. */
export interface LineForm {
  values: Record<string, string>;
  errors: FieldErrors;
}

const UNIT_CHOICES: ReadonlyArray<[string, string]> = LINE_UNITS.map((u) => [u.code, u.name]);
const TAX_CHOICES: ReadonlyArray<[string, string]> = [
  ['', 'The invoice’s own VAT'],
  ['S', 'Standard rate, at the rate below'],
  ['Z', 'Zero rated (Z)'],
];

/** A draft's Add a line form (owners): a manual line, not time (decisions §12), after its other lines. */
function addLineSection(base: string, session: SessionView, form: LineForm): Html {
  const v = (name: string) => form.values[name] ?? '';
  const e = form.errors;
  return html`<section class="add-line" aria-labelledby="add-line-heading">
    <h2 id="add-line-heading">Add a line</h2>
    <p class="hint">
      Something that is not time: a fixed fee, a licence, travel. Its net is quantity × price, rounded once to the cent. Without a VAT of
      its own it takes the invoice’s; a client’s reverse charge or export still wins.
    </p>
    ${e.form ? html`<div class="notice error" role="alert">${e.form}</div>` : ''}
    <form class="stack wide" method="post" action="${base}/lines" aria-label="Add a line">
      ${csrfField(session.csrfToken)}
      ${labelledInput('line-description', 'description', 'Description', v('description'), e, html`maxlength="500" required`)}
      <div class="two">
        ${labelledInput('line-quantity', 'quantity', 'Quantity', v('quantity'), e, html`inputmode="decimal" required`)}
        ${select('line-unit', 'unit', 'Unit', v('unit') || 'C62', UNIT_CHOICES, e)}
      </div>
      ${labelledInput('line-price', 'unitPrice', 'Price per unit (net)', v('unitPrice'), e, html`inputmode="decimal" required`)}
      <div class="two">
        ${select('line-tax', 'taxCategory', 'VAT', v('taxCategory'), TAX_CHOICES, e)}
        ${labelledInput('line-rate', 'taxRate', 'VAT rate (%)', v('taxRate'), e, html`inputmode="decimal"`)}
      </div>
      <button type="submit">Add line</button>
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
  const gross = money(invoice.grossTotal, invoice.currency);
  // An invoice in another currency than the issuer's VAT currency states its VAT in both: issuing takes the rate
  // (not when it carries no VAT: issue 56 item 10), and the field stays to show a refusal about it.
  const vatCurrency =
    action !== 'issue' ? null : (asksExchangeRate(invoice) ?? (errors.exchangeRate !== undefined ? otherVatCurrency(invoice) : null));
  const what: Record<Action, Html> = {
    issue: html`<p>
      Issue this draft for ${clientNameOf(invoice)} (${gross})? It gets the next number of the workspace's series and this date, and its due
      date follows from the payment terms. After issuing, nothing of it changes but its status, its paid date and e-invoice fills.
    </p>`,
    pay: html`<p>Mark ${invoice.number ?? 'this invoice'} (${gross}) as paid? Paid is final: it can no longer be voided.</p>`,
    void:
      invoice.status === 'draft'
        ? html`<p>Void this draft? Its entries are released (they can be invoiced again) and it uses no number.</p>`
        : html`<p>
            Void ${invoice.number ?? 'this invoice'} (${gross})? It gets a credit note with the next number of the series, dated today,
            referring to it; its entries are released. Both stay downloadable. This cannot be undone.
          </p>`,
  };
  const dateLabel = ACTIONS[action].dateLabel;
  return html`<p class="crumbs"><a href="${paths.invoices}">Invoices</a> › <a href="${base}">${titleOf(invoice)}</a></p>
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
              html`Exchange rate: ${vatCurrency} per ${invoice.currency}
                <span class="hint"
                  >This invoice is in ${invoice.currency}; its VAT is also stated in ${vatCurrency}, the issuer's VAT currency. How many
                  ${vatCurrency} one ${invoice.currency} is worth on the issue date, e.g. 1.0634 (in Germany the monthly rate of the Federal
                  Ministry of Finance).</span
                >`,
              html`name="exchangeRate" inputmode="decimal" required`,
              exchangeRate,
              errors.exchangeRate,
            )
          : ''
      }
      <div class="actions">
        <button type="submit" class="${action === 'void' ? 'danger' : ''}">${ACTIONS[action].label}</button>
        <a class="button secondary" href="${base}">Cancel</a>
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
  return html`<p class="crumbs"><a href="${paths.invoices}">Invoices</a> › <a href="${base}">${titleOf(invoice)}</a></p>
    <h1>${state.creditNote ? 'The credit note' : titleOf(invoice)} cannot be made as ${FORMAT_LABEL[state.format]} yet</h1>
    ${
      none
        ? html`<p>
              This invoice has a plain PDF and no e-invoice: its issuer has no VAT ID, register entry or seller identifier (BT-31, BT-30,
              BT-29), and every e-invoice must identify the seller by one of them (EN 16931, BR-CO-26). A small business under § 19 UStG
              need not issue e-invoices (§ 34a UStDV). To have this format, enter one of them first:
            </p>
            ${missingItems(paths, invoice, identifier, slotOf, `${base}#fill-heading`)}
            ${others.length > 0 ? html`<p>It also lacks these values:</p>` : ''}`
        : html`<p>It lacks these values; no file is made that the format's rules would reject:</p>`
    }
    ${others.length > 0 ? missingItems(paths, invoice, others, slotOf, `${base}#fill-heading`) : ''}
    <p><a href="${base}">Back to ${titleOf(invoice)}</a></p>`;
}
