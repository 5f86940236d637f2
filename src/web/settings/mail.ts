import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { detailWords, errorWords, type MailView } from '../../modules/mail/service.js';
import type { WebDeps } from '../deps.js';
import { type Html, html } from '../kit/html.js';
import { columnHeads } from '../kit/tables.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { noticeFor, readerZone, redirect, sendTab } from '../kit/respond.js';
import { spoken, statusOf } from '../kit/refusal.js';
import { type SignedIn, signedIn } from '../session/guard.js';
import { formats, t } from '../../i18n/index.js';

const PAGE_SIZE = 25;

/** An instant as the reader reads it, in their zone and language (`23 Nov 2026, 14:05 CET`, `23.11.2026, 14:05 MEZ`). */
const instant = (iso: string, zone: string): Html => html`<time datetime="${iso}">${when(iso, zone)}</time>`;

/** A message's state in words: sent (with when), queued (its next try), given up, cancelled. */
function statusOfMessage(m: MailView, zone: string): Html {
  if (m.status === 'sent')
    return html`<span class="badge good">${t('settings.mail.sent')}</span> ${m.sentAt ? instant(m.sentAt, zone) : ''}`;
  if (m.status === 'queued')
    return m.attempts === 0
      ? html`<span class="badge">${t('settings.mail.queued')}</span>`
      : html`<span class="badge bad">${t('settings.mail.notSentYet')}</span> ${t('settings.mail.nextTry')}
          ${m.nextAttemptAt ? instant(m.nextAttemptAt, zone) : t('settings.mail.soon')}`;
  if (m.status === 'cancelled') return html`<span class="badge">${t('settings.mail.cancelled')}</span>`;
  return html`<span class="badge bad">${t('settings.mail.givenUp')}</span>`;
}

/** A failed attempt's code in a sentence, in the reader's words, and a blank after it ('' for none). */
const reasonOf = (error: string | null): string => {
  const reason = errorWords(error);
  return reason === null ? '' : `${t(reason.key, reason.vars)} `;
};

/**
 * What the relay answered last (as it came), or why it could not be reached or was given up (in
 * the reader's words, where they are ours): the code, its sentence, the detail.
 */
const answer = (m: MailView): Html | string => {
  if (m.detail === null) return '';
  const ours = detailWords(m.detail);
  return html`${m.error ? html`<code>${m.error}</code> ` : ''}${reasonOf(m.error)}<span class="hint"
      >${ours === null ? m.detail : t(ours.key, ours.vars)}</span
    >`;
};

/**
 * The relay as the mail service names it (`smtp://host:25 (no TLS)`, `(TLS)`, `(STARTTLS)`, as
 * the command line and the log print it), its plain connection said in the reader's words.
 */
const relayWords = (relay: string): string => relay.replace(/ \(no TLS\)$/, ` (${t('settings.mail.noTls')})`);

/** The state of mail at the top of the page: off, the relay unreachable with mail waiting, or on. */
function mailState(deps: WebDeps): Html {
  const { mail } = deps.services;
  const queued = mail.queued();
  const waiting = t('settings.mail.waiting', { count: queued });
  if (mail.relay === null)
    return html`<p class="notice error" role="status">
      ${t('settings.mail.off')} ${queued > 0 ? t('settings.mail.offWaiting', { count: queued }) : ''}
    </p>`;
  const failure = mail.relayFailure();
  if (failure !== null && queued > 0)
    return html`<p class="notice error" role="status">
      ${t('settings.mail.unreachable', {
        relay: relayWords(mail.relay),
        error: failure.error,
        detail: failure.detail,
        reason: reasonOf(failure.error),
        waiting,
      })}
    </p>`;
  return html`<p class="hint">
    ${t('settings.mail.through', { relay: relayWords(mail.relay) })} ${queued > 0 ? `${waiting}.` : t('settings.mail.nothingWaiting')}
  </p>`;
}

/** The table of messages, newest first, with Send again on those given up. */
function messageTable(deps: WebDeps, session: SignedIn['session'], messages: MailView[], zone: string): Html {
  const base = deps.paths.settings;
  if (messages.length === 0) return html`<p>${t('settings.mail.none')}</p>`;
  const heads = {
    recipient: t('settings.mail.recipient'),
    subject: t('settings.mail.subject'),
    status: t('settings.mail.status'),
    attempts: t('settings.mail.attempts'),
    answer: t('settings.mail.lastAnswer'),
    created: t('settings.mail.created'),
  };
  return html`<div class="scroll">
    <table class="rows mail" aria-label="${t('settings.mail.table')}">
      ${columnHeads([...Object.values(heads), html`<span class="vh">${t('settings.actions')}</span>`])}
      <tbody>
        ${messages.map(
          (m) =>
            html`<tr>
              <td data-label="${heads.recipient}">${m.recipient}</td>
              <td data-label="${heads.subject}">${m.subject}</td>
              <td data-label="${heads.status}">${statusOfMessage(m, zone)}</td>
              <td data-label="${heads.attempts}">${formats().number(m.attempts)}</td>
              <td data-label="${heads.answer}">${answer(m)}</td>
              <td data-label="${heads.created}">${instant(m.createdAt, zone)}</td>
              <td class="actions-cell">
                ${
                  m.status === 'failed'
                    ? html`<form method="post" action="${base}/mail/${m.id}/retry">
                        ${csrfField(session.csrfToken)}<button class="secondary" type="submit">
                          ${t('settings.mail.sendAgain')}<span class="vh">
                            ${t('settings.mail.sendAgainTo', { recipient: m.recipient })}</span
                          >
                        </button>
                      </form>`
                    : ''
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The Mail page (owners): the workspace's mail, newest first, 25 a page, and whether the relay answers. */
export function mailPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const render = (req: Request, res: Response, signed: SignedIn, status: number, notice: Notice | null) => {
    const before = typeof req.query.before === 'string' && /^mail_[a-z0-9]{20}$/.test(req.query.before) ? req.query.before : null;
    const log = services.mail.log(signed.session.actor, { workspaceId: signed.session.workspaceId, before, limit: PAGE_SIZE });
    sendTab(deps, res, signed, status, {
      tab: 'mail',
      notice,
      body: html`${mailState(deps)}
        <p class="hint">${t('settings.mail.intro')}</p>
        ${messageTable(deps, signed.session, log.messages, readerZone(deps, signed.session))}
        <p>
          ${before ? html`<a href="${base}/mail">${t('settings.mail.newest')}</a> ` : ''}
          ${log.next ? html`<a href="${base}/mail?before=${encodeURIComponent(log.next)}">${t('settings.mail.older')}</a>` : ''}
        </p>`,
    });
  };

  router.get(
    '/mail',
    signedIn(deps, (req, res, signed) => render(req, res, signed, 200, noticeFor(deps, signed))),
  );

  router.post(
    '/mail/:id/retry',
    signedIn(deps, (req, res, signed) => {
      try {
        services.mail.retry(signed.session.actor, req.params.id as string);
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
        return render(req, res, signed, statusOf(error), { kind: 'error', body: spoken(error) });
      }
      redirect(res, `${base}/mail`, {
        deps,
        signed,
        notice: { kind: 'ok', body: t('settings.mail.queuedAgain') },
      });
    }),
  );
}
