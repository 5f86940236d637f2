import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { DISABLE_AFTER_FAILED_DELIVERIES, REDELIVERABLE } from '../../modules/webhooks/service.js';
import { type Html, html } from '../kit/html.js';
import { columnHeads } from '../kit/tables.js';
import { noticeFor, readerZone, redirect, send, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { spoken } from '../kit/refusal.js';
import { formats, type Key, t } from '../../i18n/index.js';
import { logDay, sentence } from './sentence.js';

const PAGE_SIZE = 25;

const DONE: Record<string, Key> = {
  enabled: 'integrations.webhook.wasEnabled',
  redelivered: 'integrations.webhook.wasRedelivered',
  retried: 'integrations.webhook.wasRetried',
  deleted: 'integrations.webhook.wasDeleted',
};

/** The notice a page shows for `?done=`: one of ours only (never a property every object has, such as `constructor`). */
export const doneNotice = (done: unknown): Notice | null =>
  typeof done === 'string' && Object.hasOwn(DONE, done) ? { kind: 'ok', body: t(DONE[done] as Key) } : null;

export const status = (w: { enabled: boolean; disabledAt: string | null }, zone: string) =>
  w.enabled
    ? html`<span class="badge good">${t('integrations.webhooks.enabled')}</span>`
    : html`<span class="badge bad">${t('integrations.webhooks.disabled', { when: when(w.disabledAt, zone, '') })}</span>`;

type Delivery = ReturnType<WebDeps['services']['webhooks']['deliveryPage']>['deliveries'][number];
type Ping = ReturnType<WebDeps['services']['webhooks']['deliveryPage']>['pings'][number];

/** An instant to the second: UTC as sent, the viewer's zone once the page's script has run (UTC on hover). */
export const instant = (iso: string) =>
  html`<time datetime="${iso}" title="${logDay(iso.slice(0, 10))} ${iso.slice(11, 19)} UTC" data-local
    >${logDay(iso.slice(0, 10))} ${iso.slice(11, 19)} UTC</time
  >`;

/** A delivery's state in words. */
function deliveryStatus(d: Delivery): Html {
  const after = () =>
    t('integrations.webhook.after', { attempts: t('integrations.webhook.attempts', { count: d.attempt, n: formats().number(d.attempt) }) });
  if (d.nextAttemptAt !== null)
    return d.attempt === 0
      ? html`<span class="badge">${t('integrations.webhook.queued')}</span>`
      : html`<span class="badge bad">${t('integrations.webhook.failed')}</span> ${sentence(
            'integrations.webhook.nextTry',
            {},
            { when: instant(d.nextAttemptAt) },
          )}`;
  switch (d.status) {
    case 'success':
      return html`<span class="badge good">${t('integrations.webhook.delivered')}</span>`;
    case 'abandoned':
      return html`<span class="badge bad">${t('integrations.webhook.givenUp')}</span> ${after()}`;
    case 'redirect_not_followed':
      return html`<span class="badge bad">${t('integrations.webhook.notDelivered')}</span> ${t('integrations.webhook.redirected')}`;
    case 'cancelled':
      return html`<span class="badge bad">${t('integrations.webhook.cancelled')}</span> ${t('integrations.webhook.cancelledWhy')}`;
    case 'skipped_visibility':
      return html`<span class="badge">${t('integrations.webhook.withheld')}</span>`;
    default:
      return html`<span class="badge bad">${t('integrations.webhook.failed')}</span> ${after()}`;
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
    <table class="rows deliveries" aria-label="${t('integrations.webhook.deliveries')}">
      ${columnHeads([
        t('integrations.webhook.event'),
        t('integrations.webhook.status'),
        t('integrations.webhook.response'),
        t('integrations.webhook.attempts'),
        t('integrations.webhook.created'),
        html`<span class="vh">${t('integrations.webhook.actions')}</span>`,
      ])}
      <tbody>
        ${rows.map((r) => r.row)}
      </tbody>
    </table>
  </div>`;
}

/** The columns' names, as phones show them beside each value. */
const labels = () => ({
  event: t('integrations.webhook.event'),
  status: t('integrations.webhook.status'),
  response: t('integrations.webhook.response'),
  attempts: t('integrations.webhook.attempts'),
  created: t('integrations.webhook.created'),
});

const deliveryRow = (d: Delivery, actions: Html | string, l = labels()) =>
  html`<tr>
    <td data-label="${l.event}"><code>${d.event}</code> <span class="hint">${d.id}</span></td>
    <td data-label="${l.status}">${deliveryStatus(d)}</td>
    <td data-label="${l.response}">${response(d)}</td>
    <td data-label="${l.attempts}">${formats().number(d.attempt)}</td>
    <td data-label="${l.created}">${instant(d.createdAt)}</td>
    <td class="actions-cell">${actions === '' ? '' : html`<div class="row-actions">${actions}</div>`}</td>
  </tr>`;

const pingRow = (p: Ping, l = labels(), badge = t('integrations.webhook.testPing')) =>
  html`<tr class="ping">
    <td data-label="${l.event}"><code>ping</code> <span class="badge">${badge}</span> <span class="hint">${p.id}</span></td>
    <td data-label="${l.status}">
      ${
        p.status === 'success'
          ? html`<span class="badge good">${t('integrations.webhook.delivered')}</span>`
          : html`<span class="badge bad">${t('integrations.webhook.failed')}</span>`
      }
      <span class="hint">${t('integrations.webhook.notCounted')}</span>
    </td>
    <td data-label="${l.response}">${response(p)}</td>
    <td data-label="${l.attempts}">${formats().number(1)}</td>
    <td data-label="${l.created}">${instant(p.createdAt)}</td>
    <td class="actions-cell"></td>
  </tr>`;

type Outcome = Awaited<ReturnType<WebDeps['services']['webhooks']['ping']>>['outcome'];

/** How a test ping went, in the reader's words (the command line says it as the service does, `pingSentence`). */
function pingWords(outcome: Outcome): string {
  if (outcome.status === 'success') return t('integrations.webhook.ping.answered', { code: String(outcome.responseCode) });
  if (outcome.status !== 'failure' && outcome.status !== 'redirect_not_followed') return t('integrations.webhook.ping.notSent');
  const code = outcome.responseCode === null ? null : String(outcome.responseCode);
  switch (outcome.error) {
    case 'http_status':
      return t('integrations.webhook.ping.httpStatus', { code: code ?? t('integrations.webhook.ping.withError') });
    case 'redirect_not_followed':
      return t('integrations.webhook.ping.redirect', { code: code ?? '3xx' });
    case 'timeout':
      return t('integrations.webhook.ping.timeout');
    case 'connection_refused':
      return t('integrations.webhook.ping.refused');
    case 'tls':
      return t('integrations.webhook.ping.tls');
    case 'blocked_address':
    case 'scheme_not_allowed':
    case 'unresolvable':
    case 'invalid_url':
      return t('integrations.webhook.ping.notAllowed');
    default:
      return t('integrations.webhook.ping.unreachable');
  }
}

/** Retry now for a delivery waiting for its next attempt; Redeliver only where sending again can change the outcome. */
function deliveryActions(d: Delivery, enabled: boolean, action: (path: string, label: string | Html, cls?: string) => Html): Html | string {
  if (!enabled) return '';
  if (d.nextAttemptAt !== null && d.attempt > 0)
    return action(`deliveries/${d.id}/retry`, html`${t('integrations.webhook.retryNow')}<span class="vh"> ${d.id}</span>`);
  if (d.nextAttemptAt === null && REDELIVERABLE.has(d.status))
    return action(`deliveries/${d.id}/redeliver`, html`${t('integrations.webhook.redeliver')}<span class="vh"> ${d.id}</span>`);
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
    title: t('integrations.webhook.title'),
    current: 'webhooks',
    notice,
    body: html`<p><a href="${base}/webhooks">${t('integrations.webhook.back')}</a></p>
      <dl class="facts">
        <dt>${t('integrations.webhook.url')}</dt>
        <dd>${hook.url}</dd>
        <dt>${t('integrations.webhook.status')}</dt>
        <dd>${status(hook, readerZone(deps, session))}</dd>
        <dt>${t('integrations.webhooks.events')}</dt>
        <dd>${hook.events.join(', ')}</dd>
        <dt>${t('integrations.webhooks.failures')}</dt>
        <dd>
          ${formats().number(hook.consecutiveFailures)}
          <span class="hint">${t('integrations.webhook.failuresHint', { n: formats().number(DISABLE_AFTER_FAILED_DELIVERIES) })}</span>
        </dd>
        <dt>${t('integrations.webhook.created')}</dt>
        <dd>${when(hook.createdAt, readerZone(deps, session))}</dd>
      </dl>
      <div class="actions">
        ${hook.enabled ? '' : action('enable', t('integrations.webhook.reEnable'))} ${action('ping', t('integrations.webhook.sendPing'))}
        ${action('delete', t('integrations.webhook.delete'), 'danger', t('integrations.webhook.confirmDelete'))}
      </div>
      <h2>${t('integrations.webhook.log')} <span class="hint">${t('integrations.webhook.logHint')}</span></h2>
      ${
        log.withheld > 0
          ? html`<p class="hint">${t('integrations.webhook.withheldRows', { count: log.withheld, n: formats().number(log.withheld) })}</p>`
          : ''
      }
      ${
        log.deliveries.length + log.pings.length === 0
          ? html`<p>${after ? t('integrations.webhook.noneAfter') : t('integrations.webhook.noneYet')}</p>`
          : deliveryTable(log, (d) => deliveryActions(d, hook.enabled, action))
      }
      <nav class="pager" aria-label="${t('integrations.webhook.pages')}">
        ${after ? html`<a href="${base}/webhooks/${hook.id}">${t('integrations.webhook.newest')}</a>` : ''}
        ${
          log.next
            ? html`<a href="${base}/webhooks/${hook.id}?after=${encodeURIComponent(log.next)}">${t('integrations.webhook.older')}</a>`
            : ''
        }
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
          ? {
              kind: 'ok',
              body: sentence(
                'integrations.webhook.pingDelivered',
                { why: pingWords(outcome) },
                { id: html`<code>${sent.deliveryId}</code>` },
              ),
            }
          : {
              kind: 'error',
              body: sentence('integrations.webhook.pingFailed', { why: pingWords(outcome) }, { id: html`<code>${sent.deliveryId}</code>` }),
            };
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
