import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { DISABLE_AFTER_FAILED_DELIVERIES, pingSentence, REDELIVERABLE } from '../../modules/webhooks/service.js';
import { type Html, html } from '../kit/html.js';
import { columnHeads } from '../kit/tables.js';
import { noticeFor, readerZone, redirect, send, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { spoken } from '../kit/refusal.js';

const PAGE_SIZE = 25;

const DONE: Record<string, string> = {
  enabled: 'The subscription is enabled again and its failure count is cleared.',
  redelivered: 'The delivery is queued: its new attempt is made within a few seconds. Reload to see it.',
  retried: 'The delivery is due now: its next attempt is made within a few seconds. Reload to see it.',
  deleted: 'The subscription and its delivery log were deleted.',
};

/** The notice a page shows for `?done=`: one of ours only (never a property every object has, such as `constructor`). */
export const doneNotice = (done: unknown): Notice | null =>
  typeof done === 'string' && Object.hasOwn(DONE, done) ? { kind: 'ok', body: DONE[done] as string } : null;

export const status = (w: { enabled: boolean; disabledAt: string | null }, zone: string) =>
  w.enabled ? html`<span class="badge good">enabled</span>` : html`<span class="badge bad">disabled ${when(w.disabledAt, zone, '')}</span>`;

type Delivery = ReturnType<WebDeps['services']['webhooks']['deliveryPage']>['deliveries'][number];
type Ping = ReturnType<WebDeps['services']['webhooks']['deliveryPage']>['pings'][number];

/** An instant to the second: UTC as sent, the viewer's zone once the page's script has run (UTC on hover). */
export const instant = (iso: string) =>
  html`<time datetime="${iso}" title="${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC" data-local
    >${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time
  >`;

/** A delivery's state in words. */
function deliveryStatus(d: Delivery): Html {
  const attempts = `${d.attempt} attempt${d.attempt === 1 ? '' : 's'}`;
  if (d.nextAttemptAt !== null)
    return d.attempt === 0
      ? html`<span class="badge">queued</span>`
      : html`<span class="badge bad">failed</span> next try ${instant(d.nextAttemptAt)}`;
  switch (d.status) {
    case 'success':
      return html`<span class="badge good">delivered</span>`;
    case 'abandoned':
      return html`<span class="badge bad">given up</span> after ${attempts}`;
    case 'redirect_not_followed':
      return html`<span class="badge bad">not delivered</span> the receiver redirected`;
    case 'cancelled':
      return html`<span class="badge bad">cancelled</span> the subscription was disabled`;
    case 'skipped_visibility':
      return html`<span class="badge">withheld</span>`;
    default:
      return html`<span class="badge bad">failed</span> after ${attempts}`;
  }
}

/** What the receiver answered, or why nothing reached it. */
const response = (r: { responseCode: number | null; error: string | null; errorDetail: string | null }) =>
  r.error === null || r.error === 'http_status'
    ? html`${r.responseCode ?? '—'}`
    : html`${r.responseCode === null ? '' : html`${r.responseCode} `}<span class="hint">${r.errorDetail ?? r.error}</span>`;

/** The delivery log's rows (cards on phones): deliveries and test pings, newest first. */
function deliveryTable(log: { deliveries: Delivery[]; pings: Ping[] }, actions: (d: Delivery) => Html | string): Html {
  // Pings first, so that at the same instant (sort is stable) a ping, sent on request after the
  // deliveries of that instant were made, is listed as the newer.
  const rows = [
    ...log.pings.map((p) => ({ at: p.createdAt, row: pingRow(p) })),
    ...log.deliveries.map((d) => ({ at: d.createdAt, row: deliveryRow(d, actions(d)) })),
  ].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return html`<div class="scroll">
    <table class="rows deliveries" aria-label="Deliveries">
      ${columnHeads(['Event', 'Status', 'Response', 'Attempts', 'Created', html`<span class="vh">Actions</span>`])}
      <tbody>
        ${rows.map((r) => r.row)}
      </tbody>
    </table>
  </div>`;
}

const deliveryRow = (d: Delivery, actions: Html | string) =>
  html`<tr>
    <td data-label="Event"><code>${d.event}</code> <span class="hint">${d.id}</span></td>
    <td data-label="Status">${deliveryStatus(d)}</td>
    <td data-label="Response">${response(d)}</td>
    <td data-label="Attempts">${d.attempt}</td>
    <td data-label="Created">${instant(d.createdAt)}</td>
    <td class="actions-cell">${actions === '' ? '' : html`<div class="row-actions">${actions}</div>`}</td>
  </tr>`;

const pingRow = (p: Ping) =>
  html`<tr class="ping">
    <td data-label="Event"><code>ping</code> <span class="badge">test ping</span> <span class="hint">${p.id}</span></td>
    <td data-label="Status">
      ${p.status === 'success' ? html`<span class="badge good">delivered</span>` : html`<span class="badge bad">failed</span>`}
      <span class="hint">not counted toward auto-disable</span>
    </td>
    <td data-label="Response">${response(p)}</td>
    <td data-label="Attempts">1</td>
    <td data-label="Created">${instant(p.createdAt)}</td>
    <td class="actions-cell"></td>
  </tr>`;

/** Retry now for a delivery waiting for its next attempt; Redeliver only where sending again can change the outcome. */
function deliveryActions(d: Delivery, enabled: boolean, action: (path: string, label: string | Html, cls?: string) => Html): Html | string {
  if (!enabled) return '';
  if (d.nextAttemptAt !== null && d.attempt > 0) return action(`deliveries/${d.id}/retry`, html`Retry now<span class="vh"> ${d.id}</span>`);
  if (d.nextAttemptAt === null && REDELIVERABLE.has(d.status))
    return action(`deliveries/${d.id}/redeliver`, html`Redeliver<span class="vh"> ${d.id}</span>`);
  return '';
}

/** The page of one subscription: its facts, its actions and a page of its delivery log. */
function sendDetail(deps: WebDeps, req: Request, res: Response, signed: Signed, code: number, notice: Notice | null): void {
  const { services } = deps;
  const base = deps.paths.settings;
  const session = signed.session as SessionView;
  const hook = services.webhooks.get(session.actor, req.params.id as string);
  const after = typeof req.query.after === 'string' ? req.query.after : null;
  const log = services.webhooks.deliveryPage(session.actor, hook.id, { limit: PAGE_SIZE, cursor: after });
  const action = (path: string, label: string | Html, cls = 'secondary', confirm?: string) =>
    html`<form
      class="inline${cls === 'danger' ? ' apart' : ''}"
      method="post"
      action="${base}/webhooks/${hook.id}/${path}"
      ${confirm ? html`data-confirm="${confirm}"` : ''}
    >
      ${csrfField(session.csrfToken)}<button class="${cls}" type="submit">${label}</button>
    </form>`;
  send(deps, res, code, {
    ...shell(deps, signed),
    title: 'Webhook subscription',
    current: 'webhooks',
    notice,
    body: html`<p><a href="${base}/webhooks">← All your subscriptions</a></p>
      <dl class="facts">
        <dt>URL</dt>
        <dd>${hook.url}</dd>
        <dt>Status</dt>
        <dd>${status(hook, readerZone(deps, session))}</dd>
        <dt>Events</dt>
        <dd>${hook.events.join(', ')}</dd>
        <dt>Consecutive failures</dt>
        <dd>
          ${hook.consecutiveFailures}
          <span class="hint"
            >Deliveries that failed after all their attempts, in a row; at ${DISABLE_AFTER_FAILED_DELIVERIES} the subscription is disabled
            (re-enable it here). A success resets it; test pings do not count.</span
          >
        </dd>
        <dt>Created</dt>
        <dd>${when(hook.createdAt, readerZone(deps, session))}</dd>
      </dl>
      <div class="actions">
        ${hook.enabled ? '' : action('enable', 'Re-enable')} ${action('ping', 'Send test ping')}
        ${action('delete', 'Delete subscription', 'danger', 'Delete this subscription and its delivery log?')}
      </div>
      <h2>Delivery log <span class="hint">newest first, kept 30 days; times in your zone (UTC on hover)</span></h2>
      ${
        log.withheld > 0
          ? html`<p class="hint">
              ${log.withheld} ${log.withheld === 1 ? 'delivery was' : 'deliveries were'} withheld: events your visibility does not let you
              see (colleagues' time or money), or made while you were not a member. They are not listed.
            </p>`
          : ''
      }
      ${
        log.deliveries.length + log.pings.length === 0
          ? html`<p>No deliveries${after ? ' after these' : ' yet'}.</p>`
          : deliveryTable(log, (d) => deliveryActions(d, hook.enabled, action))
      }
      <nav class="pager" aria-label="Delivery log pages">
        ${after ? html`<a href="${base}/webhooks/${hook.id}">Newest</a>` : ''}
        ${log.next ? html`<a href="${base}/webhooks/${hook.id}?after=${encodeURIComponent(log.next)}">Older deliveries</a>` : ''}
      </nav>`,
  });
}

/** One subscription: its delivery log (paged), re-enable, test ping, delete and redeliver. */
export function webhookDetailPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const renderOne = (req: Request, res: Response, signed: Signed, code: number, notice: Notice | null) =>
    sendDetail(deps, req, res, signed, code, notice);

  router.get(
    '/webhooks/:id',
    signedIn(deps, (req, res, signed) => {
      renderOne(req, res, signed, 200, noticeFor(deps, signed, doneNotice(req.query.done)));
    }),
  );

  router.post(
    '/webhooks/:id/enable',
    signedIn(deps, (req, res, signed) => {
      services.webhooks.enable(signed.session.actor, req.params.id as string);
      redirect(res, `${base}/webhooks/${req.params.id as string}?done=enabled`);
    }),
  );

  router.post(
    '/webhooks/:id/delete',
    signedIn(deps, (req, res, signed) => {
      services.webhooks.delete(signed.session.actor, req.params.id as string);
      redirect(res, `${base}/webhooks?done=deleted`);
    }),
  );

  router.post(
    '/webhooks/:id/ping',
    signedIn(deps, async (req, res, signed) => {
      const id = req.params.id as string;
      let sent: Awaited<ReturnType<typeof services.webhooks.ping>>;
      try {
        sent = await services.webhooks.ping(signed.session.actor, id);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'rate_limited') throw error;
        res.setHeader('Retry-After', '10');
        return renderOne(req, res, signed, 429, { kind: 'error', body: spoken(error) });
      }
      const { outcome } = sent;
      const notice: Notice =
        outcome.status === 'success'
          ? { kind: 'ok', body: html`Ping <code>${sent.deliveryId}</code> delivered: ${pingSentence(outcome)}` }
          : { kind: 'error', body: html`Ping <code>${sent.deliveryId}</code> failed. ${pingSentence(outcome)}` };
      redirect(res, `${base}/webhooks/${id}`, { deps, signed, notice });
    }),
  );

  router.post(
    '/webhooks/:id/deliveries/:delivery/retry',
    signedIn(deps, (req, res, signed) => {
      const id = req.params.id as string;
      try {
        services.webhooks.retryNow(signed.session.actor, id, req.params.delivery as string);
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'invalid')) throw error;
        return renderOne(req, res, signed, 409, { kind: 'error', body: spoken(error) });
      }
      redirect(res, `${base}/webhooks/${id}?done=retried`);
    }),
  );

  router.post(
    '/webhooks/:id/deliveries/:delivery/redeliver',
    signedIn(deps, (req, res, signed) => {
      const id = req.params.id as string;
      services.webhooks.redeliver(signed.session.actor, id, req.params.delivery as string);
      redirect(res, `${base}/webhooks/${id}?done=redelivered`);
    }),
  );
}
