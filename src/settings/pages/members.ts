import type { Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { type Html, html } from '../html.js';
import { field, noticeFor, redirect, send, siteUrl, type SettingsDeps, shell, type Signed } from '../kit.js';
import { csrfField, type Notice, when } from '../layout.js';
import { signedIn } from './guard.js';
import { secretBox } from './tokens.js';

/** A decimal field (a decimal comma is read too): blank is null, else a number from 0 (the service checks the range). */
export function decimalOf(text: string, what: string, example = '85 or 92.50, or empty for none'): number | null {
  const value = text.trim().replace(',', '.');
  if (value === '') return null;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new DomainError('invalid', `${what} must be a number such as ${example}.`);
  return Number(value);
}

const check = (name: string, label: string, on: boolean, id: string) =>
  html`<label class="check" for="${id}"
    ><input id="${id}" type="checkbox" name="${name}" value="true" ${on ? html`checked` : ''} /> ${label}</label
  >`;

interface MemberRow {
  userId: string;
  name: string;
  email: string;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  isOwner: boolean;
  /** As shown in the form: stored, or as sent when the form was refused. */
  hourlyRate: string;
  createdAt: string;
}

/** One member: their access and rate (a form), and a setup link button. */
function memberCard(base: string, session: SessionView, m: MemberRow, currency: string): Html {
  const id = m.userId;
  return html`<li>
    <div class="card-title">${m.name} <span class="hint">${m.email}</span> ${m.isOwner ? html`<span class="badge">owner</span>` : ''}</div>
    <form class="stack" method="post" action="${base}/members/${id}">
      ${csrfField(session.csrfToken)}
      <fieldset>
        <legend>Access for ${m.name}</legend>
        ${check('canViewOthersTime', "Sees colleagues' time", m.canViewOthersTime, `${id}-time`)}
        ${check('canViewOthersMoney', "Sees colleagues' money (rates, amounts, invoices)", m.canViewOthersMoney, `${id}-money`)}
        ${check('isOwner', 'Owner (manages members and workspace settings)', m.isOwner, `${id}-owner`)}
      </fieldset>
      <div>
        <label for="${id}-rate">Hourly rate (${currency}) <span class="hint">Empty: the workspace's default applies.</span></label>
        <input id="${id}-rate" name="hourlyRate" type="text" inputmode="decimal" value="${m.hourlyRate}" />
      </div>
      <div><button type="submit">Save ${m.name}</button></div>
    </form>
    <form class="actions" method="post" action="${base}/members/${id}/invite">
      ${csrfField(session.csrfToken)}<button class="secondary" type="submit">Make a password setup link for ${m.name}</button>
    </form>
    <p class="hint">Member since ${when(m.createdAt)}.</p>
  </li>`;
}

/** Members (owners only): visibility flags, rates, the owner role, and setup links. */
export function memberPages(router: Router, deps: SettingsDeps): void {
  const { base, services } = deps;

  const render = (
    res: Response,
    signed: Signed,
    status: number,
    notice: Notice | null,
    sent?: { userId: string; canViewOthersTime: boolean; canViewOthersMoney: boolean; isOwner: boolean; hourlyRate: string },
  ) => {
    const session = signed.session as SessionView;
    const { currency } = services.accounts.getWorkspace(session.actor, session.workspaceId);
    // A refused form shows what was sent, not what is stored.
    const members = services.accounts
      .listMembers(session.actor, session.workspaceId)
      .map((m) =>
        sent?.userId === m.userId
          ? { ...m, ...sent, hourlyRate: sent.hourlyRate }
          : { ...m, hourlyRate: m.hourlyRate === null ? '' : String(m.hourlyRate) },
      );
    send(res, status, {
      ...shell(deps, signed),
      title: 'Members',
      current: 'members',
      notice,
      body: html`<p class="hint">
          Narrowing a member's visibility applies to their tokens and webhooks at once; widening applies to tokens they mint afterwards. New
          members are added with <code>timetrack member add</code>.
        </p>
        <ul class="cards" aria-label="Members">
          ${members.map((m) => memberCard(base, session, m, currency))}
        </ul>`,
    });
  };

  router.get(
    '/members',
    signedIn(deps, (req, res, signed) =>
      render(
        res,
        signed,
        200,
        noticeFor(deps, signed, req.query.done === 'saved' ? { kind: 'ok', body: 'Saved. It applies from the next request on.' } : null),
      ),
    ),
  );

  router.post(
    '/members/:userId',
    signedIn(deps, (req, res, signed) => {
      const userId = req.params.userId as string;
      try {
        services.accounts.setMember(signed.session.actor, {
          workspaceId: signed.session.workspaceId,
          userId,
          canViewOthersTime: field(req, 'canViewOthersTime') === 'true',
          canViewOthersMoney: field(req, 'canViewOthersMoney') === 'true',
          isOwner: field(req, 'isOwner') === 'true',
          hourlyRate: decimalOf(field(req, 'hourlyRate'), 'hourly rate'),
        });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'conflict')) throw error;
        return render(
          res,
          signed,
          400,
          { kind: 'error', body: error.message },
          {
            userId,
            canViewOthersTime: field(req, 'canViewOthersTime') === 'true',
            canViewOthersMoney: field(req, 'canViewOthersMoney') === 'true',
            isOwner: field(req, 'isOwner') === 'true',
            hourlyRate: field(req, 'hourlyRate'),
          },
        );
      }
      // An owner who gave up the role has no members page any more.
      redirect(res, userId === signed.session.userId && field(req, 'isOwner') !== 'true' ? `${base}/tokens` : `${base}/members?done=saved`);
    }),
  );

  router.post(
    '/members/:userId/invite',
    signedIn(deps, (req, res, signed) => {
      let link: { secret: string; expiresAt: number };
      try {
        link = services.sessions.invite(signed.session.actor, {
          workspaceId: signed.session.workspaceId,
          userId: req.params.userId as string,
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'forbidden') throw error;
        return render(res, signed, 403, { kind: 'error', body: error.message });
      }
      const url = `${siteUrl(req, deps.config)}${base}/setup/${link.secret}`;
      redirect(res, `${base}/members`, {
        deps,
        signed,
        notice: {
          kind: 'ok',
          body: html`<p>
              <strong>Setup link made</strong>, valid until ${when(new Date(link.expiresAt).toISOString())}. Send it to the member only:
              whoever opens it first sets the password. It is shown only this once; a new link ends this one.
            </p>
            ${secretBox('setup-link', 'The setup link', url)}`,
        },
      });
    }),
  );
}
