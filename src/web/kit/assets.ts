import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../paths.js';
import { APP_PATH } from '../paths.js';

/**
 * The pages' style sheet, script and icon: plain files under src/web/assets (linted and formatted
 * as any source; no build step), read once at start and served under a name carrying their hash,
 * cached for a year and never stale.
 */
export interface Asset {
  name: string;
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  webmanifest: 'application/manifest+json',
};

const named = (stem: string, ext: string, body: Buffer): Asset => {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${stem}.${hash}.${ext}`, type: TYPES[ext] as string, body };
};

function load(file: string): Asset {
  const [stem, ext] = file.split('.') as [string, string];
  return named(stem, ext, readFileSync(join(PACKAGE_ROOT, 'src', 'web', 'assets', file)));
}

export const STYLE = load('style.css');
export const SCRIPT = load('script.js');
export const FAVICON = load('favicon.svg');
const ICONS = [load('icon-192.png'), load('icon-512.png')];

/**
 * The web app manifest (a phone installs the app from it): its name, the week as its start,
 * standalone, the icons (maskable: the clock sits inside the safe zone) under their hashed names.
 */
export const MANIFEST = named(
  'manifest',
  'webmanifest',
  Buffer.from(
    JSON.stringify({
      name: 'timetrack',
      short_name: 'timetrack',
      start_url: `${APP_PATH}/week`,
      scope: '/',
      display: 'standalone',
      background_color: '#ffffff',
      theme_color: '#0b57d0',
      icons: ICONS.map((icon, i) => ({
        src: icon.name,
        sizes: i === 0 ? '192x192' : '512x512',
        type: 'image/png',
        purpose: 'any maskable',
      })),
    }),
  ),
);
export const ASSETS: readonly Asset[] = [STYLE, SCRIPT, FAVICON, MANIFEST, ...ICONS];
