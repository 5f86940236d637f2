import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { ROUNDING_RULES, type RoundingMode, type RoundingText, ruleOf } from '../../kernel/rounding.js';
import type { RunawayAction } from '../../modules/accounts/service.js';
import { ISSUER_FIELDS } from '../../modules/invoices/service.js';
import { type IssuerProfilePatch, settingsPatchOfText } from '../../modules/invoices/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { Actor } from '../../principal.js';
import { errorAt, type FieldErrors, invalidAt, OTHER_VAT_CATEGORIES } from '../kit/fields.js';
import { refusal, spoken } from '../kit/refusal.js';
import { Html, html } from '../kit/html.js';
import { decimalOf, field, fields } from '../kit/forms.js';
import { redirect, sendTab } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { statusOf } from '../kit/refusal.js';
import type { ExportRun } from '../../threads/imports.js';
import { formats, type Key, t, type Words, words } from '../../i18n/index.js';
import { DOCUMENT_LANGUAGE_NAMES, INVOICE_LANGUAGES } from '../../kernel/document-languages.js';

const ACTIONS: Array<{ value: RunawayAction; label: Key }> = [
  { value: 'flagged', label: 'settings.workspace.runaway.flagged' },
  { value: 'capped', label: 'settings.workspace.runaway.capped' },
  { value: 'stopped', label: 'settings.workspace.runaway.stopped' },
];

type Values = Record<string, string>;
type IssuerField = keyof typeof ISSUER_FIELDS;

/** The invoice issuer fields as people name them, with a hint where the form of the value matters. */
const ISSUER_LABELS = {
  legalName: ['settings.workspace.issuer.legalName', 'settings.workspace.issuer.legalNameHint'],
  contactName: ['settings.workspace.issuer.contactName', null],
  email: ['settings.workspace.issuer.email', null],
  phone: ['settings.workspace.issuer.phone', null],
  website: ['settings.workspace.issuer.website', null],
  addressLines: ['settings.workspace.issuer.addressLines', 'settings.workspace.issuer.addressLinesHint'],
  postalCode: ['settings.workspace.issuer.postalCode', null],
  city: ['settings.workspace.issuer.city', null],
  country: ['settings.workspace.issuer.country', 'settings.workspace.issuer.countryHint'],
  taxId: ['settings.workspace.issuer.taxId', null],
  vatId: ['settings.workspace.issuer.vatId', 'settings.workspace.issuer.vatIdHint'],
  taxNumber: ['settings.workspace.issuer.taxNumber', null],
  registrationNumber: ['settings.workspace.issuer.registrationNumber', 'settings.workspace.issuer.registrationNumberHint'],
  registerCourt: ['settings.workspace.issuer.registerCourt', 'settings.workspace.issuer.registerCourtHint'],
  seat: ['settings.workspace.issuer.seat', 'settings.workspace.issuer.seatHint'],
  managingDirectors: ['settings.workspace.issuer.managingDirectors', 'settings.workspace.issuer.managingDirectorsHint'],
  smallBusiness: ['settings.workspace.issuer.smallBusiness', null],
  paymentDetails: ['settings.workspace.issuer.paymentDetails', 'settings.workspace.issuer.paymentDetailsHint'],
  paymentTermsDays: ['settings.workspace.issuer.paymentTermsDays', null],
  iban: ['settings.workspace.issuer.iban', 'settings.workspace.issuer.ibanHint'],
  bic: ['settings.workspace.issuer.bic', 'settings.workspace.issuer.bicHint'],
  bankName: ['settings.workspace.issuer.bankName', null],
  accountHolder: ['settings.workspace.issuer.accountHolder', null],
  sellerIdentifier: ['settings.workspace.issuer.sellerIdentifier', 'settings.workspace.issuer.sellerIdentifierHint'],
  sellerIdentifierScheme: ['settings.workspace.issuer.sellerIdentifierScheme', 'settings.workspace.issuer.sellerIdentifierSchemeHint'],
  vatCurrency: ['settings.workspace.issuer.vatCurrency', 'settings.workspace.issuer.vatCurrencyHint'],
  electronicAddress: ['settings.workspace.issuer.electronicAddress', 'settings.workspace.issuer.electronicAddressHint'],
  electronicAddressScheme: ['settings.workspace.issuer.electronicAddressScheme', 'settings.workspace.issuer.electronicAddressSchemeHint'],
  invoiceFooter: ['settings.workspace.issuer.invoiceFooter', null],
} as const satisfies Record<IssuerField, readonly [Key, Key | null]>;

const ISSUER_GROUPS: Array<{ legend: Key; fields: IssuerField[] }> = [
  { legend: 'settings.workspace.issuer.business', fields: ['legalName', 'contactName', 'email', 'phone', 'website'] },
  { legend: 'settings.workspace.issuer.address', fields: ['addressLines', 'postalCode', 'city', 'country'] },
  { legend: 'settings.workspace.issuer.tax', fields: ['taxId', 'vatId', 'taxNumber', 'smallBusiness'] },
  // What a company's invoices name beside its name (§ 35a GmbHG, § 80 AktG, § 37a HGB): printed in the footer.
  { legend: 'settings.workspace.issuer.register', fields: ['registrationNumber', 'registerCourt', 'seat', 'managingDirectors'] },
  {
    legend: 'settings.workspace.issuer.payment',
    fields: ['paymentDetails', 'paymentTermsDays', 'iban', 'bic', 'bankName', 'accountHolder', 'vatCurrency'],
  },
  {
    legend: 'settings.workspace.issuer.einvoicing',
    fields: ['sellerIdentifier', 'sellerIdentifierScheme', 'electronicAddress', 'electronicAddressScheme', 'invoiceFooter'],
  },
];

/** The VAT categories a workspace may invoice in (decisions §11), as people name them. */
const CATEGORIES: Array<[code: string, label: Key]> = [['S', 'settings.workspace.invoicing.standardRate'], ...OTHER_VAT_CATEGORIES];
/** The documents' languages, each by its own name (in every language of the page). */
const LANGUAGES: Array<[code: string, label: string]> = INVOICE_LANGUAGES.map((code) => [code, DOCUMENT_LANGUAGE_NAMES[code]]);
/** The invoicing settings' keys, in the form's order (each is also the form field's name). */
const INVOICING_KEYS = [
  'numberPattern',
  'taxCategory',
  'taxRate',
  'exemptionReason',
  'exemptionReasonCode',
  'language',
  'rounding',
  'earlyPayment',
  'reminders',
] as const;
const ROUNDING_MODES: Record<RoundingMode, Key> = {
  up: 'settings.workspace.invoicing.roundUp',
  nearest: 'settings.workspace.invoicing.roundNearest',
  down: 'settings.workspace.invoicing.roundDown',
};
/** A rounding rule as the form's choice says it: `Up to 15 minutes`, `To the nearest 1 hour`. */
function roundingChoice(rule: RoundingText): string {
  const { mode, minutes } = ruleOf(rule) as NonNullable<ReturnType<typeof ruleOf>>;
  const step = minutes === 60 ? t('settings.workspace.invoicing.anHour') : t('settings.workspace.invoicing.minutes', { count: minutes });
  return t(ROUNDING_MODES[mode], { step });
}
/** The rounding rules the form offers (issue 56 item 4): none, then each step up, nearest and down. */
const roundings = (): Array<[value: string, label: string]> => [
  ['', t('catalog.roundingAsTracked')],
  ...ROUNDING_RULES.map((rule): [string, string] => [rule, roundingChoice(rule)]),
];

/** The invoicing settings: the number series (with the next number as an example), the tax and the documents' language. */
function invoicingForm(base: string, session: SessionView, v: Values, next: { number: string; date: string }, errors: FieldErrors): Html {
  const input = (name: string, label: Key, hint: Html | Key, attrs: Html = html``) =>
    html`<div>
      <label for="inv-${name}">${t(label)} <span class="hint">${hint instanceof Html ? hint : t(hint)}</span></label
      ><input id="inv-${name}" name="${name}" type="text" value="${v[name] ?? ''}" ${attrs} ${invalidAt(`inv-${name}`, errors[name])} />
      ${errorAt(`inv-${name}`, errors[name])}
    </div>`;
  const select = (name: string, label: Key, hint: Key, options: Array<[string, string]>) =>
    html`<div>
      <label for="inv-${name}">${t(label)} <span class="hint">${t(hint)}</span></label
      ><select id="inv-${name}" name="${name}" ${invalidAt(`inv-${name}`, errors[name])}>
        ${options.map(([code, text]) => html`<option value="${code}" ${v[name] === code ? html`selected` : ''}>${text}</option>`)}
      </select>
      ${errorAt(`inv-${name}`, errors[name])}
    </div>`;
  return html`<form class="stack wide" method="post" action="${base}/workspace/invoicing" aria-labelledby="invoicing-heading">
    ${csrfField(session.csrfToken)}
    <p class="hint">${t('settings.workspace.invoicing.hint')}</p>
    <div class="groups">
      <fieldset>
        <legend>${t('settings.workspace.invoicing.numbers')}</legend>
        ${input(
          'numberPattern',
          'settings.workspace.invoicing.pattern',
          html`<code>{yyyy}</code> ${t('settings.workspace.invoicing.patternYear')},
            <code>{yy}</code> ${t('settings.workspace.invoicing.patternYy')},
            <code>{mm}</code> ${t('settings.workspace.invoicing.patternMonth')},
            <code>{seq}</code> ${t('settings.workspace.invoicing.patternSeq')} (<code>{seq:4}</code>:
            ${t('settings.workspace.invoicing.patternPadded')}), ${t('settings.workspace.invoicing.patternOnce')}
            ${t('settings.workspace.invoicing.patternBesides')} <code>. _ / # -</code>. ${t('settings.workspace.invoicing.patternEmpty')}
            <code>{yyyy}-{seq:4}</code>.`,
          html`maxlength="40" autocapitalize="off" spellcheck="false"`,
        )}
        <p class="example" id="inv-next">
          ${t('settings.workspace.invoicing.next')} <strong>${next.number}</strong>
          <span class="hint">${t('settings.workspace.invoicing.nextIssued', { date: formats().date(next.date) })}</span>
        </p>
      </fieldset>
      <fieldset>
        <legend>${t('settings.workspace.invoicing.taxAndLanguage')}</legend>
        ${select(
          'taxCategory',
          'settings.workspace.invoicing.category',
          'settings.workspace.invoicing.categoryHint',
          CATEGORIES.map(([code, label]) => [code, t(label)]),
        )}
        ${input('taxRate', 'settings.workspace.invoicing.rate', 'settings.workspace.invoicing.rateHint', html`inputmode="decimal"`)}
        ${input('exemptionReason', 'settings.workspace.invoicing.reason', 'settings.workspace.invoicing.reasonHint', html`maxlength="200"`)}
        ${input(
          'exemptionReasonCode',
          'settings.workspace.invoicing.reasonCode',
          'settings.workspace.invoicing.reasonCodeHint',
          html`maxlength="40" autocapitalize="characters" spellcheck="false"`,
        )}
        ${select('language', 'settings.workspace.invoicing.language', 'settings.workspace.invoicing.languageHint', LANGUAGES)}
      </fieldset>
      <fieldset>
        <legend>${t('settings.workspace.invoicing.time')}</legend>
        ${select('rounding', 'settings.workspace.invoicing.rounding', 'settings.workspace.invoicing.roundingHint', roundings())}
      </fieldset>
      <fieldset>
        <legend>${t('settings.workspace.invoicing.payment')}</legend>
        ${input(
          'earlyPayment',
          'settings.workspace.invoicing.earlyPayment',
          'settings.workspace.invoicing.earlyPaymentHint',
          html`maxlength="40" autocapitalize="off"`,
        )}
        ${input(
          'reminders',
          'settings.workspace.invoicing.reminders',
          'settings.workspace.invoicing.remindersHint',
          html`maxlength="40" inputmode="numeric" autocapitalize="off"`,
        )}
      </fieldset>
    </div>
    <div><button type="submit">${t('settings.workspace.invoicing.save')}</button></div>
  </form>`;
}

/** One issuer field: a checkbox, a text area (lines) or a text field, labelled. */
function issuerField(name: IssuerField, profile: Values, error: string | undefined): Html {
  const id = `profile-${name}`;
  const [labelKey, hintKey] = ISSUER_LABELS[name] as readonly [Key, Key | null];
  const label = t(labelKey);
  const hintHtml = hintKey ? html` <span class="hint">${t(hintKey)}</span>` : '';
  const kind = ISSUER_FIELDS[name] as string;
  if (kind === 'boolean')
    return html`<label class="check" for="${id}"
      ><input id="${id}" type="checkbox" name="${name}" value="true" ${profile[name] === 'true' ? html`checked` : ''} /> ${label}</label
    >`;
  if (kind === 'lines')
    return html`<div>
      <label for="${id}">${label}${hintHtml}</label
      ><textarea id="${id}" name="${name}" rows="3" ${invalidAt(id, error)}>${profile[name] ?? ''}</textarea>
      ${errorAt(id, error)}
    </div>`;
  return html`<div>
    <label for="${id}">${label}${hintHtml}</label
    ><input id="${id}" name="${name}" type="text" value="${profile[name] ?? ''}" ${invalidAt(id, error)} />
    ${errorAt(id, error)}
  </div>`;
}

/** The Joining fieldset: email domains whose people join by signing in with the identity provider. */
function joiningFields(v: Values, errors: FieldErrors, provider: string | null): Html {
  return html`<fieldset>
    <legend>${t('settings.workspace.joining')}</legend>
    <div>
      <label for="ws-joinDomains"
        >${t('settings.workspace.joinDomains')}
        <span class="hint"
          >${provider ? t('settings.workspace.joinDomainsHint', { provider }) : t('settings.workspace.joinDomainsOff')}</span
        ></label
      ><input
        id="ws-joinDomains"
        name="joinDomains"
        type="text"
        autocapitalize="none"
        spellcheck="false"
        value="${v.joinDomains ?? ''}"
        ${invalidAt('ws-joinDomains', errors.joinDomains)}
      />
      ${errorAt('ws-joinDomains', errors.joinDomains)}
    </div>
  </fieldset>`;
}

function settingsForm(
  base: string,
  session: SessionView,
  v: Values,
  maxPerMin: number,
  errors: FieldErrors,
  provider: string | null,
): Html {
  const input = (name: string, label: Key, hint: string, attrs: Html = html``) =>
    html`<div>
      <label for="ws-${name}">${t(label)} <span class="hint">${hint}</span></label
      ><input id="ws-${name}" name="${name}" type="text" value="${v[name] ?? ''}" ${attrs} ${invalidAt(`ws-${name}`, errors[name])} />
      ${errorAt(`ws-${name}`, errors[name])}
    </div>`;
  return html`<form class="stack wide" method="post" action="${base}/workspace">
    ${csrfField(session.csrfToken)}
    <div class="groups">
      <fieldset>
        <legend>${t('settings.workspace.general')}</legend>
        ${input('name', 'settings.workspace.name', '', html`required maxlength="200"`)}
        ${input(
          'currency',
          'settings.workspace.currency',
          t('settings.workspace.currencyHint'),
          html`required pattern="[A-Za-z]{3}" autocapitalize="characters" maxlength="3"`,
        )}
        ${input('hourlyRate', 'settings.workspace.hourlyRate', t('settings.workspace.hourlyRateHint'), html`inputmode="decimal"`)}
      </fieldset>
      <fieldset>
        <legend>${t('settings.workspace.timers')}</legend>
        ${input(
          'runawayLimitHours',
          'settings.workspace.runawayLimit',
          t('settings.workspace.runawayLimitHint'),
          html`inputmode="decimal" required`,
        )}
        <div>
          <label for="ws-runawayAction">${t('settings.workspace.runawayAction')}</label>
          <select id="ws-runawayAction" name="runawayAction">
            ${ACTIONS.map((a) => html`<option value="${a.value}" ${v.runawayAction === a.value ? html`selected` : ''}>${t(a.label)}</option>`)}
          </select>
        </div>
        ${input(
          'rateLimitPerMin',
          'settings.workspace.perMin',
          t('settings.workspace.perMinHint', { max: formats().number(maxPerMin) }),
          html`inputmode="numeric"`,
        )}
      </fieldset>
      ${joiningFields(v, errors, provider)}
    </div>
    <div><button type="submit">${t('settings.workspace.save')}</button></div>
  </form>`;
}

/** Approval and lock (decisions §13): by week, by month or off; the lock date; which members approve besides the owners. */
function approvalForm(
  base: string,
  session: SessionView,
  v: Values,
  members: Array<{ userId: string; name: string; canViewOthersTime: boolean; approver: boolean }>,
  zone: string,
  errors: FieldErrors,
): Html {
  const options: Array<[string, string]> = [
    ['off', t('settings.workspace.approval.off')],
    ['weekly', t('settings.workspace.approval.weekly')],
    ['monthly', t('settings.workspace.approval.monthly')],
  ];
  return html`<form class="stack wide" method="post" action="${base}/workspace/approval" aria-labelledby="approval-heading">
    ${csrfField(session.csrfToken)}
    <p class="hint">${t('settings.workspace.approval.hint')}</p>
    <div class="groups">
      <fieldset>
        <legend>${t('settings.workspace.approval.approval')}</legend>
        <div>
          <label for="ap-approval"
            >${t('settings.workspace.approval.submit')} <span class="hint">${t('settings.workspace.approval.submitHint')}</span></label
          ><select id="ap-approval" name="approval" ${invalidAt('ap-approval', errors.approval)}>
            ${options.map(([value, label]) => html`<option value="${value}" ${v.approval === value ? html`selected` : ''}>${label}</option>`)}
          </select>
          ${errorAt('ap-approval', errors.approval)}
        </div>
        <div>
          <label for="ap-lockedBefore"
            >${t('settings.workspace.approval.lock')}
            <span class="hint">${t('settings.workspace.approval.lockHint', { zone })}</span></label
          ><input
            id="ap-lockedBefore"
            name="lockedBefore"
            type="date"
            value="${v.lockedBefore ?? ''}"
            ${invalidAt('ap-lockedBefore', errors.lockedBefore)}
          />
          ${errorAt('ap-lockedBefore', errors.lockedBefore)}
        </div>
      </fieldset>
      <fieldset>
        <legend>${t('settings.workspace.approval.approvers')}</legend>
        <p class="hint">${t('settings.workspace.approval.approversHint')}</p>
        ${errorAt('ap-approver', errors.approver)}
        ${
          members.length === 0
            ? html`<p class="hint">${t('settings.workspace.approval.noMembers')}</p>`
            : members.map(
                (m) =>
                  html`<label class="check" for="ap-${m.userId}"
                    ><input
                      id="ap-${m.userId}"
                      type="checkbox"
                      name="approvers"
                      value="${m.userId}"
                      ${m.approver ? html`checked` : ''}
                      ${m.canViewOthersTime || m.approver ? '' : html`disabled`}
                    />
                    ${m.name}${m.canViewOthersTime ? '' : html` <span class="hint">${t('settings.workspace.approval.ownTimeOnly')}</span>`}</label
                  >`,
              )
        }
      </fieldset>
    </div>
    <div><button type="submit">${t('settings.workspace.approval.save')}</button></div>
  </form>`;
}

function profileForm(base: string, session: SessionView, profile: Values, errors: FieldErrors): Html {
  return html`<form class="stack wide" method="post" action="${base}/workspace/profile">
    ${csrfField(session.csrfToken)}
    <p class="hint">${t('settings.workspace.issuer.hint')}</p>
    <div class="groups">
      ${ISSUER_GROUPS.map(
        (group) =>
          html`<fieldset>
            <legend>${t(group.legend)}</legend>
            ${group.fields.map((name) => issuerField(name, profile, errors[name]))}
          </fieldset>`,
      )}
    </div>
    <div><button type="submit">${t('settings.workspace.issuer.save')}</button></div>
  </form>`;
}

/** The whole workspace as a file of the timetrack format, downloaded (streamed as it is read). */
function exportForm(base: string, v: Values): Html {
  return html`<form class="stack wide" method="get" action="${base}/workspace/export.csv">
    <p class="hint">${t('settings.workspace.export.hint')}</p>
    <div class="groups">
      <div>
        <label for="export-from"
          >${t('settings.workspace.export.from')} <span class="hint">${t('settings.workspace.export.fromHint')}</span></label
        ><input id="export-from" name="from" type="date" value="${v.from ?? ''}" />
      </div>
      <div>
        <label for="export-to"
          >${t('settings.workspace.export.to')} <span class="hint">${t('settings.workspace.export.toHint')}</span></label
        ><input id="export-to" name="to" type="date" value="${v.to ?? ''}" />
      </div>
    </div>
    <div><button type="submit">${t('settings.workspace.export.download')}</button></div>
  </form>`;
}

/** The workspace (owners only): its settings and the invoice issuer profile. */
export function workspacePages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const current = (actor: Actor, workspaceId: string) => {
    const w = services.accounts.workspaceToEdit(actor, workspaceId);
    const settings: Values = {
      name: w.name,
      currency: w.currency,
      hourlyRate: w.hourlyRate === null ? '' : String(w.hourlyRate),
      runawayLimitHours: String(Math.round((w.runawayLimitSec / 3600) * 1000) / 1000),
      runawayAction: w.runawayAction,
      rateLimitPerMin: w.rateLimitPerMin === null ? '' : String(w.rateLimitPerMin),
      joinDomains: w.joinDomains.join(', '),
    };
    const profile: Values = {};
    for (const [name, value] of Object.entries(w.businessProfile ?? {})) {
      profile[name] = Array.isArray(value) ? value.join('\n') : String(value);
    }
    const stored = services.invoices.settings(actor, workspaceId);
    const invoicing: Values = Object.fromEntries(INVOICING_KEYS.map((key) => [key, stored[key] === null ? '' : String(stored[key])]));
    return {
      settings,
      profile,
      invoicing,
      next: services.invoices.upcomingNumber(actor, workspaceId),
      ...approvalOf(deps, actor, workspaceId),
    };
  };

  const render = (
    res: Response,
    signed: Signed,
    status: number,
    notice: Notice | null,
    override: { settings?: Values; profile?: Values; invoicing?: Values; approval?: Values; export?: Values; errors?: FieldErrors } = {},
  ) => {
    const session = signed.session as SessionView;
    const values = { ...current(session.actor, session.workspaceId), ...override };
    sendTab(deps, res, signed, status, {
      tab: 'workspace',
      notice,
      body: html`<h2>${t('nav.settings')}</h2>
        ${settingsForm(base, session, values.settings, deps.config.rateLimitWorkspacePerMin, override.settings ? (override.errors ?? {}) : {}, services.oidc.enabled ? services.oidc.name : null)}
        <h2>${t('settings.workspace.issuer.heading')}</h2>
        ${profileForm(base, session, values.profile, override.profile ? (override.errors ?? {}) : {})}
        <h2 id="invoicing-heading">${t('settings.workspace.invoicing.heading')}</h2>
        ${invoicingForm(base, session, values.invoicing, values.next, override.invoicing ? (override.errors ?? {}) : {})}
        <h2 id="approval-heading">${t('settings.workspace.approval.heading')}</h2>
        ${approvalForm(base, session, values.approval, values.approvers, values.lockZone, override.approval ? (override.errors ?? {}) : {})}
        <h2>${t('settings.workspace.export.heading')}</h2>
        ${exportForm(base, override.export ?? {})}`,
    });
  };

  router.get(
    '/workspace',
    signedIn(deps, (req, res, signed) =>
      render(res, signed, 200, req.query.done === 'saved' ? { kind: 'ok', body: t('profile.saved') } : null),
    ),
  );

  router.post(
    '/workspace',
    signedIn(deps, (req: Request, res, signed) => {
      const names = ['name', 'currency', 'hourlyRate', 'runawayLimitHours', 'runawayAction', 'rateLimitPerMin', 'joinDomains'];
      const settings = Object.fromEntries(names.map((n) => [n, field(req, n)]));
      try {
        services.accounts.setWorkspace(signed.session.actor, signed.session.workspaceId, workspaceOfForm(settings));
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        // The page's own refusals are whole sentences in the reader's words; the service's name their field bare.
        const refused = refusal(error, {
          fields: { runawayLimitSec: 'runawayLimitHours' },
          message: (text) => (error.words === undefined ? `The ${text}` : text),
        });
        return render(res, signed, refused.status, { kind: 'error', body: refused.message }, { settings, errors: refused.errors });
      }
      redirect(res, `${base}/workspace?done=saved`);
    }),
  );

  exportRoute(router, deps, render);

  invoicingRoute(router, deps, render);

  approvalRoute(router, deps, render);

  router.post(
    '/workspace/profile',
    signedIn(deps, (req: Request, res, signed) => {
      const profile: Values = {};
      const patch: Record<string, unknown> = {};
      for (const [name, kind] of Object.entries(ISSUER_FIELDS)) {
        const value = field(req, name);
        profile[name] = value;
        // A checkbox is absent when off; lines arrive one per line; a blank field clears.
        const text = value.trim();
        if (kind === 'boolean') patch[name] = value === 'true' ? true : null;
        else if (kind === 'lines') patch[name] = value.split(/\r?\n/).filter((l) => l.trim() !== '');
        else if (kind === 'days') patch[name] = text === '' ? null : /^\d+$/.test(text) ? Number(text) : text;
        else patch[name] = text === '' ? null : text;
      }
      try {
        services.invoices.setBusinessProfile(signed.session.actor, signed.session.workspaceId, patch as IssuerProfilePatch);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        const refused = refusal(error);
        return render(res, signed, refused.status, { kind: 'error', body: refused.message }, { profile, errors: refused.errors });
      }
      redirect(res, `${base}/workspace?done=saved`);
    }),
  );
}
/** The workspace's settings as its form sent them, or the page's refusal in the reader's words (the service checks the rest). */
function workspaceOfForm(settings: Values) {
  const badRunaway = { field: 'runawayLimitSec', words: words('settings.workspace.badRunaway') };
  const hours = said(badRunaway, () =>
    decimalOf(settings.runawayLimitHours ?? '', 'runaway limit', 'runawayLimitSec', '10 (hours, above 0)'),
  );
  if (hours === null || hours <= 0)
    throw new DomainError('invalid', 'runaway limit must be a number such as 10 (hours, above 0).', badRunaway);
  const perMin = (settings.rateLimitPerMin ?? '').trim();
  if (perMin !== '' && !/^\d+$/.test(perMin))
    throw new DomainError('invalid', 'requests per minute must be a whole number, or empty.', {
      field: 'rateLimitPerMin',
      words: words('settings.workspace.badPerMin'),
    });
  return {
    name: settings.name ?? '',
    currency: (settings.currency ?? '').trim().toUpperCase(),
    hourlyRate: said({ field: 'hourlyRate', words: words('settings.workspace.badRate') }, () =>
      decimalOf(settings.hourlyRate ?? '', 'default hourly rate', 'hourlyRate'),
    ),
    runawayLimitSec: Math.round(hours * 3600),
    runawayAction: settings.runawayAction as RunawayAction,
    rateLimitPerMin: perMin === '' ? null : Number(perMin),
    joinDomains: (settings.joinDomains ?? '').split(/[\s,;]+/).filter((d) => d !== ''),
  };
}

/** What `read` gives, or its refusal (the same, its message the API's) with the words a page says instead. */
function said<T>(words: { field: string; words: Words }, read: () => T): T {
  try {
    return read();
  } catch (refused) {
    if (!(refused instanceof DomainError)) throw refused;
    throw new DomainError(refused.code, refused.message, words);
  }
}

/** How a section's route shows the page again: its notice, and the section's form as sent with its errors. */
type SectionRender<K extends string> = (
  res: Response,
  signed: Signed,
  status: number,
  notice: Notice | null,
  override: { [key in K]?: Values } & { errors?: FieldErrors },
) => void;

/** The invoicing settings (owners: the invoices service decides), saved as the command line's `--set key=value`. */
function invoicingRoute(router: Router, deps: WebDeps, render: SectionRender<'invoicing'>): void {
  const { services } = deps;
  const base = deps.paths.settings;
  router.post(
    '/workspace/invoicing',
    signedIn(deps, (req: Request, res, signed) => {
      const invoicing: Values = Object.fromEntries(INVOICING_KEYS.map((key) => [key, field(req, key)]));
      try {
        // As the command line's --set key=value: blank resets a key, the rate is a percentage (a decimal comma too).
        const pairs = INVOICING_KEYS.map((key): [string, string] => [
          key,
          key === 'taxRate' ? (invoicing[key] ?? '').trim().replace(',', '.') : (invoicing[key] ?? ''),
        ]);
        services.invoices.setSettings(signed.session.actor, signed.session.workspaceId, settingsPatchOfText(pairs));
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        const refused = refusal(error);
        return render(res, signed, refused.status, { kind: 'error', body: refused.message }, { invoicing, errors: refused.errors });
      }
      redirect(res, `${base}/workspace?done=saved#invoicing-heading`);
    }),
  );
}

/** The Approval form's values: the settings, and each member besides the owners with their approver mark. */
function approvalOf(deps: WebDeps, actor: Actor, workspaceId: string) {
  const approval = deps.services.approvals.settings(actor, workspaceId);
  const marked = new Set(approval.approvers);
  const approvers = deps.services.accounts
    .roster(actor, workspaceId)
    .filter((m) => !m.isOwner)
    .map((m) => ({ userId: m.userId, name: m.name, canViewOthersTime: m.canViewOthersTime, approver: marked.has(m.userId) }));
  return {
    approval: { approval: approval.approval, lockedBefore: approval.lockedBefore ?? '' } as Values,
    approvers,
    lockZone: approval.lockZone ?? deps.config.serverTimeZone,
  };
}

/** Approval and lock (owners: the approvals service decides): the settings, then each approver mark that changed. */
function approvalRoute(router: Router, deps: WebDeps, render: SectionRender<'approval'>): void {
  const { services } = deps;
  const base = deps.paths.settings;
  router.post(
    '/workspace/approval',
    signedIn(deps, (req: Request, res, signed) => {
      const { actor, workspaceId } = signed.session as SessionView;
      const approval: Values = { approval: field(req, 'approval'), lockedBefore: field(req, 'lockedBefore').trim() };
      const wanted = new Set(fields(req, 'approvers'));
      try {
        services.approvals.setSettings(actor, workspaceId, {
          approval: approval.approval ?? '',
          lockedBefore: approval.lockedBefore === '' ? null : (approval.lockedBefore ?? null),
        });
        const marked = new Set(services.approvals.settings(actor, workspaceId).approvers);
        for (const m of services.accounts.roster(actor, workspaceId).filter((x) => !x.isOwner))
          if (wanted.has(m.userId) !== marked.has(m.userId))
            services.approvals.setApprover(actor, { workspaceId, userId: m.userId, approver: wanted.has(m.userId) });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'conflict')) throw error;
        const refused = refusal(error, { fields: { approver: 'approver' } });
        return render(res, signed, refused.status, { kind: 'error', body: refused.message }, { approval, errors: refused.errors });
      }
      redirect(res, `${base}/workspace?done=saved#approval-heading`);
    }),
  );
}

/**
 * The export (owners: the service decides): refusals before the first byte are shown on the
 * page; then the file is streamed from its thread, the next chunk made once the response took the
 * last. A download given up ends the thread.
 */
function exportRoute(
  router: Router,
  deps: WebDeps,
  render: (res: Response, signed: Signed, status: number, notice: Notice | null, override: { export?: Values }) => void,
): void {
  router.get(
    '/workspace/export.csv',
    signedIn(deps, async (req, res, signed) => {
      const text = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).trim() : '');
      const range = { from: text('from'), to: text('to') };
      const q = {
        workspaceId: signed.session.workspaceId,
        ...(range.from ? { from: range.from } : {}),
        ...(range.to ? { to: range.to } : {}),
      };
      let run: ExportRun;
      let fileName: string;
      try {
        run = deps.imports.exportWorkspace(signed.session.actor, q);
        fileName = await run.ready;
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'rate_limited')) throw error;
        return render(res, signed, statusOf(error), { kind: 'error', body: spoken(error) }, { export: range });
      }
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
      res.setHeader('Cache-Control', 'no-store');
      res.on('close', () => {
        if (!res.writableFinished) run.cancel();
      });
      try {
        await run.into(res);
        res.end();
      } catch (error) {
        // Begun and then broken (the thread failed, or the download was given up): the file is cut off, not completed.
        deps.logger.warn('workspace export stopped', { workspaceId: q.workspaceId, message: (error as Error).message });
        res.destroy();
      }
    }),
  );
}
