import type { SessionView } from '../modules/sessions/service.js';
import { FAVICON, STYLE } from '../settings/assets.js';
import { type Html, html } from '../settings/html.js';
import type { SettingsDeps } from '../settings/kit.js';
import { csrfField } from '../settings/layout.js';
import { APP_SCRIPT, APP_STYLE } from './assets.js';

/** The app's pages, in the order of its navigation. */
export const APP_NAV = [
  { id: 'week', label: 'Week', href: '/app/week' },
  { id: 'reports', label: 'Reports', href: '/app/reports' },
  { id: 'catalog', label: 'Catalog', href: '/app/catalog' },
  { id: 'profile', label: 'Profile', href: '/app/profile' },
] as const;

export type AppPageId = (typeof APP_NAV)[number]['id'];

/** The app's page: header (the app, the live status, who, sign out), its navigation and Settings, the body, its scripts. */
export function appPage(
  deps: Pick<SettingsDeps, 'base'>,
  session: SessionView,
  options: { title: string; current: AppPageId; body: Html; askZone?: boolean },
): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${options.title} · timetrack</title>
        <link rel="stylesheet" href="${deps.base}/assets/${STYLE.name}" />
        <link rel="stylesheet" href="/app/assets/${APP_STYLE.name}" />
        <link rel="icon" type="image/svg+xml" href="${deps.base}/assets/${FAVICON.name}" />
        <script src="/app/assets/${APP_SCRIPT.name}" defer></script>
      </head>
      <body data-csrf="${session.csrfToken}" data-ask-zone="${options.askZone ? 'true' : 'false'}">
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/app/week">timetrack</a>
          <div class="who">
            <span id="live-status" class="live-status" role="status"></span>
            <span>${session.workspaceName}</span>
            <span>${session.name}</span>
            <form class="inline" method="post" action="${deps.base}/sign-out">
              ${csrfField(session.csrfToken)}
              <button class="secondary" type="submit">Sign out</button>
            </form>
          </div>
        </header>
        <nav class="tabs" aria-label="App">
          <ul>
            ${APP_NAV.map((item) => html`<li><a href="${item.href}" ${item.id === options.current ? html`aria-current="page"` : ''}>${item.label}</a></li>`)}
            <li class="end"><a href="${deps.base}/tokens">Settings</a></li>
          </ul>
        </nav>
        <main id="main">${options.body}</main>
      </body>
    </html>`.text;
}
