import { PASSWORD_MIN } from '../../modules/sessions/service.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';

/** A new password, typed twice, and the button that sets it: a setup link's page and a reset link's page. */
export function newPasswordFields(errors: FieldErrors): Html {
  return html`<div>
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
    <div><button type="submit">Set password and sign in</button></div>`;
}
