import type { Request, Response, Router } from 'express';
import { SESSION_MAX_MS } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { html } from '../kit/html.js';
import type { Notice } from '../kit/layout.js';
import { isFormRefusal, spoken, statusOf } from '../kit/refusal.js';
import { redirect, send } from '../kit/respond.js';
import { OIDC_STATE_MS, ProviderUnreachable } from '../../modules/oidc/service.js';
import { formToken, setProviderCookie, setSessionCookie } from '../session/cookies.js';
import { type Lobby, lobbyOf, signedOf } from '../session/guard.js';
import { formats, t } from '../../i18n/index.js';
import { said } from '../kit/said.js';

const SESSION_MAX_AGE_SEC = Math.floor(SESSION_MAX_MS / 1000);

/** Where an account that belongs to no workspace lands after sign-in. */
export const lobbyPath = (deps: WebDeps): string => `${deps.paths.settings}/invitations`;

const until = (ms: number): string => formats().dateTime(ms, 'UTC');

/** The page of an account in no workspace: who it is, its open invitations with Join, and Sign out. */
function lobbyPage(deps: WebDeps, req: Request, res: Response, lobby: Lobby, status: number, notice: Notice | null): void {
  const base = deps.paths.settings;
  const { view } = lobby;
  const token = formToken(req, res, deps.config);
  send(deps, res, status, {
    title: t('auth.lobbyTitle'),
    notice,
    body: html`<p>
        ${said(deps.services.mail.enabled() ? 'auth.lobbyWhoMail' : 'auth.lobbyWho', {
          name: html`<strong>${view.name}</strong>`,
          email: view.email,
        })}
      </p>
      ${
        view.invitations.length === 0
          ? html`<p>${t('auth.noInvitation', { email: view.email })}</p>`
          : html`<ul class="cards" aria-label="${t('auth.yourInvitations')}">
              ${view.invitations.map(
                (i) =>
                  html`<li>
                    <form class="stack" method="post" action="${base}/invitations/${i.id}/join">
                      <input type="hidden" name="_csrf" value="${token}" />
                      <div>
                        ${said(i.isOwner ? 'auth.invitationOwner' : 'auth.invitation', {
                          workspace: html`<strong>${i.workspaceName}</strong>`,
                          email: i.email,
                          until: until(i.expiresAt),
                        })}
                      </div>
                      <div><button type="submit">${t('auth.join', { workspace: i.workspaceName })}</button></div>
                    </form>
                  </li>`,
              )}
            </ul>`
      }
      <form class="stack after" method="post" action="${base}/sign-out">
        <input type="hidden" name="_csrf" value="${token}" />
        <div><button class="secondary" type="submit">${t('layout.signOut')}</button></div>
      </form>`,
  });
}

/**
 * An account that belongs to no workspace (issue 44): a person removed from their last one, or
 * made by `timetrack user create`, signs in to this page, which lists the invitations made for
 * the account and joins one (a session in that workspace then replaces the lobby's).
 */
export function lobbyRoutes(router: Router, deps: WebDeps): void {
  const { services, paths } = deps;
  router.get('/invitations', (req, res) => {
    if (signedOf(res).session) return void res.redirect(303, `${paths.app}/week`);
    const lobby = lobbyOf(res);
    if (!lobby) return void res.redirect(303, `${paths.settings}/sign-in`);
    lobbyPage(deps, req, res, lobby, 200, null);
  });

  router.post('/invitations/:id/join', async (req, res, next) => {
    const lobby = lobbyOf(res);
    if (!lobby) return void res.redirect(303, `${paths.settings}/sign-in`);
    try {
      const joined = services.sessions.joinFromLobby(lobby.secret, req.params.id as string);
      if (!joined) return void res.redirect(303, `${paths.settings}/sign-in`);
      // Through the identity provider: signed in there again (silently while its session lasts), so the session is the
      // provider's, and the invitation is accepted only when that sign-in lets this account in (I1: a person the provider
      // disabled since joins nothing).
      if (joined.signInAgain) {
        try {
          const out = await services.oidc.begin({ next: `${paths.app}/week`, join: joined.join });
          setProviderCookie(res, deps.config, req, out.cookie, Math.floor(OIDC_STATE_MS / 1000));
          return void res.redirect(303, out.url);
        } catch (error) {
          if (!(error instanceof ProviderUnreachable)) throw error;
          return void res.redirect(303, `${paths.settings}/sign-in?provider=unavailable`);
        }
      }
      setSessionCookie(res, deps.config, req, joined.secret, SESSION_MAX_AGE_SEC);
      deps.flashes.put(joined.secret, { kind: 'ok', body: t('auth.joined') });
      redirect(res, `${paths.app}/week`);
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const view = services.sessions.lobby(lobby.secret);
      if (!view) return void res.redirect(303, `${paths.settings}/sign-in`);
      lobbyPage(deps, req, res, { view, secret: lobby.secret }, statusOf(error), { kind: 'error', body: spoken(error) });
    }
  });
}
