import { PASSWORD_MIN } from '../../modules/sessions/service.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { t } from '../../i18n/index.js';

/** A new password, typed twice, and the button that sets it: a setup link's page and a reset link's page. */
export function newPasswordFields(errors: FieldErrors): Html {
  return html`<div>
      <label for="password">${t('auth.newPassword')} <span class="hint">${t('auth.atLeast', { min: PASSWORD_MIN })}</span></label>
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
      <label for="confirm">${t('auth.repeat')}</label
      ><input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
    </div>
    <div><button type="submit">${t('auth.setAndSignIn')}</button></div>`;
}
