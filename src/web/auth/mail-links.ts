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

const SESSION_MAX_AGE_SEC = Math.floor(SESSION_MAX_MS / 1000);

/** Why a mailed link no longer works, and what to do: each answered 410 (404 for one never made). */
type Gone = 'used' | 'expired' | 'unknown' | 'no-workspace' | 'not-member' | 'password-off';

/** The token of a form on these pages: the session's when signed in, else the double-submit cookie's. */
const tokenOf = (deps: WebDeps, req: Request, res: Response): string =>
  signedOf(res).session?.csrfToken ?? formToken(req, res, deps.config);

const hidden = (deps: WebDeps, req: Request, res: Response) =>
  html`<input type="hidden" name="_csrf" value="${tokenOf(deps, req, res)}" />`;

/** A date and time in a zone, as the pages write them. */
const at = (ms: number, timeZone: string): string =>
  new Intl.DateTimeFormat('en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(ms);

/**
 * The pages of the links the server mails (under SETTINGS_PATH): "Forgot your password?" and its
 * reset link, the confirmation of a new sign-in email, and a runaway timer's Stop link. Opening a
 * link changes nothing (mail scanners open links): each asks for a button first.
 */
export function mailLinkRoutes(router: Router, deps: WebDeps): void {
  const { services, paths } = deps;
  const base = paths.settings;
  const signInLink = html`<a href="${base}/sign-in">sign in</a>`;
  const forgotLink = html`<a href="${base}/forgot">ask for a new link</a>`;

  /** A mailed link that no longer works: why, and what to do instead. */
  const gone = (res: Response, what: 'reset' | 'email' | 'stop', state: Gone) => {
    const reasons: Record<Gone, string> = {
      used: 'This link was used already: each works once.',
      expired: 'This link has expired.',
      unknown: 'This link is not one this server made, or it was replaced by a newer one.',
      'no-workspace': 'Your account no longer belongs to any workspace here.',
      'not-member': 'You are no longer a member of the workspace of that timer.',
      'password-off': `This server signs people in with ${services.oidc.name} only; passwords are for its break-glass owners.`,
    };
    const next: Record<typeof what, Html> = {
      reset:
        state === 'no-workspace'
          ? html`<p>There is nothing to sign in to: ask an owner of your workspace to add you again.</p>`
          : state === 'password-off'
            ? html`<p>${signInLink} with ${services.oidc.name}.</p>`
            : html`<p>To set a new password, ${forgotLink}. If you know your password, ${signInLink}.</p>`,
      email:
        state === 'no-workspace'
          ? html`<p>Ask an owner of your workspace to add you again.</p>`
          : html`<p>Your sign-in email is unchanged. To change it, ${signInLink} and save the new address on your Profile page again.</p>`,
      stop: html`<p>${signInLink} to stop or correct the timer on your week.</p>`,
    };
    send(deps, res, state === 'unknown' ? 404 : 410, {
      ...shell(deps, signedOf(res)),
      title: 'This link no longer works',
      notice: { kind: 'error', body: reasons[state] },
      body: next[what],
    });
  };

  const forgotPage = (req: Request, res: Response, status: number, email: string, notice: Notice | null) =>
    send(deps, res, status, {
      title: 'Forgot your password?',
      notice,
      body: services.sessions.resetsByMail()
        ? html`${
              services.oidc.only
                ? html`<p>
                    This server signs people in with <a href="${base}/sign-in">${services.oidc.name}</a>; passwords are only for its
                    break-glass owners, and only they get a link here.
                  </p>`
                : ''
            }
            <p>Type the email you sign in with. If an account uses it, a link to set a new password is mailed to it, valid for one hour.</p>
            <form class="stack" method="post" action="${base}/forgot">
              ${hidden(deps, req, res)}
              <div>
                <label for="email">Email</label
                ><input id="email" name="email" type="email" autocomplete="username" maxlength="254" required value="${email}" />
              </div>
              <div><button type="submit">Mail me a link</button></div>
            </form>
            <p class="hint">Remembered it? ${signInLink}.</p>`
        : html`<p>
            Mail is not set up on this server, so no link can be sent. Ask the person who runs timetrack to set a new password for you, or
            an owner of your workspace for help.
          </p>`,
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
        body: `Too many links asked for. Try again in ${minutes} minute${minutes > 1 ? 's' : ''}.`,
      });
    }
    if (result.kind === 'off') return forgotPage(req, res, 200, email, null);
    // The same answer whether or not an account uses the address (no account discovery).
    send(deps, res, 200, {
      title: 'Check your mail',
      notice: {
        kind: 'ok',
        body: `If an account uses ${email}, a link to set a new password is on its way there. It works once, for one hour.`,
      },
      body: html`<p>Nothing came? Check the spam folder, or ${html`<a href="${base}/forgot">ask again</a>`} in a few minutes.</p>`,
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
      title: 'Set a new password',
      notice,
      body: html`<p>For <strong>${link.name}</strong> (${link.email}). Your other sessions end when you save it.</p>
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
      return page(
        req,
        res,
        400,
        secret,
        { kind: 'error', body: 'The two passwords differ.' },
        {
          password: 'The two passwords differ: type the same password twice.',
        },
      );
    try {
      const done = await services.sessions.completeReset(secret, field(req, 'password'));
      if ('state' in done) return gone(res, 'reset', done.state);
      setSessionCookie(res, deps.config, req, done.session.secret, SESSION_MAX_AGE_SEC);
      if (done.credentialsEnded && !done.lobby)
        deps.flashes.put(done.session.secret, {
          kind: 'ok',
          body: 'Your address is confirmed. Every other session and API token of this account ended: nobody had confirmed the address before, so someone else may have held them.',
        });
      // An account in no workspace: its invitations, now that its address is proved (issue 54, N1).
      redirect(res, done.lobby ? lobbyPath(deps) : `${paths.app}/week`);
    } catch (error) {
      if (isFormRefusal(error)) {
        const refused = refusal(error, { fallback: 'password', message: (text) => `The ${text}` });
        return page(req, res, 400, secret, { kind: 'error', body: refused.message }, refused.errors);
      }
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return page(req, res, 503, secret, { kind: 'error', body: 'The server is busy checking passwords. Try again in a moment.' });
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
      title: 'Confirm your new sign-in email',
      body: html`<p>${link.name} signs in with <strong>${link.email}</strong> from now on.</p>
        <form class="stack" method="post" action="${paths.settings}/${MAIL_LINKS.confirmEmail}/${secret}">
          ${hidden(deps, req, res)}
          <div><button type="submit">Confirm ${link.email}</button></div>
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
        title: 'That did not work',
        notice: { kind: 'error', body: `${spoken(error)} Your sign-in email is unchanged.` },
        body: html`<p><a href="${paths.settings}/sign-in">Sign in</a> with your current address.</p>`,
      });
    }
    if (done.state !== 'done') return gone(res, 'email', done.state);
    // The first proof of the account's address ended its sessions (this one too), API tokens and links (N6).
    const signed = done.credentialsEnded ? { session: null, secret: null } : signedOf(res);
    send(deps, res, 200, {
      ...shell(deps, signed),
      title: 'Sign-in email changed',
      notice: {
        kind: 'ok',
        body: done.credentialsEnded
          ? `Done: you sign in with ${done.email} from now on. It is the first address of this account anyone confirmed, so its sessions and API tokens ended (someone else may have held them): sign in again, and make new tokens where you need them.`
          : `Done: you sign in with ${done.email} from now on.`,
      },
      body: html`<p><a href="${signed.session ? `${paths.app}/week` : `${paths.settings}/sign-in`}">Go to timetrack</a></p>`,
    });
  });
}

/** A runaway reminder's Stop link: the page asks, the button stops (the link alone stops nothing). */
function stopRoutes(router: Router, deps: WebDeps, gone: GonePage): void {
  const { services, paths } = deps;
  const path = `/${MAIL_LINKS.stop}/:secret`;
  const zoneOf = (userId: string) => services.accounts.preferences(userId).timeZone ?? deps.config.serverTimeZone;
  const what = (description: string) => (description.trim() === '' ? 'the timer' : `the timer “${description.trim()}”`);
  const stopped = (res: Response, endAt: number, zone: string, already: boolean) =>
    send(deps, res, 200, {
      ...shell(deps, signedOf(res)),
      title: already ? 'Already stopped' : 'Timer stopped',
      notice: { kind: 'ok', body: `${already ? 'That timer was stopped already' : 'Stopped'} at ${at(endAt, zone)}.` },
      body: html`<p><a href="${paths.app}/week">Open your week</a> to check or correct the entry.</p>`,
    });

  router.get(path, (req, res) => {
    const secret = req.params.secret as string;
    const link = services.timers.stopLink(secret);
    const viewer = signedOf(res).session;
    if (link.state === 'stopped') return stopped(res, link.endAt, viewer ? zoneOf(viewer.userId) : deps.config.serverTimeZone, true);
    if (link.state !== 'running') return gone(res, 'stop', link.state);
    // In the author's zone: the time they started it.
    const question = `Stop ${what(link.description)} started at ${at(link.startAt, zoneOf(link.userId))}?`;
    send(deps, res, 200, {
      ...shell(deps, signedOf(res)),
      title: 'Stop the timer?',
      body: html`<p>${question}</p>
        <form class="stack" method="post" action="${paths.settings}/${MAIL_LINKS.stop}/${secret}">
          ${hidden(deps, req, res)}
          <div><button type="submit">Stop it now</button></div>
        </form>
        <p class="hint">It ends now; you can correct its end on your week afterwards.</p>`,
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
