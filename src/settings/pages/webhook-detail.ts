import type { Request, Response, Router } from 'express';
import { notFound } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { type DeliveryPosition, REDELIVERABLE, type WebhooksService } from '../../modules/webhooks/service.js';
import { type Html, html } from '../html.js';
import { noticeFor, redirect, send, type SettingsDeps, shell, type Signed } from '../kit.js';
import { csrfField, type Notice, when } from '../layout.js';
import { signedIn } from './guard.js';

const PAGE_SIZE = 25;

export const DONE: Record<string, string> = {
  enabled: 'The subscription is enabled again and its failure count is cleared.',
  redelivered: 'The delivery is queued: its new attempt is made within a few seconds. Reload to see it.',
  deleted: 'The subscription and its delivery log were deleted.',
};

export const status = (w: { enabled: boolean; disabledAt: string | null }) =>
  w.enabled ? html`<span class="badge good">enabled</span>` : html`<span class="badge bad">disabled ${when(w.disabledAt, '')}</span>`;

/** The position after a delivery, as a query parameter (`createdAt.eventSeq`). */
const positionOf = (text: unknown): DeliveryPosition | null => {
  const match = typeof text === 'string' ? /^(\d{1,15})\.(\d{1,15})$/.exec(text) : null;
  return match ? { createdAt: Number(match[1]), eventSeq: Number(match[2]) } : null;
};

type Own = (session: SessionView, id: string) => ReturnType<WebhooksService['get']>;

/** The page of one subscription: its facts, its actions and a page of its delivery log. */
function sendDetail(deps: SettingsDeps, req: Request, res: Response, signed: Signed, code: number, notice: Notice | null, own: Own): void {
  const { base, services } = deps;
  const session = signed.session as SessionView;
  const hook = own(session, req.params.id as string);
  const after = positionOf(req.query.after);
  const log = services.webhooks.deliveryPage(hook.id, PAGE_SIZE, after);
  const action = (path: string, label: string | Html, cls = 'secondary', confirm?: string) =>
    html`<form class="inline" method="post" action="${base}/webhooks/${hook.id}/${path}" ${confirm ? html`data-confirm="${confirm}"` : ''}>
      ${csrfField(session.csrfToken)}<button class="${cls}" type="submit">${label}</button>
    </form>`;
  send(res, code, {
    ...shell(deps, signed),
    title: 'Webhook subscription',
    current: 'webhooks',
    notice,
    body: html`<p><a href="${base}/webhooks">← All your subscriptions</a></p>
      <dl class="facts">
        <dt>URL</dt>
        <dd>${hook.url}</dd>
        <dt>Status</dt>
        <dd>${status(hook)}</dd>
        <dt>Events</dt>
        <dd>${hook.events.join(', ')}</dd>
        <dt>Consecutive failures</dt>
        <dd>${hook.consecutiveFailures}</dd>
        <dt>Created</dt>
        <dd>${when(hook.createdAt)}</dd>
      </dl>
      <div class="actions">
        ${hook.enabled ? '' : action('enable', 'Re-enable')} ${action('ping', 'Send test ping')}
        ${action('delete', 'Delete subscription', 'danger', 'Delete this subscription and its delivery log?')}
      </div>
      <h2>Delivery log <span class="hint">newest first, kept 30 days</span></h2>
      ${log.deliveries.length === 0 ? html`<p>No deliveries${after ? ' after these' : ' yet'}.</p>` : ''}
      <ul class="cards" aria-label="Deliveries">
        ${log.deliveries.map(
          (d) =>
            html`<li>
              <div class="card-title">
                <code>${d.event}</code>
                <span class="badge ${d.status === 'success' ? 'good' : d.status === 'pending' ? '' : 'bad'}">${d.status}</span>
              </div>
              <dl class="facts compact">
                <dt>Delivery</dt>
                <dd><code>${d.id}</code></dd>
                <dt>Attempts</dt>
                <dd>${d.attempt}</dd>
                <dt>Response</dt>
                <dd>${d.responseCode ?? '—'}</dd>
                <dt>Error</dt>
                <dd>${d.error === null ? '—' : html`<code>${d.error}</code> ${d.errorDetail ?? ''}`}</dd>
                <dt>Next attempt</dt>
                <dd>${when(d.nextAttemptAt, '—')}</dd>
                <dt>Created</dt>
                <dd>${when(d.createdAt)}</dd>
              </dl>
              ${
                d.nextAttemptAt === null && REDELIVERABLE.has(d.status) && hook.enabled
                  ? action(`deliveries/${d.id}/redeliver`, html`Redeliver<span class="vh"> ${d.id}</span>`)
                  : ''
              }
            </li>`,
        )}
      </ul>
      <nav class="pager" aria-label="Delivery log pages">
        ${after ? html`<a href="${base}/webhooks/${hook.id}">Newest</a>` : ''}
        ${log.next ? html`<a href="${base}/webhooks/${hook.id}?after=${log.next.createdAt}.${log.next.eventSeq}">Older deliveries</a>` : ''}
      </nav>`,
  });
}

/** One subscription: its delivery log (paged), re-enable, test ping, delete and redeliver. */
export function webhookDetailPages(router: Router, deps: SettingsDeps, own: Own): void {
  const { base, services } = deps;

  const renderOne = (req: Request, res: Response, signed: Signed, code: number, notice: Notice | null) =>
    sendDetail(deps, req, res, signed, code, notice, own);

  router.get(
    '/webhooks/:id',
    signedIn(deps, (req, res, signed) => {
      const done = typeof req.query.done === 'string' ? DONE[req.query.done] : undefined;
      renderOne(req, res, signed, 200, noticeFor(deps, signed, done ? { kind: 'ok', body: done } : null));
    }),
  );

  router.post(
    '/webhooks/:id/enable',
    signedIn(deps, (req, res, signed) => {
      services.webhooks.enable(own(signed.session, req.params.id as string).id);
      redirect(res, `${base}/webhooks/${req.params.id as string}?done=enabled`);
    }),
  );

  router.post(
    '/webhooks/:id/delete',
    signedIn(deps, (req, res, signed) => {
      services.webhooks.delete(own(signed.session, req.params.id as string).id);
      redirect(res, `${base}/webhooks?done=deleted`);
    }),
  );

  router.post(
    '/webhooks/:id/ping',
    signedIn(deps, async (req, res, signed) => {
      const hook = own(signed.session, req.params.id as string);
      const sent = await services.sender.ping(hook.id);
      if (!sent) throw notFound('That subscription');
      const { outcome } = sent;
      const notice: Notice =
        outcome.status === 'success'
          ? { kind: 'ok', body: html`Ping <code>${sent.deliveryId}</code> delivered: the receiver answered ${outcome.responseCode}.` }
          : {
              kind: 'error',
              body: html`Ping <code>${sent.deliveryId}</code> failed: <code>${outcome.error}</code> ${outcome.detail}`,
            };
      redirect(res, `${base}/webhooks/${hook.id}`, { deps, signed, notice });
    }),
  );

  router.post(
    '/webhooks/:id/deliveries/:delivery/redeliver',
    signedIn(deps, (req, res, signed) => {
      const hook = own(signed.session, req.params.id as string);
      services.webhooks.redeliver(hook.id, req.params.delivery as string);
      redirect(res, `${base}/webhooks/${hook.id}?done=redelivered`);
    }),
  );
}
