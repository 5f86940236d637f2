import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { HashingBusy, PASSWORD_MIN } from '../../modules/sessions/password.js';
import { SESSION_MAX_MS } from '../../modules/sessions/service.js';
import { errorAt, type FieldErrors, fieldOfMessage, invalidAt } from '../fields.js';
import { html } from '../html.js';
import { clearSessionCookie, field, formToken, redirect, send, setSessionCookie, type SettingsDeps, type Signed } from '../kit.js';
import type { Notice } from '../layout.js';
import { signedIn } from './guard.js';

const SESSION_MAX_AGE_SEC = Math.floor(SESSION_MAX_MS / 1000);

/** The first start's fields: the owner's name and sign-in email, typed by them. */
const profileFields = (sent: { name: string; email: string }, errors: FieldErrors) =>
  html`<div>
      <label for="name">Your name <span class="hint">As colleagues see it, e.g. "Ada Lovelace".</span></label>
      <input
        id="name"
        name="name"
        type="text"
        autocomplete="name"
        maxlength="200"
        required
        value="${sent.name}"
        ${invalidAt('name', errors.name)}
      />
      ${errorAt('name', errors.name)}
    </div>
    <div>
      <label for="email">Your email <span class="hint">You sign in with it.</span></label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="username"
        maxlength="254"
        required
        value="${sent.email}"
        ${invalidAt('email', errors.email)}
      />
      ${errorAt('email', errors.email)}
    </div>`;

/** The page a setup link opens: the password (and, for the first start's link, the owner's name and email). */
function setupPage(
  deps: SettingsDeps,
  req: Request,
  res: Response,
  status: number,
  secret: string,
  notice: Notice | null,
  sent: { name: string; email: string } = { name: '', email: '' },
  errors: FieldErrors = {},
): void {
  const { base, services } = deps;
  const link = services.sessions.setupLink(secret);
  if (!link) {
    return send(res, 410, {
      base,
      title: 'This link no longer works',
      notice: { kind: 'error', body: 'The setup link was used already, has expired, or was replaced by a newer one.' },
      body: html`<p>Ask for a new link, or <a href="${base}/sign-in">sign in</a> if you have set your password.</p>`,
    });
  }
  send(res, status, {
    base,
    title: 'Set your password',
    notice,
    body: html`${
        link.asksProfile
          ? html`<p>You are the first owner of the workspace <strong>${link.workspaceName}</strong>. Tell colleagues who you are:</p>`
          : html`<p>For <strong>${link.name}</strong> (${link.email}) in the workspace <strong>${link.workspaceName}</strong>.</p>`
      }
      <form class="stack" method="post" action="${base}/setup/${secret}">
        <input type="hidden" name="_csrf" value="${formToken(req, res, deps)}" />
        ${
          link.asksProfile
            ? profileFields(sent, errors)
            : html`<input type="hidden" name="email" autocomplete="username" value="${link.email}" />`
        }
        <div>
          <label for="password">New password <span class="hint">At least ${PASSWORD_MIN} characters.</span></label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            minlength="${PASSWORD_MIN}"
            required
            ${invalidAt('password', errors.password)}
          />
          ${errorAt('password', errors.password)}
        </div>
        <div>
          <label for="confirm">Repeat it</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        </div>
        <div><button type="submit">Set password and sign in</button></div>
      </form>`,
  });
}

/** Sign-in, password setup through a link, sign-out and the workspace switch. */
export function authPages(router: Router, deps: SettingsDeps): void {
  const { base, services } = deps;

  const signInPage = (req: Request, res: Response, status: number, email: string, notice: Notice | null) =>
    send(res, status, {
      base,
      title: 'Sign in',
      notice,
      body: html`<form class="stack" method="post" action="${base}/sign-in">
          <input type="hidden" name="_csrf" value="${formToken(req, res, deps)}" />
          <div>
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
          </div>
          <div>
            <label for="password">Password</label
            ><input id="password" name="password" type="password" autocomplete="current-password" required />
          </div>
          <div><button type="submit">Sign in</button></div>
        </form>
        <p class="hint">No password yet? Ask an owner of your workspace for a setup link (Members page).</p>`,
    });

  router.get('/', (_req, res) => redirect(res, `${base}/tokens`));

  router.get('/sign-in', (req, res) => {
    if ((res.locals.signed as Signed).session) return redirect(res, `${base}/tokens`);
    signInPage(req, res, 200, '', null);
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
          body:
            result.kind === 'busy'
              ? 'The server is checking many sign-ins at once. Try again in a moment.'
              : `Too many sign-in attempts. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.`,
        });
      }
      if (result.kind === 'refused')
        return signInPage(req, res, 401, email, {
          kind: 'error',
          body: 'That email and password do not match an account with a password.',
        });
      setSessionCookie(res, deps, req, result.session.secret, SESSION_MAX_AGE_SEC);
      redirect(res, `${base}/tokens`);
    } catch (error) {
      next(error);
    }
  });

  router.get('/setup/:secret', (req, res) => setupPage(deps, req, res, 200, req.params.secret as string, null));

  router.post('/setup/:secret', async (req, res, next) => {
    const secret = req.params.secret as string;
    const sent = { name: field(req, 'name'), email: field(req, 'email') };
    try {
      if (field(req, 'password') !== field(req, 'confirm'))
        return setupPage(deps, req, res, 400, secret, { kind: 'error', body: 'The two passwords differ.' }, sent, {
          password: 'The two passwords differ: type the same password twice.',
        });
      const session = await services.sessions.completeSetup(secret, field(req, 'password'), sent);
      if (!session) return setupPage(deps, req, res, 410, secret, null);
      setSessionCookie(res, deps, req, session.secret, SESSION_MAX_AGE_SEC);
      redirect(res, `${base}/tokens`);
    } catch (error) {
      if (error instanceof DomainError && (error.code === 'invalid' || error.code === 'conflict')) {
        const at =
          error.code === 'conflict' ? 'email' : fieldOfMessage(error.message, { name: 'name', email: 'email', password: 'password' });
        const message = at === null || error.code === 'conflict' ? error.message : `The ${error.message}`;
        return setupPage(deps, req, res, 400, secret, { kind: 'error', body: message }, sent, at === null ? {} : { [at]: message });
      }
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return setupPage(deps, req, res, 503, secret, {
          kind: 'error',
          body: 'The server is busy checking passwords. Try again in a moment.',
        });
      }
      next(error);
    }
  });

  router.post('/sign-out', (req, res) => {
    const { secret } = res.locals.signed as Signed;
    if (secret !== null) services.sessions.signOut(secret);
    clearSessionCookie(res, deps, req);
    redirect(res, `${base}/sign-in`);
  });

  router.post(
    '/switch',
    signedIn(deps, (req, res, signed) => {
      services.sessions.switchWorkspace(signed.secret, signed.session.userId, field(req, 'workspaceId'));
      redirect(res, `${base}/tokens`);
    }),
  );
}
