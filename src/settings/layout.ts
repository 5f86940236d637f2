import { API_REFERENCE_PATH } from '../http/api-reference.js';
import type { SessionView } from '../modules/sessions/service.js';
import { FAVICON, SCRIPT, STYLE } from './assets.js';
import { type Html, html } from './html.js';

/** A message at the top of a page: what just happened, or why it did not. */
export interface Notice {
  kind: 'ok' | 'error';
  body: Html | string;
}

export interface PageOptions {
  base: string;
  title: string;
  session?: SessionView | null;
  /** The other workspaces of the account, for the switcher. */
  workspaces?: Array<{ workspaceId: string; name: string }>;
  /** The tab to mark current. */
  current?: 'tokens' | 'webhooks' | 'members' | 'workspace' | 'import';
  notice?: Notice | null;
  body: Html;
  /** Reload the page after this many seconds (a page following work in progress). */
  refreshSeconds?: number;
}

/** The hidden field every form of a session carries (checked on every POST). */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}" />`;

const TABS = [
  { id: 'tokens', label: 'API tokens', owner: false },
  { id: 'webhooks', label: 'Webhooks', owner: false },
  { id: 'members', label: 'Members', owner: true },
  { id: 'workspace', label: 'Workspace', owner: true },
  { id: 'import', label: 'Import', owner: false },
] as const;

function top(options: PageOptions, session: SessionView): Html {
  const { base } = options;
  const others = options.workspaces ?? [];
  const switcher =
    others.length > 1
      ? html`<form class="inline" method="post" action="${base}/switch">
          ${csrfField(session.csrfToken)}
          <label class="hint" for="switch-workspace">Workspace</label>
          <select id="switch-workspace" name="workspaceId">
            ${others.map((w) => html`<option value="${w.workspaceId}" ${w.workspaceId === session.workspaceId ? html`selected` : ''}>${w.name}</option>`)}
          </select>
          <button class="secondary" type="submit">Switch</button>
        </form>`
      : html`<span>${session.workspaceName}</span>`;
  const tabs = TABS.filter((tab) => !tab.owner || session.isOwner);
  return html`<header class="top">
      <a class="brand" href="${base}/tokens">timetrack settings</a>
      <div class="who">
        ${switcher}
        <span>${session.name} (${session.email})${session.isOwner ? ', owner' : ''}</span>
        <form class="inline" method="post" action="${base}/sign-out">
          ${csrfField(session.csrfToken)}
          <button class="secondary" type="submit">Sign out</button>
        </form>
      </div>
    </header>
    <nav class="tabs" aria-label="Settings">
      <ul>
        ${tabs.map((tab) => html`<li><a href="${base}/${tab.id}" ${options.current === tab.id ? html`aria-current="page"` : ''}>${tab.label}</a></li>`)}
        <li class="end"><a href="/app/week">Track time</a></li>
        <li><a href="${API_REFERENCE_PATH}">API reference</a></li>
      </ul>
    </nav>`;
}

/** The page shell: header and tabs for a signed-in person, the notice, the body. */
export function page(options: PageOptions): string {
  const { base } = options;
  const notice = options.notice
    ? html`<div class="notice ${options.notice.kind}" role="${options.notice.kind === 'error' ? 'alert' : 'status'}">
        ${options.notice.body}
      </div>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        ${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${String(options.refreshSeconds)}" />` : ''}
        <title>${options.title} · timetrack</title>
        <link rel="stylesheet" href="${base}/assets/${STYLE.name}" />
        <link rel="icon" type="image/svg+xml" href="${base}/assets/${FAVICON.name}" />
        <script src="${base}/assets/${SCRIPT.name}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        ${options.session ? top(options, options.session) : ''}
        <main id="main">
          <h1>${options.title}</h1>
          ${notice} ${options.body}
        </main>
      </body>
    </html>`.text;
}

/** An instant as a person reads it: `2026-11-23 14:05 UTC`, or the fallback. */
export const when = (iso: string | null, fallback = 'never') => (iso === null ? fallback : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`);
