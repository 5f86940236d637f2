import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { pingSentence, REDELIVERABLE } from '../../modules/webhooks/service.js';
import { type Html, html } from '../html.js';
import { noticeFor, redirect, send, type SettingsDeps, shell, type Signed } from '../kit.js';
import { csrfField, type Notice, when } from '../layout.js';
import { signedIn } from './guard.js';

const PAGE_SIZE = 25;

const DONE: Record<string, string> = {
  enabled: 'The subscription is enabled again and its failure count is cleared.',
  redelivered: 'The delivery is queued: its new attempt is made within a few seconds. Reload to see it.',
  deleted: 'The subscription and its delivery log were deleted.',
};

/** The notice a page shows for `?done=`: one of ours only (never a property every object has, such as `constructor`). */
export const doneNotice = (done: unknown): Notice | null =>
  typeof done === 'string' && Object.hasOwn(DONE, done) ? { kind: 'ok', body: DONE[done] as string } : null;

export const status = (w: { enabled: boolean; disabledAt: string | null }) =>
  w.enabled ? html`<span class="badge good">enabled</span>` : html`<span class="badge bad">disabled ${when(w.disabledAt, '')}</span>`;

/** The page of one subscription: its facts, its actions and a page of its delivery log. */
function sendDetail(deps: SettingsDeps, req: Request, res: Response, signed: Signed, code: number, notice: Notice | null): void {
  const { base, services } = deps;
  const session = signed.session as SessionView;
  const hook = services.webhooks.get(session.actor, req.params.id as string);
  const after = typeof req.query.after === 'string' ? req.query.after : null;
  const log = services.webhooks.deliveryPage(session.actor, hook.id, { limit: PAGE_SIZE, cursor: after });
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
      ${
        log.withheld > 0
          ? html`<p class="hint">
              ${log.withheld} ${log.withheld === 1 ? 'delivery was' : 'deliveries were'} withheld: events your visibility does not let you
              see (colleagues' time or money), or made while you were not a member. They are not listed.
            </p>`
          : ''
      }
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
        ${log.next ? html`<a href="${base}/webhooks/${hook.id}?after=${encodeURIComponent(log.next)}">Older deliveries</a>` : ''}
      </nav>`,
  });
}

/** One subscription: its delivery log (paged), re-enable, test ping, delete and redeliver. */
export function webhookDetailPages(router: Router, deps: SettingsDeps): void {
  const { base, services } = deps;

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
        return renderOne(req, res, signed, 429, { kind: 'error', body: error.message });
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
    '/webhooks/:id/deliveries/:delivery/redeliver',
    signedIn(deps, (req, res, signed) => {
      const id = req.params.id as string;
      services.webhooks.redeliver(signed.session.actor, id, req.params.delivery as string);
      redirect(res, `${base}/webhooks/${id}?done=redelivered`);
    }),
  );
}
