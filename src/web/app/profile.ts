import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { HashingBusy } from '../../modules/sessions/errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { errorAt, type FieldErrors, labelledInput, invalidAt } from '../kit/fields.js';
import { isFormRefusal, refusal } from '../kit/refusal.js';
import { type Html, html } from '../kit/html.js';
import { field } from '../kit/forms.js';
import { csrfField } from '../kit/layout.js';
import { said } from '../kit/said.js';
import { appPage } from './page.js';
import type { WebDeps as AppDeps } from '../deps.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { APP_PATH } from '../paths.js';
import { currentReader, LANGUAGE_NAMES, LANGUAGES, t } from '../../i18n/index.js';

/** The zones a person may choose (the runtime's IANA list). */
const ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');

interface ProfileForm {
  name: string;
  email: string;
  timeZone: string;
  weekStart: string;
  timeFormat: string;
  theme: string;
  language: string;
  durations: string;
}

/** A group of radio buttons of the profile. */
const radios = (legend: string, name: string, value: string, choices: Array<[string, string]>) =>
  html`<fieldset>
    <legend>${legend}</legend>
    ${choices.map(
      ([choice, label]) =>
        html`<label class="check" for="${name}-${choice}"
          ><input id="${name}-${choice}" type="radio" name="${name}" value="${choice}" ${value === choice ? html`checked` : ''} />
          ${label}</label
        >`,
    )}
  </fieldset>`;

function profileBody(session: SessionView, form: ProfileForm, errors: FieldErrors, notice: string | null, settings: string): Html {
  const zones = ZONES.includes(form.timeZone) ? ZONES : [form.timeZone, ...ZONES];
  return html`<h1>${t('nav.profile')}</h1>
    <p class="hint">${said('profile.alsoIn', {}, [`${settings}/tokens`])}</p>
    ${notice ? html`<div class="notice ok" role="status">${notice}</div>` : ''}
    <form class="stack" method="post" action="${APP_PATH}/profile" aria-labelledby="you-heading">
      ${csrfField(session.csrfToken)}
      <h2 id="you-heading">${t('profile.you')}</h2>
      ${labelledInput('profile-name', 'name', t('profile.name'), form.name, errors, html`type="text" maxlength="200" required autocomplete="name"`)}
      ${labelledInput('profile-email', 'email', t('profile.email'), form.email, errors, html`type="email" maxlength="254" required autocomplete="email"`)}
      ${labelledInput('profile-current', 'emailPassword', t('profile.emailPassword'), '', errors, html`type="password" autocomplete="current-password"`)}
      <div class="field">
        <label for="profile-language">${t('profile.language')} <span class="hint">${t('profile.languageHint')}</span></label>
        <select id="profile-language" name="language" ${invalidAt('profile-language', errors.language)}>
          ${LANGUAGES.map((code) => html`<option value="${code}" lang="${code}" ${code === form.language ? html`selected` : ''}>${LANGUAGE_NAMES[code]}</option>`)}
        </select>
        ${errorAt('profile-language', errors.language)}
      </div>
      <div class="field">
        <label for="profile-zone">${t('profile.zone')} <span class="hint">${t('profile.zoneHint')}</span></label>
        <select id="profile-zone" name="timeZone" ${invalidAt('profile-zone', errors.timeZone)}>
          ${zones.map((z) => html`<option value="${z}" ${z === form.timeZone ? html`selected` : ''}>${z}</option>`)}
        </select>
        ${errorAt('profile-zone', errors.timeZone)}
      </div>
      <fieldset>
        <legend>${t('profile.weekStart')}</legend>
        ${['monday', 'sunday'].map(
          (day) =>
            html`<label class="check" for="week-${day}"
              ><input id="week-${day}" type="radio" name="weekStart" value="${day}" ${form.weekStart === day ? html`checked` : ''} />
              ${day === 'monday' ? t('profile.monday') : t('profile.sunday')}</label
            >`,
        )}
      </fieldset>
      ${radios(t('profile.timeFormat'), 'timeFormat', form.timeFormat, [
        ['24h', t('profile.clock24')],
        ['12h', t('profile.clock12')],
      ])}
      ${radios(t('profile.durations'), 'durations', form.durations, [
        ['minutes', t('profile.durationsMinutes')],
        ['seconds', t('profile.durationsSeconds')],
      ])}
      ${radios(t('profile.theme'), 'theme', form.theme, [
        ['system', t('profile.themeSystem')],
        ['light', t('profile.themeLight')],
        ['dark', t('profile.themeDark')],
      ])}
      <div><button type="submit">${t('common.save')}</button></div>
    </form>
    <form class="stack after" method="post" action="${APP_PATH}/profile/password" aria-labelledby="password-heading">
      ${csrfField(session.csrfToken)}
      <h2 id="password-heading">${t('profile.password')}</h2>
      <input type="hidden" name="username" autocomplete="username" value="${form.email}" />
      ${labelledInput('current-password', 'current', t('profile.currentPassword'), '', errors, html`type="password" autocomplete="current-password" required`)}
      ${labelledInput('new-password', 'password', t('profile.newPassword'), '', errors, html`type="password" autocomplete="new-password" required`)}
      ${labelledInput('repeat-password', 'repeat', t('profile.repeatPassword'), '', errors, html`type="password" autocomplete="new-password" required`)}
      <div><button type="submit">${t('profile.changePassword')}</button></div>
      <p class="hint">${t('profile.passwordHint')}</p>
    </form>`;
}

/** The member's own profile: name, email, zone, first day of the week, and a password change that asks the current one. */
export function profileRoutes(router: Router, deps: AppDeps): void {
  const { services } = deps;
  const current = (session: SessionView): ProfileForm => {
    const prefs = services.accounts.preferences(session.userId);
    return {
      name: session.name,
      email: session.email,
      timeZone: prefs.timeZone ?? deps.config.serverTimeZone,
      weekStart: prefs.weekStart ?? 'monday',
      timeFormat: prefs.timeFormat ?? '24h',
      theme: prefs.theme ?? 'system',
      language: prefs.language ?? currentReader().language,
      durations: prefs.showSeconds ? 'seconds' : 'minutes',
    };
  };
  const render = (res: Response, session: SessionView, status: number, form: ProfileForm, errors: FieldErrors, notice: string | null) =>
    res
      .status(status)
      .type('html')
      .end(
        appPage(deps, session, {
          title: t('nav.profile'),
          current: 'profile',
          body: profileBody(session, form, errors, notice, deps.paths.settings),
        }),
      );
  const refused = (error: DomainError): FieldErrors => refusal(error).errors;

  router.get('/profile', (req: Request, res) => {
    const { session } = signedOf(res) as SignedIn;
    // The address the link went to is the server's record of it, never text from the address bar (issue 44).
    const pending = req.query.done === 'email' ? services.sessions.pendingEmail(session.userId) : null;
    const done =
      req.query.done === 'saved'
        ? t('profile.saved')
        : req.query.done === 'password'
          ? t('profile.passwordChanged')
          : req.query.done === 'email'
            ? pending === null
              ? t('profile.saved')
              : t('profile.emailPending', { pending, email: session.email })
            : null;
    render(res, session, 200, current(session), {}, done);
  });

  router.post('/profile', async (req, res, next) => {
    const { session } = signedOf(res) as SignedIn;
    const form: ProfileForm = {
      name: field(req, 'name'),
      email: field(req, 'email'),
      timeZone: field(req, 'timeZone'),
      weekStart: field(req, 'weekStart'),
      timeFormat: field(req, 'timeFormat') || '24h',
      theme: field(req, 'theme') || 'system',
      language: field(req, 'language') || currentReader().language,
      durations: field(req, 'durations') || 'minutes',
    };
    let saved: { emailPending: string | null };
    try {
      saved = await services.sessions.updateProfile(session.actor, { ...form, currentPassword: field(req, 'emailPassword') });
    } catch (error) {
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return render(res, session, 503, form, { emailPassword: t('common.hashingBusy') }, null);
      }
      if (!isFormRefusal(error)) return next(error);
      // This form's password field is the email's (the password form below has its own `current`).
      const { status, errors } = refusal(error, { fields: { current: 'emailPassword' } });
      return render(res, session, status, form, errors, null);
    }
    res.redirect(303, saved.emailPending === null ? `${APP_PATH}/profile?done=saved` : `${APP_PATH}/profile?done=email`);
  });

  router.post('/profile/password', async (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    const form = current(signed.session);
    if (field(req, 'password') !== field(req, 'repeat'))
      return render(res, signed.session, 400, form, { repeat: t('profile.passwordsDiffer') }, null);
    try {
      await services.sessions.changePassword(signed.session.actor, signed.secret, field(req, 'current'), field(req, 'password'));
    } catch (error) {
      if (error instanceof HashingBusy) {
        res.setHeader('Retry-After', String(error.retryAfterSec));
        return render(res, signed.session, 503, form, { current: t('common.hashingBusy') }, null);
      }
      if (!(error instanceof DomainError) || error.code !== 'invalid') return next(error);
      return render(res, signed.session, 400, form, refused(error), null);
    }
    res.redirect(303, `${APP_PATH}/profile?done=password`);
  });
}
