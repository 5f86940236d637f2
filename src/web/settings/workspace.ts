import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { ROUNDING_RULES, roundingLabel } from '../../kernel/rounding.js';
import type { RunawayAction } from '../../modules/accounts/service.js';
import { ISSUER_FIELDS } from '../../modules/invoices/service.js';
import { type IssuerProfilePatch, settingsPatchOfText } from '../../modules/invoices/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { Actor } from '../../principal.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { refusal, spoken } from '../kit/refusal.js';
import { type Html, html } from '../kit/html.js';
import { decimalOf, field, fields } from '../kit/forms.js';
import { redirect, send, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { statusOf } from '../kit/refusal.js';
import type { ExportRun } from '../../threads/imports.js';

const ACTIONS: Array<{ value: RunawayAction; label: string }> = [
  { value: 'flagged', label: 'flag the entry (it keeps running)' },
  { value: 'capped', label: 'cap its reported duration at the limit' },
  { value: 'stopped', label: 'stop the timer at the limit' },
];

type Values = Record<string, string>;
type IssuerField = keyof typeof ISSUER_FIELDS;

/** The invoice issuer fields as people name them, with a hint where the form of the value matters. */
const ISSUER_LABELS = {
  legalName: ['Legal name', 'With the legal form, e.g. Müller Beratung GmbH.'],
  contactName: ['Contact person', ''],
  email: ['Email', ''],
  phone: ['Phone', ''],
  website: ['Website', ''],
  addressLines: ['Street address', 'One line each.'],
  postalCode: ['Postal code', ''],
  city: ['City', ''],
  country: ['Country', 'Two-letter ISO 3166 code, e.g. DE.'],
  taxId: ['Tax ID', ''],
  vatId: ['VAT ID', 'e.g. DE136695976.'],
  taxNumber: ['Tax number', ''],
  registrationNumber: ['Register number', 'e.g. HRB 245678 B (commercial register), PR 1234 (partnership register).'],
  registerCourt: ['Register court', 'The court that keeps the register, e.g. Amtsgericht Charlottenburg.'],
  seat: ['Registered seat', 'The company’s seat (Sitz), e.g. Berlin.'],
  managingDirectors: ['Managing directors', 'Each by first and family name, e.g. Jörg Weiß, Dr. Anna Schmidt.'],
  smallBusiness: ['Small business (no VAT charged)', ''],
  paymentDetails: ['Payment details', 'Printed on the invoice.'],
  paymentTermsDays: ['Payment terms (days)', ''],
  iban: ['IBAN', 'e.g. DE89 3704 0044 0532 0130 00; checked by its check digits.'],
  bic: ['BIC', 'e.g. COBADEFFXXX.'],
  bankName: ['Bank', ''],
  accountHolder: ['Account holder', ''],
  sellerIdentifier: [
    'Seller identifier',
    'BT-29: e.g. your GLN, or the supplier number your client gave you. Needed on e-invoices without a VAT ID or register entry.',
  ],
  sellerIdentifierScheme: ['Seller identifier scheme', 'Its ISO 6523 code, e.g. 0088 for a GLN; empty for a supplier number.'],
  vatCurrency: [
    'VAT currency',
    'ISO 4217; empty: your EU country’s currency (EUR in the euro area). Invoices in another currency state their VAT in it too.',
  ],
  electronicAddress: ['Electronic address', 'For e-invoices, e.g. an email or Peppol ID.'],
  electronicAddressScheme: ['Electronic address scheme', 'e.g. EM for email, 0204 Leitweg-ID, 9930 German VAT ID, 0088 GLN.'],
  invoiceFooter: ['Invoice footer', ''],
} as const satisfies Record<IssuerField, readonly [string, string]>;

const ISSUER_GROUPS: Array<{ legend: string; fields: IssuerField[] }> = [
  { legend: 'Business', fields: ['legalName', 'contactName', 'email', 'phone', 'website'] },
  { legend: 'Address', fields: ['addressLines', 'postalCode', 'city', 'country'] },
  { legend: 'Tax', fields: ['taxId', 'vatId', 'taxNumber', 'smallBusiness'] },
  // What a company's invoices name beside its name (§ 35a GmbHG, § 80 AktG, § 37a HGB): printed in the footer.
  { legend: 'Company register', fields: ['registrationNumber', 'registerCourt', 'seat', 'managingDirectors'] },
  { legend: 'Payment', fields: ['paymentDetails', 'paymentTermsDays', 'iban', 'bic', 'bankName', 'accountHolder', 'vatCurrency'] },
  {
    legend: 'E-invoicing and footer',
    fields: ['sellerIdentifier', 'sellerIdentifierScheme', 'electronicAddress', 'electronicAddressScheme', 'invoiceFooter'],
  },
];

/** The VAT categories a workspace may invoice in (decisions §11), as people name them. */
const CATEGORIES: Array<[code: string, label: string]> = [
  ['S', 'S: standard rate (the rate below)'],
  ['AE', 'AE: reverse charge'],
  ['K', 'K: intra-community supply'],
  ['G', 'G: export outside the EU'],
  ['E', 'E: exempt (give the reason)'],
  ['Z', 'Z: zero rated'],
  ['O', 'O: not subject to VAT'],
];
const LANGUAGES: Array<[code: string, label: string]> = [
  ['en', 'English'],
  ['de', 'Deutsch'],
];
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
/** The rounding rules the form offers (issue 56 item 4): none, then each step up, nearest and down. */
const ROUNDINGS: Array<[value: string, label: string]> = [
  ['', 'None: as tracked'],
  ...ROUNDING_RULES.map((rule): [string, string] => [rule, roundingLabel(rule)]),
];

/** The invoicing settings: the number series (with the next number as an example), the tax and the documents' language. */
function invoicingForm(base: string, session: SessionView, v: Values, next: { number: string; date: string }, errors: FieldErrors): Html {
  const input = (name: string, label: string, hint: Html | string, attrs: Html = html``) =>
    html`<div>
      <label for="inv-${name}">${label} <span class="hint">${hint}</span></label
      ><input id="inv-${name}" name="${name}" type="text" value="${v[name] ?? ''}" ${attrs} ${invalidAt(`inv-${name}`, errors[name])} />
      ${errorAt(`inv-${name}`, errors[name])}
    </div>`;
  const select = (name: string, label: string, hint: string, options: Array<[string, string]>) =>
    html`<div>
      <label for="inv-${name}">${label} <span class="hint">${hint}</span></label
      ><select id="inv-${name}" name="${name}" ${invalidAt(`inv-${name}`, errors[name])}>
        ${options.map(([code, text]) => html`<option value="${code}" ${v[name] === code ? html`selected` : ''}>${text}</option>`)}
      </select>
      ${errorAt(`inv-${name}`, errors[name])}
    </div>`;
  return html`<form class="stack wide" method="post" action="${base}/workspace/invoicing" aria-labelledby="invoicing-heading">
    ${csrfField(session.csrfToken)}
    <p class="hint">
      How new invoices are numbered, taxed and rounded. An invoice keeps what it was made with; an empty field goes back to its default.
    </p>
    <div class="groups">
      <fieldset>
        <legend>Numbers</legend>
        ${input(
          'numberPattern',
          'Number pattern',
          html`<code>{yyyy}</code> year, <code>{yy}</code> year in two digits, <code>{mm}</code> month, <code>{seq}</code> the running
            number (<code>{seq:4}</code>: padded to 4 digits), exactly once. With a year in it the count restarts each year. Besides the
            tokens: letters, digits, spaces and <code>. _ / # -</code>. Empty: <code>{yyyy}-{seq:4}</code>.`,
          html`maxlength="40" autocapitalize="off" spellcheck="false"`,
        )}
        <p class="example" id="inv-next">
          Next number: <strong>${next.number}</strong> <span class="hint">(an invoice issued on ${next.date})</span>
        </p>
      </fieldset>
      <fieldset>
        <legend>Tax and language</legend>
        ${select('taxCategory', 'VAT category', "A client's own category (Catalog, Invoicing details) comes first; a small business (issuer profile) is E.", CATEGORIES)}
        ${input('taxRate', 'VAT rate (%)', 'A percentage such as 19 or 7.7, for category S.', html`inputmode="decimal"`)}
        ${input('exemptionReason', 'Exemption reason', 'Printed on invoices without VAT (E, a small business), e.g. Kleinunternehmer gemäß § 19 UStG.', html`maxlength="200"`)}
        ${input('exemptionReasonCode', 'Exemption reason code', 'Its VATEX code, e.g. VATEX-EU-132.', html`maxlength="40" autocapitalize="characters" spellcheck="false"`)}
        ${select('language', 'Language of the documents', 'Labels, dates and sentences of the PDF and the e-invoices.', LANGUAGES)}
      </fieldset>
      <fieldset>
        <legend>Time</legend>
        ${select(
          'rounding',
          'Rounding',
          "Each entry's time, rounded on its own before invoice lines are made (a client may have its own: Catalog, Invoicing details). 3, 6, 15, 30 and 60 minutes print as hours with two decimals. Reports round only when asked.",
          ROUNDINGS,
        )}
      </fieldset>
      <fieldset>
        <legend>Payment</legend>
        ${input(
          'earlyPayment',
          'Early-payment discount',
          'Offered on each invoice issued from now on, e.g. 2 % within 10 days (Skonto): printed with the payment terms, and in XRechnung as its #SKONTO# line. Empty: none.',
          html`maxlength="40" autocapitalize="off"`,
        )}
        ${input(
          'reminders',
          'Payment reminders',
          'Mailed to the client with the invoice attached, once per level: the days past the due date of each, e.g. 7, 21. Empty: no reminders.',
          html`maxlength="40" inputmode="numeric" autocapitalize="off"`,
        )}
      </fieldset>
    </div>
    <div><button type="submit">Save invoicing</button></div>
  </form>`;
}

/** One issuer field: a checkbox, a text area (lines) or a text field, labelled. */
function issuerField(name: IssuerField, profile: Values, error: string | undefined): Html {
  const id = `profile-${name}`;
  const [label, hint] = ISSUER_LABELS[name];
  const hintHtml = hint ? html` <span class="hint">${hint}</span>` : '';
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
    <legend>Joining</legend>
    <div>
      <label for="ws-joinDomains"
        >Email domains that may join
        <span class="hint"
          >${
            provider
              ? `Someone new here who signs in with ${provider} at an address of one of these domains (verified there) joins this workspace, seeing only their own time and no money. Separate them with spaces or commas, e.g. example.org; empty: nobody joins this way.`
              : 'Takes effect once sign-in through an identity provider is set up (OIDC_ISSUER): someone new who signs in with it at an address of one of these domains joins this workspace, seeing only their own time and no money.'
          }</span
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
  const input = (name: string, label: string, hint: string, attrs: Html = html``) =>
    html`<div>
      <label for="ws-${name}">${label} <span class="hint">${hint}</span></label
      ><input id="ws-${name}" name="${name}" type="text" value="${v[name] ?? ''}" ${attrs} ${invalidAt(`ws-${name}`, errors[name])} />
      ${errorAt(`ws-${name}`, errors[name])}
    </div>`;
  return html`<form class="stack wide" method="post" action="${base}/workspace">
    ${csrfField(session.csrfToken)}
    <div class="groups">
      <fieldset>
        <legend>General</legend>
        ${input('name', 'Name', '', html`required maxlength="200"`)}
        ${input('currency', 'Currency', 'ISO 4217, e.g. EUR. Amounts already recorded are not converted.', html`required pattern="[A-Za-z]{3}" autocapitalize="characters" maxlength="3"`)}
        ${input('hourlyRate', 'Default hourly rate', 'Empty: none. Task, project and member rates come first.', html`inputmode="decimal"`)}
      </fieldset>
      <fieldset>
        <legend>Timers and the API</legend>
        ${input('runawayLimitHours', 'Runaway timer limit (hours)', 'A timer running longer than this is a runaway.', html`inputmode="decimal" required`)}
        <div>
          <label for="ws-runawayAction">When a timer runs away</label>
          <select id="ws-runawayAction" name="runawayAction">
            ${ACTIONS.map((a) => html`<option value="${a.value}" ${v.runawayAction === a.value ? html`selected` : ''}>${a.label}</option>`)}
          </select>
        </div>
        ${input('rateLimitPerMin', 'API requests per minute for the workspace', `Empty: the server's default, ${maxPerMin}. You can lower it, or raise it up to ${maxPerMin}.`, html`inputmode="numeric"`)}
      </fieldset>
      ${joiningFields(v, errors, provider)}
    </div>
    <div><button type="submit">Save settings</button></div>
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
    ['off', 'Off'],
    ['weekly', 'By week'],
    ['monthly', 'By month'],
  ];
  return html`<form class="stack wide" method="post" action="${base}/workspace/approval" aria-labelledby="approval-heading">
    ${csrfField(session.csrfToken)}
    <p class="hint">
      With approval on, members submit their time; an approver approves it, or rejects it with a note. Submitted and approved time cannot
      change until an approver reopens it, and invoices take only approved time.
    </p>
    <div class="groups">
      <fieldset>
        <legend>Approval</legend>
        <div>
          <label for="ap-approval"
            >Members submit their time
            <span class="hint">A week is Monday to Sunday, a month a calendar month, in each member's own zone.</span></label
          ><select id="ap-approval" name="approval" ${invalidAt('ap-approval', errors.approval)}>
            ${options.map(([value, label]) => html`<option value="${value}" ${v.approval === value ? html`selected` : ''}>${label}</option>`)}
          </select>
          ${errorAt('ap-approval', errors.approval)}
        </div>
        <div>
          <label for="ap-lockedBefore"
            >Lock time before
            <span class="hint">Nobody adds, changes or deletes time before this day (read in ${zone}). Empty: no lock.</span></label
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
        <legend>Approvers</legend>
        <p class="hint">Owners approve. Mark members who approve too: an approver must see colleagues' time.</p>
        ${errorAt('ap-approver', errors.approver)}
        ${
          members.length === 0
            ? html`<p class="hint">No members besides the owners.</p>`
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
                    ${m.name}${m.canViewOthersTime ? '' : html` <span class="hint">(sees only their own time)</span>`}</label
                  >`,
              )
        }
      </fieldset>
    </div>
    <div><button type="submit">Save approval</button></div>
  </form>`;
}

function profileForm(base: string, session: SessionView, profile: Values, errors: FieldErrors): Html {
  return html`<form class="stack wide" method="post" action="${base}/workspace/profile">
    ${csrfField(session.csrfToken)}
    <p class="hint">Copied onto each new invoice as its issuer. An empty field is cleared.</p>
    <div class="groups">
      ${ISSUER_GROUPS.map(
        (group) =>
          html`<fieldset>
            <legend>${group.legend}</legend>
            ${group.fields.map((name) => issuerField(name, profile, errors[name]))}
          </fieldset>`,
      )}
    </div>
    <div><button type="submit">Save invoice issuer</button></div>
  </form>`;
}

/** The whole workspace as a file of the timetrack format, downloaded (streamed as it is read). */
function exportForm(base: string, v: Values): Html {
  return html`<form class="stack wide" method="get" action="${base}/workspace/export.csv">
    <p class="hint">
      The whole workspace as one CSV file (UTF-8): its name and settings; its members with their roles, what they see and their rates; the
      invoice issuer and the invoicing settings; every client with its invoicing details, every project, task and tag; every invoice and
      credit note with its numbers and sends; and every completed entry with its member, rate, zone and invoice. Imported into a new
      workspace on another timetrack server (its Import page, with “Add users of the file who match no member” ticked), it gives all of it
      back. Not in it: passwords, tokens, webhooks and the mail this server sent. If you may not see colleagues’ money, the file leaves that
      money out and says so. The days limit the entries only; leave them empty for all of them.
    </p>
    <div class="groups">
      <div>
        <label for="export-from">Entries from <span class="hint">The first day (UTC), or empty.</span></label
        ><input id="export-from" name="from" type="date" value="${v.from ?? ''}" />
      </div>
      <div>
        <label for="export-to">Entries to <span class="hint">The last day (UTC), or empty.</span></label
        ><input id="export-to" name="to" type="date" value="${v.to ?? ''}" />
      </div>
    </div>
    <div><button type="submit">Download the export</button></div>
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
    send(deps, res, status, {
      ...shell(deps, signed),
      title: 'Workspace',
      current: 'workspace',
      notice,
      body: html`<h2>Settings</h2>
        ${settingsForm(base, session, values.settings, deps.config.rateLimitWorkspacePerMin, override.settings ? (override.errors ?? {}) : {}, services.oidc.enabled ? services.oidc.name : null)}
        <h2>Invoice issuer</h2>
        ${profileForm(base, session, values.profile, override.profile ? (override.errors ?? {}) : {})}
        <h2 id="invoicing-heading">Invoicing</h2>
        ${invoicingForm(base, session, values.invoicing, values.next, override.invoicing ? (override.errors ?? {}) : {})}
        <h2 id="approval-heading">Approval and lock</h2>
        ${approvalForm(base, session, values.approval, values.approvers, values.lockZone, override.approval ? (override.errors ?? {}) : {})}
        <h2>Export</h2>
        ${exportForm(base, override.export ?? {})}`,
    });
  };

  router.get(
    '/workspace',
    signedIn(deps, (req, res, signed) => render(res, signed, 200, req.query.done === 'saved' ? { kind: 'ok', body: 'Saved.' } : null)),
  );

  router.post(
    '/workspace',
    signedIn(deps, (req: Request, res, signed) => {
      const names = ['name', 'currency', 'hourlyRate', 'runawayLimitHours', 'runawayAction', 'rateLimitPerMin', 'joinDomains'];
      const settings = Object.fromEntries(names.map((n) => [n, field(req, n)]));
      try {
        const hours = decimalOf(settings.runawayLimitHours ?? '', 'runaway limit', 'runawayLimitSec', '10 (hours, above 0)');
        if (hours === null || hours <= 0)
          throw new DomainError('invalid', 'runaway limit must be a number such as 10 (hours, above 0).', { field: 'runawayLimitSec' });
        const perMin = (settings.rateLimitPerMin ?? '').trim();
        if (perMin !== '' && !/^\d+$/.test(perMin))
          throw new DomainError('invalid', 'requests per minute must be a whole number, or empty.', { field: 'rateLimitPerMin' });
        services.accounts.setWorkspace(signed.session.actor, signed.session.workspaceId, {
          name: settings.name ?? '',
          currency: (settings.currency ?? '').trim().toUpperCase(),
          hourlyRate: decimalOf(settings.hourlyRate ?? '', 'default hourly rate', 'hourlyRate'),
          runawayLimitSec: Math.round(hours * 3600),
          runawayAction: settings.runawayAction as RunawayAction,
          rateLimitPerMin: perMin === '' ? null : Number(perMin),
          joinDomains: (settings.joinDomains ?? '').split(/[\s,;]+/).filter((d) => d !== ''),
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        const refused = refusal(error, { fields: { runawayLimitSec: 'runawayLimitHours' }, message: (text) => `The ${text}` });
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
