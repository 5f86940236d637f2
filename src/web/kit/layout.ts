import { API_REFERENCE_PATH } from '../../http/api-reference.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebPaths } from '../paths.js';
import { FAVICON, MANIFEST, SCRIPT, STYLE } from './assets.js';
import { type Html, html } from './html.js';
import { type Area, type Grants, tabsOf } from './nav.js';

/** A message at the top of a page: what just happened, or why it did not. */
export interface Notice {
  kind: 'ok' | 'error';
  body: Html | string;
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
          <label class="hint" for="switch-workspace">Workspace</label>
          <select id="switch-workspace" name="workspaceId">
            ${others.map((w) => html`<option value="${w.workspaceId}" ${w.workspaceId === session.workspaceId ? html`selected` : ''}>${w.name}</option>`)}
          </select>
          <button class="secondary" type="submit">Switch</button>
        </form>`
      : html`<span>${session.workspaceName}</span>`;
  const tabs = tabsOf(area, session, options.grants);
  const other =
    area === 'app'
      ? html`<li class="end"><a href="${paths.settings}">Settings</a></li>`
      : html`<li class="end"><a href="${paths.app}/week">Track time</a></li>
          <li><a href="${API_REFERENCE_PATH}">API reference</a></li>`;
  return html`<header class="top">
      <a class="brand" href="${paths.app}/week">timetrack</a>
      <div class="who">
        ${area === 'app' ? html`<span id="live-status" class="live-status" role="status"></span>` : ''} ${switcher}
        <span>${session.name} (${session.email})${session.isOwner ? ', owner' : ''}</span>
        <form class="inline" method="post" action="${paths.settings}/sign-out">
          ${csrfField(session.csrfToken)}
          <button class="secondary" type="submit">Sign out</button>
        </form>
      </div>
    </header>
    <nav class="tabs" aria-label="${area === 'app' ? 'App' : 'Settings'}">
      <ul>
        ${tabs.map((tab) => html`<li><a href="${tab.href(paths)}" ${options.current === tab.id ? html`aria-current="page"` : ''}>${tab.label}</a></li>`)}
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
    <html lang="en" ${options.theme ? html`data-theme="${options.theme}"` : ''}>
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
        <a class="skip" href="#main">Skip to content</a>
        ${session ? top(paths, options, session) : ''}
        <main id="main">${options.heading === false ? '' : html`<h1>${options.title}</h1>`} ${notice} ${options.body}</main>
      </body>
    </html>`.text;
}

const clocks = new Map<string, Intl.DateTimeFormat>();
/** The parts of an instant in a zone, `2026-11-23`, `14:05` and the zone's short name (`CET`), as the mails write it. */
function partsIn(ms: number, zone: string): Record<string, string> {
  let format = clocks.get(zone);
  if (!format) {
    if (clocks.size > 1_000) clocks.clear();
    const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' };
    clocks.set(zone, (format = new Intl.DateTimeFormat('en-GB', { ...options, hourCycle: 'h23', timeZone: zone, timeZoneName: 'short' })));
  }
  return Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]));
}

/**
 * An instant as the person reading reads it, in their zone (their Profile's, else the server's):
 * `2026-11-23 14:05 CET`, as the mail about the same link says it; or the fallback.
 */
export function when(iso: string | null, zone: string, fallback = 'never'): string {
  if (iso === null) return fallback;
  const p = partsIn(Date.parse(iso), zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${p.timeZoneName}`;
}

/** The day of an instant in the reader's zone: `2026-11-23`. */
export function dayOf(iso: string, zone: string): string {
  const p = partsIn(Date.parse(iso), zone);
  return `${p.year}-${p.month}-${p.day}`;
}
