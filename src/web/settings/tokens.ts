import type { Request, Response, Router } from 'express';
import { scopeValues } from '../../../generated/openapi.js';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { type Html, html } from '../kit/html.js';
import { field, fields } from '../kit/forms.js';
import { DateTime } from 'luxon';
import { noticeFor, readerZone, redirect, send, siteLink, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { statusOf, spoken } from '../kit/refusal.js';

const SCOPE_HINTS: Record<string, string> = {
  'entries:read': 'list and read time entries and the running timer',
  'entries:write': 'create, edit and delete entries; start and stop the timer',
  'catalog:read': 'list clients, projects, tasks and tags',
  'catalog:write': 'create, edit, archive and delete them',
  'reports:read': 'summary, detailed and weekly reports',
};

interface MintForm {
  name: string;
  scopes: string[];
  expires: string;
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** The token's plaintext, once, with a copy button (shown by the script when the clipboard is available). */
export const secretBox = (id: string, label: string, secret: string) =>
  html`<p class="secret">
      <code id="${id}" aria-label="${label}">${secret}</code> <button type="button" class="secondary" data-copy="${id}" hidden>Copy</button>
    </p>
    <p class="hint" id="${id}-status" role="status"></p>`;

function mintForm(base: string, session: SessionView, form: MintForm, zone: string): Html {
  return html`<form class="stack" method="post" action="${base}/tokens">
    ${csrfField(session.csrfToken)}
    <div>
      <label for="token-name">Name <span class="hint">Where the token will be used, e.g. "Invoicing script".</span></label>
      <input id="token-name" name="name" type="text" maxlength="200" required value="${form.name}" />
    </div>
    <fieldset>
      <legend>Scopes</legend>
      <span class="hint">Grant only what the client needs. Reading your own identity (GET /api/v1/me) needs none.</span>
      ${scopeValues.map(
        (scope) =>
          html`<label class="check"
            ><input type="checkbox" name="scopes" value="${scope}" ${form.scopes.includes(scope) ? html`checked` : ''} />
            <span><code>${scope}</code> <span class="hint">${SCOPE_HINTS[scope] ?? ''}</span></span></label
          >`,
      )}
    </fieldset>
    <div>
      <label for="token-expires"
        >Expires on (optional)
        <span class="hint">The token stops working when that day begins (00:00 in ${zone}). Leave empty for no expiry.</span></label
      >
      <input id="token-expires" name="expires" type="date" value="${form.expires}" />
    </div>
    <p class="notice" id="token-visibility">
      It will carry your visibility in this workspace: colleagues' time <strong>${yesNo(session.canViewOthersTime)}</strong>, colleagues'
      money <strong>${yesNo(session.canViewOthersMoney)}</strong>. If an owner narrows your visibility later, the token narrows at once;
      widening applies only to tokens minted after it.
    </p>
    <div><button type="submit">Mint token</button></div>
  </form>`;
}

function tokenStatus(token: { revokedAt: string | null; expiresAt: string | null }, now: number, zone: string): Html {
  if (token.revokedAt !== null) return html`<span class="badge bad">revoked ${when(token.revokedAt, zone)}</span>`;
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now) return html`<span class="badge bad">expired</span>`;
  return html`<span class="badge good">active</span>`;
}

/** API tokens: a member mints, lists and revokes their own. */
export function tokenPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const render = (res: Response, signed: Signed, status: number, form: MintForm, notice: Notice | null) => {
    const session = signed.session as SessionView;
    const now = deps.clock.now();
    const tokens = services.tokens.list(session.actor).reverse();
    const zone = readerZone(deps, session);
    send(deps, res, status, {
      ...shell(deps, signed),
      title: 'API tokens',
      current: 'tokens',
      notice,
      body: html`<h2>Mint a token</h2>
        ${mintForm(base, session, form, zone)}
        <h2>Your tokens in ${session.workspaceName}</h2>
        ${tokens.length === 0 ? html`<p>You have no tokens in this workspace yet.</p>` : ''}
        <ul class="cards" aria-label="Your tokens">
          ${tokens.map(
            (t) =>
              html`<li>
                <div class="card-title">${t.name} ${tokenStatus(t, now, zone)}</div>
                <dl class="facts">
                  <dt>Prefix</dt>
                  <dd><code>tt_${t.prefix}_…</code></dd>
                  <dt>Scopes</dt>
                  <dd>${t.scopes.length === 0 ? 'none' : t.scopes.join(', ')}</dd>
                  <dt>Expires</dt>
                  <dd>${when(t.expiresAt, zone)}</dd>
                  <dt>Last used</dt>
                  <dd>${when(t.lastUsedAt, zone)}</dd>
                </dl>
                ${
                  t.revokedAt === null
                    ? html`<form
                        method="post"
                        action="${base}/tokens/${t.id}/revoke"
                        data-confirm="Revoke ${t.name}? Clients using it get 401 at once."
                      >
                        ${csrfField(session.csrfToken)}<button class="danger" type="submit">Revoke ${t.name}</button>
                      </form>`
                    : ''
                }
              </li>`,
          )}
        </ul>`,
    });
  };

  router.get(
    '/tokens',
    signedIn(deps, (req, res, signed) => {
      const done =
        req.query.done === 'revoked' ? ({ kind: 'ok', body: 'The token was revoked; it answers 401 from now on.' } as const) : null;
      render(res, signed, 200, { name: '', scopes: [], expires: '' }, noticeFor(deps, signed, done));
    }),
  );

  router.post(
    '/tokens',
    signedIn(deps, (req: Request, res, signed) => {
      const form = { name: field(req, 'name'), scopes: fields(req, 'scopes'), expires: field(req, 'expires').trim() };
      try {
        let expiresAt: number | null = null;
        if (form.expires !== '') {
          // The start of that day where the person lives, as the form says.
          const day = /^\d{4}-\d{2}-\d{2}$/.test(form.expires)
            ? DateTime.fromISO(form.expires, { zone: readerZone(deps, signed.session) })
            : null;
          expiresAt = day?.isValid ? day.startOf('day').toMillis() : Number.NaN;
          if (!Number.isFinite(expiresAt)) throw new DomainError('invalid', 'expiry must be a date such as 2027-01-31.');
        }
        const minted = services.tokens.create(signed.session.actor, {
          name: form.name,
          scopes: form.scopes,
          expiresAt,
        });
        redirect(res, `${base}/tokens`, {
          deps,
          signed,
          notice: {
            kind: 'ok',
            body: html`<p>
                <strong>Token "${form.name.trim()}" minted.</strong> Copy it now: it is shown only this once and cannot be shown again.
              </p>
              ${secretBox('new-token', 'The new token', minted.token)}
              <p class="hint">Use it as <code>Authorization: Bearer …</code> on ${siteLink(deps).url}/api/v1.</p>`,
          },
        });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'conflict')) throw error;
        render(res, signed, statusOf(error), form, { kind: 'error', body: spoken(error) });
      }
    }),
  );

  router.post(
    '/tokens/:id/revoke',
    signedIn(deps, (req, res, signed) => {
      services.tokens.revoke(signed.session.actor, req.params.id as string);
      redirect(res, `${base}/tokens?done=revoked`);
    }),
  );
}
