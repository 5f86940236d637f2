import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import {
  DOCUMENT_FORMATS,
  type DocumentFormat,
  DocumentNotReady,
  type InvoiceInput,
  type InvoicePreview,
  type InvoiceView,
  NotReadyToIssue,
  parseExchangeRate,
  plainPdf,
} from '../../modules/invoices/service.js';
import { actorData } from '../../threads/readers/tasks.js';
import { ThreadsBusy } from '../../threads/queue.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import type { FieldErrors } from '../kit/fields.js';
import { field, sentValues } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import type { Notice } from '../kit/layout.js';
import { isFormRefusal, refusal } from '../kit/refusal.js';
import { noticeFor, redirect } from '../kit/respond.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import {
  ACTIONS,
  type Action,
  amountField,
  confirmBody,
  detailBody,
  FORMAT_LABEL,
  type LineForm,
  listBody,
  missingBody,
  newBody,
  type NewForm,
  notReadyHtml,
  type PaymentForm,
  type SendForm,
  titleOf,
} from './invoices-views.js';
import { appPage } from './page.js';
import { overdueBody, remindersSection } from './invoices-overdue.js';
import { formats, t, words } from '../../i18n/index.js';

/** The new invoice's fields as the form names them (the service's refusals carry these names). */
const NEW_FIELDS = ['clientId', 'from', 'to', 'groupBy', 'note'];

/** A notice in a page's body, under its heading. */
const noticeHtml = (notice: Notice | null): Html | string =>
  notice ? html`<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.body}</div>` : '';

/** The `Content-Disposition` of a download: the ASCII name, and the exact one for browsers that read RFC 5987. */
const disposition = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/** What every Invoices page shares: the service, where they live, who is signed in, the member's today, the clients. */
function contextOf(deps: WebDeps) {
  const { services, paths } = deps;
  const invoices = services.invoices;
  const at = paths.invoices.slice(paths.app.length);
  const sessionOf = (res: Response): SessionView => (signedOf(res) as SignedIn).session;
  const send = (res: Response, session: SessionView, status: number, title: string, body: Html) =>
    res
      .status(status)
      .type('html')
      .end(appPage(deps, session, { title, current: 'invoices', body }));
  /** The member's zone (their Profile's, else the server's): their days, and an invoice's they make. */
  const zoneOf = (session: SessionView): string => services.accounts.preferences(session.userId).timeZone ?? deps.config.serverTimeZone;
  const today = (session: SessionView): string => DateTime.fromMillis(deps.clock.now(), { zone: zoneOf(session) }).toISODate() as string;
  const clientsOf = (session: SessionView) =>
    services.catalog.clients
      .list(session.actor, {})
      .map((c) => ({ id: c.id, name: c.archived ? `${c.name} (archived)` : c.name }))
      .sort((a, b) => a.name.localeCompare(b.name));

  /** The invoice page, with a notice, or a refused fill's values and messages. */
  const showDetail = (
    res: Response,
    session: SessionView,
    invoice: InvoiceView,
    status: number,
    notice: Notice | null,
    fill: { values: Record<string, string>; errors: FieldErrors } = { values: {}, errors: {} },
    sent: { form: SendForm; errors: FieldErrors } | null = null,
    paid: { form: PaymentForm; errors: FieldErrors } | null = null,
    line: LineForm | null = null,
  ) => {
    const documents = invoices.documents(session.actor, invoice.id);
    const canManage = invoices.mayManage(session.actor, invoice.workspaceId);
    // The e-invoices of a plain PDF's invoice need a seller identifier first: that one is offered, not the rest of their values.
    const missingPaths = [
      ...new Set(
        documents.flatMap((d) =>
          d.plain && d.format !== 'pdf'
            ? d.missing.filter((m) => m.path === 'issuer.sellerIdentifier').map((m) => m.path)
            : d.missing.map((m) => m.path),
        ),
      ),
    ];
    // A reminder not sent for want of an address mail can reach (issue 57): the recipient's email is asked too.
    const skip = invoices.reminderSkip(session.actor, invoice.id);
    if (skip?.reason === 'address') missingPaths.push('recipient.email');
    // What a fill may add or correct (the invoices service's rule, fills.ts): owners only.
    const slots = canManage && invoice.status !== 'void' ? invoices.fillSlots(session.actor, invoice.id, missingPaths) : [];
    // A fill refused at a value the form does not show (posted by hand, or no longer asked) is said above the form.
    const shown = new Set(slots.map((slot) => slot.path));
    const fillErrors: FieldErrors = {};
    for (const [key, message] of Object.entries(fill.errors)) {
      const at = key === 'form' || shown.has(key) ? key : 'form';
      fillErrors[at] = fillErrors[at] ? `${fillErrors[at]} ${message}` : message;
    }
    // Send by mail (owners): an issued invoice, or a void one's credit note; the whole mail shown around the fields.
    const outline = canManage ? invoices.mailOutline(session.actor, invoice.id) : null;
    const mailing = outline
      ? {
          outline,
          form: sent?.form ?? {
            to: outline.to,
            xml: outline.ready[0] ?? 'none',
            greeting: outline.greeting,
            message: '',
            withReceipts: false,
          },
          errors: sent?.errors ?? {},
        }
      : null;
    const body = detailBody(paths, session, invoice, {
      canManage,
      documents,
      slots,
      fill: { values: fill.values, errors: fillErrors },
      today: today(session),
      send: mailing,
      sends: invoices.sends(session.actor, invoice.id),
      reminders: remindersSection(invoices.reminders(session.actor, invoice.id), zoneOf(session), invoice.currency, skip),
      zone: zoneOf(session),
      waiting: invoices.stillWaiting(session.actor, invoice.id),
      rounding: invoices.rounding(session.actor, invoice.id),
      payments: {
        payments: invoices.payments(session.actor, invoice.id),
        form: paid?.form ?? { amount: amountField(invoice.amountDue), date: today(session), note: '' },
        errors: paid?.errors ?? {},
      },
      line,
    });
    send(res, session, status, titleOf(invoice), html`${noticeHtml(notice)} ${body}`);
  };
  /** 503 while every document thread is taken: when to try again. */
  const showBusy = (res: Response, session: SessionView, invoice: InvoiceView, busy: ThreadsBusy, what: string) => {
    res.setHeader('Retry-After', String(busy.retryAfterSec));
    send(
      res,
      session,
      503,
      t('errors.busy'),
      html`<h1>${t('errors.busy')}</h1>
        <div class="notice error" role="alert">${t('invoicePage.busyDocuments', { what, count: busy.retryAfterSec })}</div>
        <p><a href="${paths.invoices}/${invoice.id}">${t('invoices.backTo', { title: titleOf(invoice) })}</a></p>`,
    );
  };
  return { deps, services, paths, invoices, at, sessionOf, send, zoneOf, today, clientsOf, showDetail, showBusy };
}
type Context = ReturnType<typeof contextOf>;

/** The list, filtered by status and client, newest first. */
function listRoutes(router: Router, ctx: Context): void {
  const { deps, paths, invoices, at, sessionOf, send, clientsOf } = ctx;
  // --- The list --------------------------------------------------------------------------------
  router.get(at, (req, res) => {
    const session = sessionOf(res);
    const text = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');
    const filter = { status: text('status'), clientId: text('clientId') };
    if (filter.status === 'overdue') {
      // The Overdue view (issue 57): sent, something due, the due date passed in the workspace's zone; the last reminder of each.
      const overdue = invoices
        .overdue(session.actor, session.workspaceId)
        .filter((o) => !filter.clientId || o.invoice.clientId === filter.clientId);
      const view = overdueBody(paths, overdue, invoices.reminderPlan(session.actor, session.workspaceId));
      const body = listBody(paths, [], clientsOf(session), filter, invoices.mayManage(session.actor, session.workspaceId), view);
      return send(res, session, 200, t('reminders.overdue.heading'), html`${noticeHtml(noticeFor(deps, signedOf(res)))} ${body}`);
    }
    const list = invoices.list(session.actor, session.workspaceId, {
      ...(filter.status ? { status: filter.status as InvoiceView['status'] } : {}),
      ...(filter.clientId ? { clientId: filter.clientId } : {}),
    });
    const body = listBody(paths, list, clientsOf(session), filter, invoices.mayManage(session.actor, session.workspaceId));
    send(res, session, 200, t('nav.invoices'), html`${noticeHtml(noticeFor(deps, signedOf(res)))} ${body}`);
  });
}

/** A new invoice: its form (last month by default), the preview, the draft. */
function newRoutes(router: Router, ctx: Context): void {
  const { deps, paths, invoices, at, sessionOf, send, zoneOf, today, clientsOf } = ctx;
  // --- A new invoice: preview, then create -----------------------------------------------------
  const showNew = (
    res: Response,
    session: SessionView,
    status: number,
    form: NewForm,
    errors: FieldErrors,
    preview: InvoicePreview | null,
    formError: Html | string | null,
  ) =>
    send(
      res,
      session,
      status,
      t('invoices.new'),
      newBody(paths, session, clientsOf(session), form, errors, preview, formError, zoneOf(session)),
    );

  router.get(`${at}/new`, (_req, res) => {
    const session = sessionOf(res);
    invoices.requireMaker(session.actor, session.workspaceId);
    // Last month in the member's zone: the usual invoice.
    const month = DateTime.fromISO(today(session)).minus({ months: 1 });
    const clients = clientsOf(session);
    const form: NewForm = {
      clientId: clients[0]?.id ?? '',
      from: month.startOf('month').toISODate() as string,
      to: month.endOf('month').toISODate() as string,
      groupBy: 'project',
      note: '',
    };
    showNew(res, session, 200, form, {}, null, null);
  });

  router.post(`${at}/new`, async (req, res, next) => {
    const session = sessionOf(res);
    const form: NewForm = {
      clientId: field(req, 'clientId'),
      from: field(req, 'from').trim(),
      to: field(req, 'to').trim(),
      groupBy: field(req, 'groupBy') || 'project',
      note: field(req, 'note'),
    };
    const input: InvoiceInput = {
      workspaceId: session.workspaceId,
      clientId: form.clientId,
      from: form.from,
      to: form.to,
      groupBy: form.groupBy as NonNullable<InvoiceInput['groupBy']>,
      note: form.note.trim() === '' ? null : form.note,
    };
    try {
      if (field(req, 'intent') === 'create') {
        const { id } = invoices.create(session.actor, input);
        return redirect(res, `${paths.invoices}/${id}`, {
          deps,
          signed: signedOf(res),
          notice: { kind: 'ok', body: t('invoicePage.new.created') },
        });
      }
      // The preview reads the range's entries and makes their lines on a reader thread, never here (issue 44 L6).
      const preview = await deps.readers.invoicePreview({
        actor: actorData(session.actor),
        input,
        now: deps.clock.now(),
        requestId: `app-${randomUUID()}`,
      });
      showNew(res, session, 200, form, {}, preview, null);
    } catch (error) {
      if (error instanceof ThreadsBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return showNew(res, session, 503, form, {}, null, t('invoicePage.busyPreview', { count: error.retryAfterSec }));
      }
      // A client not found is about the client field too (the API would answer 404).
      if (!(error instanceof DomainError) || !(error.code === 'invalid' || error.code === 'conflict' || error.field === 'clientId'))
        return next(error);
      const refused = refusal(error);
      const known = refused.field !== null && NEW_FIELDS.includes(refused.field);
      const formError = known
        ? null
        : html`${refused.message} <br /><span class="hint"
              >${t('invoicePage.settingsAreWorkspace')}
              <a href="${paths.settings}/workspace">${t('nav.settings')} › ${t('nav.workspace')}</a>.</span
            >`;
      showNew(res, session, refused.status, form, known ? refused.errors : {}, null, formError);
    }
  });
}

/** An invoice's page, its actions (confirmed first) and its e-invoice fills. */
function detailRoutes(router: Router, ctx: Context): void {
  const { deps, paths, invoices, at, sessionOf, send, today, showDetail } = ctx;
  // --- An invoice --------------------------------------------------------------------------------
  router.get(`${at}/:id`, (req, res) => {
    const session = sessionOf(res);
    const invoice = invoices.get(session.actor, req.params.id as string);
    showDetail(res, session, invoice, 200, noticeFor(deps, signedOf(res)));
  });

  // --- Actions: a confirmation page (GET), then the move (POST with the session's CSRF token) ------
  /** What an action did, in the reader's words and formats (said when the action is done, in its request's language). */
  const day = (value: string | null) => (value === null ? '' : formats().date(value));
  const DONE: Record<Action, (invoice: InvoiceView) => string> = {
    issue: (i) => t('invoicePage.done.issued', { number: i.number ?? '', date: day(i.issueDate), due: day(i.dueDate) }),
    pay: (i) => t('invoicePage.done.paid', { number: i.number ?? t('invoicePage.done.theInvoice'), date: day(i.paidDate) }),
    void: (i) =>
      i.creditNote
        ? t('invoicePage.done.voided', {
            number: i.number ?? t('invoicePage.done.theInvoice'),
            creditNote: i.creditNote.number,
            date: day(i.creditNote.issueDate),
          })
        : t('invoicePage.done.voidedDraft'),
  };
  for (const action of Object.keys(ACTIONS) as Action[]) {
    router.get(`${at}/:id/${action}`, (req, res) => {
      const session = sessionOf(res);
      const invoice = invoices.get(session.actor, req.params.id as string);
      invoices.requireMaker(session.actor, invoice.workspaceId);
      if (!ACTIONS[action].from.includes(invoice.status)) return void res.redirect(303, `${paths.invoices}/${invoice.id}`);
      const date = typeof req.query.date === 'string' && req.query.date !== '' ? req.query.date : today(session);
      send(
        res,
        session,
        200,
        `${ACTIONS[action].label}: ${titleOf(invoice)}`,
        confirmBody(paths, session, invoice, action, date, {}, null),
      );
    });

    router.post(`${at}/:id/${action}`, (req, res, next) => {
      const session = sessionOf(res);
      const id = req.params.id as string;
      const date = field(req, 'date').trim();
      const rate = action === 'issue' ? field(req, 'exchangeRate').trim() : '';
      const options = ACTIONS[action].dateLabel && date !== '' ? { date } : {};
      try {
        if (action === 'issue')
          invoices.issue(session.actor, id, { ...options, ...(rate === '' ? {} : { exchangeRate: parseExchangeRate(rate) }) });
        else if (action === 'pay') invoices.markPaid(session.actor, id, options);
        else invoices.void(session.actor, id, options);
      } catch (error) {
        if (!isFormRefusal(error)) return next(error);
        const invoice = invoices.get(session.actor, id);
        const refused = refusal(error);
        // Issuing refused before a number was taken (issue 56 item 1): the confirmation again, each value to set above it.
        if (error instanceof NotReadyToIssue) {
          const slots = invoices.fillSlots(
            session.actor,
            id,
            error.missing.map((m) => m.path),
          );
          const slotOf = (path: string) => slots.find((slot) => slot.path === path);
          const body = confirmBody(paths, session, invoice, action, date, {}, notReadyHtml(paths, invoice, error, slotOf), rate);
          return send(res, session, refused.status, `${ACTIONS[action].label}: ${titleOf(invoice)}`, body);
        }
        // The move is allowed but its date was refused: the confirmation again, the message at the date.
        if (ACTIONS[action].from.includes(invoice.status)) {
          // A refusal about the date goes at the date, one about the exchange rate at the rate; one about the tax settings above the form.
          const dated = ACTIONS[action].dateLabel !== null && refused.field !== 'tax';
          const atRate = error.field === 'exchangeRate';
          const body = confirmBody(
            paths,
            session,
            invoice,
            action,
            date,
            atRate ? { exchangeRate: refused.message } : dated ? { date: refused.message } : {},
            atRate || dated ? null : refused.message,
            rate,
          );
          return send(res, session, refused.status, `${ACTIONS[action].label}: ${titleOf(invoice)}`, body);
        }
        // Not a move from where the invoice stands (issued twice, a draft paid, a paid one voided).
        return showDetail(res, session, invoice, refused.status, { kind: 'error', body: refused.message });
      }
      const invoice = invoices.get(session.actor, id);
      redirect(res, `${paths.invoices}/${id}`, { deps, signed: signedOf(res), notice: { kind: 'ok', body: DONE[action](invoice) } });
    });
  }

  // --- E-invoice fills: values the invoice lacks, added; values a fill added, corrected until they went out ---
  router.post(`${at}/:id/fill`, (req, res, next) => {
    const session = sessionOf(res);
    const id = req.params.id as string;
    const values = sentValues(req);
    delete values._csrf;
    // The form shows the values as they are: only what was typed anew is sent (blank fields are skipped).
    const before = new Map(invoices.fillSlots(session.actor, id, Object.keys(values)).map((slot) => [slot.path, slot]));
    const assignments = Object.entries(values)
      .map(([path, value]) => [path, value.trim()] as [string, string])
      .filter(([path, value]) => value !== '' && value !== String(before.get(path)?.value ?? ''));
    try {
      if (assignments.length === 0)
        throw new DomainError('invalid', 'Type at least one value to fill; empty fields are skipped.', {
          words: words('invoicePage.fill.nothingTyped'),
        });
      invoices.fill(session.actor, id, undefined, assignments);
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const refused = refusal(error, { fallback: 'form' });
      // A refusal about a value the form does not show goes above the form.
      const errors = refused.field !== null && refused.field in values ? refused.errors : { form: refused.message };
      return showDetail(res, session, invoices.get(session.actor, id), refused.status, null, { values, errors });
    }
    const corrected = assignments.filter(([path]) => before.get(path)?.state === 'correctable').map(([path]) => path);
    const filled = assignments.filter(([path]) => !corrected.includes(path)).map(([path]) => path);
    redirect(res, `${paths.invoices}/${id}`, {
      deps,
      signed: signedOf(res),
      notice: {
        kind: 'ok',
        body: [filled.length > 0 ? `Filled ${filled.join(', ')}.` : '', corrected.length > 0 ? `Corrected ${corrected.join(', ')}.` : '']
          .filter(Boolean)
          .join(' '),
      },
    });
  });
}

/** Payments: recorded against an issued invoice by its owners; the last one makes it paid (issue 57). */
function paymentRoutes(router: Router, ctx: Context): void {
  const { deps, paths, invoices, at, sessionOf, showDetail } = ctx;
  const PAYMENT_FIELDS = ['amount', 'date', 'note'];
  router.post(`${at}/:id/payments`, (req, res, next) => {
    const session = sessionOf(res);
    const id = req.params.id as string;
    const form: PaymentForm = { amount: field(req, 'amount'), date: field(req, 'date').trim(), note: field(req, 'note') };
    let paid: ReturnType<typeof invoices.pay>;
    try {
      paid = invoices.pay(session.actor, id, { amount: form.amount, note: form.note, ...(form.date === '' ? {} : { date: form.date }) });
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const answer = refusal(error, { fallback: 'form' });
      const invoice = invoices.get(session.actor, id);
      // An invoice that takes no payment (a draft, paid, void): there is no form to show it at.
      if (invoice.status !== 'sent' || !invoices.mayManage(session.actor, invoice.workspaceId))
        return showDetail(res, session, invoice, answer.status, { kind: 'error', body: answer.message });
      const errors = answer.field !== null && PAYMENT_FIELDS.includes(answer.field) ? answer.errors : { form: answer.message };
      return showDetail(res, session, invoice, answer.status, null, undefined, null, { form, errors });
    }
    const f = formats();
    const said = { amount: f.money(paid.amount, paid.currency), date: f.date(paid.date) };
    redirect(res, `${paths.invoices}/${id}`, {
      deps,
      signed: signedOf(res),
      notice: {
        kind: 'ok',
        body:
          paid.status === 'paid'
            ? t('invoicePage.payments.recordedPaid', said)
            : t('invoicePage.payments.recorded', { ...said, due: f.money(paid.amountDue, paid.currency) }),
      },
    });
  });
}

/** A draft's manual lines (decisions §12): the Add a line form and each line's Remove; the invoices service decides. */
function lineRoutes(router: Router, ctx: Context): void {
  const { deps, paths, invoices, at, sessionOf, showDetail } = ctx;
  // --- A draft's manual lines (decisions §12): added after its lines, removed by their number ------------
  router.post(`${at}/:id/lines`, (req, res, next) => {
    const session = sessionOf(res);
    const id = req.params.id as string;
    const values = {
      description: field(req, 'description'),
      quantity: field(req, 'quantity'),
      unit: field(req, 'unit'),
      unitPrice: field(req, 'unitPrice'),
      taxCategory: field(req, 'taxCategory'),
      taxRate: field(req, 'taxRate'),
    };
    let added: { line: number };
    try {
      added = invoices.addLine(session.actor, id, values);
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const refused = refusal(error, { fallback: 'form' });
      // A value refused at its field; anything else (no longer a draft) above the page, what was typed kept.
      const atField = refused.field !== null && refused.field in values;
      const notice = atField ? null : { kind: 'error' as const, body: refused.message };
      const line = { values, errors: atField ? refused.errors : {} };
      return showDetail(res, session, invoices.get(session.actor, id), refused.status, notice, undefined, null, null, line);
    }
    redirect(res, `${paths.invoices}/${id}`, {
      deps,
      signed: signedOf(res),
      notice: { kind: 'ok', body: t('invoicePage.addLine.added', { line: added.line, description: values.description.trim() }) },
    });
  });
  router.post(`${at}/:id/lines/remove`, (req, res, next) => {
    const session = sessionOf(res);
    const id = req.params.id as string;
    const line = Number(field(req, 'line'));
    try {
      invoices.removeLine(session.actor, id, line);
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      return showDetail(res, session, invoices.get(session.actor, id), refusal(error).status, {
        kind: 'error',
        body: refusal(error).message,
      });
    }
    redirect(res, `${paths.invoices}/${id}`, {
      deps,
      signed: signedOf(res),
      notice: { kind: 'ok', body: t('invoicePage.addLine.removed', { line }) },
    });
  });
}

/** The documents: the invoices service checks and makes them (on the document threads); the page only translates. */
function documentRoutes(router: Router, ctx: Context): void {
  const { paths, invoices, at, sessionOf, send, showBusy } = ctx;
  // --- Documents: downloaded as attachments ------------------------------------------------------
  const download = async (req: Request, res: Response, next: NextFunction, extension: 'pdf' | 'xml') => {
    const session = sessionOf(res);
    const invoice = invoices.get(session.actor, req.params.id as string);
    const asked = typeof req.query.format === 'string' ? req.query.format : extension === 'pdf' ? 'pdf' : '';
    const fits = (DOCUMENT_FORMATS as readonly string[]).includes(asked) && (asked === 'pdf') === (extension === 'pdf');
    const creditNoteParam = typeof req.query.creditNote === 'string' ? req.query.creditNote : '0';
    if (!fits || !['0', '1'].includes(creditNoteParam)) {
      const message = !fits
        ? `Unknown document format ${JSON.stringify(asked)} for document.${extension}: ${extension === 'pdf' ? 'document.pdf takes format=pdf' : `document.xml takes format=${DOCUMENT_FORMATS.filter((f) => f !== 'pdf').join(', format=')}`}.`
        : `creditNote must be 1 (the credit note) or 0 (the invoice); got ${JSON.stringify(creditNoteParam)}.`;
      return send(
        res,
        session,
        400,
        'Unknown document',
        html`<h1>Unknown document</h1>
          <div class="notice error" role="alert">${message}</div>
          <p><a href="${paths.invoices}/${invoice.id}">${t('invoices.backTo', { title: titleOf(invoice) })}</a></p>`,
      );
    }
    let made: Awaited<ReturnType<typeof invoices.document>>;
    try {
      made = await invoices.document(session.actor, invoice.id, asked, { creditNote: creditNoteParam === '1' });
    } catch (error) {
      if (error instanceof DocumentNotReady) {
        // 409: the request is right, the invoice is not ready for it; filling the values resolves it.
        const canFill = invoices.mayManage(session.actor, invoice.workspaceId) && invoice.status !== 'void';
        const format = error.format;
        return send(
          res,
          session,
          409,
          t('invoicePage.plain.cannotMakeTitle', { format: FORMAT_LABEL[format] }),
          missingBody(
            paths,
            invoice,
            { format, creditNote: error.creditNote, missing: error.missing, plain: plainPdf(invoice) },
            canFill
              ? invoices.fillSlots(
                  session.actor,
                  invoice.id,
                  error.missing.map((m) => m.path),
                )
              : [],
          ),
        );
      }
      if (error instanceof ThreadsBusy) return showBusy(res, session, invoice, error, t('invoicePage.busyDownload'));
      return next(error);
    }
    res.status(200);
    res.setHeader('Content-Type', made.format === 'pdf' ? 'application/pdf' : 'application/xml; charset=utf-8');
    res.setHeader('Content-Disposition', disposition(made.fileName));
    res.setHeader('Content-Length', String(made.bytes.length));
    res.end(made.bytes);
  };
  router.get(`${at}/:id/document.pdf`, (req, res, next) => download(req, res, next, 'pdf'));
  router.get(`${at}/:id/document.xml`, (req, res, next) => download(req, res, next, 'xml'));
}

/** Send by mail: the invoices service checks, makes the documents, queues the mail and records the send; the page translates. */
function sendRoutes(router: Router, ctx: Context): void {
  const { deps, paths, invoices, at, sessionOf, showDetail, showBusy } = ctx;
  /** The send's fields as the form names them; anything else is shown above the form. */
  const SEND_FIELDS = ['to', 'xml', 'greeting', 'message', 'withReceipts'];
  router.post(`${at}/:id/send`, async (req, res, next) => {
    const session = sessionOf(res);
    const id = req.params.id as string;
    const form: SendForm = {
      to: field(req, 'to'),
      xml: field(req, 'xml') || 'none',
      greeting: field(req, 'greeting'),
      message: field(req, 'message'),
      withReceipts: field(req, 'withReceipts') === 'yes',
    };
    let sent: Awaited<ReturnType<typeof invoices.send>>;
    try {
      sent = await invoices.send(session.actor, id, {
        to: form.to,
        xml: form.xml === 'none' ? null : (form.xml as DocumentFormat),
        // A form without the field (an older page) gets the language's greeting.
        greeting: 'greeting' in (req.body as object) ? form.greeting : undefined,
        message: form.message,
        ...(form.withReceipts ? { withReceipts: true } : {}),
      });
    } catch (error) {
      if (error instanceof ThreadsBusy) return showBusy(res, session, invoices.get(session.actor, id), error, t('invoicePage.busySending'));
      if (!isFormRefusal(error)) return next(error);
      const answer = refusal(error, { fallback: 'form' });
      const invoice = invoices.get(session.actor, id);
      // Not an invoice that is sent (a draft, a void draft): there is no form to show it at.
      if (!invoices.mayManage(session.actor, invoice.workspaceId) || invoices.mailOutline(session.actor, id) === null)
        return showDetail(res, session, invoice, answer.status, { kind: 'error', body: answer.message });
      const errors = answer.field !== null && SEND_FIELDS.includes(answer.field) ? answer.errors : { form: answer.message };
      return showDetail(res, session, invoice, answer.status, null, undefined, { form, errors });
    }
    redirect(res, `${paths.invoices}/${id}`, {
      deps,
      signed: signedOf(res),
      notice: {
        kind: 'ok',
        body: html`${t(sent.document === 'credit-note' ? 'invoicePage.send.queuedCreditNote' : 'invoicePage.send.queued', {
            address: sent.address,
          })} <a href="${paths.settings}/mail">${t('invoicePage.send.mailPage')}</a>.`,
      },
    });
  });
}

/**
 * The Invoices pages (decisions §11), under the app: the list, a new invoice with its preview, an
 * invoice with its actions (each confirmed on a page of its own, so it works without script),
 * its documents (made on the document threads) and its e-invoice fills. Who sees and does what
 * is the invoices service's: owners and members who see colleagues' money read, owners act,
 * anyone else gets 404 on every address.
 */
export function invoiceRoutes(router: Router, deps: WebDeps): void {
  const ctx = contextOf(deps);
  listRoutes(router, ctx);
  newRoutes(router, ctx);
  detailRoutes(router, ctx);
  paymentRoutes(router, ctx);
  lineRoutes(router, ctx);
  sendRoutes(router, ctx);
  documentRoutes(router, ctx);
}
