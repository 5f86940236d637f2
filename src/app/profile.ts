import type { Request, Response, Router } from 'express';
import { DomainError } from '../errors.js';
import { HashingBusy } from '../modules/sessions/password.js';
import type { SessionView } from '../modules/sessions/service.js';
import { errorAt, type FieldErrors, labelledInput, fieldOfMessage, invalidAt } from '../settings/fields.js';
import { type Html, html } from '../settings/html.js';
import { field } from '../settings/kit.js';
import { csrfField } from '../settings/layout.js';
import { appPage } from './layout.js';
import type { AppDeps, SignedIn } from './deps.js';

/** The zones a person may choose (the runtime's IANA list). */
const ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');

interface ProfileForm {
  name: string;
  email: string;
  timeZone: string;
  weekStart: string;
}

function profileBody(session: SessionView, form: ProfileForm, errors: FieldErrors, notice: string | null): Html {
  const zones = ZONES.includes(form.timeZone) ? ZONES : [form.timeZone, ...ZONES];
  return html`<h1>Profile</h1>
    ${notice ? html`<div class="notice ok" role="status">${notice}</div>` : ''}
    <form class="stack" method="post" action="/app/profile" aria-labelledby="you-heading">
      ${csrfField(session.csrfToken)}
      <h2 id="you-heading">You</h2>
      ${labelledInput('profile-name', 'name', 'Name', form.name, errors, html`type="text" maxlength="200" required autocomplete="name"`)}
      ${labelledInput('profile-email', 'email', 'Email (you sign in with it)', form.email, errors, html`type="email" maxlength="254" required autocomplete="email"`)}
      <div class="field">
        <label for="profile-zone">Time zone <span class="hint">Your days and weeks, and the times shown, follow it.</span></label>
        <select id="profile-zone" name="timeZone" ${invalidAt('profile-zone', errors.timeZone)}>
          ${zones.map((z) => html`<option value="${z}" ${z === form.timeZone ? html`selected` : ''}>${z}</option>`)}
        </select>
        ${errorAt('profile-zone', errors.timeZone)}
      </div>
      <fieldset>
        <legend>First day of the week</legend>
        ${['monday', 'sunday'].map(
          (day) =>
            html`<label class="check" for="week-${day}"
              ><input id="week-${day}" type="radio" name="weekStart" value="${day}" ${form.weekStart === day ? html`checked` : ''} />
              ${day === 'monday' ? 'Monday' : 'Sunday'}</label
            >`,
        )}
      </fieldset>
      <div><button type="submit">Save</button></div>
    </form>
    <form class="stack after" method="post" action="/app/profile/password" aria-labelledby="password-heading">
      ${csrfField(session.csrfToken)}
      <h2 id="password-heading">Password</h2>
      <input type="hidden" name="username" autocomplete="username" value="${form.email}" />
      ${labelledInput('current-password', 'current', 'Current password', '', errors, html`type="password" autocomplete="current-password" required`)}
      ${labelledInput('new-password', 'password', 'New password (at least 12 characters)', '', errors, html`type="password" autocomplete="new-password" required`)}
      ${labelledInput('repeat-password', 'repeat', 'Repeat it', '', errors, html`type="password" autocomplete="new-password" required`)}
      <div><button type="submit">Change password</button></div>
      <p class="hint">Your other sessions end; this one stays.</p>
    </form>`;
}

/** The names the services give these fields (their messages start with them). */
const LABELS = {
  name: 'name',
  email: 'email',
  'time zone': 'timeZone',
  'first day of the week': 'weekStart',
  'current password': 'current',
  password: 'password',
};

/** The member's own profile: name, email, zone, first day of the week, and a password change that asks the current one. */
export function profileRoutes(router: Router, deps: AppDeps, signedOf: (res: Response) => SignedIn): void {
  const { services } = deps;
  const current = (session: SessionView): ProfileForm => {
    const prefs = services.accounts.preferences(session.userId);
    return {
      name: session.name,
      email: session.email,
      timeZone: prefs.timeZone ?? deps.config.serverTimeZone,
      weekStart: prefs.weekStart ?? 'monday',
    };
  };
  const render = (res: Response, session: SessionView, status: number, form: ProfileForm, errors: FieldErrors, notice: string | null) =>
    res
      .status(status)
      .type('html')
      .end(appPage(deps, session, { title: 'Profile', current: 'profile', body: profileBody(session, form, errors, notice) }));
  const refused = (error: DomainError): FieldErrors => {
    const at = error.code === 'conflict' ? 'email' : fieldOfMessage(error.message, LABELS);
    return at === null ? {} : { [at]: error.message };
  };

  router.get('/profile', (req: Request, res) => {
    const { session } = signedOf(res);
    const done =
      req.query.done === 'saved' ? 'Saved.' : req.query.done === 'password' ? 'Password changed; your other sessions ended.' : null;
    render(res, session, 200, current(session), {}, done);
  });

  router.post('/profile', (req, res, next) => {
    const { session } = signedOf(res);
    const form: ProfileForm = {
      name: field(req, 'name'),
      email: field(req, 'email'),
      timeZone: field(req, 'timeZone'),
      weekStart: field(req, 'weekStart'),
    };
    try {
      services.accounts.checkProfile(form);
      services.accounts.setProfile(session.actor, session.userId, form);
    } catch (error) {
      if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'conflict')) return next(error);
      return render(res, session, error.code === 'conflict' ? 409 : 400, form, refused(error), null);
    }
    res.redirect(303, '/app/profile?done=saved');
  });

  router.post('/profile/password', async (req, res, next) => {
    const signed = signedOf(res);
    const form = current(signed.session);
    if (field(req, 'password') !== field(req, 'repeat'))
      return render(res, signed.session, 400, form, { repeat: 'The two new passwords differ: type the same one twice.' }, null);
    try {
      await services.sessions.changePassword(signed.session.actor, signed.secret, field(req, 'current'), field(req, 'password'));
    } catch (error) {
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return render(res, signed.session, 503, form, { current: 'The server is busy checking passwords. Try again in a moment.' }, null);
      }
      if (!(error instanceof DomainError) || error.code !== 'invalid') return next(error);
      return render(res, signed.session, 400, form, refused(error), null);
    }
    res.redirect(303, '/app/profile?done=password');
  });
}
