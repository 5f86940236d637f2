import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { MAIL_LINKS } from '../../modules/mail/service.js';
import { HashingBusy } from '../../modules/sessions/errors.js';
import { SESSION_MAX_MS } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { type FieldErrors } from '../kit/fields.js';
import { field } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import type { Notice } from '../kit/layout.js';
import { isFormRefusal, refusal, spoken } from '../kit/refusal.js';
import { redirect, send, shell } from '../kit/respond.js';
import { formToken, setSessionCookie } from '../session/cookies.js';
import { signedOf } from '../session/guard.js';
import { lobbyPath } from './lobby.js';
import { newPasswordFields } from './password-fields.js';
import { said } from '../kit/said.js';
import { formats, type Key, t } from '../../i18n/index.js';

const SESSION_MAX_AGE_SEC = Math.floor(SESSION_MAX_MS / 1000);

/** Why a mailed link no longer works, and what to do: each answered 410 (404 for one never made). */
type Gone = 'used' | 'expired' | 'unknown' | 'no-workspace' | 'not-member' | 'password-off';

/** The token of a form on these pages: the session's when signed in, else the double-submit cookie's. */
const tokenOf = (deps: WebDeps, req: Request, res: Response): string =>
  signedOf(res).session?.csrfToken ?? formToken(req, res, deps.config);

const hidden = (deps: WebDeps, req: Request, res: Response) =>
  html`<input type="hidden" name="_csrf" value="${tokenOf(deps, req, res)}" />`;

/** A date and time in a zone, as the reader writes them. */
const at = (ms: number, timeZone: string): string => formats().dateTime(ms, timeZone);

/** Why a mailed link no longer works, in words (by key). */
const REASONS: Record<Gone, Key> = {
  used: 'auth.used',
  expired: 'auth.expired',
  unknown: 'auth.unknown',
  'no-workspace': 'auth.noWorkspace',
  'not-member': 'auth.notMember',
  'password-off': 'auth.passwordOff',
};

/**
 * The pages of the links the server mails (under SETTINGS_PATH): "Forgot your password?" and its
 * reset link, the confirmation of a new sign-in email, and a runaway timer's Stop link. Opening a
 * link changes nothing (mail scanners open links): each asks for a button first.
 */
export function mailLinkRoutes(router: Router, deps: WebDeps): void {
  const { services, paths } = deps;
  const base = paths.settings;
  const signInHref = `${base}/sign-in`;

  /** A mailed link that no longer works: why, and what to do instead. */
  const gone = (res: Response, what: 'reset' | 'email' | 'stop', state: Gone) => {
    const next: Record<typeof what, Html> = {
      reset:
        state === 'no-workspace'
          ? html`<p>${t('auth.resetNoWorkspace')}</p>`
          : state === 'password-off'
            ? html`<p>${said('auth.resetPasswordOff', { provider: services.oidc.name }, [signInHref])}</p>`
            : html`<p>${said('auth.resetNext', {}, [`${base}/forgot`, signInHref])}</p>`,
      email:
        state === 'no-workspace' ? html`<p>${t('auth.emailNoWorkspace')}</p>` : html`<p>${said('auth.emailNext', {}, [signInHref])}</p>`,
      stop: html`<p>${said('auth.stopNext', {}, [signInHref])}</p>`,
    };
    send(deps, res, state === 'unknown' ? 404 : 410, {
      ...shell(deps, signedOf(res)),
      title: t('auth.linkGone'),
      notice: { kind: 'error', body: t(REASONS[state], { provider: services.oidc.name }) },
      body: next[what],
    });
  };

  const forgotPage = (req: Request, res: Response, status: number, email: string, notice: Notice | null) =>
    send(deps, res, status, {
      title: t('auth.forgot'),
      notice,
      body: services.sessions.resetsByMail()
        ? html`${services.oidc.only ? html`<p>${said('auth.forgotOidc', { provider: services.oidc.name }, [signInHref])}</p>` : ''}
            <p>${t('auth.forgotIntro')}</p>
            <form class="stack" method="post" action="${base}/forgot">
              ${hidden(deps, req, res)}
              <div>
                <label for="email">${t('auth.email')}</label
                ><input id="email" name="email" type="email" autocomplete="username" maxlength="254" required value="${email}" />
              </div>
              <div><button type="submit">${t('auth.mailMeLink')}</button></div>
            </form>
            <p class="hint">${said('auth.remembered', {}, [signInHref])}</p>`
        : html`<p>${t('auth.noMail')}</p>`,
    });

  router.get('/forgot', (req, res) => forgotPage(req, res, 200, '', null));

  router.post('/forgot', (req, res) => {
    const email = field(req, 'email').trim().slice(0, 254);
    const result = services.sessions.requestReset({ email, address: req.ip ?? 'unknown' });
    if (result.kind === 'limited') {
      res.setHeader('Retry-After', String(result.retryAfterSec));
      const minutes = Math.ceil(result.retryAfterSec / 60);
      return forgotPage(req, res, 429, email, {
        kind: 'error',
        body: t('auth.tooManyLinks', { count: minutes }),
      });
    }
    if (result.kind === 'off') return forgotPage(req, res, 200, email, null);
    // The same answer whether or not an account uses the address (no account discovery).
    send(deps, res, 200, {
      title: t('auth.checkMail'),
      notice: { kind: 'ok', body: t('auth.onItsWay', { email }) },
      body: html`<p>${said('auth.nothingCame', {}, [`${base}/forgot`])}</p>`,
    });
  });

  resetRoutes(router, deps, gone);
  emailRoutes(router, deps, gone);
  stopRoutes(router, deps, gone);
}

type GonePage = (res: Response, what: 'reset' | 'email' | 'stop', state: Gone) => void;

/** The reset link: a new password (as a setup link sets one), every other session ended, signed in. */
function resetRoutes(router: Router, deps: WebDeps, gone: GonePage): void {
  const { services, paths } = deps;
  const path = `/${MAIL_LINKS.reset}/:secret`;
  const page = (req: Request, res: Response, status: number, secret: string, notice: Notice | null, errors: FieldErrors = {}) => {
    const link = services.sessions.resetLink(secret);
    if (link.state !== 'valid') return gone(res, 'reset', link.state);
    send(deps, res, status, {
      title: t('auth.setNewPassword'),
      notice,
      body: html`<p>${said('auth.resetFor', { name: html`<strong>${link.name}</strong>`, email: link.email })}</p>
        <form class="stack" method="post" action="${paths.settings}/${MAIL_LINKS.reset}/${secret}">
          ${hidden(deps, req, res)}
          <input type="hidden" name="email" autocomplete="username" value="${link.email}" />
          ${newPasswordFields(errors)}
        </form>`,
    });
  };

  router.get(path, (req, res) => page(req, res, 200, req.params.secret as string, null));

  router.post(path, async (req, res, next) => {
    const secret = req.params.secret as string;
    if (field(req, 'password') !== field(req, 'confirm'))
      return page(req, res, 400, secret, { kind: 'error', body: t('auth.passwordsDiffer') }, { password: t('auth.passwordsDifferField') });
    try {
      const done = await services.sessions.completeReset(secret, field(req, 'password'));
      if ('state' in done) return gone(res, 'reset', done.state);
      setSessionCookie(res, deps.config, req, done.session.secret, SESSION_MAX_AGE_SEC);
      if (done.credentialsEnded && !done.lobby) deps.flashes.put(done.session.secret, { kind: 'ok', body: t('auth.addressConfirmed') });
      // An account in no workspace: its invitations, now that its address is proved (issue 54, N1).
      redirect(res, done.lobby ? lobbyPath(deps) : `${paths.app}/week`);
    } catch (error) {
      if (isFormRefusal(error)) {
        const refused = refusal(error, { fallback: 'password', message: (text) => (error.words === undefined ? `The ${text}` : text) });
        return page(req, res, 400, secret, { kind: 'error', body: refused.message }, refused.errors);
      }
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return page(req, res, 503, secret, { kind: 'error', body: t('common.hashingBusy') });
      }
      next(error);
    }
  });
}

/** A new sign-in email's confirmation, opened from the new address's mailbox. */
function emailRoutes(router: Router, deps: WebDeps, gone: GonePage): void {
  const { services, paths } = deps;
  const path = `/${MAIL_LINKS.confirmEmail}/:secret`;

  router.get(path, (req, res) => {
    const secret = req.params.secret as string;
    const link = services.sessions.emailChangeLink(secret);
    if (link.state !== 'valid') return gone(res, 'email', link.state);
    send(deps, res, 200, {
      ...shell(deps, signedOf(res)),
      title: t('auth.confirmEmailTitle'),
      body: html`<p>${said('auth.confirmEmailBody', { name: link.name, email: html`<strong>${link.email}</strong>` })}</p>
        <form class="stack" method="post" action="${paths.settings}/${MAIL_LINKS.confirmEmail}/${secret}">
          ${hidden(deps, req, res)}
          <div><button type="submit">${t('auth.confirmEmail', { email: link.email })}</button></div>
        </form>`,
    });
  });

  router.post(path, (req, res) => {
    const secret = req.params.secret as string;
    let done: ReturnType<typeof services.sessions.confirmEmailChange>;
    try {
      done = services.sessions.confirmEmailChange(secret);
    } catch (error) {
      if (!(error instanceof DomainError) || !isFormRefusal(error)) throw error;
      return send(deps, res, 409, {
        title: t('errors.didNotWork'),
        notice: { kind: 'error', body: t('auth.emailUnchanged', { refusal: spoken(error) }) },
        body: html`<p>${said('auth.signInCurrent', {}, [`${paths.settings}/sign-in`])}</p>`,
      });
    }
    if (done.state !== 'done') return gone(res, 'email', done.state);
    // The first proof of the account's address ended its sessions (this one too), API tokens and links (N6).
    const signed = done.credentialsEnded ? { session: null, secret: null } : signedOf(res);
    send(deps, res, 200, {
      ...shell(deps, signed),
      title: t('auth.emailChanged'),
      notice: { kind: 'ok', body: t(done.credentialsEnded ? 'auth.emailDoneEnded' : 'auth.emailDone', { email: done.email }) },
      body: html`<p><a href="${signed.session ? `${paths.app}/week` : `${paths.settings}/sign-in`}">${t('errors.goToTimetrack')}</a></p>`,
    });
  });
}

/** A runaway reminder's Stop link: the page asks, the button stops (the link alone stops nothing). */
function stopRoutes(router: Router, deps: WebDeps, gone: GonePage): void {
  const { services, paths } = deps;
  const path = `/${MAIL_LINKS.stop}/:secret`;
  const zoneOf = (userId: string) => services.accounts.preferences(userId).timeZone ?? deps.config.serverTimeZone;
  const stopped = (res: Response, endAt: number, zone: string, already: boolean) =>
    send(deps, res, 200, {
      ...shell(deps, signedOf(res)),
      title: t(already ? 'auth.alreadyStopped' : 'auth.timerStopped'),
      notice: { kind: 'ok', body: t(already ? 'auth.stoppedAlreadyAt' : 'auth.stoppedAt', { when: at(endAt, zone) }) },
      body: html`<p>${said('auth.openWeek', {}, [`${paths.app}/week`])}</p>`,
    });

  router.get(path, (req, res) => {
    const secret = req.params.secret as string;
    const link = services.timers.stopLink(secret);
    const viewer = signedOf(res).session;
    if (link.state === 'stopped') return stopped(res, link.endAt, viewer ? zoneOf(viewer.userId) : deps.config.serverTimeZone, true);
    if (link.state !== 'running') return gone(res, 'stop', link.state);
    // In the author's zone: the time they started it.
    const when = at(link.startAt, zoneOf(link.userId));
    const question =
      link.description.trim() === ''
        ? t('auth.stopQuestion', { when })
        : t('auth.stopQuestionNamed', { what: link.description.trim(), when });
    send(deps, res, 200, {
      ...shell(deps, signedOf(res)),
      title: t('auth.stopTitle'),
      body: html`<p>${question}</p>
        <form class="stack" method="post" action="${paths.settings}/${MAIL_LINKS.stop}/${secret}">
          ${hidden(deps, req, res)}
          <div><button type="submit">${t('auth.stopNow')}</button></div>
        </form>
        <p class="hint">${t('auth.stopHint')}</p>`,
    });
  });

  router.post(path, (req, res) => {
    const secret = req.params.secret as string;
    const before = services.timers.stopLink(secret);
    const done = services.timers.stopByLink(secret);
    const zone = before.state === 'running' ? zoneOf(before.userId) : deps.config.serverTimeZone;
    if (done.state === 'done') return stopped(res, done.endAt, zone, false);
    if (done.state === 'stopped') return stopped(res, done.endAt, zone, true);
    if (done.state === 'running') throw new Error('a Stop link left its timer running');
    gone(res, 'stop', done.state);
  });
}
