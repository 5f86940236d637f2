import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import { formats, t } from '../../i18n/index.js';
import type { ExpenseInput, ExpenseView, ReceiptFile } from '../../modules/expenses/service.js';
import { MAX_RECEIPT_BYTES } from '../../modules/expenses/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { isFormRefusal, refusal } from '../kit/refusal.js';
import { readerZone } from '../kit/respond.js';
import { csrfOk } from '../session/csrf.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { createUploadPlaces } from '../../threads/uploads.js';
import { appPage } from './page.js';

/*
 * The Expenses page (issue 57 item 1; decisions §12): a member adds what they spent for a project
 * with an optional receipt, lists a month's (in their zone) by project, edits and deletes their
 * own, and downloads a receipt. The expenses service decides who sees and changes what (money
 * rules of entries; an invoiced one is locked); this page only translates forms and its answers.
 */

/** A form as it was sent: its text fields, its receipt file when one was chosen, and whether one was sent but not kept (no place free). */
interface SentForm {
  values: Record<string, string>;
  file: ReceiptFile | null;
  dropped: boolean;
}

/**
 * Receipts read at once (issue 57), each held in memory up to 10 MB while its form is read (it is
 * stored whole in the database in one write): at most 2 per member and 6 in all (60 MB). A form
 * that finds no place free is read without its file and shown again, saying so.
 */
const RECEIPT_UPLOADS = { perMember: 2, total: 6 };

/** What a refused form shows again: what was typed, the messages at their fields, whether a file was chosen. */
interface Refused {
  values: Record<string, string>;
  errors: FieldErrors;
  fileSent: boolean;
}

const FIELDS = ['_csrf', 'day', 'description', 'amount', 'projectId', 'billable', 'taxCategory', 'taxRate', 'removeReceipt'];

/**
 * Reads a multipart form into memory: its text fields and at most one file, kept only after this
 * session's token came before it (the form puts it first). A file over the receipts' limit is cut
 * one byte past it, so that the service refuses it as too large with its own words.
 */
async function readForm(req: Request, deps: WebDeps, signed: SignedIn, keepFile = true): Promise<SentForm> {
  const values: Record<string, string> = {};
  let file: ReceiptFile | null = null;
  let dropped = false;
  const unreadable = () =>
    new DomainError('invalid', 'The form could not be read (it was cut off, or is not a form). Try again.', {
      people: t('errors.formRefusedBody'),
    });
  const tokenOk = () => csrfOk(req, deps.config, signed, values._csrf ?? '');
  let parser: ReturnType<typeof busboy>;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: FIELDS.length, fieldSize: 2_000, fileSize: MAX_RECEIPT_BYTES + 1 },
      defParamCharset: 'utf8',
    });
  } catch {
    throw unreadable();
  }
  parser.on('field', (name, value) => {
    if (FIELDS.includes(name)) values[name] = value;
  });
  parser.on('file', (_name, stream, info) => {
    // A request cut off mid-file (the client went away) errs the file's stream too: the pipeline
    // below answers it; unheard here, the error would end the process.
    stream.on('error', () => {});
    if (!tokenOk()) return void stream.resume();
    if (!keepFile) {
      // No place free: the file streams past, kept nowhere; the form says to choose it again.
      dropped = (info.filename ?? '') !== '';
      return void stream.resume();
    }
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const bytes = Buffer.concat(chunks);
      // A form whose file input was left empty sends a part without a name or bytes: no receipt.
      if (bytes.length > 0 || (info.filename ?? '') !== '') file = { name: info.filename ?? '', bytes };
    });
  });
  try {
    await pipeline(req, parser);
  } catch {
    throw unreadable();
  }
  if (!tokenOk())
    throw new DomainError('forbidden', 'The form was out of date or came from another site.', { people: t('errors.formRefusedBody') });
  return { values, file, dropped };
}

/** An expense's fields as the service takes them, from what a form sent. */
const inputOf = (values: Record<string, string>): ExpenseInput => ({
  day: values.day ?? '',
  description: values.description ?? '',
  amount: values.amount ?? '',
  projectId: values.projectId ?? '',
  billable: values.billable ?? '',
  taxCategory: values.taxCategory ?? '',
  taxRate: values.taxCategory === 'S' ? (values.taxRate ?? '') : '',
});

/** An amount as a form field shows it: two decimals, the reader's decimal sign, no grouping (the service reads `12,90` and `12.90`). */
const amountField = (amount: number): string =>
  new Intl.NumberFormat(formats().locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false }).format(amount);

/** An expense's values as its edit form starts with them. */
const valuesOf = (e: ExpenseView): Record<string, string> => ({
  day: e.day,
  description: e.description,
  amount: amountField(e.amount),
  projectId: e.projectId,
  billable: e.billable ? 'true' : 'false',
  taxCategory: e.tax?.category ?? '',
  taxRate: e.tax?.category === 'S' ? String(e.tax.rate) : '',
});

const taxWords = (e: ExpenseView): string =>
  e.tax === null
    ? t('expenses.invoiceTax')
    : e.tax.category === 'Z'
      ? t('expenses.zeroRated')
      : t('expenses.ownTax', { rate: formats().decimal(e.tax.rate) });

const moneyOf = (e: ExpenseView) => formats().money(e.amount, e.currency);

function selectField(
  id: string,
  name: string,
  label: string,
  value: string,
  options: ReadonlyArray<[string, string]>,
  errors: FieldErrors,
  attrs: Html | string = '',
): Html {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <select id="${id}" name="${name}" ${attrs} ${invalidAt(id, errors[name])}>
      ${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`)}
    </select>
    ${errorAt(id, errors[name])}
  </div>`;
}

function inputField(id: string, name: string, label: string, value: string, errors: FieldErrors, attrs: Html | string, hint = ''): Html {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <input id="${id}" name="${name}" value="${value}" ${attrs} ${invalidAt(id, errors[name])} />
    ${hint ? html`<span class="hint">${hint}</span>` : ''} ${errorAt(id, errors[name])}
  </div>`;
}

/** The fields of the add and edit forms (the file's input last: a refused form cannot keep it, so it says so). */
function expenseFields(
  prefix: string,
  values: Record<string, string>,
  errors: FieldErrors,
  projects: Array<{ id: string; name: string }>,
  currency: string,
  creating: boolean,
  receipt: { current: ExpenseView['receipt']; href: string } | null,
  fileSent: boolean,
): Html {
  const receiptHint = [
    t('expenses.receiptHint'),
    receipt?.current ? t('expenses.receiptReplace') : '',
    fileSent ? t('expenses.receiptAgain') : '',
  ]
    .filter((s) => s !== '')
    .join(' ');
  return html`<div class="grid">
    ${inputField(`${prefix}-day`, 'day', t('expenses.day'), values.day ?? '', errors, html`type="date" required`)}
    ${inputField(`${prefix}-description`, 'description', t('expenses.description'), values.description ?? '', errors, html`maxlength="500" required`)}
    ${inputField(
      `${prefix}-amount`,
      'amount',
      t('expenses.amount'),
      values.amount ?? '',
      errors,
      html`inputmode="decimal" required`,
      t('expenses.amountHint', { currency }),
    )}
    ${selectField(
      `${prefix}-projectId`,
      'projectId',
      t('expenses.project'),
      values.projectId ?? '',
      [['', t('expenses.chooseProject')], ...projects.map((p) => [p.id, p.name] as [string, string])],
      errors,
      html`required`,
    )}
    ${selectField(
      `${prefix}-billable`,
      'billable',
      t('expenses.billable'),
      values.billable ?? '',
      [
        ...(creating ? [['', t('expenses.billableProject')] as [string, string]] : []),
        ['true', t('expenses.billableYes')],
        ['false', t('expenses.billableNo')],
      ],
      errors,
    )}
    ${selectField(
      `${prefix}-taxCategory`,
      'taxCategory',
      t('expenses.tax'),
      values.taxCategory ?? '',
      [
        ['', t('expenses.taxInvoice')],
        ['S', t('expenses.taxS')],
        ['Z', t('expenses.taxZ')],
      ],
      errors,
    )}
    ${inputField(`${prefix}-taxRate`, 'taxRate', t('expenses.taxRate'), values.taxRate ?? '', errors, html`inputmode="decimal"`)}
    <div class="field">
      <label for="${prefix}-receipt">${t('expenses.receipt')}</label>
      ${
        receipt?.current
          ? html`<span><a href="${receipt.href}" download>${receipt.current.fileName}</a></span>
              <label class="check"><input type="checkbox" name="removeReceipt" value="yes" /> ${t('expenses.removeReceipt')}</label>`
          : ''
      }
      <input
        id="${prefix}-receipt"
        type="file"
        name="receipt"
        accept="application/pdf,image/png,image/jpeg,image/webp"
        ${invalidAt(`${prefix}-receipt`, errors.receipt)}
      />
      <span class="hint">${receiptHint}</span> ${errorAt(`${prefix}-receipt`, errors.receipt)}
    </div>
  </div>`;
}

/** The month a listing shows: `YYYY-MM` as asked, else the reader's current month in their zone. */
const monthOf = (asked: unknown, zone: string, now: number): string =>
  typeof asked === 'string' && /^\d{4}-\d{2}$/.test(asked) ? asked : DateTime.fromMillis(now, { zone }).toFormat('yyyy-MM');

const shiftMonth = (month: string, by: number): string =>
  DateTime.fromISO(`${month}-01`, { zone: 'UTC' }).plus({ months: by }).toFormat('yyyy-MM');

/** The list's table: a row per expense with its receipt and what may be done with it, and the total per currency. */
function table(base: string, expenses: ExpenseView[], session: SessionView, monthName: string): Html {
  const f = formats();
  const totals = new Map<string, number>();
  for (const e of expenses) totals.set(e.currency, (totals.get(e.currency) ?? 0) + Math.round(e.amount * 100));
  const others = expenses.some((e) => e.authorId !== session.userId);
  const label = {
    day: t('expenses.day'),
    description: t('expenses.description'),
    project: t('expenses.project'),
    by: t('expenses.by'),
    amount: t('expenses.amount'),
    tax: t('expenses.tax'),
    billable: t('expenses.billable'),
    receipt: t('expenses.receipt'),
    status: t('expenses.status'),
  };
  return html`<div class="scroll">
    <table class="rows expenses">
      <caption class="vh">
        ${t('expenses.caption', { month: monthName })}
      </caption>
      <thead>
        <tr>
          <th scope="col">${label.day}</th>
          <th scope="col">${label.description}</th>
          <th scope="col">${label.project}</th>
          ${others ? html`<th scope="col">${label.by}</th>` : ''}
          <th scope="col" class="num">${label.amount}</th>
          <th scope="col">${label.tax}</th>
          <th scope="col">${label.billable}</th>
          <th scope="col">${label.receipt}</th>
          <th scope="col">${label.status}</th>
        </tr>
      </thead>
      <tbody>
        ${expenses.map(
          (e) =>
            html`<tr id="expense-${e.id}">
              <td data-label="${label.day}" class="c-time">${f.date(e.day)}</td>
              <td data-label="${label.description}">${e.description}</td>
              <td data-label="${label.project}">
                ${e.projectName}${e.clientName ? html` <span class="hint">· ${e.clientName}</span>` : ''}
              </td>
              ${others ? html`<td data-label="${label.by}">${e.authorName}</td>` : ''}
              <td data-label="${label.amount}" class="num">${moneyOf(e)}</td>
              <td data-label="${label.tax}">${taxWords(e)}</td>
              <td data-label="${label.billable}">${e.billable ? t('expenses.yes') : t('expenses.no')}</td>
              <td data-label="${label.receipt}">
                ${e.receipt ? html`<a href="${base}/${e.id}/receipt" download>${e.receipt.fileName}</a>` : t('expenses.none')}
              </td>
              <td data-label="${label.status}">
                ${
                  e.invoiceId !== null
                    ? t('expenses.invoiced')
                    : e.authorId === session.userId
                      ? html`${t('expenses.open')} · <a href="${base}/${e.id}">${t('expenses.edit')}</a>`
                      : t('expenses.open')
                }
              </td>
            </tr>`,
        )}
      </tbody>
      <tfoot>
        ${[...totals].map(
          ([currency, cents]) =>
            html`<tr>
              <th scope="row" colspan="${others ? '4' : '3'}">${t('expenses.total')}</th>
              <td class="num" data-label="${label.amount}"><strong>${f.money(cents / 100, currency)}</strong></td>
              <td colspan="4"></td>
            </tr>`,
        )}
      </tfoot>
    </table>
  </div>`;
}

/** The projects an expense may go on (in use), named with their client. */
function projectsOf(deps: WebDeps, session: SessionView) {
  const { services } = deps;
  const clients = new Map(services.catalog.clients.list(session.actor, {}).map((c) => [c.id, c.name]));
  return services.catalog.projects.list(session.actor, { archived: false }).map((p) => {
    const client = p.clientId === null ? undefined : clients.get(p.clientId);
    return { id: p.id, name: client ? `${p.name} · ${client}` : p.name };
  });
}

const baseOf = (deps: WebDeps) => `${deps.paths.app}/expenses`;

/** The list: the add form, the month and project asked, their expenses. */
function listPageOf(deps: WebDeps) {
  const { services } = deps;
  const base = baseOf(deps);
  const expenses = services.expenses;
  return (
    res: Response,
    signed: SignedIn,
    status: number,
    query: { month?: unknown; project?: unknown },
    refused: Refused | null,
    notice: Notice | null,
  ) => {
    const { session } = signed;
    const zone = readerZone(deps, session);
    const now = deps.clock.now();
    const month = monthOf(query.month, zone, now);
    const projectId = typeof query.project === 'string' ? query.project : '';
    const projects = projectsOf(deps, session);
    const listed = expenses.list(session.actor, { month, ...(projectId ? { projectId } : {}) });
    const monthName = formats().month(`${month}-01`);
    const today = DateTime.fromMillis(now, { zone }).toISODate() as string;
    const values = refused?.values ?? { day: month === today.slice(0, 7) ? today : `${month}-01` };
    const errors = refused?.errors ?? {};
    const link = (m: string) => `${base}?month=${m}${projectId ? `&project=${encodeURIComponent(projectId)}` : ''}`;
    res
      .status(status)
      .type('html')
      .end(
        appPage(deps, session, {
          title: t('nav.expenses'),
          current: 'expenses',
          notice,
          body: html`<h1>${t('nav.expenses')}</h1>
            <p class="hint">${t('expenses.intro')}</p>
            <section aria-labelledby="add-heading">
              <h2 id="add-heading">${t('expenses.add')}</h2>
              <form class="stack" method="post" action="${base}" enctype="multipart/form-data">
                ${csrfField(session.csrfToken)}
                ${expenseFields('new', values, errors, projects, services.accounts.membership(session.workspaceId, session.userId)?.currency ?? '', true, null, refused?.fileSent === true)}
                <div class="actions"><button type="submit">${t('expenses.addButton')}</button></div>
              </form>
            </section>
            <section aria-labelledby="list-heading">
              <h2 id="list-heading">${monthName}</h2>
              <form class="invoice-filter" method="get" action="${base}" aria-label="${t('expenses.show')}">
                <div class="field">
                  <label for="filter-month">${t('expenses.month')}</label>
                  <input id="filter-month" type="month" name="month" value="${month}" />
                </div>
                ${selectField(
                  'filter-project',
                  'project',
                  t('expenses.project'),
                  projectId,
                  [['', t('expenses.everyProject')], ...projects.map((p) => [p.id, p.name] as [string, string])],
                  {},
                )}
                <button type="submit" class="secondary">${t('expenses.show')}</button>
              </form>
              <p class="pager">
                <a href="${link(shiftMonth(month, -1))}">← ${t('expenses.previous')}</a>
                <a href="${link(shiftMonth(month, 1))}">${t('expenses.next')} →</a>
              </p>
              ${
                listed.length === 0
                  ? html`<p class="empty">
                      ${projectId ? t('expenses.emptyProject', { month: monthName }) : t('expenses.empty', { month: monthName })}
                    </p>`
                  : table(base, listed, session, monthName)
              }
            </section>`,
        }),
      );
  };
}

/** An expense's page: its form for its author (not invoiced), else its facts and why it cannot change. */
function editPageOf(deps: WebDeps) {
  const { services } = deps;
  const base = baseOf(deps);
  return (res: Response, signed: SignedIn, status: number, expense: ExpenseView, refused: Refused | null, notice: Notice | null) => {
    const { session } = signed;
    const f = formats();
    const mine = expense.authorId === session.userId;
    const locked = expense.invoiceId !== null;
    const invoiceLink =
      locked && services.invoices.visible(session.actor, session.workspaceId)
        ? html` <a href="${deps.paths.invoices}/${expense.invoiceId}">${t('expenses.lockedInvoice')}</a>`
        : '';
    const facts = html`<dl class="facts">
      <dt>${t('expenses.day')}</dt>
      <dd>${f.date(expense.day)}</dd>
      <dt>${t('expenses.description')}</dt>
      <dd>${expense.description}</dd>
      <dt>${t('expenses.project')}</dt>
      <dd>${expense.projectName}${expense.clientName ? ` · ${expense.clientName}` : ''}</dd>
      <dt>${t('expenses.by')}</dt>
      <dd>${expense.authorName}</dd>
      <dt>${t('expenses.amount')}</dt>
      <dd class="num">${moneyOf(expense)}</dd>
      <dt>${t('expenses.tax')}</dt>
      <dd>${taxWords(expense)}</dd>
      <dt>${t('expenses.billable')}</dt>
      <dd>${expense.billable ? t('expenses.yes') : t('expenses.no')}</dd>
      <dt>${t('expenses.receipt')}</dt>
      <dd>
        ${expense.receipt ? html`<a href="${base}/${expense.id}/receipt" download>${expense.receipt.fileName}</a>` : t('expenses.none')}
      </dd>
    </dl>`;
    const forms =
      locked || !mine
        ? html`<p class="hint">${locked ? t('expenses.locked') : t('expenses.colleagues')}${invoiceLink}</p>
            ${facts}`
        : html`<form class="stack" method="post" action="${base}/${expense.id}" enctype="multipart/form-data">
              ${csrfField(session.csrfToken)}
              ${expenseFields(
                'edit',
                refused?.values ?? valuesOf(expense),
                refused?.errors ?? {},
                projectsOf(deps, session),
                expense.currency,
                false,
                { current: expense.receipt, href: `${base}/${expense.id}/receipt` },
                refused?.fileSent === true,
              )}
              <div class="actions"><button type="submit">${t('expenses.save')}</button></div>
            </form>
            <form method="post" action="${base}/${expense.id}/delete" class="stack">
              ${csrfField(session.csrfToken)}
              <p class="hint">${t('expenses.deleteHint')}</p>
              <div class="actions"><button type="submit" class="danger">${t('expenses.delete')}</button></div>
            </form>`;
    res
      .status(status)
      .type('html')
      .end(
        appPage(deps, session, {
          title: t('expenses.editHeading', { day: f.date(expense.day) }),
          current: 'expenses',
          notice,
          body: html`<p><a href="${base}?month=${expense.day.slice(0, 7)}">← ${t('expenses.back')}</a></p>
            <h1>${t('expenses.editHeading', { day: f.date(expense.day) })}</h1>
            ${forms}`,
        }),
      );
  };
}

/** The Expenses page and its forms, the receipt's download. */
export function expenseRoutes(router: Router, deps: WebDeps): void {
  const base = baseOf(deps);
  const expenses = deps.services.expenses;
  const listPage = listPageOf(deps);
  const editPage = editPageOf(deps);
  const places = createUploadPlaces(RECEIPT_UPLOADS);
  /** A form's place (null: none free), and the answer a form gets when it had a file and none was free. */
  const busyNotice = (): Notice => ({
    kind: 'error',
    body: t('invoices.receiptUploads.busy', { perMember: RECEIPT_UPLOADS.perMember }),
  });
  const busyAnswer = (res: Response) => {
    res.setHeader('Retry-After', '10');
    return 429;
  };

  /** After a write: back to the list of the expense's month, at its row, with what was done. */
  const done = (res: Response, signed: SignedIn, expense: { day: string; id?: string }, said: string) => {
    deps.flashes.put(signed.secret, { kind: 'ok', body: said });
    res.redirect(303, `${base}?month=${expense.day.slice(0, 7)}${expense.id ? `#expense-${expense.id}` : ''}`);
  };

  router.get('/expenses', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    listPage(res, signed, 200, req.query, null, deps.flashes.take(signed.secret));
  });

  /**
   * A form that may carry a receipt: read with an upload place taken (none free: read without
   * its file), handled, the place given back; an error past the handler goes to the error page.
   */
  const receiptForm =
    (handle: (req: Request, res: Response, signed: SignedIn, sent: SentForm) => void) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const signed = signedOf(res) as SignedIn;
      const place = places.take(signed.session.actor.userId);
      try {
        handle(req, res, signed, await readForm(req, deps, signed, place !== null));
      } catch (error) {
        if (!req.complete) req.resume();
        next(error);
      } finally {
        place?.release();
      }
    };

  /** A refused form: its status, what was sent with the errors at their fields, and the refusal in words. */
  const refusedForm = (error: unknown, sent: SentForm): [number, Refused, Notice] => {
    if (!isFormRefusal(error)) throw error;
    const refused = refusal(error, { fallback: 'description' });
    return [
      refused.status,
      { values: sent.values, errors: refused.errors, fileSent: sent.file !== null },
      { kind: 'error', body: refused.message },
    ];
  };

  router.post(
    '/expenses',
    receiptForm((_req, res, signed, sent) => {
      const month = { month: (sent.values.day ?? '').slice(0, 7) };
      if (sent.dropped)
        return listPage(res, signed, busyAnswer(res), month, { values: sent.values, errors: {}, fileSent: true }, busyNotice());
      try {
        const made = expenses.add(signed.session.actor, inputOf(sent.values), sent.file);
        done(res, signed, made, t('expenses.added', { description: made.description, amount: moneyOf(made) }));
      } catch (error) {
        const [status, form, notice] = refusedForm(error, sent);
        listPage(res, signed, status, month, form, notice);
      }
    }),
  );

  router.get('/expenses/:id', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    const expense = expenses.get(signed.session.actor, String(req.params.id));
    editPage(res, signed, 200, expense, null, deps.flashes.take(signed.secret));
  });

  router.post(
    '/expenses/:id',
    receiptForm((req, res, signed, sent) => {
      const id = String(req.params.id);
      if (sent.dropped) {
        const expense = expenses.get(signed.session.actor, id);
        return editPage(res, signed, busyAnswer(res), expense, { values: sent.values, errors: {}, fileSent: true }, busyNotice());
      }
      try {
        const receipt = sent.file ?? (sent.values.removeReceipt === 'yes' ? null : undefined);
        const saved = expenses.update(signed.session.actor, id, inputOf(sent.values), receipt);
        done(res, signed, saved, t('expenses.saved', { description: saved.description, amount: moneyOf(saved) }));
      } catch (error) {
        const [status, form, notice] = refusedForm(error, sent);
        editPage(res, signed, status, expenses.get(signed.session.actor, id), form, notice);
      }
    }),
  );

  router.post('/expenses/:id/delete', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    const id = String(req.params.id);
    const expense = expenses.get(signed.session.actor, id);
    try {
      expenses.delete(signed.session.actor, id);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const refused = refusal(error);
      return editPage(res, signed, refused.status, expense, null, { kind: 'error', body: refused.message });
    }
    done(res, signed, { day: expense.day }, t('expenses.deleted', { description: expense.description }));
  });

  // The receipt as a download, never shown inline: its checked type, its name, no sniffing, a sandbox.
  router.get('/expenses/:id/receipt', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    const file = expenses.receipt(signed.session.actor, String(req.params.id));
    res.attachment(file.fileName);
    res.setHeader('Content-Type', file.mediaType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', 'sandbox');
    res.setHeader('Content-Length', String(file.bytes.length));
    res.status(200).end(file.bytes);
  });
}
