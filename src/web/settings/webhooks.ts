import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { DISABLE_AFTER_FAILED_DELIVERIES, EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from '../../modules/webhooks/service.js';
import { type Html, html } from '../kit/html.js';
import { field, fields } from '../kit/forms.js';
import { noticeFor, readerZone, redirect, send, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { spoken } from '../kit/refusal.js';
import { doneNotice, status, webhookDetailPages } from './webhook-detail.js';
import { secretBox } from './tokens.js';

interface CreateForm {
  url: string;
  events: string[];
}

function createForm(base: string, session: SessionView, form: CreateForm, allowPrivate: boolean): Html {
  return html`<form class="stack" method="post" action="${base}/webhooks">
    ${csrfField(session.csrfToken)}
    <div>
      <label for="webhook-url"
        >Receiver URL
        <span class="hint"
          >${
            allowPrivate
              ? 'This server allows plain http and private addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS): for local development only.'
              : 'https only; it must not resolve to a private or special-use address.'
          }</span
        ></label
      >
      <input
        id="webhook-url"
        name="url"
        type="url"
        maxlength="2000"
        required
        placeholder="https://example.org/hooks/timetrack"
        value="${form.url}"
      />
    </div>
    <fieldset>
      <legend>Events</legend>
      <label class="check"
        ><input type="checkbox" name="events" value="all" data-all-events ${form.events.includes('all') ? html`checked` : ''} />
        <span><strong>All events</strong> <span class="hint">Every event listed below.</span></span></label
      >
      ${WEBHOOK_EVENTS.map(
        (event) =>
          html`<label class="check"
            ><input type="checkbox" name="events" value="${event}" ${form.events.includes(event) ? html`checked` : ''} />
            <span><code>${event}</code> <span class="hint">${EVENT_DESCRIPTIONS[event] ?? ''}</span></span></label
          >`,
      )}
      <span class="hint"
        >What is sent follows your visibility when it is sent: colleagues' entries only if you may see their time, rates and invoices only
        if you may see their money.</span
      >
    </fieldset>
    <div><button type="submit">Create subscription</button></div>
  </form>`;
}

/** Webhook subscriptions: a member's own, with their delivery logs. */
export function webhookPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const renderList = (res: Response, signed: Signed, code: number, form: CreateForm, notice: Notice | null) => {
    const session = signed.session as SessionView;
    const hooks = services.webhooks.list(session.actor);
    send(deps, res, code, {
      ...shell(deps, signed),
      title: 'Webhooks',
      current: 'webhooks',
      notice,
      body: html`<h2>New subscription</h2>
        ${createForm(base, session, form, deps.config.webhookAllowPrivateTargets)}
        <h2>Your subscriptions</h2>
        ${hooks.length === 0 ? html`<p>You have no subscriptions in this workspace yet.</p>` : ''}
        <ul class="cards" aria-label="Your subscriptions">
          ${hooks.map(
            (w) =>
              html`<li>
                <div class="card-title">${w.url} ${status(w, readerZone(deps, session))}</div>
                <dl class="facts">
                  <dt>Events</dt>
                  <dd>${w.events.join(', ')}</dd>
                  <dt>Consecutive failures</dt>
                  <dd>
                    ${w.consecutiveFailures}
                    <span class="hint">(at ${DISABLE_AFTER_FAILED_DELIVERIES} in a row the subscription is disabled)</span>
                  </dd>
                </dl>
                <a href="${base}/webhooks/${w.id}">Delivery log and actions<span class="vh"> for ${w.url}</span></a>
              </li>`,
          )}
        </ul>`,
    });
  };

  router.get(
    '/webhooks',
    signedIn(deps, (req, res, signed) => {
      const done = doneNotice(req.query.done);
      renderList(res, signed, 200, { url: '', events: [] }, noticeFor(deps, signed, done));
    }),
  );

  router.post(
    '/webhooks',
    signedIn(deps, async (req: Request, res, signed) => {
      const form = { url: field(req, 'url').trim(), events: fields(req, 'events') };
      try {
        // "All events" is every event this version knows.
        const events = form.events.includes('all') ? [...WEBHOOK_EVENTS] : form.events;
        const created = await services.webhooks.create(signed.session.actor, { ...form, events });
        redirect(res, `${base}/webhooks`, {
          deps,
          signed,
          notice: {
            kind: 'ok',
            body: html`<p><strong>Subscription created.</strong> Copy its signing secret now: it is shown only this once.</p>
              ${secretBox('new-secret', 'The signing secret', created.secret)}
              <p class="hint">Verify <code>X-Service-Signature</code> with it (HMAC-SHA256 of timestamp, a dot and the raw body).</p>`,
          },
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        renderList(res, signed, 400, form, { kind: 'error', body: spoken(error) });
      }
    }),
  );

  webhookDetailPages(router, deps);
}
