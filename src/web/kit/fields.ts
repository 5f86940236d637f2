import type { Key } from '../../i18n/index.js';
import { type Html, html } from './html.js';
import { csrfField } from './layout.js';

/**
 * A form of one button that asks first (`data-confirm`, asked by the page's script; without it the
 * form posts): a delete, a revoke, an undo. `inplace`: the script answers it without a reload.
 */
export const confirmedButton = (o: {
  action: string;
  confirm: string;
  csrfToken: string;
  label: Html | string;
  formClass?: string;
  inplace?: boolean;
}): Html =>
  html`<form${o.formClass ? html` class="${o.formClass}"` : ''} method="post" action="${o.action}" data-confirm="${o.confirm}"${o.inplace ? html` data-inplace` : ''}>
    ${csrfField(o.csrfToken)}<button class="danger" type="submit">${o.label}</button>
  </form>`;

/** The VAT categories but the standard rate (decisions §11), each as people name it: a client's and a workspace's choices end with them. */
export const OTHER_VAT_CATEGORIES: ReadonlyArray<[code: string, label: Key]> = [
  ['AE', 'catalog.vat.AE'],
  ['K', 'catalog.vat.K'],
  ['G', 'catalog.vat.G'],
  ['E', 'catalog.vat.E'],
  ['Z', 'catalog.vat.Z'],
  ['O', 'catalog.vat.O'],
];

/** Refusals shown at their fields: field name → message. */
export type FieldErrors = Record<string, string>;

/**
 * The attributes that mark a field refused and tie it to its message for screen readers
 * (`aria-describedby` names the message's element, `${id}-error`).
 */
export const invalidAt = (id: string, error: string | undefined): Html | string =>
  error === undefined ? '' : html`aria-invalid="true" aria-describedby="${id}-error"`;

/** The message under a refused field (nothing when the field is fine). */
export const errorAt = (id: string, error: string | undefined): Html | string =>
  error === undefined ? '' : html`<span class="field-error" id="${id}-error">${error}</span>`;

/**
 * A refusal about a person, with their name first: "Ada Lovelace: the hourly rate must be…"
 * (`field`: the message starts with a field's name, which gets its article).
 */
export const aboutMember = (name: string, message: string, field: boolean) =>
  `${name}: ${field ? 'the ' : ''}${message.charAt(0).toLowerCase()}${message.slice(1)}`;

/** A labelled input with its value (as sent or stored) and its error, tied to it: the forms of the web app. */
export const labelledInput = (
  id: string,
  name: string,
  label: Html | string,
  value: string,
  errors: FieldErrors,
  attrs: Html | string = '',
): Html =>
  html`<div class="field">
    <label for="${id}">${label}</label>
    <input id="${id}" name="${name}" value="${value}" ${attrs} ${invalidAt(id, errors[name])} />
    ${errorAt(id, errors[name])}
  </div>`;

/**
 * A labelled input tied to its error, written in the page's own attribute order: `attrs` stand
 * between the id and the value, `after` after the value. `box`: the wrapper's class ('' for a
 * plain `<div>`, as the settings and sign-in forms have).
 */
export const inputField = (
  id: string,
  label: Html | string,
  attrs: Html,
  value: string,
  error: string | undefined,
  after: Html | string = '',
  box = 'field',
): Html =>
  html`<div${box ? html` class="${box}"` : ''}>
    <label for="${id}">${label}</label>
    <input id="${id}" ${attrs} value="${value}" ${after} ${invalidAt(id, error)} />
    ${errorAt(id, error)}
  </div>`;

/** A labelled select of its `<option>`s, tied to its error. */
export const selectField = (id: string, name: string, label: Html | string, options: Html | Html[], error: string | undefined): Html =>
  html`<div class="field">
    <label for="${id}">${label}</label>
    <select id="${id}" name="${name}" ${invalidAt(id, error)}>
      ${options}
    </select>
    ${errorAt(id, error)}
  </div>`;

/** The `<option>`s of [value, text] pairs, the one of `value` selected. */
export const optionsOf = (pairs: ReadonlyArray<readonly [string, string]>, value: string): Html[] =>
  pairs.map(([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`);
