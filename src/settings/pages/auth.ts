import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { HashingBusy, PASSWORD_MIN } from '../../modules/sessions/password.js';
import { SESSION_MAX_MS } from '../../modules/sessions/service.js';
import { html } from '../html.js';
import { clearSessionCookie, field, formToken, redirect, send, setSessionCookie, type SettingsDeps, type Signed } from '../kit.js';
import type { Notice } from '../layout.js';
import { signedIn } from './guard.js';

const SESSION_MAX_AGE_SEC = Math.floor(SESSION_MAX_MS / 1000);

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
        <p class="hint">No password yet? Ask the person who runs this server for a setup link (<code>timetrack user invite</code>).</p>`,
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

  const setupPage = (req: Request, res: Response, status: number, secret: string, notice: Notice | null) => {
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
      body: html`<p>For <strong>${link.name}</strong> (${link.email}) in the workspace <strong>${link.workspaceName}</strong>.</p>
        <form class="stack" method="post" action="${base}/setup/${secret}">
          <input type="hidden" name="_csrf" value="${formToken(req, res, deps)}" />
          <input type="hidden" name="email" autocomplete="username" value="${link.email}" />
          <div>
            <label for="password">New password <span class="hint">At least ${PASSWORD_MIN} characters.</span></label>
            <input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required />
          </div>
          <div>
            <label for="confirm">Repeat it</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
          </div>
          <div><button type="submit">Set password and sign in</button></div>
        </form>`,
    });
  };

  router.get('/setup/:secret', (req, res) => setupPage(req, res, 200, req.params.secret as string, null));

  router.post('/setup/:secret', async (req, res, next) => {
    const secret = req.params.secret as string;
    try {
      if (field(req, 'password') !== field(req, 'confirm'))
        return setupPage(req, res, 400, secret, { kind: 'error', body: 'The two passwords differ.' });
      const session = await services.sessions.completeSetup(secret, field(req, 'password'));
      if (!session) return setupPage(req, res, 410, secret, null);
      setSessionCookie(res, deps, req, session.secret, SESSION_MAX_AGE_SEC);
      redirect(res, `${base}/tokens`);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid')
        return setupPage(req, res, 400, secret, { kind: 'error', body: error.message });
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return setupPage(req, res, 503, secret, { kind: 'error', body: 'The server is busy checking passwords. Try again in a moment.' });
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
