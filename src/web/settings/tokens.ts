import { confirmedButton } from '../kit/fields.js';
import type { Request, Response, Router } from 'express';
import { scopeValues } from '../../../generated/openapi.js';
import { DomainError } from '../../errors.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { type Html, html } from '../kit/html.js';
import { field, fields } from '../kit/forms.js';
import { DateTime } from 'luxon';
import { noticeFor, readerZone, redirect, sendTab, siteLink } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { statusOf, spoken } from '../kit/refusal.js';
import { type Key, t } from '../../i18n/index.js';

const SCOPE_HINTS: Record<string, Key> = {
  'entries:read': 'tokens.scope.entriesRead',
  'entries:write': 'tokens.scope.entriesWrite',
  'catalog:read': 'tokens.scope.catalogRead',
  'catalog:write': 'tokens.scope.catalogWrite',
  'reports:read': 'tokens.scope.reportsRead',
};

interface MintForm {
  name: string;
  scopes: string[];
  expires: string;
}

const yesNo = (value: boolean) => t(value ? 'tokens.yes' : 'tokens.no');

/** The token's plaintext, once, with a copy button (shown by the script when the clipboard is available). */
export const secretBox = (id: string, label: string, secret: string) =>
  html`<p class="secret">
      <code id="${id}" aria-label="${label}">${secret}</code>
      <button type="button" class="secondary" data-copy="${id}" hidden>${t('tokens.copy')}</button>
    </p>
    <p class="hint" id="${id}-status" role="status"></p>`;

function mintForm(base: string, session: SessionView, form: MintForm, zone: string): Html {
  const expiresLabel = html`${t('tokens.expires')} <span class="hint">${t('tokens.expiresHint', { zone })}</span>`;
  return html`<form class="stack" method="post" action="${base}/tokens">
    ${csrfField(session.csrfToken)}
    <div>
      <label for="token-name">${t('tokens.name')} <span class="hint">${t('tokens.nameHint')}</span></label>
      <input id="token-name" name="name" type="text" maxlength="200" required value="${form.name}" />
    </div>
    <fieldset>
      <legend>${t('tokens.scopes')}</legend>
      <span class="hint">${t('tokens.scopesHint')}</span>
      ${scopeValues.map(
        (scope) =>
          html`<label class="check"
            ><input type="checkbox" name="scopes" value="${scope}" ${form.scopes.includes(scope) ? html`checked` : ''} />
            <span><code>${scope}</code> <span class="hint">${SCOPE_HINTS[scope] ? t(SCOPE_HINTS[scope] as Key) : ''}</span></span></label
          >`,
      )}
    </fieldset>
    <div>
      <label for="token-expires">${expiresLabel}</label>
      <input id="token-expires" name="expires" type="date" value="${form.expires}" />
    </div>
    <p class="notice" id="token-visibility">
      ${t('tokens.visibility')} ${t('tokens.othersTime')} <strong>${yesNo(session.canViewOthersTime)}</strong>, ${t('tokens.othersMoney')}
      <strong>${yesNo(session.canViewOthersMoney)}</strong>. ${t('tokens.narrows')}
    </p>
    <div><button type="submit">${t('tokens.mint')}</button></div>
  </form>`;
}

function tokenStatus(token: { revokedAt: string | null; expiresAt: string | null }, now: number, zone: string): Html {
  if (token.revokedAt !== null) return html`<span class="badge bad">${t('tokens.revoked', { when: when(token.revokedAt, zone) })}</span>`;
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now) return html`<span class="badge bad">${t('tokens.expired')}</span>`;
  return html`<span class="badge good">${t('tokens.active')}</span>`;
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
    sendTab(deps, res, signed, status, {
      tab: 'tokens',
      notice,
      body: html`<h2>${t('tokens.mintHeading')}</h2>
        ${mintForm(base, session, form, zone)}
        <h2>${t('tokens.yours', { workspace: session.workspaceName })}</h2>
        ${tokens.length === 0 ? html`<p>${t('tokens.noneYet')}</p>` : ''}
        <ul class="cards" aria-label="${t('tokens.yourTokens')}">
          ${tokens.map(
            (token) =>
              html`<li>
                <div class="card-title">${token.name} ${tokenStatus(token, now, zone)}</div>
                <dl class="facts">
                  <dt>${t('tokens.prefix')}</dt>
                  <dd><code>tt_${token.prefix}_…</code></dd>
                  <dt>${t('tokens.scopes')}</dt>
                  <dd>${token.scopes.length === 0 ? t('tokens.noScopes') : token.scopes.join(', ')}</dd>
                  <dt>${t('tokens.expiresOn')}</dt>
                  <dd>${when(token.expiresAt, zone)}</dd>
                  <dt>${t('tokens.lastUsed')}</dt>
                  <dd>${when(token.lastUsedAt, zone)}</dd>
                </dl>
                ${
                  token.revokedAt === null
                    ? confirmedButton({
                        action: `${base}/tokens/${token.id}/revoke`,
                        confirm: t('tokens.confirmRevoke', { name: token.name }),
                        csrfToken: session.csrfToken,
                        label: t('tokens.revoke', { name: token.name }),
                      })
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
      const done = req.query.done === 'revoked' ? ({ kind: 'ok', body: t('tokens.wasRevoked') } as const) : null;
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
          if (!Number.isFinite(expiresAt)) throw new DomainError('invalid', t('tokens.badExpiry'));
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
            body: html`<p><strong>${t('tokens.minted', { name: form.name.trim() })}</strong> ${t('tokens.copyNow')}</p>
              ${secretBox('new-token', t('tokens.theNewToken'), minted.token)}
              <p class="hint">
                ${t('tokens.useAs')} <code>Authorization: Bearer …</code> ${t('tokens.on', { url: `${siteLink(deps).url}/api/v1` })}
              </p>`,
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
