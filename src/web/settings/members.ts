import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { aboutMember, confirmedButton, errorAt, type FieldErrors, inputField, invalidAt } from '../kit/fields.js';
import { refusal, statusOf, spoken } from '../kit/refusal.js';
import { type Html, html } from '../kit/html.js';
import { decimalOf, field } from '../kit/forms.js';
import { noticeFor, readerZone, redirect, sendTab, siteLink } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed, type SignedIn } from '../session/guard.js';
import type { Enrolled } from '../../modules/accounts/service.js';
import { csrfField, dayOf, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { secretBox } from './tokens.js';
import { type Key, t, words } from '../../i18n/index.js';

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
  ['canViewOthersTime', 'settings.members.seesTime'],
  ['canViewOthersMoney', 'settings.members.seesMoney'],
  ['isOwner', 'settings.members.ownerRole'],
] as const satisfies ReadonlyArray<readonly [keyof Flags, Key]>;

/**
 * A sentence with a link in it: the message marks the link's words as `[…]` (src/i18n/messages/en.ts),
 * each part escaped as any text.
 */
const linked = (sentence: string, href: string): Html => {
  const [before, words = '', after = ''] = sentence.split(/\[|\]/);
  return html`${before}<a href="${href}">${words}</a>${after}`;
};

/** The hourly rate typed, or a refusal in the reader's words (the form keeps what was typed). */
function rateOf(text: string): number | null {
  try {
    return decimalOf(text, 'hourly rate', 'hourlyRate');
  } catch (refused) {
    // The same refusal (its message stays the API's), with the words a page says.
    if (!(refused instanceof DomainError)) throw refused;
    throw new DomainError(refused.code, refused.message, { field: 'hourlyRate', words: words('settings.members.badRate') });
  }
}

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
  const rate = t('settings.members.rate', { currency });
  return html`<tr>
    <td data-label="${t('settings.members.member')}">
      <span class="card-title">${m.name}</span> ${m.isOwner ? html`<span class="badge">${t('settings.members.ownerBadge')}</span>` : ''}
      ${self ? html`<span class="badge">${t('settings.members.you')}</span>` : ''}
      <span class="hint">${m.email}</span>
      <span class="hint"
        >${t(m.hasPassword ? 'settings.members.hasPassword' : 'settings.members.noPassword')} ·
        ${t('settings.members.since', { day: dayOf(m.createdAt, zone) })}</span
      >
    </td>
    <td data-label="${t('settings.members.time')}" class="flag">${rowCheck(m, 'canViewOthersTime', t(FLAG_LABELS[0][1]))}</td>
    <td data-label="${t('settings.members.money')}" class="flag">${rowCheck(m, 'canViewOthersMoney', t(FLAG_LABELS[1][1]))}</td>
    <td data-label="${t('settings.members.owner')}" class="flag">${rowCheck(m, 'isOwner', t('settings.members.owner'))}</td>
    <td data-label="${rate}">
      <input
        id="${rateId}"
        form="member-${id}"
        name="hourlyRate"
        type="text"
        inputmode="decimal"
        class="rate"
        value="${m.hourlyRate}"
        aria-label="${t('settings.members.rateLabel', { name: m.name, currency })}"
        placeholder="${t('settings.members.ratePlaceholder')}"
        ${invalidAt(rateId, errors.hourlyRate)}
      />
      ${errorAt(rateId, errors.hourlyRate)}
    </td>
    <td class="actions-cell">
      <div class="row-actions">
        <form id="member-${id}" method="post" action="${base}/members/${id}">
          ${csrfField(session.csrfToken)}<button type="submit">${t('common.save')}<span class="vh"> ${m.name}</span></button>
        </form>
        ${
          m.hasPassword
            ? ''
            : html`<form method="post" action="${base}/members/${id}/invite">
                ${csrfField(session.csrfToken)}<button class="secondary" type="submit">
                  ${t('settings.members.setupLink')}<span class="vh"> ${t('settings.members.setupLinkFor', { name: m.name })}</span>
                </button>
              </form>`
        }
        ${confirmedButton({
          action: `${base}/members/${id}/remove`,
          confirm: t('settings.members.confirmRemove', { name: m.name }),
          csrfToken: session.csrfToken,
          label: html`${t('settings.members.remove')}<span class="vh"> ${m.name}</span>`,
          formClass: 'apart',
        })}
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
      ${text('name', t('settings.members.name'), 'text', t('settings.members.nameHint'), 'off')}
      ${text('email', t('settings.members.email'), 'email', t('settings.members.emailHint'), 'off')}
    </div>
    <fieldset>
      <legend>${t('settings.members.access')}</legend>
      ${FLAG_LABELS.map(
        ([name, label]) =>
          html`<label class="check" for="add-${name}"
            ><input id="add-${name}" type="checkbox" name="${name}" value="true" ${form[name] ? html`checked` : ''} /> ${t(label)}</label
          >`,
      )}
    </fieldset>
    ${inputField(
      'add-rate',
      html`${t('settings.members.hourlyRate', { currency })} <span class="hint">${t('settings.members.hourlyRateHint')}</span>`,
      html`name="hourlyRate" type="text" inputmode="decimal" class="rate"`,
      form.hourlyRate,
      errors.hourlyRate,
      '',
      '',
    )}
    <div><button type="submit">${t('settings.members.add')}</button></div>
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
  sendTab(deps, res, signed, status, {
    tab: 'members',
    notice: refused?.notice ?? notice,
    body: html`<p class="hint">${t('settings.members.narrowing')}</p>
      ${
        services.mail.enabled()
          ? html`<p class="hint">${linked(t('settings.members.mailed'), `${base}/mail`)}</p>`
          : html`<p class="hint">${t('settings.members.mailOff')}</p>`
      }
      <div class="scroll">
        <table class="rows members" aria-label="${t('nav.members')}">
          <thead>
            <tr>
              <th scope="col">${t('settings.members.member')}</th>
              <th scope="col" title="${t('settings.members.seesTime')}">${t('settings.members.othersTime')}</th>
              <th scope="col" title="${t('settings.members.seesMoney')}">${t('settings.members.othersMoney')}</th>
              <th scope="col">${t('settings.members.owner')}</th>
              <th scope="col">${t('settings.members.rate', { currency })}</th>
              <th scope="col"><span class="vh">${t('settings.actions')}</span></th>
            </tr>
          </thead>
          <tbody>
            ${members.map((m) => memberRow(base, session, m, currency, refused?.row?.userId === m.userId ? refused.row.errors : {}, zone))}
          </tbody>
        </table>
      </div>
      ${invitationList(base, session, services.accounts.invitations(session.actor, session.workspaceId), zone)}
      <h2 id="add-heading">${t('settings.members.addHeading')}</h2>
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
  return html`<h2 id="invited-heading">${t('settings.members.invited')}</h2>
    <p class="hint">${t('settings.members.invitedHint')}</p>
    <ul class="cards" aria-labelledby="invited-heading">
      ${open.map(
        (i) =>
          html`<li>
            <span class="card-title">${i.email}</span>
            ${i.isOwner ? html`<span class="badge">${t('settings.members.ownerBadge')}</span>` : ''}
            <span class="hint"
              >${t('settings.members.invitedOn', {
                day: dayOf(new Date(i.createdAt).toISOString(), zone),
                until: when(new Date(i.expiresAt).toISOString(), zone),
              })}</span
            >
            ${confirmedButton({
              action: `${base}/members/invitations/${i.id}/withdraw`,
              confirm: t('settings.members.confirmWithdraw', { email: i.email }),
              csrfToken: session.csrfToken,
              label: html`${t('settings.members.withdraw')}<span class="vh">
                  ${t('settings.members.withdrawWhat', { email: i.email })}</span
                >`,
              formClass: 'actions',
            })}
          </li>`,
      )}
    </ul>`;
}

/** The notice and field errors of a refusal about a member (their name first). */
function refusalAbout(name: string, error: DomainError): { notice: Notice; errors: FieldErrors } {
  const at = error.field ?? null;
  // A message in the reader's words is a whole sentence ("The hourly rate must…"); the API's names its field bare.
  const message = aboutMember(name, spoken(error), at !== null && error.words === undefined);
  return { notice: { kind: 'error', body: message }, errors: at === null ? {} : { [at]: message } };
}
const nameOf = (deps: WebDeps, session: SessionView, userId: string) =>
  deps.services.accounts.roster(session.actor, session.workspaceId).find((m) => m.userId === userId)?.name ??
  t('settings.members.thisMember');

/** Members (owners only): add by email, visibility flags, rates, the owner role, setup links, removal. */
export function memberPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const isFormError = (error: unknown): error is DomainError =>
    error instanceof DomainError && (error.code === 'invalid' || error.code === 'conflict');
  /** A form about one member (`/members/:userId…`): its handler is given whom it is about and their name. */
  const memberForm = (path: string, handle: (req: Request, res: Response, signed: SignedIn, userId: string, name: string) => void) =>
    router.post(
      path,
      signedIn(deps, (req, res, signed) => {
        const userId = req.params.userId as string;
        handle(req, res, signed, userId, nameOf(deps, signed.session, userId));
      }),
    );
  /** Back to the members page (303), with the notice of what was done. */
  const backWith = (res: Response, signed: Signed, notice: Notice) => redirect(res, `${base}/members`, { deps, signed, notice });

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
          hourlyRate: rateOf(form.hourlyRate),
        });
      } catch (error) {
        if (!isFormError(error)) throw error;
        const refused = refusal(error, {
          message: (text) => (error.field && error.code === 'invalid' && error.words === undefined ? `The ${text}` : text),
        });
        return render(deps, res, signed, refused.status, null, {
          notice: { kind: 'error', body: refused.message },
          add: { form, errors: refused.errors },
        });
      }
      backWith(res, signed, addedNotice(deps, signed, added));
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
      backWith(res, signed, { kind: 'ok', body: t('settings.members.withdrawn') });
    }),
  );

  memberForm('/members/:userId', (req, res, signed, userId, name) => {
    const flags = flagsOf(req);
    try {
      services.accounts.setMember(signed.session.actor, {
        workspaceId: signed.session.workspaceId,
        userId,
        ...flags,
        hourlyRate: rateOf(flags.hourlyRate),
      });
    } catch (error) {
      if (!isFormError(error)) throw error;
      const refusal =
        error.code === 'conflict'
          ? { notice: { kind: 'error' as const, body: t('settings.members.lastOwner', { name }) }, errors: {} }
          : refusalAbout(name, error);
      return render(deps, res, signed, 400, null, { notice: refusal.notice, row: { userId, flags, errors: refusal.errors } });
    }
    // An owner who gave up the role has no members page any more.
    if (userId === signed.session.userId && !flags.isOwner) return redirect(res, `${base}/tokens`);
    backWith(res, signed, { kind: 'ok', body: t('settings.members.saved', { name }) });
  });

  memberForm('/members/:userId/remove', (req, res, signed, userId, name) => {
    try {
      services.accounts.removeMember(signed.session.actor, { workspaceId: signed.session.workspaceId, userId });
    } catch (error) {
      if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
      const body = error.code === 'conflict' ? t('settings.members.lastOwner', { name }) : t('settings.members.removedAlready');
      return render(deps, res, signed, statusOf(error), { kind: 'error', body });
    }
    // Removing yourself ends your own session here.
    if (userId === signed.session.userId) return redirect(res, `${base}/sign-in`);
    backWith(res, signed, { kind: 'ok', body: t('settings.members.removed', { name }) });
  });

  memberForm('/members/:userId/invite', (req, res, signed, userId, name) => {
    let link: { secret: string | null; expiresAt: number; mailed: boolean };
    try {
      link = services.sessions.invite(signed.session.actor, { workspaceId: signed.session.workspaceId, userId });
    } catch (error) {
      if (!(error instanceof DomainError) || (error.code !== 'forbidden' && error.code !== 'not_found')) throw error;
      return render(deps, res, signed, error.code === 'forbidden' ? 403 : 404, { kind: 'error', body: spoken(error) });
    }
    backWith(res, signed, setupLinkNotice(deps, name, link, readerZone(deps, signed.session)));
  });
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
        <strong>${t('settings.members.mailedSetup', { name })}</strong>${t('settings.members.mailedSetupRest', { until })}
        ${linked(t('settings.members.mailPage'), `${deps.paths.settings}/mail`)}
      </p>`,
    };
  const where = siteLink(deps);
  return {
    kind: 'ok',
    body: html`<p><strong>${t('settings.members.setupFor', { name })}</strong>${t('settings.members.setupForRest', { name, until })}</p>
      ${secretBox('setup-link', t('settings.members.theSetupLink', { name }), `${where.url}${deps.paths.settings}/setup/${link.secret}`)}
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
  // What became of the link, to whom (bold), for which workspace until when.
  const said = (lead: Key, rest: Key) =>
    html`<strong>${t(lead, { email: added.email })}</strong>${t(rest, { workspace: signed.session.workspaceName, until })}`;
  // Mailed: only the address's holder gets the link (H1); it is not shown here.
  if (link.secret === null)
    return {
      kind: 'ok',
      body: html`<p>
        ${said('settings.members.mailedLink', 'settings.members.mailedLinkRest')}
        ${linked(t('settings.members.mailPage'), `${deps.paths.settings}/mail`)}
      </p>`,
    };
  const where = siteLink(deps);
  return {
    kind: 'ok',
    body: html`<p>${said('settings.members.sendLink', 'settings.members.sendLinkRest')}</p>
      ${secretBox('setup-link', t('settings.members.theLink', { email: added.email }), `${where.url}${deps.paths.settings}/setup/${link.secret}`)}
      ${where.warning ? html`<p class="hint warning">${where.warning}</p>` : ''}`,
  };
}
