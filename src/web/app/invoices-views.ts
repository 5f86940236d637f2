import { DateTime } from 'luxon';
import {
  creditNoteOf,
  type DocumentFormat,
  type DocumentState,
  type InvoicePreview,
  type InvoiceSendView,
  type InvoiceStatus,
  type InvoiceView,
  type MailOutline,
  MAX_SEND_GREETING,
  MAX_SEND_MESSAGE,
  type MissingValue,
  otherVatCurrency,
  printedLineHours,
} from '../../modules/invoices/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { csrfField } from '../kit/layout.js';
import type { WebPaths } from '../paths.js';

/*
 * What the Invoices pages show (decisions §11): the list, the new invoice with its preview, an
 * invoice with its actions, documents and e-invoice fills, the confirmation of an action, and
 * the page of a document that cannot be made. Pure: values in, HTML out.
 */

export const STATUSES: readonly InvoiceStatus[] = ['draft', 'sent', 'paid', 'void'];
const STATUS_LABEL: Record<InvoiceStatus, string> = { draft: 'Draft', sent: 'Issued', paid: 'Paid', void: 'Void' };
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

/** The actions an owner takes on an invoice, by the status they start from. */
export type Action = 'issue' | 'pay' | 'void';
export const ACTIONS: Record<Action, { from: readonly InvoiceStatus[]; label: string; dateLabel: string | null }> = {
  issue: { from: ['draft'], label: 'Issue', dateLabel: 'Issue date' },
  pay: { from: ['sent'], label: 'Mark paid', dateLabel: 'Paid on' },
  void: { from: ['draft', 'sent'], label: 'Void', dateLabel: null },
};

const moneyFormats = new Map<string, Intl.NumberFormat>();
/** An amount in its currency: `EUR 1,190.00`. */
export const money = (amount: number, currency: string): string => {
  let format = moneyFormats.get(currency);
  if (!format) moneyFormats.set(currency, (format = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' })));
  return format.format(amount);
};
/** A line's hours as its PDF prints them: exact enough that hours × rate gives its net. */
const hours = (l: InvoiceView['lines'][number]) => `${printedLineHours(l)} h`;
const percent = (rate: number | undefined) => (rate === undefined ? '' : `${rate} %`);

/** The invoice's name as people say it: its number, or "Draft" (with its client). */
export const titleOf = (invoice: InvoiceView) => (invoice.number === null ? 'Draft invoice' : `Invoice ${invoice.number}`);
const clientNameOf = (invoice: InvoiceView) => invoice.recipient?.name ?? invoice.recipient?.legalName ?? invoice.clientId;
export const statusBadge = (status: InvoiceStatus) =>
  html`<span class="badge status-${status} ${status === 'paid' ? 'good' : status === 'void' ? 'bad' : ''}">${STATUS_LABEL[status]}</span>`;

function select(
  id: string,
  name: string,
  label: string,
  value: string,
  options: ReadonlyArray<[string, string]>,
  errors: FieldErrors,
): Html {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <select id="${id}" name="${name}" ${invalidAt(id, errors[name])}>
      ${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`)}
    </select>
    ${errorAt(id, errors[name])}
  </div>`;
}

export interface ListFilter {
  status: string;
  clientId: string;
}

/** The list: filters, the invoices newest first, an empty state that says how to make the first. */
export function listBody(
  paths: WebPaths,
  invoices: InvoiceView[],
  clients: Array<{ id: string; name: string }>,
  filter: ListFilter,
  canMake: boolean,
): Html {
  const filtered = filter.status !== '' || filter.clientId !== '';
  const empty = filtered
    ? html`<p class="empty">No invoice matches these filters. <a href="${paths.invoices}">Show all invoices</a>.</p>`
    : html`<div class="empty">
        <p><strong>No invoices yet.</strong></p>
        <p>
          An invoice is made from a client's billable, completed time of a range (say, last month): its entries become lines at their rates,
          with VAT and totals.
          ${
            canMake
              ? html`Start with <a href="${paths.invoices}/new">New invoice</a>, preview it, then create the draft and issue it.`
              : "The workspace's owners make them; you will see them here."
          }
        </p>
      </div>`;
  return html`<div class="report-head">
      <h1>Invoices</h1>
      ${canMake ? html`<a class="button" href="${paths.invoices}/new">New invoice</a>` : ''}
    </div>
    <form class="invoice-filter" method="get" action="${paths.invoices}" aria-label="Filter invoices">
      ${select('filter-status', 'status', 'Status', filter.status, [['', 'Any status'], ...STATUSES.map((s) => [s, STATUS_LABEL[s]] as [string, string])], {})}
      ${select('filter-client', 'clientId', 'Client', filter.clientId, [['', 'Every client'], ...clients.map((c) => [c.id, c.name] as [string, string])], {})}
      <button type="submit" class="secondary">Filter</button>
    </form>
    ${
      invoices.length === 0
        ? empty
        : html`<div class="scroll">
            <table class="rows invoices">
              <caption class="vh">
                Invoices and credit notes, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Client</th>
                  <th scope="col">Period</th>
                  <th scope="col">Status</th>
                  <th scope="col">Issued</th>
                  <th scope="col">Due</th>
                  <th scope="col" class="num">Net</th>
                  <th scope="col" class="num">Gross</th>
                  <th scope="col" class="num">Due amount</th>
                </tr>
              </thead>
              <tbody>
                ${invoices.map((i) => {
                  const row = html`<tr>
                    <td data-label="Number"><a href="${paths.invoices}/${i.id}">${i.number ?? 'Draft'}</a></td>
                    <td data-label="Client">${clientNameOf(i)}</td>
                    <td data-label="Period" class="c-time">${i.from} – ${i.to}</td>
                    <td data-label="Status">${statusBadge(i.status)}</td>
                    <td data-label="Issued" class="c-time">${i.issueDate ?? '–'}</td>
                    <td data-label="Due" class="c-time">${i.dueDate ?? '–'}</td>
                    <td data-label="Net" class="num">${money(i.netTotal, i.currency)}</td>
                    <td data-label="Gross" class="num">${money(i.grossTotal, i.currency)}</td>
                    <td data-label="Due amount" class="num">${money(i.amountDue, i.currency)}</td>
                  </tr>`;
                  // A credit note is a document of its own: a row above the invoice it cancels (it is the newer of the two).
                  const note = creditNoteOf(i);
                  return note
                    ? html`<tr class="credit-note">
                          <td data-label="Number"><a href="${paths.invoices}/${i.id}#credit-note">${note.number}</a></td>
                          <td data-label="Client">${clientNameOf(i)}</td>
                          <td data-label="Period" class="c-time">cancels ${note.invoiceNumber ?? 'the invoice'}</td>
                          <td data-label="Status"><span class="badge status-credit-note">Credit note</span></td>
                          <td data-label="Issued" class="c-time">${note.issueDate}</td>
                          <td data-label="Due" class="c-time">–</td>
                          <td data-label="Net" class="num">${money(-note.netTotal, note.currency)}</td>
                          <td data-label="Gross" class="num">${money(-note.grossTotal, note.currency)}</td>
                          <td data-label="Due amount" class="num">–</td>
                        </tr>
                        ${row}`
                    : row;
                })}
              </tbody>
            </table>
          </div>`
    }`;
}

/** The lines, the VAT breakdown and the totals of an invoice or a preview. */
function figures(
  doc: Pick<InvoiceView, 'lines' | 'currency' | 'netTotal' | 'taxTotal' | 'grossTotal'> & {
    taxBreakdown?: InvoiceView['taxBreakdown'];
    vatCurrency?: InvoiceView['vatCurrency'];
  },
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
          </tr>
        </thead>
        <tbody>
          ${doc.lines.map(
            (l) =>
              html`<tr>
                <td data-label="Description">${l.description}</td>
                <td data-label="Quantity" class="num">${hours(l)}</td>
                <td data-label="Rate" class="num">${l.hourlyRate === null ? '–' : money(l.hourlyRate, c)}</td>
                <td data-label="VAT" class="num">
                  ${l.taxCategory ?? ''}
                  ${l.taxCategory && l.taxRate === undefined ? html`<span class="badge bad">not set</span>` : percent(l.taxRate)}
                </td>
                <td data-label="Net" class="num">${money(l.amount, c)}</td>
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
        doc.vatCurrency
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
            ${waitingNotice(preview.waiting)} ${taxNotice(paths, preview)} ${figures(preview)}
          </section>`
        : ''
    }`;
}

/** Where a missing value is set, as a person reads it (with a link when it is another page). */
function whereOf(paths: WebPaths, m: MissingValue, fillable: boolean): Html {
  const fill = fillable ? html`, or fill it below for this invoice` : '';
  switch (m.where) {
    case 'business-profile':
      return html`set it in the <a href="${paths.settings}/workspace">business profile</a> (for new invoices)${fill}`;
    case 'client':
      return html`set it on the client in the <a href="${paths.app}/catalog">Catalog</a> (for new invoices)${fill}`;
    case 'fill':
      return fillable ? html`fill it below for this invoice` : html`it cannot be filled on this invoice`;
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

/** Each document: ready with its download, or each missing value with where to set it. */
function documentRows(
  paths: WebPaths,
  base: string,
  invoice: InvoiceView,
  documents: DocumentState[],
  fillable: (path: string) => boolean,
): Html[] {
  return documents.map((d) => {
    const href = `${base}/document.${d.format === 'pdf' ? 'pdf' : 'xml'}?format=${d.format}${d.creditNote ? '&creditNote=1' : ''}`;
    const name = `${d.creditNote ? 'Credit note: ' : ''}${FORMAT_LABEL[d.format]}`;
    return html`<li class="document ${d.missing.length === 0 ? 'ready' : 'missing'}">
      <span class="doc-name">${name}</span>
      ${
        d.missing.length === 0
          ? html`<span class="badge good">ready</span>
              <a class="button secondary" href="${href}" download>Download<span class="vh"> ${name}</span></a
              >${invoice.status === 'draft' && d.format === 'pdf' ? html` <span class="hint inline">marked DRAFT, without number</span>` : ''}`
          : html`<span class="badge bad">missing ${d.missing.length} ${d.missing.length === 1 ? 'value' : 'values'}</span>
              <ul class="refused">
                ${d.missing.map(
                  (m) =>
                    html`<li>
                      <strong>${m.label}</strong> <span class="hint inline">(${m.bt}, <code>${m.path}</code>)</span>:
                      ${whereOf(paths, m, fillable(m.path))}
                    </li>`,
                )}
              </ul>`
      }
    </li>`;
  });
}

/** The e-invoice fill: an input per value the invoice lacks and a fill may add. */
function fillSection(
  base: string,
  session: SessionView,
  documents: DocumentState[],
  fillPaths: string[],
  state: { values: Record<string, string>; errors: FieldErrors },
): Html | string {
  const labels = new Map(documents.flatMap((d) => d.missing.map((m) => [m.path, m] as const)));
  return fillPaths.length === 0
    ? ''
    : html`<section class="fill" aria-labelledby="fill-heading">
        <h2 id="fill-heading">Fill missing e-invoice values</h2>
        <p class="hint">
          A fill adds a value this invoice lacks, for its documents only; it changes no value already set and no amount. Leave a field empty
          to skip it. For the next invoices, set the value in the business profile or on the client instead.
        </p>
        ${state.errors.form ? html`<div class="notice error" role="alert">${state.errors.form}</div>` : ''}
        <form class="stack wide" method="post" action="${base}/fill" aria-label="Fill missing e-invoice values">
          ${csrfField(session.csrfToken)}
          ${fillPaths.map((path, n) => {
            const m = labels.get(path);
            const id = `fill-${n}`;
            return html`<div class="field">
              <label for="${id}">${m?.label ?? path} <span class="hint inline">(${m?.bt ?? ''}, ${path})</span></label>
              <input
                id="${id}"
                name="${path}"
                value="${state.values[path] ?? ''}"
                ${path === 'taxBreakdown' ? html`placeholder="lines"` : ''}
                ${invalidAt(id, state.errors[path])}
              />
              ${errorAt(id, state.errors[path])}
            </div>`;
          })}
          <div class="actions"><button type="submit">Fill</button></div>
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
                <div class="field">
                  <label for="send-greeting">Greeting <span class="hint inline">(the mail's first line; empty: none)</span></label>
                  <input
                    id="send-greeting"
                    name="greeting"
                    value="${form.greeting}"
                    maxlength="${MAX_SEND_GREETING}"
                    autocomplete="off"
                    ${invalidAt('send-greeting', errors.greeting)}
                  />
                  ${errorAt('send-greeting', errors.greeting)}
                </div>
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

/** The sends by mail of an invoice and its credit note: when (in the viewer's zone), what, to whom, by whom, and where the message stands. */
function sendsSection(sends: InvoiceSendView[], zone: string, mailPage: string | null): Html | string {
  if (sends.length === 0) return '';
  return html`<section class="sends" aria-labelledby="sends-heading">
    <h2 id="sends-heading">Sent by mail</h2>
    <div class="scroll">
      <table class="rows sends">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">To</th>
            <th scope="col">Files</th>
            <th scope="col">By</th>
            <th scope="col">Delivery</th>
          </tr>
        </thead>
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

/** The invoice as a whole: facts, parties, figures, its actions, its documents and the e-invoice fill. */
export function detailBody(
  paths: WebPaths,
  session: SessionView,
  invoice: InvoiceView,
  options: {
    canManage: boolean;
    documents: DocumentState[];
    /** The fill paths whose value is empty on the invoice (a fill may add them). */
    fillable: string[];
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
  },
): Html {
  const c = invoice.currency;
  const base = `${paths.invoices}/${invoice.id}`;
  const fillPaths = options.canManage && invoice.status !== 'void' ? options.fillable : [];
  const actions = actionsSection(base, invoice, options.canManage, options.today);
  const docRows = documentRows(paths, base, invoice, options.documents, (path) => options.canManage && options.fillable.includes(path));
  const fill = fillSection(base, session, options.documents, fillPaths, options.fill);
  // A refused fill with no fill form left to show it (every value already set): at the top.
  const fillRefused =
    fillPaths.length === 0 && options.fill.errors.form
      ? html`<div class="notice error" role="alert">${options.fill.errors.form}</div>`
      : '';
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
    </dl>
    ${actions}
    <section class="documents" aria-labelledby="documents-heading">
      <h2 id="documents-heading">Documents</h2>
      <ul class="documents">
        ${docRows}
      </ul>
    </section>
    ${options.send ? sendSection(base, session, options.send) : ''}
    ${sendsSection(options.sends, options.zone, options.canManage ? `${paths.settings}/mail` : null)} ${fill}
    <div class="parties">
      ${partySection('From', invoice.issuer as Record<string, unknown> | null)}
      ${partySection('To', invoice.recipient as Record<string, unknown> | null)}
    </div>
    ${figures(invoice)}`;
}

/** The confirmation of an action, before anything is written: what it does, its date, Confirm and Cancel. Works without script. */
export function confirmBody(
  paths: WebPaths,
  session: SessionView,
  invoice: InvoiceView,
  action: Action,
  date: string,
  errors: FieldErrors,
  formError: string | null,
  exchangeRate = '',
): Html {
  const base = `${paths.invoices}/${invoice.id}`;
  const gross = money(invoice.grossTotal, invoice.currency);
  // An invoice in another currency than the issuer's VAT currency states its VAT in both: issuing takes the rate.
  const vatCurrency = action === 'issue' ? otherVatCurrency(invoice) : null;
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
          ? html`<div class="field">
              <label for="confirm-rate"
                >Exchange rate: ${vatCurrency} per ${invoice.currency}
                <span class="hint"
                  >This invoice is in ${invoice.currency}; its VAT is also stated in ${vatCurrency}, the issuer's VAT currency. How many
                  ${vatCurrency} one ${invoice.currency} is worth on the issue date, e.g. 1.0634 (in Germany the monthly rate of the Federal
                  Ministry of Finance).</span
                ></label
              >
              <input
                id="confirm-rate"
                name="exchangeRate"
                inputmode="decimal"
                required
                value="${exchangeRate}"
                ${invalidAt('confirm-rate', errors.exchangeRate)}
              />
              ${errorAt('confirm-rate', errors.exchangeRate)}
            </div>`
          : ''
      }
      <div class="actions">
        <button type="submit" class="${action === 'void' ? 'danger' : ''}">${ACTIONS[action].label}</button>
        <a class="button secondary" href="${base}">Cancel</a>
      </div>
    </form>`;
}

/** A document that cannot be made: each missing value by name and BT number, and where to set it. */
export function missingBody(paths: WebPaths, invoice: InvoiceView, state: DocumentState, canFill: boolean): Html {
  const base = `${paths.invoices}/${invoice.id}`;
  return html`<p class="crumbs"><a href="${paths.invoices}">Invoices</a> › <a href="${base}">${titleOf(invoice)}</a></p>
    <h1>${state.creditNote ? 'The credit note' : titleOf(invoice)} cannot be made as ${FORMAT_LABEL[state.format]} yet</h1>
    <p>It lacks these values; no file is made that the format's rules would reject:</p>
    <ul class="refused">
      ${state.missing.map(
        (m) =>
          html`<li>
            <strong>${m.label}</strong> <span class="hint inline">(${m.bt}, <code>${m.path}</code>)</span>: ${whereOf(paths, m, canFill)}
          </li>`,
      )}
    </ul>
    <p><a href="${base}">Back to ${titleOf(invoice)}</a></p>`;
}
