/**
 * Where each area of the pages lives, written once: the settings (SETTINGS_PATH, also the
 * sign-in's home), the app and its invoices (fixed under /app), and the assets every page loads.
 * Pages build their links from these, never from a path typed by hand.
 */
export interface WebPaths {
  /** SETTINGS_PATH: the settings pages, sign-in, setup links, sign-out. */
  settings: string;
  /** The web app. */
  app: string;
  /** The invoices (part of the app's navigation). */
  invoices: string;
  /** The style sheet, script and icon. */
  assets: string;
}

export const APP_PATH = '/app';

export function webPaths(settingsPath: string): WebPaths {
  return { settings: settingsPath, app: APP_PATH, invoices: `${APP_PATH}/invoices`, assets: `${APP_PATH}/assets` };
}

/**
 * The address to return to after signing in, when it is safe: a path of these pages only (never
 * another origin, a scheme, a protocol-relative `//host` or a backslash a browser reads as one),
 * and not the sign-in or sign-out itself. Null otherwise (the week then).
 */
export function safeNext(paths: WebPaths, raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2000) return null;
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\\\s\p{Cc}]/u.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, 'http://x.invalid');
  } catch {
    return null;
  }
  if (url.origin !== 'http://x.invalid') return null;
  const within = (base: string) => url.pathname === base || url.pathname.startsWith(`${base}/`);
  if (!within(paths.app) && !within(paths.settings)) return null;
  if (url.pathname === `${paths.settings}/sign-in` || url.pathname === `${paths.settings}/sign-out`) return null;
  return `${url.pathname}${url.search}`;
}

/** The sign-in page's address, with where to return (when safe). */
export function signInHref(paths: WebPaths, next: string | null): string {
  const back = next === null ? null : safeNext(paths, next);
  return `${paths.settings}/sign-in${back && back !== `${paths.app}/week` ? `?next=${encodeURIComponent(back)}` : ''}`;
}

/** Where a person lands after signing in or setting up: where they were going, else their week. */
export const landing = (paths: WebPaths, next: unknown): string => safeNext(paths, next) ?? `${paths.app}/week`;
