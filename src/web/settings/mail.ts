import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { MailView } from '../../modules/mail/service.js';
import type { WebDeps } from '../deps.js';
import { type Html, html } from '../kit/html.js';
import { columnHeads } from '../kit/tables.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { noticeFor, redirect, send, shell } from '../kit/respond.js';
import { spoken, statusOf } from '../kit/refusal.js';
import { type SignedIn, signedIn } from '../session/guard.js';
import { instant } from './webhook-detail.js';

const PAGE_SIZE = 25;

/** A message's state in words: sent (with when), queued (its next try), given up, cancelled. */
function statusOfMessage(m: MailView): Html {
  if (m.status === 'sent') return html`<span class="badge good">sent</span> ${m.sentAt ? instant(m.sentAt) : ''}`;
  if (m.status === 'queued')
    return m.attempts === 0
      ? html`<span class="badge">queued</span>`
      : html`<span class="badge bad">not sent yet</span> next try ${m.nextAttemptAt ? instant(m.nextAttemptAt) : 'soon'}`;
  if (m.status === 'cancelled') return html`<span class="badge">cancelled</span>`;
  return html`<span class="badge bad">given up</span>`;
}

/** What the relay answered last, or why it could not be reached. */
const answer = (m: MailView): Html | string =>
  m.detail === null ? '' : html`${m.error ? html`<code>${m.error}</code> ` : ''}<span class="hint">${m.detail}</span>`;

/** The state of mail at the top of the page: off, the relay unreachable with mail waiting, or on. */
function mailState(deps: WebDeps): Html {
  const { mail } = deps.services;
  const queued = mail.queued();
  const waiting = `${queued} message${queued === 1 ? '' : 's'} ${queued === 1 ? 'is' : 'are'} queued`;
  if (mail.relay === null)
    return html`<p class="notice error" role="status">
      Mail is off on this server (the person who runs timetrack can set it up), so links are shown on the pages to be sent by hand.
      ${queued > 0 ? `${waiting} from before, and wait until mail is set up again.` : ''}
    </p>`;
  const failure = mail.relayFailure();
  if (failure !== null && queued > 0)
    return html`<p class="notice error" role="status">
      The relay ${mail.relay} could not be reached (${failure.error}: ${failure.detail}). ${waiting}: they are sent when it answers again,
      nothing is lost.
    </p>`;
  return html`<p class="hint">Mail goes out through ${mail.relay}. ${queued > 0 ? `${waiting}.` : 'Nothing is waiting.'}</p>`;
}

/** The table of messages, newest first, with Send again on those given up. */
function messageTable(deps: WebDeps, session: SignedIn['session'], messages: MailView[]): Html {
  const base = deps.paths.settings;
  if (messages.length === 0) return html`<p>No mail yet.</p>`;
  return html`<div class="scroll">
    <table class="rows mail" aria-label="Sent mail">
      ${columnHeads(['Recipient', 'Subject', 'Status', 'Attempts', 'Last answer', 'Created', html`<span class="vh">Actions</span>`])}
      <tbody>
        ${messages.map(
          (m) =>
            html`<tr>
              <td data-label="Recipient">${m.recipient}</td>
              <td data-label="Subject">${m.subject}</td>
              <td data-label="Status">${statusOfMessage(m)}</td>
              <td data-label="Attempts">${m.attempts}</td>
              <td data-label="Last answer">${answer(m)}</td>
              <td data-label="Created">${instant(m.createdAt)}</td>
              <td class="actions-cell">
                ${
                  m.status === 'failed'
                    ? html`<form method="post" action="${base}/mail/${m.id}/retry">
                        ${csrfField(session.csrfToken)}<button class="secondary" type="submit">
                          Send again<span class="vh"> to ${m.recipient}</span>
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
    send(deps, res, status, {
      ...shell(deps, signed),
      title: 'Mail',
      current: 'mail',
      notice,
      body: html`${mailState(deps)}
        <p class="hint">
          What the server mailed for this workspace (invitations and setup links, runaway timer reminders), kept 30 days. A reset link or an
          email change is the member's own and is not listed.
        </p>
        ${messageTable(deps, signed.session, log.messages)}
        <p>
          ${before ? html`<a href="${base}/mail">Newest</a> ` : ''}
          ${log.next ? html`<a href="${base}/mail?before=${encodeURIComponent(log.next)}">Older messages</a>` : ''}
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
        notice: { kind: 'ok', body: 'Queued again: it is sent within a few seconds. Reload to see how it went.' },
      });
    }),
  );
}
