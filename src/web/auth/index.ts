import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { HashingBusy } from '../../modules/sessions/errors.js';
import { SESSION_MAX_MS } from '../../modules/sessions/service.js';
import type { WebArea, WebDeps } from '../deps.js';
import { type FieldErrors, inputField } from '../kit/fields.js';
import { field } from '../kit/forms.js';
import { html } from '../kit/html.js';
import type { Notice } from '../kit/layout.js';
import { isFormRefusal, refusal, spoken, statusOf } from '../kit/refusal.js';
import { redirect, send, shell } from '../kit/respond.js';
import { csrfField } from '../kit/layout.js';
import { landing, safeNext } from '../paths.js';
import { clearSessionCookie, formToken, setSessionCookie } from '../session/cookies.js';
import { lobbyOf, type Signed, signedIn, signedOf } from '../session/guard.js';
import { lobbyPath, lobbyRoutes } from './lobby.js';
import { mailLinkRoutes } from './mail-links.js';
import { oidcRoutes, providerPart, providerSignOut } from './oidc.js';
import { newPasswordFields } from './password-fields.js';
import { said } from '../kit/said.js';
import { formats, t } from '../../i18n/index.js';

const SESSION_MAX_AGE_SEC = Math.floor(SESSION_MAX_MS / 1000);

/** What the first start's page sends: the owner's name and email, and the workspace's name. */
type FirstSent = { name: string; email: string; workspace: string; kept?: true };

/**
 * The first start's form as sent: a form without the workspace's field (sent before it was
 * asked) keeps the name the workspace has; one with it empty is refused at it.
 */
const firstSent = (req: Request): FirstSent => ({
  name: field(req, 'name'),
  email: field(req, 'email'),
  workspace: field(req, 'workspace'),
  ...(typeof (req.body as Record<string, unknown> | undefined)?.workspace === 'string' ? {} : { kept: true }),
});

/** What the service is given: the workspace's name only when the form had its field. */
const profileOf = ({ name, email, workspace, kept }: FirstSent) => ({ name, email, ...(kept ? {} : { workspace }) });

/** The first start's fields: the workspace's name (invitations and mail say it), the owner's name and sign-in email, typed by them. */
const profileFields = (sent: FirstSent, errors: FieldErrors) =>
  (
    [
      [
        'workspace',
        html`${t('auth.workspaceName')} <span class="hint">${t('auth.workspaceNameHint')}</span>`,
        html`type="text" autocomplete="organization" maxlength="200"`,
      ],
      [
        'name',
        html`${t('auth.yourName')} <span class="hint">${t('auth.yourNameHint')}</span>`,
        html`type="text" autocomplete="name" maxlength="200"`,
      ],
      [
        'email',
        html`${t('auth.yourEmail')} <span class="hint">${t('auth.yourEmailHint')}</span>`,
        html`type="email" autocomplete="username" maxlength="254"`,
      ],
    ] as const
  ).map(
    ([name, label, attrs]) => html`${inputField(name, label, html`name="${name}" ${attrs} required`, sent[name], errors[name], '', '')} `,
  );

/** A field's refusal as a sentence: the English message names the field first ("password must…"); words for people are whole. */
const theField = (error: DomainError, text: string) => (error.words === undefined ? `The ${text}` : text);

/** Whom a setup link is for: their name and the workspace's in bold. */
const forWhom = (link: { name: string; email: string; workspaceName: string }) =>
  said('auth.forWhom', {
    name: html`<strong>${link.name}</strong>`,
    email: link.email,
    workspace: html`<strong>${link.workspaceName}</strong>`,
  });

/** The page a setup link opens: the password (and, for the first start's link, the owner's name and email). */
function setupPage(
  deps: WebDeps,
  req: Request,
  res: Response,
  status: number,
  secret: string,
  notice: Notice | null,
  sent: FirstSent = { name: '', email: '', workspace: '' },
  errors: FieldErrors = {},
): void {
  const { services } = deps;
  const base = deps.paths.settings;
  const link = services.sessions.setupLink(secret);
  if (!link) {
    return send(deps, res, 410, {
      title: t('auth.linkGone'),
      notice: { kind: 'error', body: t('auth.setupGone') },
      body: html`<p>${said('auth.setupGoneNext', {}, [`${base}/sign-in`])}</p>`,
    });
  }
  if (link.viaProvider) return providerSetupPage(deps, req, res, status, secret, link, notice, sent, errors);
  send(deps, res, status, {
    title: t('auth.setPassword'),
    notice,
    body: html`${link.asksProfile ? html`<p>${t('auth.firstOwner')}</p>` : html`<p>${forWhom(link)}</p>`}
      <form class="stack" method="post" action="${base}/setup/${secret}">
        <input type="hidden" name="_csrf" value="${formToken(req, res, deps.config)}" />
        <input type="hidden" name="timeZone" data-browser-zone />
        ${
          link.asksProfile
            ? profileFields(sent, errors)
            : html`<input type="hidden" name="email" autocomplete="username" value="${link.email}" />`
        }
        ${newPasswordFields(errors)}
      </form>`,
  });
}

/**
 * A setup link under OIDC_ONLY for anyone but a break-glass owner (issue 54, N5): it sets no
 * password; its button uses it up (proving a mailed address) and goes on to the provider.
 */
function providerSetupPage(
  deps: WebDeps,
  req: Request,
  res: Response,
  status: number,
  secret: string,
  link: { name: string; email: string; workspaceName: string; asksProfile: boolean },
  notice: Notice | null,
  sent: FirstSent,
  errors: FieldErrors,
): void {
  const { oidc } = deps.services;
  send(deps, res, status, {
    title: t('auth.withProvider', { provider: oidc.name }),
    notice,
    body: html`${link.asksProfile ? html`<p>${t('auth.firstOwner')}</p>` : html`<p>${forWhom(link)}</p>`}
      <p>${t('auth.noPasswordHere', { provider: oidc.name })}</p>
      <form class="stack" method="post" action="${deps.paths.settings}/setup/${secret}/provider">
        <input type="hidden" name="_csrf" value="${formToken(req, res, deps.config)}" />
        ${link.asksProfile ? profileFields(sent, errors) : ''}
        <div><button type="submit">${t('auth.continueWith', { provider: oidc.name })}</button></div>
      </form>`,
  });
}

/**
 * An invitation's page for someone not signed in to a workspace (issue 54, N1): the link is the
 * proof of the address, so the invited account's password joins it here, in one step; or a
 * sign-in first (through the provider, or for an account with a workspace) comes back to it.
 */
function invitationSignInPage(
  deps: WebDeps,
  req: Request,
  res: Response,
  status: number,
  secret: string,
  invitation: { workspaceName: string; email: string },
  notice: Notice | null,
): void {
  const { services, paths } = deps;
  const base = paths.settings;
  const here = `${base}/setup/${secret}`;
  const passwords = !services.oidc.only;
  send(deps, res, status, {
    title: t('auth.join', { workspace: invitation.workspaceName }),
    notice,
    body: html`<p>${said('auth.invited', { workspace: html`<strong>${invitation.workspaceName}</strong>`, email: invitation.email })}</p>
      ${
        services.oidc.enabled
          ? html`<p>
              <a class="button" id="provider-sign-in" href="${base}/oidc/start?next=${encodeURIComponent(here)}"
                >${t('auth.withProvider', { provider: services.oidc.name })}</a
              >
            </p>`
          : ''
      }
      ${
        passwords
          ? html`<form class="stack" method="post" action="${here}/sign-in">
                <input type="hidden" name="_csrf" value="${formToken(req, res, deps.config)}" />
                <input type="hidden" name="email" autocomplete="username" value="${invitation.email}" />
                <div>
                  <label for="password">${t('auth.passwordOf', { email: invitation.email })}</label
                  ><input id="password" name="password" type="password" autocomplete="current-password" required />
                </div>
                <div><button type="submit">${t('auth.signInAndJoin', { workspace: invitation.workspaceName })}</button></div>
              </form>
              <p class="hint">
                ${services.sessions.resetsByMail() ? said('auth.noPasswordMail', {}, [`${base}/forgot`]) : t('auth.noPasswordAsk')}
                ${said('auth.otherAccount', {}, [`${base}/sign-in?next=${encodeURIComponent(here)}`])}
              </p>`
          : ''
      }`,
  });
}

/** A link from "Add member" that is an invitation (decisions §8a): opened signed in as the account it is for, it joins it. */
function invitationRoutes(router: Router, deps: WebDeps): void {
  const { services, paths } = deps;
  const base = paths.settings;
  // A link from "Add member": a setup link (a new account sets its password), else an invitation
  // (an account that exists joins, signed in as itself: decisions §8a). Both look alike.
  router.get('/setup/:secret', (req, res) => {
    const secret = req.params.secret as string;
    if (services.sessions.setupLink(secret) !== null) return setupPage(deps, req, res, 200, secret, null);
    const invitation = services.accounts.invitation(secret);
    if (invitation === null) return setupPage(deps, req, res, 410, secret, null);
    const signed = signedOf(res);
    // An account in no workspace whose address was proved sees it among its invitations.
    if (!signed.session && lobbyOf(res)) return void res.redirect(303, lobbyPath(deps));
    if (!signed.session) return invitationSignInPage(deps, req, res, 200, secret, invitation, null);
    const own = services.sessions.memberships(signed.session.userId);
    send(deps, res, 200, {
      ...shell(deps, signed),
      title: t('auth.join', { workspace: invitation.workspaceName }),
      body: html`<p>
          ${said(own.length > 0 ? 'auth.invitedMember' : 'auth.invitedSignedIn', {
            workspace: html`<strong>${invitation.workspaceName}</strong>`,
            email: invitation.email,
            name: signed.session.name,
            you: signed.session.email,
            workspaces: formats().list(own.map((w) => w.name)),
          })}
        </p>
        <form class="stack" method="post" action="${base}/setup/${secret}/join">
          ${csrfField(signed.session.csrfToken)}
          <div><button type="submit">${t('auth.join', { workspace: invitation.workspaceName })}</button></div>
        </form>
        <p class="hint">${t('auth.notYou', { email: invitation.email })}</p>`,
    });
  });

  router.post(
    '/setup/:secret/join',
    signedIn(deps, (req, res, signed) => {
      const { workspaceId } = services.accounts.acceptInvitation(signed.session.actor, req.params.secret as string);
      services.sessions.switchWorkspace(signed.secret, signed.session.userId, workspaceId);
      redirect(res, `${paths.app}/week`, {
        deps,
        signed,
        notice: { kind: 'ok', body: t('auth.joined') },
      });
    }),
  );

  // The invited account's password on the link's page: the link proves the address, the password the account (N1).
  router.post('/setup/:secret/sign-in', async (req, res, next) => {
    const secret = req.params.secret as string;
    const invitation = services.accounts.invitation(secret);
    if (invitation === null) return setupPage(deps, req, res, 410, secret, null);
    try {
      const result = await services.sessions.signInByInvitation({
        linkSecret: secret,
        password: field(req, 'password'),
        address: req.ip ?? 'unknown',
      });
      switch (result.kind) {
        case 'gone':
          return setupPage(deps, req, res, 410, secret, null);
        case 'limited':
        case 'busy':
          res.setHeader('Retry-After', String(result.retryAfterSec));
          return invitationSignInPage(deps, req, res, result.kind === 'busy' ? 503 : 429, secret, invitation, {
            kind: 'error',
            body:
              result.kind === 'busy' ? t('auth.busySignIns') : t('auth.tooManySignIns', { count: Math.ceil(result.retryAfterSec / 60) }),
          });
        case 'refused':
          return invitationSignInPage(deps, req, res, 401, secret, invitation, {
            kind: 'error',
            body: t('auth.notPasswordOf', { email: invitation.email }),
          });
        case 'joined':
          setSessionCookie(res, deps.config, req, result.session.secret, SESSION_MAX_AGE_SEC);
          deps.flashes.put(result.session.secret, { kind: 'ok', body: t('auth.joined') });
          return redirect(res, `${paths.app}/week`);
      }
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      invitationSignInPage(deps, req, res, statusOf(error), secret, invitation, { kind: 'error', body: spoken(error) });
    }
  });

  // Under OIDC_ONLY, the button of a setup link that sets no password (N5): used up, then the provider.
  router.post('/setup/:secret/provider', (req, res, next) => {
    const secret = req.params.secret as string;
    const sent = firstSent(req);
    try {
      if (!services.sessions.setupThroughProvider(secret, profileOf(sent))) return setupPage(deps, req, res, 410, secret, null);
      redirect(res, `${paths.settings}/oidc/start?next=${encodeURIComponent(`${paths.app}/week`)}`);
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const refused = refusal(error, { message: (text) => (error.code === 'invalid' && error.field ? theField(error, text) : text) });
      setupPage(deps, req, res, statusOf(error), secret, { kind: 'error', body: refused.message }, sent, refused.errors);
    }
  });

  router.post('/setup/:secret', async (req, res, next) => {
    const secret = req.params.secret as string;
    const sent = firstSent(req);
    try {
      if (field(req, 'password') !== field(req, 'confirm'))
        return setupPage(deps, req, res, 400, secret, { kind: 'error', body: t('auth.passwordsDiffer') }, sent, {
          password: t('auth.passwordsDifferField'),
        });
      const session = await services.sessions.completeSetup(secret, field(req, 'password'), profileOf(sent));
      if (!session) return setupPage(deps, req, res, 410, secret, null);
      setSessionCookie(res, deps.config, req, session.secret, SESSION_MAX_AGE_SEC);
      adoptZone(deps, session.secret, field(req, 'timeZone'));
      // The week, with a one-line welcome (in the address: it survives the page's reload once it learns the browser's zone).
      redirect(res, `${paths.app}/week?welcome=1`);
    } catch (error) {
      if (isFormRefusal(error)) {
        const refused = refusal(error, { message: (text) => (error.code === 'conflict' ? text : theField(error, text)) });
        return setupPage(deps, req, res, 400, secret, { kind: 'error', body: refused.message }, sent, refused.errors);
      }
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return setupPage(deps, req, res, 503, secret, { kind: 'error', body: t('common.hashingBusy') });
      }
      next(error);
    }
  });
}

/**
 * The browser's zone, sent by the sign-in and setup forms (filled by the page's script), becomes
 * the member's when they have chosen none yet: their week then opens in it at once, with no
 * reload to learn it. A zone the browser names wrongly is ignored (the Profile page sets one).
 */
function adoptZone(deps: WebDeps, sessionSecret: string, zone: string): void {
  if (zone === '') return;
  const session = deps.services.sessions.session(sessionSecret);
  if (!session || deps.services.accounts.preferences(session.userId).timeZone !== null) return;
  try {
    deps.services.accounts.setPreferences(session.actor, session.userId, { timeZone: zone });
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
  }
}

/**
 * The sign-in of an account in no workspace whose address nobody proved (issue 54, N1): no
 * lobby; what to do instead (the mailed link, or the invitation's link and the operator).
 */
function unconfirmedNotice(deps: WebDeps, result: { email: string; mailed: boolean }): Notice {
  const first = t('auth.unconfirmed', { email: result.email });
  const then = result.mailed
    ? t('auth.unconfirmedMailed', { email: result.email })
    : deps.services.sessions.resetsByMail()
      ? t('auth.unconfirmedMailedBefore', { email: result.email })
      : t('auth.unconfirmedNoMail');
  return { kind: 'error', body: `${first} ${then}` };
}

/** Sign-in (returning to the page asked for), password setup through a link (landing on the week), sign-out and the workspace switch. */
export const authArea: WebArea = {
  base: (deps) => deps.paths.settings,
  routes(router: Router, deps: WebDeps): void {
    const { services, paths } = deps;
    const base = paths.settings;

    const signInPage = async (req: Request, res: Response, status: number, email: string, notice: Notice | null) => {
      const next = safeNext(paths, req.method === 'GET' ? req.query.next : field(req, 'next'));
      // Sign-in through the identity provider, when set up (./oidc.ts): its button, its notice, and whether passwords are taken.
      const provider = await providerPart(deps, req);
      send(deps, res, status, {
        title: t('auth.signIn'),
        notice: notice ?? provider.notice,
        body: html`${provider.body}
        ${
          provider.passwordForm
            ? html`<form class="stack" method="post" action="${base}/sign-in">
                  <input type="hidden" name="_csrf" value="${formToken(req, res, deps.config)}" />
                  <input type="hidden" name="timeZone" data-browser-zone />
                  ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
                  ${services.oidc.only ? html`<input type="hidden" name="breakGlass" value="1" />` : ''}
                  <div>
                    <label for="email">${t('auth.email')}</label
                    ><input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
                  </div>
                  <div>
                    <label for="password">${t('auth.password')}</label
                    ><input id="password" name="password" type="password" autocomplete="current-password" required />
                  </div>
                  <div><button type="submit">${t('auth.signIn')}</button></div>
                </form>
                <p class="hint">
                  ${services.sessions.resetsByMail() ? html`<a href="${base}/forgot">${t('auth.forgot')}</a> ` : ''}${t('auth.noPasswordYet')}
                </p>`
            : ''
        }`,
      });
    };

    // Settings opens on what a person needs: an owner on the workspace, a member on their profile (which links on to the rest).
    router.get('/', (_req, res) => {
      const { session } = signedOf(res);
      if (!session) return redirect(res, `${base}/sign-in?next=${encodeURIComponent(base)}`);
      redirect(res, session.isOwner ? `${base}/workspace` : `${paths.app}/profile`);
    });

    router.get('/sign-in', async (req, res, next) => {
      if (signedOf(res).session) return redirect(res, landing(paths, req.query.next));
      if (lobbyOf(res)) return redirect(res, lobbyPath(deps));
      await signInPage(req, res, 200, '', null).catch(next);
    });

    router.post('/sign-in', async (req, res, next) => {
      try {
        const email = field(req, 'email').trim().slice(0, 254);
        const result = await services.sessions.signIn({ email, password: field(req, 'password'), address: req.ip ?? 'unknown' });
        if (result.kind === 'limited' || result.kind === 'busy') {
          res.setHeader('Retry-After', String(result.retryAfterSec));
          const wait = result.retryAfterSec;
          return signInPage(req, res, result.kind === 'busy' ? 503 : 429, email, {
            kind: 'error',
            body: result.kind === 'busy' ? t('auth.busySignIns') : t('auth.tooManySignIns', { count: Math.ceil(wait / 60) }),
          });
        }
        if (result.kind === 'refused')
          return signInPage(req, res, 401, email, {
            kind: 'error',
            body: t('auth.refused'),
          });
        if (result.kind === 'unconfirmed') return signInPage(req, res, 403, email, unconfirmedNotice(deps, result));
        setSessionCookie(res, deps.config, req, result.session.secret, SESSION_MAX_AGE_SEC);
        // An account that belongs to no workspace: its invitations (issue 44).
        if (result.kind === 'lobby') return redirect(res, lobbyPath(deps));
        adoptZone(deps, result.session.secret, field(req, 'timeZone'));
        redirect(res, landing(paths, field(req, 'next')));
      } catch (error) {
        next(error);
      }
    });

    invitationRoutes(router, deps);
    lobbyRoutes(router, deps);
    mailLinkRoutes(router, deps);
    oidcRoutes(router, deps, signInPage);

    router.post('/sign-out', (req, res) => {
      const secret = (signedOf(res) as Signed).secret ?? lobbyOf(res)?.secret ?? null;
      // A session opened through the identity provider signs out there too, when it offers that.
      const provider = secret === null ? null : services.oidc.signOutUrl(secret);
      if (secret !== null) services.sessions.signOut(secret);
      clearSessionCookie(res, deps.config, req);
      if (provider !== null) return providerSignOut(deps, res, provider);
      redirect(res, `${base}/sign-in`);
    });

    router.post(
      '/switch',
      signedIn(deps, (req, res, signed) => {
        services.sessions.switchWorkspace(signed.secret, signed.session.userId, field(req, 'workspaceId'));
        redirect(res, `${paths.app}/week`);
      }),
    );
  },
};
