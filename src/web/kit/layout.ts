import { API_REFERENCE_PATH } from '../../http/api-reference.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebPaths } from '../paths.js';
import { FAVICON, MANIFEST, SCRIPT, STYLE } from './assets.js';
import { type Html, html } from './html.js';
import { currentReader, formats, t } from '../../i18n/index.js';
import { type Area, type Grants, tabsOf } from './nav.js';

/** A message at the top of a page: what just happened, or why it did not. */
export interface Notice {
  kind: 'ok' | 'error';
  body: Html | string;
  /** Where on the page it belongs (an element's id), for a page that shows it beside the form it answers (the Catalog). */
  at?: string;
}

export interface PageOptions {
  title: string;
  /** The document's title when it differs from the heading (a running timer: `0:42 · Audit kickoff`). */
  documentTitle?: string;
  session?: SessionView | null;
  /** The account's workspaces, for the switcher (more than one: a switcher). */
  workspaces?: Array<{ workspaceId: string; name: string }>;
  /** Which navigation the page shows, and its tab to mark current. */
  area?: Area;
  current?: string;
  notice?: Notice | null;
  body: Html;
  /** False when the body brings its own heading (the app's pages). */
  heading?: boolean;
  /** Reload the page after this many seconds (a page following work in progress). */
  refreshSeconds?: number;
  /** Go on to this address at once (a page between two sites: the browser then sends this site's cookies again). */
  refreshTo?: string;
  /** The app asks the browser for its zone once (the member has chosen none yet). */
  askZone?: boolean;
  /** The member's colours, when chosen (else the device's). */
  theme?: 'light' | 'dark' | null;
  /** What the services let this person see, for the tabs that depend on it (none by default). */
  grants?: Grants;
}

/** The hidden field every form of a session carries (checked on every POST). */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}" />`;

function top(paths: WebPaths, options: PageOptions, session: SessionView): Html {
  const area = options.area ?? 'settings';
  const others = options.workspaces ?? [];
  const switcher =
    others.length > 1
      ? html`<form class="inline" method="post" action="${paths.settings}/switch">
          ${csrfField(session.csrfToken)}
          <label class="hint" for="switch-workspace">${t('layout.workspace')}</label>
          <select id="switch-workspace" name="workspaceId">
            ${others.map((w) => html`<option value="${w.workspaceId}" ${w.workspaceId === session.workspaceId ? html`selected` : ''}>${w.name}</option>`)}
          </select>
          <button class="secondary" type="submit">${t('layout.switch')}</button>
        </form>`
      : html`<span>${session.workspaceName}</span>`;
  const tabs = tabsOf(area, session, options.grants);
  const other =
    area === 'app'
      ? html`<li class="end"><a href="${paths.settings}">${t('nav.settings')}</a></li>`
      : html`<li class="end"><a href="${paths.app}/week">${t('nav.trackTime')}</a></li>
          <li><a href="${API_REFERENCE_PATH}">${t('nav.apiReference')}</a></li>`;
  return html`<header class="top">
      <a class="brand" href="${paths.app}/week">timetrack</a>
      <div class="who">
        ${area === 'app' ? html`<span id="live-status" class="live-status" role="status"></span>` : ''} ${switcher}
        <span
          >${session.isOwner ? t('layout.whoOwner', { name: session.name, email: session.email }) : t('layout.who', { name: session.name, email: session.email })}</span
        >
        <form class="inline" method="post" action="${paths.settings}/sign-out">
          ${csrfField(session.csrfToken)}
          <button class="secondary" type="submit">${t('layout.signOut')}</button>
        </form>
      </div>
    </header>
    <nav class="tabs" aria-label="${area === 'app' ? t('nav.app') : t('nav.settings')}">
      <ul>
        ${tabs.map((tab) => html`<li><a href="${tab.href(paths)}" ${options.current === tab.id ? html`aria-current="page"` : ''}>${t(tab.label)}</a></li>`)}
        ${other}
      </ul>
    </nav>`;
}

/** Every page's shell: header and navigation for a signed-in person, the notice, the body, the one style sheet and script. */
export function page(paths: WebPaths, options: PageOptions): string {
  const notice = options.notice
    ? html`<div class="notice ${options.notice.kind}" role="${options.notice.kind === 'error' ? 'alert' : 'status'}">
        ${options.notice.body}
      </div>`
    : '';
  const session = options.session ?? null;
  return html`<!doctype html>
    <html lang="${currentReader().language}" ${options.theme ? html`data-theme="${options.theme}"` : ''}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        ${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${String(options.refreshSeconds)}" />` : ''}
        ${options.refreshTo ? html`<meta http-equiv="refresh" content="0;url=${options.refreshTo}" />` : ''}
        <title>${options.documentTitle ?? options.title} · timetrack</title>
        <link rel="stylesheet" href="${paths.assets}/${STYLE.name}" />
        <link rel="icon" type="image/svg+xml" href="${paths.assets}/${FAVICON.name}" />
        <link rel="manifest" href="${paths.assets}/${MANIFEST.name}" />
        <meta name="theme-color" content="#0b57d0" />
        <script src="${paths.assets}/${SCRIPT.name}" defer></script>
      </head>
      <body
        ${session ? html`data-csrf="${session.csrfToken}"` : ''}
        data-app="${paths.app}"
        data-ask-zone="${options.askZone ? 'true' : 'false'}"
        data-live="${options.area === 'app' ? 'true' : 'false'}"
      >
        <a class="skip" href="#main">${t('layout.skip')}</a>
        ${
          session
            ? top(paths, options, session)
            : // Signed out (sign-in, setup, a mail's link): which product this is, without anyone's navigation.
              html`<header class="top"><span class="brand">timetrack</span></header>`
        }
        <main id="main">${options.heading === false ? '' : html`<h1>${options.title}</h1>`} ${notice} ${options.body}</main>
      </body>
    </html>`.text;
}

/**
 * An instant as the person reading reads it, in their zone (their Profile's, else the server's)
 * and their language: `23 Nov 2026, 14:05 CET`, as the mail about the same link says it; or the
 * fallback (`never` in their language by default).
 */
export function when(iso: string | null, zone: string, fallback?: string): string {
  if (iso === null) return fallback ?? t('common.never');
  return formats().dateTime(Date.parse(iso), zone);
}

/** The day of an instant in the reader's zone, as they write days: `23 Nov 2026`, `23.11.2026`. */
export function dayOf(iso: string, zone: string): string {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    Date.parse(iso),
  );
  return formats().date(day);
}
