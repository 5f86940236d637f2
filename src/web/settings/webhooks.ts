import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { DISABLE_AFTER_FAILED_DELIVERIES, EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from '../../modules/webhooks/service.js';
import { type Html, html } from '../kit/html.js';
import { field, fields } from '../kit/forms.js';
import { noticeFor, readerZone, redirect, sendTab } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { spoken } from '../kit/refusal.js';
import { formats, type Key, t } from '../../i18n/index.js';
import { sentence } from './sentence.js';
import { doneNotice, status, webhookDetailPages } from './webhook-detail.js';
import { secretBox } from './tokens.js';

/** Each event's line in the reader's language (an event this page has no words for reads as the service says it). */
const EVENT_WORDS: Record<string, Key> = {
  'entry.started': 'integrations.webhooks.event.entryStarted',
  'entry.stopped': 'integrations.webhooks.event.entryStopped',
  'entry.created': 'integrations.webhooks.event.entryCreated',
  'entry.updated': 'integrations.webhooks.event.entryUpdated',
  'entry.deleted': 'integrations.webhooks.event.entryDeleted',
  'invoice.created': 'integrations.webhooks.event.invoiceCreated',
  'invoice.status_changed': 'integrations.webhooks.event.invoiceStatusChanged',
};
const eventWords = (event: string) =>
  Object.hasOwn(EVENT_WORDS, event) ? t(EVENT_WORDS[event] as Key) : (EVENT_DESCRIPTIONS[event] ?? '');

interface CreateForm {
  url: string;
  events: string[];
}

function createForm(base: string, session: SessionView, form: CreateForm, allowPrivate: boolean): Html {
  return html`<form class="stack" method="post" action="${base}/webhooks">
    ${csrfField(session.csrfToken)}
    <div>
      <label for="webhook-url"
        >${t('integrations.webhooks.url')}
        <span class="hint">${allowPrivate ? t('integrations.webhooks.urlHintPrivate') : t('integrations.webhooks.urlHint')}</span></label
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
      <legend>${t('integrations.webhooks.events')}</legend>
      <label class="check"
        ><input type="checkbox" name="events" value="all" data-all-events ${form.events.includes('all') ? html`checked` : ''} />
        <span
          ><strong>${t('integrations.webhooks.allEvents')}</strong>
          <span class="hint">${t('integrations.webhooks.allEventsHint')}</span></span
        ></label
      >
      ${WEBHOOK_EVENTS.map(
        (event) =>
          html`<label class="check"
            ><input type="checkbox" name="events" value="${event}" ${form.events.includes(event) ? html`checked` : ''} />
            <span><code>${event}</code> <span class="hint">${eventWords(event)}</span></span></label
          >`,
      )}
      <span class="hint">${t('integrations.webhooks.visibility')}</span>
    </fieldset>
    <div><button type="submit">${t('integrations.webhooks.create')}</button></div>
  </form>`;
}

/** Webhook subscriptions: a member's own, with their delivery logs. */
export function webhookPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const renderList = (res: Response, signed: Signed, code: number, form: CreateForm, notice: Notice | null) => {
    const session = signed.session as SessionView;
    const hooks = services.webhooks.list(session.actor);
    sendTab(deps, res, signed, code, {
      tab: 'webhooks',
      notice,
      body: html`<h2>${t('integrations.webhooks.newHeading')}</h2>
        ${createForm(base, session, form, deps.config.webhookAllowPrivateTargets)}
        <h2>${t('integrations.webhooks.yours')}</h2>
        ${hooks.length === 0 ? html`<p>${t('integrations.webhooks.noneYet')}</p>` : ''}
        <ul class="cards" aria-label="${t('integrations.webhooks.yours')}">
          ${hooks.map(
            (w) =>
              html`<li>
                <div class="card-title">${w.url} ${status(w, readerZone(deps, session))}</div>
                <dl class="facts">
                  <dt>${t('integrations.webhooks.events')}</dt>
                  <dd>${w.events.join(', ')}</dd>
                  <dt>${t('integrations.webhooks.failures')}</dt>
                  <dd>
                    ${formats().number(w.consecutiveFailures)}
                    <span class="hint"
                      >${t('integrations.webhooks.disableAt', { n: formats().number(DISABLE_AFTER_FAILED_DELIVERIES) })}</span
                    >
                  </dd>
                </dl>
                <a href="${base}/webhooks/${w.id}"
                  >${t('integrations.webhooks.logLink')}<span class="vh"> ${t('integrations.webhooks.logLinkFor', { url: w.url })}</span></a
                >
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
            body: html`<p><strong>${t('integrations.webhooks.created')}</strong> ${t('integrations.webhooks.copySecret')}</p>
              ${secretBox('new-secret', t('integrations.webhooks.theSecret'), created.secret)}
              <p class="hint">${sentence('integrations.webhooks.verify', {}, { header: html`<code>X-Service-Signature</code>` })}</p>`,
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
