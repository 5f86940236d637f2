import type { NextFunction, Request, Response, Router } from 'express';
import type { Actor } from '../../principal.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { ClientView } from '../../modules/catalog/views.js';
import { errorAt, type FieldErrors, labelledInput, invalidAt } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { field, sentValues } from '../kit/forms.js';
import { isFormRefusal, refusal } from '../kit/refusal.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { clockOf } from '../kit/forms.js';
import { appPage } from './page.js';
import { colourMark } from '../kit/marks.js';
import type { WebDeps as AppDeps } from '../deps.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { APP_PATH } from '../paths.js';
import {
  type ClientRounding,
  parseClientRounding,
  ROUNDING_RULES,
  roundingLabel,
  roundingWords,
  type RoundingText,
} from '../../kernel/rounding.js';
import { type OwnTax, ownTaxWords, parseOwnTax } from '../../kernel/tax.js';

type Kind = 'client' | 'project' | 'task' | 'tag';
const KINDS: readonly Kind[] = ['client', 'project', 'task', 'tag'];
const PLURAL: Record<Kind, string> = { client: 'Clients', project: 'Projects', task: 'Tasks', tag: 'Tags' };

/** One catalog item as the page shows it (the services' views, as the viewer may see them). */
interface Item {
  id: string;
  /** A project's colour (the next new project's default is one no project has yet). */
  color?: string;
  name: string;
  archived: boolean;
  facts: Html | string;
  values: Record<string, string>;
}

/** The catalog as the page shows it, and the workspace's rounding rule (a client's Invoicing details offer to keep it). */
type Catalog = Record<Kind, Item[]> & { workspaceRounding: RoundingText | null };

/** A refused form: which (kind and item, or `new`), what was typed, the message at its field. */
interface Refused {
  kind: Kind;
  id: string;
  values: Record<string, string>;
  errors: FieldErrors;
}

/** A decimal typed in a form (a comma too): null when empty, else the number; the contract checks the rest. */
const decimal = (text: string): number | null | string => {
  const value = text.trim().replace(',', '.');
  if (value === '') return null;
  return /^\d+(\.\d+)?$/.test(value) ? Number(value) : text;
};
/** Hours typed as a decimal, as whole seconds (the API's estimateSec). */
const hoursToSec = (text: string): number | null | string => {
  const hours = decimal(text);
  return typeof hours === 'number' ? Math.round(hours * 3600) : hours;
};

/** The client's recipient party and tax override (ClientParty), each the form field of the same name. */
const PARTY_TEXT = [
  'legalName',
  'postalCode',
  'city',
  'country',
  'vatId',
  'taxId',
  'email',
  'reference',
  'electronicAddress',
  'electronicAddressScheme',
  'taxCategory',
  'exemptionReason',
  'exemptionReasonCode',
] as const;
const PARTY_FIELDS: readonly string[] = [...PARTY_TEXT, 'addressLines'];

/** The client's VAT category over the workspace's (empty: the workspace's). */
const CATEGORIES: Array<[code: string, label: string]> = [
  ['', "The workspace's (Workspace settings)"],
  ['S', 'S: standard rate'],
  ['AE', 'AE: reverse charge'],
  ['K', 'K: intra-community supply'],
  ['G', 'G: export outside the EU'],
  ['E', 'E: exempt (give the reason)'],
  ['Z', 'Z: zero rated'],
  ['O', 'O: not subject to VAT'],
];
const CATEGORY_NAMES: Record<string, string> = {
  S: 'standard rate',
  AE: 'reverse charge',
  K: 'intra-community',
  G: 'export',
  E: 'exempt',
  Z: 'zero rated',
  O: 'not subject to VAT',
};

/**
 * The invoicing details a client form sent, the API's way: only the fields it carried (a form
 * shows them all; a field it did not show is not sent, so a save never clears it). Blank is null;
 * a country or code typed in lower case is upper-cased; the address is one line per line.
 */
function partyOf(req: Request): Record<string, unknown> {
  const sent = (req.body ?? {}) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const name of PARTY_TEXT) {
    if (typeof sent[name] !== 'string') continue;
    const text = (sent[name] as string).trim();
    const upper = name === 'exemptionReasonCode' || name === 'electronicAddressScheme' || (name === 'country' && /^[a-z]{2}$/i.test(text));
    body[name] = text === '' ? null : upper ? text.toUpperCase() : text;
  }
  if (typeof sent.addressLines === 'string')
    body.addressLines = (sent.addressLines as string)
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
  return body;
}

/**
 * The body a kind's form sends, the API's way (checked against the contract before the service).
 * Rates and budgets only when the form showed them (`money`): a member who may not see money
 * gets no such fields, and their save leaves the stored ones alone; a client's invoicing details
 * likewise only for owners.
 */
function bodyOf(kind: Kind, req: Request, creating: boolean, actor: Actor, colour: () => string): Record<string, unknown> {
  const money = actor.canViewOthersMoney;
  const body: Record<string, unknown> = { name: field(req, 'name').trim() };
  if (!creating && kind !== 'tag') body.archived = field(req, 'archived') === 'true';
  // The invoicing details: owners' (who make the invoices); anyone else's form has none, and a post carrying them anyway is not read.
  if (kind === 'client' && actor.isOwner) Object.assign(body, partyOf(req));
  if (kind === 'project') {
    body.clientId = field(req, 'clientId') || null;
    body.color = field(req, 'color') || colour();
    body.billable = field(req, 'billable') === 'true';
    if (money) {
      body.hourlyRate = decimal(field(req, 'hourlyRate'));
      body.budgetAmount = decimal(field(req, 'budgetAmount'));
    }
    body.estimateSec = hoursToSec(field(req, 'estimateHours'));
  }
  if (kind === 'task') {
    if (creating) body.projectId = field(req, 'projectId');
    if (money) body.hourlyRate = decimal(field(req, 'hourlyRate'));
    body.estimateSec = hoursToSec(field(req, 'estimateHours'));
  }
  return body;
}

const SCHEMAS = {
  client: ['ClientCreate', 'ClientPatch'],
  project: ['ProjectCreate', 'ProjectPatch'],
  task: ['TaskCreate', 'TaskPatch'],
  tag: ['TagCreate', 'TagPatch'],
} as const;

const num = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));

/**
 * New projects' colours, told apart at a glance (and from each other in dark mode): a new project
 * gets the first one no project has yet, then the least used, so the week's dots and the reports'
 * bars differ by default. The form shows the colour it will get; the person may choose another.
 */
const PALETTE = ['#0b57d0', '#1a7f37', '#c2410c', '#8250df', '#b3261e', '#0e7490', '#be185d', '#a16207', '#4338ca', '#57606a'];
export function nextColour(used: readonly string[]): string {
  const counts = new Map(PALETTE.map((c) => [c, 0]));
  for (const colour of used) {
    const known = counts.get(colour.toLowerCase());
    if (known !== undefined) counts.set(colour.toLowerCase(), known + 1);
  }
  const fewest = Math.min(...counts.values());
  return PALETTE.find((c) => counts.get(c) === fewest) as string;
}

/**
 * A client's rounding rule as its form sent it (owners' forms carry it), read before anything is
 * written so that a refused rule writes nothing: undefined when not sent.
 */
function roundingSent(req: Request, kind: Kind, actor: Actor): ClientRounding | undefined {
  const sent = (req.body ?? {}) as Record<string, unknown>;
  if (kind !== 'client' || !actor.isOwner || typeof sent.rounding !== 'string') return undefined;
  return parseClientRounding(sent.rounding, 'rounding');
}

/**
 * A project's or task's own VAT as its form sent it (owners' forms carry it), checked before
 * anything is written so that a refused one writes nothing: undefined when not sent.
 */
function taxSent(req: Request, kind: Kind, actor: Actor): OwnTax | null | undefined {
  const sent = (req.body ?? {}) as Record<string, unknown>;
  if ((kind !== 'project' && kind !== 'task') || !actor.isOwner || typeof sent.taxCategory !== 'string') return undefined;
  return parseOwnTax(sent.taxCategory, sent.taxRate);
}

const sameTax = (a: OwnTax | null, b: OwnTax | null) => a?.category === b?.category && a?.rate === b?.rate;

/** Every item of the catalog, as the member may see it (rates and budgets only with money visibility). */
function items(deps: AppDeps, actor: Actor): Catalog {
  const party = (c: ClientView): Record<string, string> =>
    Object.fromEntries(
      PARTY_FIELDS.map((name) => {
        const value = c[name as keyof ClientView];
        return [name, Array.isArray(value) ? value.join('\n') : value === null || value === undefined ? '' : String(value)];
      }),
    );
  // A client's own rounding rule (owners': the invoicing settings are theirs), and the workspace's it would otherwise take.
  const roundings = actor.isOwner ? deps.services.invoices.clientRoundings(actor, actor.workspaceId) : new Map<string, string>();
  const workspaceRounding = actor.isOwner ? deps.services.invoices.settings(actor, actor.workspaceId).rounding : null;
  const roundingFact = (id: string) => {
    const own = roundings.get(id);
    return own === undefined ? '' : own === 'none' ? 'not rounded' : `rounded ${roundingWords(own as RoundingText)}`;
  };
  const clientFacts = (c: ClientView) =>
    actor.isOwner
      ? [
          c.legalName && c.legalName !== c.name ? c.legalName : '',
          c.vatId ?? '',
          c.taxCategory ? `${CATEGORY_NAMES[c.taxCategory]} (${c.taxCategory})` : '',
          roundingFact(c.id),
        ]
          .filter((fact) => fact !== '')
          .join(' · ')
      : '';
  // A project's or task's own VAT (owners': the invoicing settings are theirs).
  const taxes = actor.isOwner ? deps.services.invoices.workTaxes(actor, actor.workspaceId) : null;
  const taxValues = (own: OwnTax | undefined): Record<string, string> =>
    taxes === null ? {} : { taxCategory: own?.category ?? '', taxRate: own?.category === 'S' ? String(own.rate) : '' };
  const taxFact = (own: OwnTax | undefined) => (own ? ` · ${ownTaxWords(own)}` : '');
  const { catalog } = deps.services;
  const clients = catalog.clients.list(actor, {});
  const projects = catalog.projects.list(actor, {});
  const clientName = new Map(clients.map((c) => [c.id, c.name]));
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  return {
    client: clients.map((c) => ({
      id: c.id,
      name: c.name,
      archived: c.archived,
      facts: clientFacts(c),
      values: { name: c.name, ...(actor.isOwner ? { ...party(c), rounding: roundings.get(c.id) ?? '' } : {}) },
    })),
    project: projects.map((p) => ({
      id: p.id,
      color: p.color,
      name: p.name,
      archived: p.archived,
      facts: html`${colourMark(p.color, 'swatch')} ${p.clientId ? clientName.get(p.clientId) : 'No client'}
      ${p.billable ? ' · billable' : ''} ${p.hourlyRate === null ? '' : ` · rate ${p.hourlyRate}`} ${taxFact(taxes?.projects.get(p.id))}
      ${p.progress ? ` · ${clockOf(p.progress.trackedSec)} tracked` : ''}
      ${p.progress?.budgetRatio != null ? html` · <meter min="0" max="1" value="${Math.min(1, p.progress.budgetRatio)}" title="${Math.round(p.progress.budgetRatio * 100)} % of the budget">${Math.round(p.progress.budgetRatio * 100)} %</meter> ${Math.round(p.progress.budgetRatio * 100)} % of the budget` : ''}`,
      values: {
        name: p.name,
        clientId: p.clientId ?? '',
        color: p.color,
        billable: String(p.billable),
        hourlyRate: num(p.hourlyRate),
        budgetAmount: num(p.budgetAmount),
        estimateHours: p.estimateSec === null ? '' : String(p.estimateSec / 3600),
        ...taxValues(taxes?.projects.get(p.id)),
      },
    })),
    task: catalog.tasks.list(actor, {}).map((t) => ({
      id: t.id,
      name: t.name,
      archived: t.archived,
      facts: html`${projectName.get(t.projectId) ?? ''}${t.hourlyRate === null ? '' : ` · rate ${t.hourlyRate}`}${taxFact(taxes?.tasks.get(t.id))}`,
      values: {
        name: t.name,
        projectId: t.projectId,
        hourlyRate: num(t.hourlyRate),
        estimateHours: t.estimateSec === null ? '' : String(t.estimateSec / 3600),
        ...taxValues(taxes?.tasks.get(t.id)),
      },
    })),
    tag: catalog.tags.list(actor).map((t) => ({ id: t.id, name: t.name, archived: false, facts: '', values: { name: t.name } })),
    workspaceRounding,
  };
}

/** A labelled field with a hint in its label (read with it), its value as sent or stored, and its error. */
function hinted(
  id: string,
  name: string,
  label: string,
  hint: Html | string,
  v: Record<string, string>,
  errors: FieldErrors,
  attrs: Html | string = '',
): Html {
  return html`<div class="field">
    <label for="${id}">${label}${hint ? html` <span class="hint">${hint}</span>` : ''}</label>
    <input id="${id}" name="${name}" type="text" value="${v[name] ?? ''}" ${attrs} ${invalidAt(id, errors[name])} />
    ${errorAt(id, errors[name])}
  </div>`;
}

/**
 * A client's invoicing details (owners): the recipient party its invoices carry and its VAT
 * treatment over the workspace's, in a group that stays closed unless a value in it was refused.
 */
function invoicingDetails(
  id: (name: string) => string,
  v: Record<string, string>,
  errors: FieldErrors,
  workspaceRounding: RoundingText | null,
): Html {
  const refusedHere = [...PARTY_FIELDS, 'rounding'].some((name) => errors[name] !== undefined);
  const roundings: Array<[value: string, label: string]> = [
    ['', `The workspace's (${workspaceRounding === null ? 'none' : roundingWords(workspaceRounding)})`],
    ['none', 'None: as tracked'],
    ...ROUNDING_RULES.map((rule): [string, string] => [rule, roundingLabel(rule)]),
  ];
  const f = (name: string, label: string, hint: Html | string, attrs: Html | string = '') =>
    hinted(id(name), name, label, hint, v, errors, attrs);
  return html`<details class="invoicing" ${refusedHere ? html`open` : ''}>
    <summary>Invoicing details <span class="hint inline">recipient, VAT, e-invoicing, rounding</span></summary>
    <p class="hint">
      What this client's invoices carry. A PDF needs little; an XRechnung or Peppol e-invoice needs the address, the buyer reference and the
      electronic address. Empty fields stay off the invoice.
    </p>
    <div class="groups">
      <fieldset>
        <legend>Recipient</legend>
        ${f('legalName', 'Legal name', 'When it differs from the name.', html`maxlength="200"`)}
        <div class="field">
          <label for="${id('addressLines')}">Street address <span class="hint">One line each.</span></label>
          <textarea id="${id('addressLines')}" name="addressLines" rows="2" ${invalidAt(id('addressLines'), errors.addressLines)}>
${v.addressLines ?? ''}</textarea>
          ${errorAt(id('addressLines'), errors.addressLines)}
        </div>
        <div class="two">${f('postalCode', 'Postal code', '', html`maxlength="200"`)} ${f('city', 'City', '', html`maxlength="200"`)}</div>
        ${f('country', 'Country', 'Two letters (ISO 3166), e.g. DE, AT, FR.', html`maxlength="2" autocapitalize="characters" spellcheck="false"`)}
        ${f('email', 'Email', 'Their accounts payable address.', html`maxlength="254" inputmode="email" spellcheck="false"`)}
      </fieldset>
      <fieldset>
        <legend>Identifiers</legend>
        ${f('vatId', 'VAT ID', 'e.g. DE136695976.', html`maxlength="200" spellcheck="false"`)}
        ${f('taxId', 'Tax number', 'When it has no VAT ID.', html`maxlength="200" spellcheck="false"`)}
        ${f('reference', 'Buyer reference (BT-10)', 'Their order or reference number; for German public bodies the Leitweg-ID (XRechnung needs one).', html`maxlength="200" spellcheck="false"`)}
        ${f('electronicAddress', 'Electronic address (BT-49)', 'Where e-invoices go: a Leitweg-ID, a Peppol ID, an email address.', html`maxlength="200" spellcheck="false"`)}
        ${f(
          'electronicAddressScheme',
          'Its scheme (EAS code)',
          html`<code>0204</code> Leitweg-ID, <code>9930</code> German VAT ID, <code>0088</code> GLN, <code>0208</code> Belgian enterprise
            number, <code>EM</code> email.`,
          html`maxlength="20" autocapitalize="characters" spellcheck="false"`,
        )}
      </fieldset>
      <fieldset>
        <legend>VAT</legend>
        <div class="field">
          <label for="${id('taxCategory')}">VAT category</label>
          <select id="${id('taxCategory')}" name="taxCategory" ${invalidAt(id('taxCategory'), errors.taxCategory)}>
            ${CATEGORIES.map(([code, label]) => html`<option value="${code}" ${(v.taxCategory ?? '') === code ? html`selected` : ''}>${label}</option>`)}
          </select>
          ${errorAt(id('taxCategory'), errors.taxCategory)}
        </div>
        ${f('exemptionReason', 'Exemption reason', "Printed on its invoices without VAT; needed for E. Empty: the category's usual wording.", html`maxlength="200"`)}
        ${f('exemptionReasonCode', 'Exemption reason code', 'A VATEX code, e.g. VATEX-EU-AE. Empty: the usual one.', html`maxlength="40" autocapitalize="characters" spellcheck="false"`)}
      </fieldset>
      <fieldset>
        <legend>Time</legend>
        <div class="field">
          <label for="${id('rounding')}"
            >Rounding
            <span class="hint"
              >Each entry's time on this client's invoices, rounded on its own before lines are made; invoices made keep theirs.</span
            ></label
          >
          <select id="${id('rounding')}" name="rounding" ${invalidAt(id('rounding'), errors.rounding)}>
            ${roundings.map(([value, label]) => html`<option value="${value}" ${(v.rounding ?? '') === value ? html`selected` : ''}>${label}</option>`)}
          </select>
          ${errorAt(id('rounding'), errors.rounding)}
        </div>
      </fieldset>
    </div>
  </details>`;
}

/** The VAT choices of a project or task of its own (empty: the invoice's own, or a task's project's). */
const OWN_TAX_CHOICES = (kind: 'project' | 'task'): Array<[code: string, label: string]> => [
  ['', kind === 'task' ? "The project's" : "The invoice's (the client's, else the workspace's)"],
  ['S', 'Standard rate of its own'],
  ['Z', 'Zero rated'],
];

/**
 * A project's or task's own VAT (owners): its category and rate, used on the lines of its time
 * unless the client's reverse charge, export or "not subject", or a small business, wins.
 */
function ownTaxFields(kind: 'project' | 'task', id: (name: string) => string, v: Record<string, string>, errors: FieldErrors): Html {
  return html`<fieldset class="own-tax">
    <legend>VAT on its invoices <span class="hint">e.g. 7 % for a book's text, 19 % for consulting</span></legend>
    <div class="two">
      <div class="field">
        <label for="${id('taxCategory')}">VAT</label>
        <select id="${id('taxCategory')}" name="taxCategory" ${invalidAt(id('taxCategory'), errors.taxCategory)}>
          ${OWN_TAX_CHOICES(kind).map(([code, label]) => html`<option value="${code}" ${(v.taxCategory ?? '') === code ? html`selected` : ''}>${label}</option>`)}
        </select>
        ${errorAt(id('taxCategory'), errors.taxCategory)}
      </div>
      ${hinted(id('taxRate'), 'taxRate', 'Rate (%)', 'For its own standard rate.', v, errors, html`inputmode="decimal" maxlength="8"`)}
    </div>
    <p class="hint">
      A client with reverse charge, intra-community supply, export or “not subject to VAT”, and a small business, keep their own.
    </p>
  </fieldset>`;
}

/** The fields of a kind's form (creating, or editing an item), as sent or stored. */
function fields(
  kind: Kind,
  key: string,
  v: Record<string, string>,
  errors: FieldErrors,
  all: Catalog,
  creating: boolean,
  actor: Actor,
): Html {
  const money = actor.canViewOthersMoney;
  const id = (name: string) => `${key}-${name}`;
  const rate = () =>
    money ? labelledInput(id('rate'), 'hourlyRate', 'Hourly rate', v.hourlyRate ?? '', errors, html`type="text" inputmode="decimal"`) : '';
  const options = (list: Item[], selected: string, none: string | null) =>
    html`${none === null ? '' : html`<option value="">${none}</option>`}
    ${list.filter((i) => !i.archived || i.id === selected).map((i) => html`<option value="${i.id}" ${i.id === selected ? html`selected` : ''}>${i.name}</option>`)}`;
  return html`${labelledInput(id('name'), 'name', 'Name', v.name ?? '', errors, html`type="text" maxlength="200" required`)}
  ${
    kind === 'project'
      ? html`<div class="field">
            <label for="${id('client')}">Client</label
            ><select id="${id('client')}" name="clientId">
              ${options(all.client, v.clientId ?? '', 'No client')}
            </select>
          </div>
          ${labelledInput(id('color'), 'color', 'Colour', v.color ?? nextColour(all.project.map((p) => p.color ?? '')), errors, html`type="color"`)}
          ${rate()}
          ${money ? labelledInput(id('budget'), 'budgetAmount', 'Budget (amount)', v.budgetAmount ?? '', errors, html`type="text" inputmode="decimal"`) : ''}
          ${labelledInput(id('estimate'), 'estimateHours', 'Estimate (hours)', v.estimateHours ?? '', errors, html`type="text" inputmode="decimal"`)}
          <label class="check" for="${id('billable')}"
            ><input id="${id('billable')}" type="checkbox" name="billable" value="true" ${v.billable === 'true' ? html`checked` : ''} />
            Billable by default</label
          >
          ${actor.isOwner ? ownTaxFields('project', id, v, errors) : ''}`
      : ''
  }
  ${
    kind === 'task'
      ? html`${
          creating
            ? html`<div class="field">
                <label for="${id('project')}">Project</label
                ><select id="${id('project')}" name="projectId" required ${invalidAt(id('project'), errors.projectId)}>
                  ${options(all.project, v.projectId ?? '', null)}</select
                >${errorAt(id('project'), errors.projectId)}
              </div>`
            : ''
        }
        ${rate()}
        ${labelledInput(id('estimate'), 'estimateHours', 'Estimate (hours)', v.estimateHours ?? '', errors, html`type="text" inputmode="decimal"`)}
        ${actor.isOwner ? ownTaxFields('task', id, v, errors) : ''}`
      : ''
  }
  ${kind === 'client' && actor.isOwner ? invoicingDetails(id, v, errors, all.workspaceRounding) : ''}
  ${
    !creating && kind !== 'tag'
      ? html`<label class="check" for="${id('archived')}"
          ><input id="${id('archived')}" type="checkbox" name="archived" value="true" ${v.archived === 'true' ? html`checked` : ''} />
          Archived (kept on its entries, not offered for new ones)</label
        >`
      : ''
  }`;
}

function section(kind: Kind, session: SessionView, all: Catalog, refused: Refused | null): Html {
  const list = all[kind];
  const mine = (id: string) => (refused && refused.kind === kind && refused.id === id ? refused : null);
  const newOne = mine('new');
  return html`<section class="catalog" aria-labelledby="${kind}-heading">
    <h2 id="${kind}-heading">
      ${PLURAL[kind]}
      <span class="hint"
        >${list.filter((i) => !i.archived).length}
        active${list.some((i) => i.archived) ? `, ${list.filter((i) => i.archived).length} archived` : ''}</span
      >
    </h2>
    ${list.length === 0 ? html`<p class="hint">None yet.</p>` : ''}
    <ul class="entries">
      ${list.map((item) => {
        const sent = mine(item.id);
        const values = sent ? sent.values : { ...item.values, archived: String(item.archived) };
        return html`<li class="entry item" id="${kind}-${item.id}">
          <details ${sent ? html`open` : ''}>
            <summary class="row">
              <span class="what">${item.name}</span>
              <span class="project">${item.facts} ${item.archived ? html`<span class="badge">archived</span>` : ''}</span>
              <span class="edit-action">Edit<span class="vh"> the ${kind} ${item.name}</span></span>
            </summary>
            <form
              class="edit"
              method="post"
              action="${APP_PATH}/catalog/${kind}/${item.id}"
              aria-label="Edit ${kind} ${item.name}"
              data-inplace
            >
              ${csrfField(session.csrfToken)} ${fields(kind, item.id, values, sent?.errors ?? {}, all, false, session.actor)}
              <div class="actions"><button type="submit">Save</button></div>
            </form>
            <form
              class="apart"
              method="post"
              action="${APP_PATH}/catalog/${kind}/${item.id}/delete"
              data-confirm="Delete the ${kind} ${item.name}? Only one no entry uses can be deleted; archive it otherwise."
              data-inplace
            >
              ${csrfField(session.csrfToken)}<button class="danger" type="submit">
                Delete<span class="vh"> the ${kind} ${item.name}</span>
              </button>
            </form>
          </details>
        </li>`;
      })}
    </ul>
    <form class="add-item" id="new-${kind}" method="post" action="${APP_PATH}/catalog/${kind}" aria-label="New ${kind}" data-inplace>
      <p class="new-label">New ${kind}</p>
      ${csrfField(session.csrfToken)}
      <div class="grid">${fields(kind, `new-${kind}`, newOne?.values ?? {}, newOne?.errors ?? {}, all, true, session.actor)}</div>
      <div class="actions"><button type="submit">Add ${kind}</button></div>
    </form>
  </section>`;
}

/** The form's names of the API's fields where they differ (an estimate is typed in hours). */
const FORM_FIELDS: Record<string, string> = { estimateSec: 'estimateHours' };

/** The catalog (clients, projects, tasks, tags): list, add, rename and change, archive, delete, with the API's rules and words. */
export function catalogRoutes(router: Router, deps: AppDeps): void {
  const { services, check } = deps;
  const render = (res: Response, session: SessionView, status: number, refused: Refused | null, notice: Notice | null = null) =>
    res
      .status(status)
      .type('html')
      .end(
        appPage(deps, session, {
          title: 'Catalog',
          current: 'catalog',
          // The region the page's script swaps after a form (in place: the page keeps its scroll), with the confirmation on top.
          body: html`<h1>Catalog</h1>
            <div id="live-region">
              ${notice ? html`<div class="notice ${notice.kind} toast" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.body}</div>` : ''}
              ${((all) => KINDS.map((kind) => section(kind, session, all, refused)))(items(deps, session.actor))}
            </div>`,
        }),
      );
  const kindOf = (req: Request): Kind | null => (KINDS.includes(req.params.kind as Kind) ? (req.params.kind as Kind) : null);

  router.get('/catalog', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    render(res, signed.session, 200, null, deps.flashes.take(signed.secret));
  });

  /** A form's write: what it did (for the confirmation) and where on the page it happened (the redirect's anchor). */
  const write =
    (run: (kind: Kind, req: Request, actor: Actor) => { said: string; place: string }, idOf: (req: Request) => string) =>
    (req: Request, res: Response, next: NextFunction) => {
      const kind = kindOf(req);
      if (!kind) return next();
      const signed = signedOf(res) as SignedIn;
      const { session } = signed;
      let done: { said: string; place: string };
      try {
        done = run(kind, req, session.actor);
      } catch (error) {
        if (!isFormRefusal(error)) return next(error);
        const refused = refusal(error, { fields: FORM_FIELDS, fallback: 'name', message: (text) => text.replace(/^body\./, '') });
        return render(
          res,
          session,
          refused.status,
          { kind, id: idOf(req), values: sentValues(req), errors: refused.errors },
          { kind: 'error', body: refused.message },
        );
      }
      // Back where it happened (without the script, the browser scrolls there, not to the top), with what was done.
      deps.flashes.put(signed.secret, { kind: 'ok', body: done.said });
      res.redirect(303, `${APP_PATH}/catalog#${done.place}`);
    };
  const service = (kind: Kind) =>
    services.catalog[`${kind === 'client' ? 'clients' : kind === 'project' ? 'projects' : kind === 'task' ? 'tasks' : 'tags'}`];
  /** New projects' colour when the form sent none: one no project has yet. */
  const colourFor = (actor: Actor) => () => nextColour(services.catalog.projects.list(actor, {}).map((p) => p.color));

  router.post(
    '/catalog/:kind',
    write(
      (kind, req, actor) => {
        const body = bodyOf(kind, req, true, actor, colourFor(actor));
        check(SCHEMAS[kind][0], body);
        const rounding = roundingSent(req, kind, actor);
        const tax = taxSent(req, kind, actor);
        const made = (service(kind).create as (a: Actor, b: unknown) => { id: string; name: string })(actor, body);
        // The client's rounding rule is the invoicing settings' (the invoices service keeps who may set it), not the API's client.
        if (rounding !== undefined && rounding !== null) services.invoices.setClientRounding(actor, actor.workspaceId, made.id, rounding);
        // So is a project's or task's own VAT (decisions §12).
        if (tax !== undefined && tax !== null && (kind === 'project' || kind === 'task'))
          services.invoices.setWorkTax(actor, actor.workspaceId, { kind, id: made.id }, { taxCategory: tax.category, taxRate: tax.rate });
        return { said: `Added the ${kind} “${made.name}”.`, place: `${kind}-${made.id}` };
      },
      () => 'new',
    ),
  );
  router.post(
    '/catalog/:kind/:id',
    write(
      (kind, req, actor) => {
        const body = bodyOf(kind, req, false, actor, colourFor(actor));
        check(SCHEMAS[kind][1], body);
        const id = req.params.id as string;
        const rounding = roundingSent(req, kind, actor);
        const tax = taxSent(req, kind, actor);
        const saved = (service(kind).update as (a: Actor, id: string, b: unknown) => { name: string })(actor, id, body);
        if (rounding !== undefined && rounding !== (services.invoices.clientRoundings(actor, actor.workspaceId).get(id) ?? null))
          services.invoices.setClientRounding(actor, actor.workspaceId, id, rounding);
        if (tax !== undefined && (kind === 'project' || kind === 'task')) {
          const stored = services.invoices.workTaxes(actor, actor.workspaceId)[kind === 'project' ? 'projects' : 'tasks'].get(id) ?? null;
          if (!sameTax(tax, stored))
            services.invoices.setWorkTax(
              actor,
              actor.workspaceId,
              { kind, id },
              { taxCategory: tax?.category ?? '', taxRate: tax?.rate ?? '' },
            );
        }
        return { said: `Saved the ${kind} “${saved.name}”.`, place: `${kind}-${id}` };
      },
      (req) => req.params.id as string,
    ),
  );
  router.post(
    '/catalog/:kind/:id/delete',
    write(
      (kind, req, actor) => {
        const id = req.params.id as string;
        const name = items(deps, actor)[kind].find((item) => item.id === id)?.name;
        service(kind).delete(actor, id);
        return { said: name ? `Deleted the ${kind} “${name}”.` : 'Deleted.', place: `${kind}-heading` };
      },
      (req) => req.params.id as string,
    ),
  );
}
