import type { Response } from 'express';
import type { Config } from '../../config.js';
import { linkBase, type LinkBase } from '../../links.js';
import type { Services } from '../../services.js';
import type { WebPaths } from '../paths.js';
import type { Signed } from '../session/guard.js';
import type { Flashes } from './flashes.js';
import { type Notice, type PageOptions, page } from './layout.js';
import type { Html } from './html.js';
import { type Messages, t } from '../../i18n/index.js';

/** Answers a page. */
export function send(deps: { paths: WebPaths }, res: Response, status: number, options: PageOptions): void {
  res.status(status).type('html').end(page(deps.paths, options));
}

/**
 * A tab's page for the person signed in: the shell, the tab marked current and titled as the
 * navigation names it (`nav.<tab>`), its notice and body (`more`: the page's other options).
 */
export function sendTab(
  deps: { paths: WebPaths; services: Services },
  res: Response,
  signed: Signed,
  status: number,
  page: { tab: keyof Messages['nav']; notice: Notice | null; body: Html } & Partial<PageOptions>,
): void {
  const { tab, ...rest } = page;
  send(deps, res, status, { ...shell(deps, signed), title: t(`nav.${tab}`), current: tab, ...rest });
}

/** After a form did its work: back to a page (303, so a reload does not post again), with a notice for it. */
export function redirect(res: Response, to: string, flash?: { deps: { flashes: Flashes }; signed: Signed; notice: Notice }): void {
  if (flash && flash.signed.secret !== null) flash.deps.flashes.put(flash.signed.secret, flash.notice);
  res.redirect(303, to);
}

/** The page's notice: one carried over the redirect, else the one the page has for `?done=`. */
export const noticeFor = (deps: { flashes: Flashes }, signed: Signed, fallback: Notice | null = null): Notice | null =>
  deps.flashes.take(signed.secret) ?? fallback;

/** The zone a page speaks to its reader in: their Profile's, else the server's. */
export const readerZone = (deps: { services: Services; config: Config }, session: { userId: string }): string =>
  deps.services.accounts.preferences(session.userId).timeZone ?? deps.config.serverTimeZone;

/** The person signed in, with their workspaces for the switcher. */
export function shell(deps: { services: Services }, signed: Signed) {
  const session = signed.session;
  if (!session) return {};
  return {
    session,
    workspaces: deps.services.sessions.memberships(session.userId).map((w) => ({ workspaceId: w.workspaceId, name: w.name })),
    theme: deps.services.accounts.preferences(session.userId).theme,
    grants: { invoices: deps.services.invoices.visible(session.actor, session.workspaceId) },
  };
}

/** Where the page's links point (the one rule of src/links.ts: BASE_URL, else the address the server recorded at its start). */
export const siteLink = (deps: { config: Config; serverAddress: () => string | null }): LinkBase =>
  linkBase(deps.config, deps.serverAddress());
