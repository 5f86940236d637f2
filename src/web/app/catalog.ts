import type { NextFunction, Request, Response, Router } from 'express';
import type { Actor } from '../../principal.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { ClientView } from '../../modules/catalog/views.js';
import { confirmedButton, errorAt, type FieldErrors, labelledInput, invalidAt, OTHER_VAT_CATEGORIES } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { field, sentValues } from '../kit/forms.js';
import { isFormRefusal, refusal } from '../kit/refusal.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { appPage } from './page.js';
import { colourMark } from '../kit/marks.js';
import type { WebDeps as AppDeps } from '../deps.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { APP_PATH } from '../paths.js';
import { formats, type Key, t } from '../../i18n/index.js';
import {
  type ClientRounding,
  parseClientRounding,
  ROUNDING_RULES,
  roundingLabel,
  roundingWords,
  type RoundingText,
} from '../../kernel/rounding.js';
import { DOCUMENT_LANGUAGE_NAMES, INVOICE_LANGUAGES, type InvoiceLanguage, parseClientLanguage } from '../../kernel/document-languages.js';
import { type OwnTax, ownTaxWords, parseOwnTax } from '../../kernel/tax.js';

type Kind = 'client' | 'project' | 'task' | 'tag';
const KINDS: readonly Kind[] = ['client', 'project', 'task', 'tag'];
/** Each kind's words in the reader's language: its list's heading, and the kind as a sentence names it. */
const WORDS: Record<Kind, { plural: Key; one: Key }> = {
  client: { plural: 'catalog.clients', one: 'catalog.kind.client' },
  project: { plural: 'catalog.projects', one: 'catalog.kind.project' },
  task: { plural: 'catalog.tasks', one: 'catalog.kind.task' },
  tag: { plural: 'catalog.tags', one: 'catalog.kind.tag' },
};
const kindWord = (kind: Kind) => t(WORDS[kind].one);

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

/** The catalog as the page shows it, and the workspace's rounding rule and document language (a client's Invoicing details offer to keep them). */
type Catalog = Record<Kind, Item[]> & { workspaceRounding: RoundingText | null; workspaceLanguage: InvoiceLanguage };

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
const CATEGORIES: Array<[code: string, label: Key]> = [['', 'catalog.vat.workspaces'], ['S', 'catalog.vat.S'], ...OTHER_VAT_CATEGORIES];
const CATEGORY_NAMES: Record<string, Key> = {
  S: 'catalog.vatName.S',
  AE: 'catalog.vatName.AE',
  K: 'catalog.vatName.K',
  G: 'catalog.vatName.G',
  E: 'catalog.vatName.E',
  Z: 'catalog.vatName.Z',
  O: 'catalog.vatName.O',
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
 * A client's own document language as its form sent it (owners' forms carry it), checked before
 * anything is written so that a refused one (French and Dutch are not offered yet) writes nothing:
 * undefined when not sent, null for the workspace's.
 */
function languageSent(req: Request, kind: Kind, actor: Actor): InvoiceLanguage | null | undefined {
  const sent = (req.body ?? {}) as Record<string, unknown>;
  if (kind !== 'client' || !actor.isOwner || typeof sent.language !== 'string') return undefined;
  return parseClientLanguage(sent.language, 'language');
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
  const settings = actor.isOwner ? deps.services.invoices.settings(actor, actor.workspaceId) : null;
  const workspaceRounding = settings?.rounding ?? null;
  // A client's own document language (decisions §12), and the workspace's it would otherwise take.
  const languages = actor.isOwner ? deps.services.invoices.clientLanguages(actor, actor.workspaceId) : new Map<string, InvoiceLanguage>();
  const languageFact = (id: string) => {
    const own = languages.get(id);
    return own === undefined ? '' : t('catalog.documentsIn', { language: DOCUMENT_LANGUAGE_NAMES[own] });
  };
  const roundingFact = (id: string) => {
    const own = roundings.get(id);
    return own === undefined
      ? ''
      : own === 'none'
        ? t('catalog.notRounded')
        : t('catalog.rounded', { rule: roundingWords(own as RoundingText) });
  };
  const clientFacts = (c: ClientView) =>
    actor.isOwner
      ? [
          c.legalName && c.legalName !== c.name ? c.legalName : '',
          c.vatId ?? '',
          c.taxCategory
            ? `${CATEGORY_NAMES[c.taxCategory] ? t(CATEGORY_NAMES[c.taxCategory] as Key) : c.taxCategory} (${c.taxCategory})`
            : '',
          roundingFact(c.id),
          languageFact(c.id),
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
      values: {
        name: c.name,
        ...(actor.isOwner ? { ...party(c), rounding: roundings.get(c.id) ?? '', language: languages.get(c.id) ?? '' } : {}),
      },
    })),
    project: projects.map((p) => ({
      id: p.id,
      color: p.color,
      name: p.name,
      archived: p.archived,
      facts: html`${colourMark(p.color, 'swatch')} ${p.clientId ? clientName.get(p.clientId) : t('catalog.noClient')}
      ${p.billable ? ` · ${t('catalog.billable')}` : ''}
      ${p.hourlyRate === null ? '' : ` · ${t('catalog.rate', { rate: formats().decimal(p.hourlyRate, 4) })}`}
      ${taxFact(taxes?.projects.get(p.id))}
      ${p.progress ? ` · ${t('catalog.tracked', { time: formats().duration(p.progress.trackedSec) })}` : ''}
      ${p.progress?.budgetRatio != null ? html` · <meter min="0" max="1" value="${Math.min(1, p.progress.budgetRatio)}" title="${t('catalog.ofBudget', { percent: Math.round(p.progress.budgetRatio * 100) })}">${Math.round(p.progress.budgetRatio * 100)} %</meter> ${t('catalog.ofBudget', { percent: Math.round(p.progress.budgetRatio * 100) })}` : ''}`,
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
    task: catalog.tasks.list(actor, {}).map((task) => ({
      id: task.id,
      name: task.name,
      archived: task.archived,
      facts: html`${projectName.get(task.projectId) ?? ''}${task.hourlyRate === null ? '' : ` · ${t('catalog.rate', { rate: formats().decimal(task.hourlyRate, 4) })}`}${taxFact(taxes?.tasks.get(task.id))}`,
      values: {
        name: task.name,
        projectId: task.projectId,
        hourlyRate: num(task.hourlyRate),
        estimateHours: task.estimateSec === null ? '' : String(task.estimateSec / 3600),
        ...taxValues(taxes?.tasks.get(task.id)),
      },
    })),
    tag: catalog.tags.list(actor).map((t) => ({ id: t.id, name: t.name, archived: false, facts: '', values: { name: t.name } })),
    workspaceRounding,
    workspaceLanguage: settings?.language ?? 'en',
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
  workspaceLanguage: InvoiceLanguage,
): Html {
  const refusedHere = [...PARTY_FIELDS, 'rounding', 'language'].some((name) => errors[name] !== undefined);
  // The languages invoices are made in (one place: kernel/document-languages.ts), each by its own name.
  const languages: Array<[value: string, label: string]> = [
    ['', t('catalog.invoicing.languageWorkspace', { language: DOCUMENT_LANGUAGE_NAMES[workspaceLanguage] })],
    ...INVOICE_LANGUAGES.map((code): [string, string] => [code, DOCUMENT_LANGUAGE_NAMES[code]]),
  ];
  const languageLabelled = html`${t('catalog.invoicing.language')} <span class="hint">${t('catalog.invoicing.languageHint')}</span>`;
  const roundings: Array<[value: string, label: string]> = [
    [
      '',
      t('catalog.roundingWorkspace', { rule: workspaceRounding === null ? t('catalog.roundingNone') : roundingWords(workspaceRounding) }),
    ],
    ['none', t('catalog.roundingAsTracked')],
    ...ROUNDING_RULES.map((rule): [string, string] => [rule, roundingLabel(rule)]),
  ];
  const addressLabel = html`${t('catalog.invoicing.address')} <span class="hint">${t('catalog.invoicing.addressHint')}</span>`;
  const roundingLabelled = html`${t('catalog.invoicing.rounding')} <span class="hint">${t('catalog.invoicing.roundingHint')}</span>`;
  const f = (name: string, label: string, hint: Html | string, attrs: Html | string = '') =>
    hinted(id(name), name, label, hint, v, errors, attrs);
  return html`<details class="invoicing" ${refusedHere ? html`open` : ''}>
    <summary>${t('catalog.invoicing.heading')} <span class="hint inline">${t('catalog.invoicing.what')}</span></summary>
    <p class="hint">${t('catalog.invoicing.hint')}</p>
    <div class="groups">
      <fieldset>
        <legend>${t('catalog.invoicing.recipient')}</legend>
        ${f('legalName', t('catalog.invoicing.legalName'), t('catalog.invoicing.legalNameHint'), html`maxlength="200"`)}
        <div class="field">
          <label for="${id('addressLines')}">${addressLabel}</label>
          <textarea id="${id('addressLines')}" name="addressLines" rows="2" ${invalidAt(id('addressLines'), errors.addressLines)}>
${v.addressLines ?? ''}</textarea>
          ${errorAt(id('addressLines'), errors.addressLines)}
        </div>
        <div class="two">
          ${f('postalCode', t('catalog.invoicing.postalCode'), '', html`maxlength="200"`)}
          ${f('city', t('catalog.invoicing.city'), '', html`maxlength="200"`)}
        </div>
        ${f('country', t('catalog.invoicing.country'), t('catalog.invoicing.countryHint'), html`maxlength="2" autocapitalize="characters" spellcheck="false"`)}
        ${f('email', t('catalog.invoicing.email'), t('catalog.invoicing.emailHint'), html`maxlength="254" inputmode="email" spellcheck="false"`)}
      </fieldset>
      <fieldset>
        <legend>${t('catalog.invoicing.identifiers')}</legend>
        ${f('vatId', t('catalog.invoicing.vatId'), t('catalog.invoicing.vatIdHint'), html`maxlength="200" spellcheck="false"`)}
        ${f('taxId', t('catalog.invoicing.taxId'), t('catalog.invoicing.taxIdHint'), html`maxlength="200" spellcheck="false"`)}
        ${f('reference', t('catalog.invoicing.reference'), t('catalog.invoicing.referenceHint'), html`maxlength="200" spellcheck="false"`)}
        ${f('electronicAddress', t('catalog.invoicing.electronicAddress'), t('catalog.invoicing.electronicAddressHint'), html`maxlength="200" spellcheck="false"`)}
        ${f(
          'electronicAddressScheme',
          t('catalog.invoicing.scheme'),
          html`<code>0204</code> Leitweg-ID, <code>9930</code> ${t('catalog.invoicing.schemeVat')}, <code>0088</code> GLN,
            <code>0208</code> ${t('catalog.invoicing.schemeBelgian')}, <code>EM</code> ${t('catalog.invoicing.schemeEmail')}.`,
          html`maxlength="20" autocapitalize="characters" spellcheck="false"`,
        )}
      </fieldset>
      <fieldset>
        <legend>${t('catalog.invoicing.vat')}</legend>
        <div class="field">
          <label for="${id('taxCategory')}">${t('catalog.invoicing.vatCategory')}</label>
          <select id="${id('taxCategory')}" name="taxCategory" ${invalidAt(id('taxCategory'), errors.taxCategory)}>
            ${CATEGORIES.map(([code, label]) => html`<option value="${code}" ${(v.taxCategory ?? '') === code ? html`selected` : ''}>${t(label)}</option>`)}
          </select>
          ${errorAt(id('taxCategory'), errors.taxCategory)}
        </div>
        ${f('exemptionReason', t('catalog.invoicing.exemptionReason'), t('catalog.invoicing.exemptionReasonHint'), html`maxlength="200"`)}
        ${f('exemptionReasonCode', t('catalog.invoicing.exemptionCode'), t('catalog.invoicing.exemptionCodeHint'), html`maxlength="40" autocapitalize="characters" spellcheck="false"`)}
      </fieldset>
      <fieldset>
        <legend>${t('catalog.invoicing.time')}</legend>
        <div class="field">
          <label for="${id('rounding')}">${roundingLabelled}</label>
          <select id="${id('rounding')}" name="rounding" ${invalidAt(id('rounding'), errors.rounding)}>
            ${roundings.map(([value, label]) => html`<option value="${value}" ${(v.rounding ?? '') === value ? html`selected` : ''}>${label}</option>`)}
          </select>
          ${errorAt(id('rounding'), errors.rounding)}
        </div>
      </fieldset>
      <fieldset>
        <legend>${t('catalog.invoicing.documents')}</legend>
        <div class="field">
          <label for="${id('language')}">${languageLabelled}</label>
          <select id="${id('language')}" name="language" ${invalidAt(id('language'), errors.language)}>
            ${languages.map(([value, label]) => languageOption(value, label, v.language ?? ''))}
          </select>
          ${errorAt(id('language'), errors.language)}
        </div>
      </fieldset>
    </div>
  </details>`;
}

/** One choice of a client's document language: each language marked as its own (`lang`), the workspace's in the page's. */
const languageOption = (value: string, label: string, chosen: string): Html =>
  html`<option value="${value}" ${value === '' ? '' : html`lang="${value}"`} ${chosen === value ? html`selected` : ''}>${label}</option>`;

/** The VAT choices of a project or task of its own (empty: the invoice's own, or a task's project's). */
const OWN_TAX_CHOICES = (kind: 'project' | 'task'): Array<[code: string, label: string]> => [
  ['', t(kind === 'task' ? 'catalog.ownTax.theProjects' : 'catalog.ownTax.theInvoices')],
  ['S', t('catalog.ownTax.standard')],
  ['Z', t('catalog.ownTax.zero')],
];

/**
 * A project's or task's own VAT (owners): its category and rate, used on the lines of its time
 * unless the client's reverse charge, export or "not subject", or a small business, wins.
 */
function ownTaxFields(kind: 'project' | 'task', id: (name: string) => string, v: Record<string, string>, errors: FieldErrors): Html {
  return html`<fieldset class="own-tax">
    <legend>${t('catalog.ownTax.legend')} <span class="hint">${t('catalog.ownTax.legendHint')}</span></legend>
    <div class="two">
      <div class="field">
        <label for="${id('taxCategory')}">${t('catalog.ownTax.vat')}</label>
        <select id="${id('taxCategory')}" name="taxCategory" ${invalidAt(id('taxCategory'), errors.taxCategory)}>
          ${OWN_TAX_CHOICES(kind).map(([code, label]) => html`<option value="${code}" ${(v.taxCategory ?? '') === code ? html`selected` : ''}>${label}</option>`)}
        </select>
        ${errorAt(id('taxCategory'), errors.taxCategory)}
      </div>
      ${hinted(id('taxRate'), 'taxRate', t('catalog.ownTax.rate'), t('catalog.ownTax.rateHint'), v, errors, html`inputmode="decimal" maxlength="8"`)}
    </div>
    <p class="hint">${t('catalog.ownTax.clientWins')}</p>
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
    money
      ? labelledInput(id('rate'), 'hourlyRate', t('catalog.hourlyRate'), v.hourlyRate ?? '', errors, html`type="text" inputmode="decimal"`)
      : '';
  const options = (list: Item[], selected: string, none: string | null) =>
    html`${none === null ? '' : html`<option value="">${none}</option>`}
    ${list.filter((i) => !i.archived || i.id === selected).map((i) => html`<option value="${i.id}" ${i.id === selected ? html`selected` : ''}>${i.name}</option>`)}`;
  return html`${labelledInput(id('name'), 'name', t('catalog.name'), v.name ?? '', errors, html`type="text" maxlength="200" required`)}
  ${
    kind === 'project'
      ? html`<div class="field">
            <label for="${id('client')}">${t('catalog.client')}</label
            ><select id="${id('client')}" name="clientId">
              ${options(all.client, v.clientId ?? '', t('catalog.noClient'))}
            </select>
          </div>
          ${labelledInput(id('color'), 'color', t('catalog.colour'), v.color ?? nextColour(all.project.map((p) => p.color ?? '')), errors, html`type="color"`)}
          ${rate()}
          ${money ? labelledInput(id('budget'), 'budgetAmount', t('catalog.budget'), v.budgetAmount ?? '', errors, html`type="text" inputmode="decimal"`) : ''}
          ${labelledInput(id('estimate'), 'estimateHours', t('catalog.estimate'), v.estimateHours ?? '', errors, html`type="text" inputmode="decimal"`)}
          <label class="check" for="${id('billable')}"
            ><input id="${id('billable')}" type="checkbox" name="billable" value="true" ${v.billable === 'true' ? html`checked` : ''} />
            ${t('catalog.billableDefault')}</label
          >
          ${actor.isOwner ? ownTaxFields('project', id, v, errors) : ''}`
      : ''
  }
  ${
    kind === 'task'
      ? html`${
          creating
            ? html`<div class="field">
                <label for="${id('project')}">${t('catalog.project')}</label
                ><select id="${id('project')}" name="projectId" required ${invalidAt(id('project'), errors.projectId)}>
                  ${options(all.project, v.projectId ?? '', null)}</select
                >${errorAt(id('project'), errors.projectId)}
              </div>`
            : ''
        }
        ${rate()}
        ${labelledInput(id('estimate'), 'estimateHours', t('catalog.estimate'), v.estimateHours ?? '', errors, html`type="text" inputmode="decimal"`)}
        ${actor.isOwner ? ownTaxFields('task', id, v, errors) : ''}`
      : ''
  }
  ${kind === 'client' && actor.isOwner ? invoicingDetails(id, v, errors, all.workspaceRounding, all.workspaceLanguage) : ''}
  ${
    !creating && kind !== 'tag'
      ? html`<label class="check" for="${id('archived')}"
          ><input id="${id('archived')}" type="checkbox" name="archived" value="true" ${v.archived === 'true' ? html`checked` : ''} />
          ${t('catalog.archivedField')}</label
        >`
      : ''
  }`;
}

/** A confirmation or refusal, written where it belongs: beside the form it answers (issue 58), not over the page. */
const noticeHtml = (notice: Notice): Html =>
  html`<div class="notice ${notice.kind} toast" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.body}</div>`;

function section(kind: Kind, session: SessionView, all: Catalog, refused: Refused | null, notice: Notice | null): Html {
  const list = all[kind];
  const beside = (place: string): Html | '' => (notice && notice.at === place ? noticeHtml(notice) : '');
  const mine = (id: string) => (refused && refused.kind === kind && refused.id === id ? refused : null);
  const newOne = mine('new');
  return html`<section class="catalog" aria-labelledby="${kind}-heading">
    <h2 id="${kind}-heading">
      ${t(WORDS[kind].plural)}
      <span class="hint"
        >${t('catalog.active', { count: list.filter((i) => !i.archived).length })}${
          list.some((i) => i.archived) ? `, ${t('catalog.archivedCount', { count: list.filter((i) => i.archived).length })}` : ''
        }</span
      >
    </h2>
    ${beside(`${kind}-heading`)} ${list.length === 0 ? html`<p class="hint">${t('catalog.noneYet')}</p>` : ''}
    <ul class="entries">
      ${list.map((item) => {
        const sent = mine(item.id);
        const values = sent ? sent.values : { ...item.values, archived: String(item.archived) };
        return html`<li class="entry item" id="${kind}-${item.id}">
          <details ${sent || beside(`${kind}-${item.id}`) !== '' ? html`open` : ''}>
            <summary class="row">
              <span class="what">${item.name}</span>
              <span class="project">${item.facts} ${item.archived ? html`<span class="badge">${t('catalog.archived')}</span>` : ''}</span>
              <span class="edit-action"
                >${t('catalog.edit')}<span class="vh"> ${t('catalog.theItem', { kind: kindWord(kind), name: item.name })}</span></span
              >
            </summary>
            <form
              class="edit"
              method="post"
              action="${APP_PATH}/catalog/${kind}/${item.id}"
              aria-label="${t('catalog.editItem', { kind: kindWord(kind), name: item.name })}"
              data-inplace
              data-keep-focus
            >
              ${csrfField(session.csrfToken)} ${fields(kind, item.id, values, sent?.errors ?? {}, all, false, session.actor)}
              <div class="actions"><button type="submit">${t('common.save')}</button></div>
              ${beside(`${kind}-${item.id}`)}
            </form>
            ${confirmedButton({
              action: `${APP_PATH}/catalog/${kind}/${item.id}/delete`,
              confirm: t('catalog.confirmDelete', { kind: kindWord(kind), name: item.name }),
              csrfToken: session.csrfToken,
              label: html`${t('catalog.delete')}<span class="vh">
                  ${t('catalog.theItem', { kind: kindWord(kind), name: item.name })}</span
                >`,
              formClass: 'apart',
              inplace: true,
            })}
          </details>
        </li>`;
      })}
    </ul>
    <form
      class="add-item"
      id="new-${kind}"
      method="post"
      action="${APP_PATH}/catalog/${kind}"
      aria-label="${t('catalog.newItem', { kind: kindWord(kind) })}"
      data-inplace
      data-keep-focus="first"
    >
      <p class="new-label">${t('catalog.newItem', { kind: kindWord(kind) })}</p>
      ${csrfField(session.csrfToken)}
      <div class="grid">${fields(kind, `new-${kind}`, newOne?.values ?? {}, newOne?.errors ?? {}, all, true, session.actor)}</div>
      <div class="actions"><button type="submit">${t('catalog.addItem', { kind: kindWord(kind) })}</button></div>
      ${beside(`new-${kind}`)}
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
          title: t('nav.catalog'),
          current: 'catalog',
          // The region the page's script swaps after a form (in place: the page keeps its scroll), the confirmation beside its form.
          body: html`<h1>${t('nav.catalog')}</h1>
            <div id="live-region">
              ${notice && !notice.at ? noticeHtml(notice) : ''}
              ${((all) => KINDS.map((kind) => section(kind, session, all, refused, notice)))(items(deps, session.actor))}
            </div>`,
        }),
      );
  const kindOf = (req: Request): Kind | null => (KINDS.includes(req.params.kind as Kind) ? (req.params.kind as Kind) : null);

  router.get('/catalog', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    render(res, signed.session, 200, null, deps.flashes.take(signed.secret));
  });

  /** A form's write: what it did (for the confirmation), where on the page it happened (the redirect's anchor) and the form the confirmation sits in when not there. */
  const write =
    (run: (kind: Kind, req: Request, actor: Actor) => { said: string; place: string; at?: string }, idOf: (req: Request) => string) =>
    (req: Request, res: Response, next: NextFunction) => {
      const kind = kindOf(req);
      if (!kind) return next();
      const signed = signedOf(res) as SignedIn;
      const { session } = signed;
      let done: { said: string; place: string; at?: string };
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
          { kind: 'error', body: refused.message, at: idOf(req) === 'new' ? `new-${kind}` : `${kind}-${idOf(req)}` },
        );
      }
      // Back where it happened (without the script, the browser scrolls there, not to the top), with what was done.
      deps.flashes.put(signed.secret, { kind: 'ok', body: done.said, at: done.at ?? done.place });
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
        const language = languageSent(req, kind, actor);
        const tax = taxSent(req, kind, actor);
        const made = (service(kind).create as (a: Actor, b: unknown) => { id: string; name: string })(actor, body);
        // The client's rounding rule is the invoicing settings' (the invoices service keeps who may set it), not the API's client.
        if (rounding !== undefined && rounding !== null) services.invoices.setClientRounding(actor, actor.workspaceId, made.id, rounding);
        // And its document language (decisions §12).
        if (language !== undefined && language !== null) services.invoices.setClientLanguage(actor, actor.workspaceId, made.id, language);
        // So is a project's or task's own VAT (decisions §12).
        if (tax !== undefined && tax !== null && (kind === 'project' || kind === 'task'))
          services.invoices.setWorkTax(actor, actor.workspaceId, { kind, id: made.id }, { taxCategory: tax.category, taxRate: tax.rate });
        // The confirmation under the form it came from, ready for the next one.
        return { said: t('catalog.added', { kind: kindWord(kind), name: made.name }), place: `${kind}-${made.id}`, at: `new-${kind}` };
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
        const language = languageSent(req, kind, actor);
        const tax = taxSent(req, kind, actor);
        const saved = (service(kind).update as (a: Actor, id: string, b: unknown) => { name: string })(actor, id, body);
        if (rounding !== undefined && rounding !== (services.invoices.clientRoundings(actor, actor.workspaceId).get(id) ?? null))
          services.invoices.setClientRounding(actor, actor.workspaceId, id, rounding);
        if (language !== undefined && language !== (services.invoices.clientLanguages(actor, actor.workspaceId).get(id) ?? null))
          services.invoices.setClientLanguage(actor, actor.workspaceId, id, language);
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
        return { said: t('catalog.saved', { kind: kindWord(kind), name: saved.name }), place: `${kind}-${id}` };
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
        return {
          said: name ? t('catalog.deleted', { kind: kindWord(kind), name }) : t('catalog.deletedNameless'),
          place: `${kind}-heading`,
        };
      },
      (req) => req.params.id as string,
    ),
  );
}
