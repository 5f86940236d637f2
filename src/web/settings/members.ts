import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { aboutMember, errorAt, type FieldErrors, inputField, invalidAt } from '../kit/fields.js';
import { refusal, statusOf, spoken } from '../kit/refusal.js';
import { type Html, html } from '../kit/html.js';
import { decimalOf, field } from '../kit/forms.js';
import { noticeFor, readerZone, redirect, send, shell, siteLink } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed, type SignedIn } from '../session/guard.js';
import type { Enrolled } from '../../modules/accounts/service.js';
import { csrfField, dayOf, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { secretBox } from './tokens.js';

interface Flags {
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  isOwner: boolean;
  /** As typed (the form keeps it when refused). */
  hourlyRate: string;
}

interface MemberRow extends Flags {
  userId: string;
  name: string;
  email: string;
  hasPassword: boolean;
  createdAt: string;
}

/** The "Add a member" form as sent (kept when refused). */
interface AddForm extends Flags {
  name: string;
  email: string;
}

const EMPTY_ADD: AddForm = { name: '', email: '', canViewOthersTime: false, canViewOthersMoney: false, isOwner: false, hourlyRate: '' };

const flagsOf = (req: Request): Flags => ({
  canViewOthersTime: field(req, 'canViewOthersTime') === 'true',
  canViewOthersMoney: field(req, 'canViewOthersMoney') === 'true',
  isOwner: field(req, 'isOwner') === 'true',
  hourlyRate: field(req, 'hourlyRate'),
});

const FLAG_LABELS = [
  ['canViewOthersTime', "Sees colleagues' time"],
  ['canViewOthersMoney', "Sees colleagues' money (rates, amounts, invoices)"],
  ['isOwner', 'Owner (manages members and workspace settings)'],
] as const;

/** One member's checkbox in the table: tied to the row's form, labelled with the member's name for screen readers. */
const rowCheck = (m: MemberRow, name: (typeof FLAG_LABELS)[number][0], label: string) =>
  html`<label class="check"
    ><input
      type="checkbox"
      form="member-${m.userId}"
      name="${name}"
      value="true"
      ${m[name] ? html`checked` : ''}
      aria-label="${m.name}: ${label}"
    /><span class="wide-hidden">${label}</span></label
  >`;

/** One member as a row (a card on phones): access, rate, Save; the setup link where it can work; Remove apart. */
function memberRow(base: string, session: SessionView, m: MemberRow, currency: string, errors: FieldErrors, zone: string): Html {
  const id = m.userId;
  const rateId = `${id}-rate`;
  const self = id === session.userId;
  return html`<tr>
    <td data-label="Member">
      <span class="card-title">${m.name}</span> ${m.isOwner ? html`<span class="badge">owner</span>` : ''}
      ${self ? html`<span class="badge">you</span>` : ''}
      <span class="hint">${m.email}</span>
      <span class="hint">${m.hasPassword ? 'Has a password' : 'No password yet'} · since ${dayOf(m.createdAt, zone)}</span>
    </td>
    <td data-label="Time" class="flag">${rowCheck(m, 'canViewOthersTime', FLAG_LABELS[0][1])}</td>
    <td data-label="Money" class="flag">${rowCheck(m, 'canViewOthersMoney', FLAG_LABELS[1][1])}</td>
    <td data-label="Owner" class="flag">${rowCheck(m, 'isOwner', 'Owner')}</td>
    <td data-label="Rate (${currency})">
      <input
        id="${rateId}"
        form="member-${id}"
        name="hourlyRate"
        type="text"
        inputmode="decimal"
        class="rate"
        value="${m.hourlyRate}"
        aria-label="${m.name}: hourly rate (${currency}); empty for the workspace's default"
        placeholder="default"
        ${invalidAt(rateId, errors.hourlyRate)}
      />
      ${errorAt(rateId, errors.hourlyRate)}
    </td>
    <td class="actions-cell">
      <div class="row-actions">
        <form id="member-${id}" method="post" action="${base}/members/${id}">
          ${csrfField(session.csrfToken)}<button type="submit">Save<span class="vh"> ${m.name}</span></button>
        </form>
        ${
          m.hasPassword
            ? ''
            : html`<form method="post" action="${base}/members/${id}/invite">
                ${csrfField(session.csrfToken)}<button class="secondary" type="submit">
                  Setup link<span class="vh"> for ${m.name}</span>
                </button>
              </form>`
        }
        <form
          class="apart"
          method="post"
          action="${base}/members/${id}/remove"
          data-confirm="Remove ${m.name} from this workspace? Their tokens and sessions here stop at once."
        >
          ${csrfField(session.csrfToken)}<button class="danger" type="submit">Remove<span class="vh"> ${m.name}</span></button>
        </form>
      </div>
    </td>
  </tr>`;
}

/** The form that adds a member by name and email. */
function addForm(base: string, session: SessionView, form: AddForm, currency: string, errors: FieldErrors): Html {
  const text = (name: 'name' | 'email', label: string, type: string, hint: string, autocomplete: string) =>
    inputField(
      `add-${name}`,
      html`${label} <span class="hint">${hint}</span>`,
      html`name="${name}" type="${type}" autocomplete="${autocomplete}" maxlength="${name === 'email' ? '254' : '200'}"
      ${name === 'email' ? html`required` : ''}`,
      form[name],
      errors[name],
      '',
      '',
    );
  return html`<form class="stack wide" method="post" action="${base}/members" aria-labelledby="add-heading">
    ${csrfField(session.csrfToken)}
    <div class="two">
      ${text('name', 'Name', 'text', 'For a new account; an existing one keeps its name.', 'off')}
      ${text('email', 'Email', 'email', 'Their sign-in. You get one link to send to it; they are in once they use it.', 'off')}
    </div>
    <fieldset>
      <legend>Access</legend>
      ${FLAG_LABELS.map(
        ([name, label]) =>
          html`<label class="check" for="add-${name}"
            ><input id="add-${name}" type="checkbox" name="${name}" value="true" ${form[name] ? html`checked` : ''} /> ${label}</label
          >`,
      )}
    </fieldset>
    ${inputField(
      'add-rate',
      html`Hourly rate (${currency}) <span class="hint">Empty: the workspace's default applies.</span>`,
      html`name="hourlyRate" type="text" inputmode="decimal" class="rate"`,
      form.hourlyRate,
      errors.hourlyRate,
      '',
      '',
    )}
    <div><button type="submit">Add member</button></div>
  </form>`;
}

/** What the page shows after a refused form: the notice, and the form as sent with its errors at their fields. */
interface Refused {
  notice: Notice;
  /** A member's row as sent. */
  row?: { userId: string; flags: Flags; errors: FieldErrors };
  add?: { form: AddForm; errors: FieldErrors };
}

/** The Members page: the table of members and the "Add a member" form (as sent, after a refusal). */
function render(deps: WebDeps, res: Response, signed: Signed, status: number, notice: Notice | null, refused?: Refused): void {
  const { services } = deps;
  const base = deps.paths.settings;
  const session = signed.session as SessionView;
  const { currency } = services.accounts.getWorkspace(session.actor, session.workspaceId);
  const zone = readerZone(deps, session);
  // A refused form shows what was sent, not what is stored.
  const members = services.accounts.roster(session.actor, session.workspaceId).map((m) => ({
    ...m,
    hourlyRate: m.hourlyRate === null ? '' : String(m.hourlyRate),
    ...(refused?.row?.userId === m.userId ? refused.row.flags : {}),
  }));
  send(deps, res, status, {
    ...shell(deps, signed),
    title: 'Members',
    current: 'members',
    notice: refused?.notice ?? notice,
    body: html`<p class="hint">
        Narrowing a member's visibility applies to their tokens and webhooks at once; widening applies to tokens they mint afterwards.
      </p>
      ${
        services.mail.enabled()
          ? html`<p class="hint">Links are mailed to the address added; the <a href="${base}/mail">Mail</a> page shows how that went.</p>`
          : html`<p class="hint">Mail is not set up on this server: send each link yourself.</p>`
      }
      <div class="scroll">
        <table class="rows members" aria-label="Members">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col" title="Sees colleagues' time">Colleagues' time</th>
              <th scope="col" title="Sees colleagues' money (rates, amounts, invoices)">Colleagues' money</th>
              <th scope="col">Owner</th>
              <th scope="col">Rate (${currency})</th>
              <th scope="col"><span class="vh">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${members.map((m) => memberRow(base, session, m, currency, refused?.row?.userId === m.userId ? refused.row.errors : {}, zone))}
          </tbody>
        </table>
      </div>
      ${invitationList(base, session, services.accounts.invitations(session.actor, session.workspaceId), zone)}
      <h2 id="add-heading">Add a member</h2>
      ${addForm(base, session, refused?.add?.form ?? EMPTY_ADD, currency, refused?.add?.errors ?? {})}`,
  });
}

/** The invitations still open: the address as typed, until when, and Withdraw (its link stops working at once). */
function invitationList(
  base: string,
  session: SessionView,
  open: Array<{ id: string; email: string; isOwner: boolean; createdAt: number; expiresAt: number }>,
  zone: string,
): Html | string {
  if (open.length === 0) return '';
  return html`<h2 id="invited-heading">Invited</h2>
    <p class="hint">They join when they open their link, signed in. Adding the same address again makes a new link and ends the old.</p>
    <ul class="cards" aria-labelledby="invited-heading">
      ${open.map(
        (i) =>
          html`<li>
            <span class="card-title">${i.email}</span> ${i.isOwner ? html`<span class="badge">owner</span>` : ''}
            <span class="hint"
              >Invited ${dayOf(new Date(i.createdAt).toISOString(), zone)} · link valid until
              ${when(new Date(i.expiresAt).toISOString(), zone)}</span
            >
            <form
              class="actions"
              method="post"
              action="${base}/members/invitations/${i.id}/withdraw"
              data-confirm="Withdraw the invitation of ${i.email}? Its link stops working at once."
            >
              ${csrfField(session.csrfToken)}<button class="danger" type="submit">
                Withdraw<span class="vh"> the invitation of ${i.email}</span>
              </button>
            </form>
          </li>`,
      )}
    </ul>`;
}

/** The notice and field errors of a refusal about a member (their name first). */
function refusalAbout(name: string, error: DomainError): { notice: Notice; errors: FieldErrors } {
  const at = error.field ?? null;
  const message = aboutMember(name, spoken(error), at !== null);
  return { notice: { kind: 'error', body: message }, errors: at === null ? {} : { [at]: message } };
}
const nameOf = (deps: WebDeps, session: SessionView, userId: string) =>
  deps.services.accounts.roster(session.actor, session.workspaceId).find((m) => m.userId === userId)?.name ?? 'This member';

/** Members (owners only): add by email, visibility flags, rates, the owner role, setup links, removal. */
export function memberPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const isFormError = (error: unknown): error is DomainError =>
    error instanceof DomainError && (error.code === 'invalid' || error.code === 'conflict');

  router.get(
    '/members',
    signedIn(deps, (req, res, signed) => render(deps, res, signed, 200, noticeFor(deps, signed))),
  );

  router.post(
    '/members',
    signedIn(deps, (req, res, signed) => {
      const form: AddForm = { ...flagsOf(req), name: field(req, 'name'), email: field(req, 'email') };
      let added: Enrolled;
      try {
        added = services.accounts.enrollMember(signed.session.actor, {
          workspaceId: signed.session.workspaceId,
          ...form,
          hourlyRate: decimalOf(form.hourlyRate, 'hourly rate', 'hourlyRate'),
        });
      } catch (error) {
        if (!isFormError(error)) throw error;
        const refused = refusal(error, { message: (text) => (error.field && error.code === 'invalid' ? `The ${text}` : text) });
        return render(deps, res, signed, refused.status, null, {
          notice: { kind: 'error', body: refused.message },
          add: { form, errors: refused.errors },
        });
      }
      redirect(res, `${base}/members`, { deps, signed, notice: addedNotice(deps, signed, added) });
    }),
  );

  router.post(
    '/members/invitations/:id/withdraw',
    signedIn(deps, (req, res, signed) => {
      try {
        services.accounts.withdrawInvitation(signed.session.actor, {
          workspaceId: signed.session.workspaceId,
          id: req.params.id as string,
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
        return render(deps, res, signed, statusOf(error), { kind: 'error', body: spoken(error) });
      }
      redirect(res, `${base}/members`, { deps, signed, notice: { kind: 'ok', body: 'Withdrawn: its link no longer works.' } });
    }),
  );

  router.post(
    '/members/:userId',
    signedIn(deps, (req, res, signed) => {
      const userId = req.params.userId as string;
      const flags = flagsOf(req);
      const name = nameOf(deps, signed.session, userId);
      try {
        services.accounts.setMember(signed.session.actor, {
          workspaceId: signed.session.workspaceId,
          userId,
          ...flags,
          hourlyRate: decimalOf(flags.hourlyRate, 'hourly rate', 'hourlyRate'),
        });
      } catch (error) {
        if (!isFormError(error)) throw error;
        const refusal =
          error.code === 'conflict'
            ? { notice: { kind: 'error' as const, body: `${name} is the last owner: make another member an owner first.` }, errors: {} }
            : refusalAbout(name, error);
        return render(deps, res, signed, 400, null, { notice: refusal.notice, row: { userId, flags, errors: refusal.errors } });
      }
      // An owner who gave up the role has no members page any more.
      if (userId === signed.session.userId && !flags.isOwner) return redirect(res, `${base}/tokens`);
      redirect(res, `${base}/members`, {
        deps,
        signed,
        notice: { kind: 'ok', body: `Saved ${name}. It applies from the next request on.` },
      });
    }),
  );

  router.post(
    '/members/:userId/remove',
    signedIn(deps, (req, res, signed) => {
      const userId = req.params.userId as string;
      const name = nameOf(deps, signed.session, userId);
      try {
        services.accounts.removeMember(signed.session.actor, { workspaceId: signed.session.workspaceId, userId });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
        const body =
          error.code === 'conflict' ? `${name} is the last owner: make another member an owner first.` : 'That member was removed already.';
        return render(deps, res, signed, statusOf(error), { kind: 'error', body });
      }
      // Removing yourself ends your own session here.
      if (userId === signed.session.userId) return redirect(res, `${base}/sign-in`);
      redirect(res, `${base}/members`, {
        deps,
        signed,
        notice: { kind: 'ok', body: `Removed ${name}: their tokens and sessions in this workspace stopped working.` },
      });
    }),
  );

  router.post(
    '/members/:userId/invite',
    signedIn(deps, (req, res, signed) => {
      const userId = req.params.userId as string;
      const name = nameOf(deps, signed.session, userId);
      let link: { secret: string | null; expiresAt: number; mailed: boolean };
      try {
        link = services.sessions.invite(signed.session.actor, { workspaceId: signed.session.workspaceId, userId });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'forbidden' && error.code !== 'not_found')) throw error;
        return render(deps, res, signed, error.code === 'forbidden' ? 403 : 404, { kind: 'error', body: spoken(error) });
      }
      redirect(res, `${base}/members`, { deps, signed, notice: setupLinkNotice(deps, name, link, readerZone(deps, signed.session)) });
    }),
  );
}

/** The one-time setup link naming whom it is for: mailed to their address (never shown here), or shown once to hand over while mail is off. */
function setupLinkNotice(
  deps: WebDeps,
  name: string,
  link: { secret: string | null; expiresAt: number; mailed: boolean },
  zone: string,
): Notice {
  const until = when(new Date(link.expiresAt).toISOString(), zone);
  if (link.secret === null)
    return {
      kind: 'ok',
      body: html`<p>
        <strong>We mailed ${name} a setup link</strong>, valid until ${until}. Only whoever reads their mailbox can open it; a new link ends
        this one. The <a href="${deps.paths.settings}/mail">Mail</a> page shows how the mail went.
      </p>`,
    };
  const where = siteLink(deps);
  return {
    kind: 'ok',
    body: html`<p>
        <strong>Setup link for ${name}</strong>, valid until ${until}. Send it to ${name} only: whoever opens it first sets the password. It
        is shown only this once; a new link ends this one.
      </p>
      ${secretBox('setup-link', `The setup link for ${name}`, `${where.url}${deps.paths.settings}/setup/${link.secret}`)}
      ${where.warning ? html`<p class="hint warning">${where.warning}</p>` : ''}`,
  };
}

/**
 * After "Add member": the one link to send to the address typed, worded alike whether it sets up
 * a new account or invites one that exists (decisions §8a: nothing says which, or who holds it).
 */
function addedNotice(deps: WebDeps, signed: SignedIn, added: Enrolled): Notice {
  const link =
    added.kind === 'invited'
      ? { secret: added.secret, expiresAt: added.expiresAt, mailed: added.mailed }
      : deps.services.sessions.invite(signed.session.actor, { workspaceId: signed.session.workspaceId, userId: added.userId });
  const until = when(new Date(link.expiresAt).toISOString(), readerZone(deps, signed.session));
  // Mailed: only the address's holder gets the link (H1); it is not shown here.
  if (link.secret === null)
    return {
      kind: 'ok',
      body: html`<p>
        <strong>We mailed ${added.email} a link</strong> that lets them into ${signed.session.workspaceName}. It works once, until ${until},
        and only whoever reads that mailbox can open it. The <a href="${deps.paths.settings}/mail">Mail</a> page shows how the mail went.
      </p>`,
    };
  const where = siteLink(deps);
  return {
    kind: 'ok',
    body: html`<p>
        <strong>Send this link to ${added.email}</strong>: it lets them into ${signed.session.workspaceName}. It works once, until ${until},
        and is shown only this once.
      </p>
      ${secretBox('setup-link', `The link for ${added.email}`, `${where.url}${deps.paths.settings}/setup/${link.secret}`)}
      ${where.warning ? html`<p class="hint warning">${where.warning}</p>` : ''}`,
  };
}
