import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../paths.js';

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

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' };

function load(file: string): Asset {
  const body = readFileSync(join(PACKAGE_ROOT, 'src', 'web', 'assets', file));
  const [stem, ext] = file.split('.') as [string, string];
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${stem}.${hash}.${ext}`, type: TYPES[ext] as string, body };
}

export const STYLE = load('style.css');
export const SCRIPT = load('script.js');
export const FAVICON = load('favicon.svg');
export const ASSETS: readonly Asset[] = [STYLE, SCRIPT, FAVICON];
