import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import type { RunawayAction } from '../../modules/accounts/service.js';
import { ISSUER_FIELDS } from '../../modules/invoices/fields.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { type Html, html } from '../html.js';
import { field, redirect, send, type SettingsDeps, shell, type Signed } from '../kit.js';
import { csrfField, type Notice } from '../layout.js';
import { ownerOnly } from './guard.js';
import { rateOf } from './members.js';

const ACTIONS: Array<{ value: RunawayAction; label: string }> = [
  { value: 'flagged', label: 'flag the entry (it keeps running)' },
  { value: 'capped', label: 'cap its reported duration at the limit' },
  { value: 'stopped', label: 'stop the timer at the limit' },
];

/** A label from a field name: `paymentTermsDays` → `Payment terms days`. */
const labelOf = (name: string) =>
  name
    .replace(/([A-Z])/g, ' $1')
    .replace(/^./, (c) => c.toUpperCase())
    .replace(/ ([A-Z])/g, (_m, c: string) => ` ${c.toLowerCase()}`);

type Values = Record<string, string>;

function settingsForm(base: string, session: SessionView, v: Values): Html {
  const input = (name: string, label: string, hint: string, attrs: Html = html``) =>
    html`<div>
      <label for="ws-${name}">${label} <span class="hint">${hint}</span></label
      ><input id="ws-${name}" name="${name}" type="text" value="${v[name] ?? ''}" ${attrs} />
    </div>`;
  return html`<form class="stack" method="post" action="${base}/workspace">
    ${csrfField(session.csrfToken)} ${input('name', 'Name', '', html`required maxlength="200"`)}
    ${input('currency', 'Currency', 'ISO 4217, e.g. EUR. Amounts already recorded are not converted.', html`required pattern="[A-Z]{3}" maxlength="3"`)}
    ${input('hourlyRate', 'Default hourly rate', 'Empty: none. Task, project and member rates come first.', html`inputmode="decimal"`)}
    ${input('runawayLimitHours', 'Runaway timer limit (hours)', 'A timer running longer than this is a runaway.', html`inputmode="decimal" required`)}
    <div>
      <label for="ws-runawayAction">When a timer runs away</label>
      <select id="ws-runawayAction" name="runawayAction">
        ${ACTIONS.map((a) => html`<option value="${a.value}" ${v.runawayAction === a.value ? html`selected` : ''}>${a.label}</option>`)}
      </select>
    </div>
    ${input('rateLimitPerMin', 'API requests per minute for the workspace', "Empty: the server's default (RATE_LIMIT_WORKSPACE_PER_MIN).", html`inputmode="numeric"`)}
    <div><button type="submit">Save settings</button></div>
  </form>`;
}

function profileForm(base: string, session: SessionView, profile: Values): Html {
  return html`<form class="stack" method="post" action="${base}/workspace/profile">
    ${csrfField(session.csrfToken)}
    <p class="hint">Copied onto each new invoice as its issuer. An empty field is cleared.</p>
    ${Object.entries(ISSUER_FIELDS).map(([name, kind]) => {
      const id = `profile-${name}`;
      if (kind === 'boolean')
        return html`<label class="check" for="${id}"
          ><input id="${id}" type="checkbox" name="${name}" value="true" ${profile[name] === 'true' ? html`checked` : ''} />
          ${labelOf(name)}</label
        >`;
      if (kind === 'lines')
        return html`<div>
          <label for="${id}">${labelOf(name)} <span class="hint">One line each.</span></label
          ><textarea id="${id}" name="${name}" rows="3">${profile[name] ?? ''}</textarea>
        </div>`;
      return html`<div>
        <label for="${id}">${labelOf(name)}</label><input id="${id}" name="${name}" type="text" value="${profile[name] ?? ''}" />
      </div>`;
    })}
    <div><button type="submit">Save invoice issuer</button></div>
  </form>`;
}

/** The workspace (owners only): its settings and the invoice issuer profile. */
export function workspacePages(router: Router, deps: SettingsDeps): void {
  const { base, services } = deps;

  const current = (workspaceId: string) => {
    const w = services.accounts.getWorkspace(workspaceId);
    const settings: Values = {
      name: w.name,
      currency: w.currency,
      hourlyRate: w.hourlyRate === null ? '' : String(w.hourlyRate),
      runawayLimitHours: String(Math.round((w.runawayLimitSec / 3600) * 1000) / 1000),
      runawayAction: w.runawayAction,
      rateLimitPerMin: w.rateLimitPerMin === null ? '' : String(w.rateLimitPerMin),
    };
    const profile: Values = {};
    for (const [name, value] of Object.entries(w.businessProfile ?? {})) {
      profile[name] = Array.isArray(value) ? value.join('\n') : String(value);
    }
    return { settings, profile };
  };

  const render = (
    res: Response,
    signed: Signed,
    status: number,
    notice: Notice | null,
    override: { settings?: Values; profile?: Values } = {},
  ) => {
    const session = signed.session as SessionView;
    const values = { ...current(session.workspaceId), ...override };
    send(res, status, {
      ...shell(deps, signed),
      title: 'Workspace',
      current: 'workspace',
      notice,
      body: html`<h2>Settings</h2>
        ${settingsForm(base, session, values.settings)}
        <h2>Invoice issuer</h2>
        ${profileForm(base, session, values.profile)}`,
    });
  };

  router.get(
    '/workspace',
    ownerOnly(deps, (req, res, signed) => render(res, signed, 200, req.query.done === 'saved' ? { kind: 'ok', body: 'Saved.' } : null)),
  );

  router.post(
    '/workspace',
    ownerOnly(deps, (req: Request, res, signed) => {
      const names = ['name', 'currency', 'hourlyRate', 'runawayLimitHours', 'runawayAction', 'rateLimitPerMin'];
      const settings = Object.fromEntries(names.map((n) => [n, field(req, n)]));
      try {
        const hours = rateOf(settings.runawayLimitHours ?? '', 'runaway limit');
        if (hours === null || hours <= 0) throw new DomainError('invalid', 'runaway limit must be a number of hours above 0, such as 10.');
        const perMin = (settings.rateLimitPerMin ?? '').trim();
        if (perMin !== '' && !/^\d+$/.test(perMin))
          throw new DomainError('invalid', 'requests per minute must be a whole number, or empty.');
        services.accounts.setWorkspace(signed.session.workspaceId, {
          name: settings.name ?? '',
          currency: (settings.currency ?? '').trim().toUpperCase(),
          hourlyRate: rateOf(settings.hourlyRate ?? '', 'default hourly rate'),
          runawayLimitSec: Math.round(hours * 3600),
          runawayAction: settings.runawayAction as RunawayAction,
          rateLimitPerMin: perMin === '' ? null : Number(perMin),
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        return render(res, signed, 400, { kind: 'error', body: error.message }, { settings });
      }
      redirect(res, `${base}/workspace?done=saved`);
    }),
  );

  router.post(
    '/workspace/profile',
    ownerOnly(deps, (req: Request, res, signed) => {
      const profile: Values = {};
      const assignments: Record<string, string> = {};
      for (const [name, kind] of Object.entries(ISSUER_FIELDS)) {
        const value = field(req, name);
        profile[name] = value;
        // A checkbox is absent when off; lines arrive one per line and are stored as a list.
        assignments[name] =
          kind === 'boolean'
            ? value === 'true'
              ? 'true'
              : ''
            : kind === 'lines'
              ? value
                  .split(/\r?\n/)
                  .map((l) => l.trim())
                  .filter((l) => l !== '')
                  .join('|')
              : value.trim();
      }
      try {
        services.invoices.setBusinessProfile(signed.session.workspaceId, assignments);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        return render(res, signed, 400, { kind: 'error', body: error.message }, { profile });
      }
      redirect(res, `${base}/workspace?done=saved`);
    }),
  );
}
