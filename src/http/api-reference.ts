import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';
import { type KeptPage, keptPage, sendKept } from './kept-page.js';
import { errorFields } from '../logger.js';
import { PACKAGE_ROOT } from '../paths.js';

/** Where the rendered API reference is served: outside `/api/v1` and its token, like the problem pages. */
export const API_REFERENCE_PATH = '/api/reference';

/**
 * The reference as `npm run build` renders it from openapi/openapi.yaml (Redocly's `build-docs`
 * with Redoc's bundle inlined: scripts/api-reference.ts). `npm start` refuses to start while it
 * is missing or older than the contract (bin/build-check.js).
 */
export const API_REFERENCE_FILE = join(PACKAGE_ROOT, 'dist', 'api-reference.html');

/**
 * The page's own policy (the other pages allow no script at all): Redoc renders on the server at
 * build time and then hydrates in the browser, so the page runs its inline scripts, each allowed
 * by its SHA-256 and nothing else (no other script, no `eval`). Redoc's styled-components write
 * style elements and the rendered markup carries style attributes, so styles are inline
 * ('unsafe-inline': a style cannot run code). Nothing is fetched: no fonts, no CDN, no API
 * calls (the contract is inside the page); images and fonts are the page's own data: URIs.
 */
export function apiReferenceCsp(html: string): string {
  const hashes = inlineScripts(html).map((source) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`);
  return [
    "default-src 'none'",
    `script-src ${[...new Set(hashes)].join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The text of every inline `<script>` of the page, in order. Redocly escapes `</script` inside
 * the scripts it writes (`<\/script`), and markup outside them escapes `<`, so each script ends
 * at the first `</script>` after its opening tag.
 */
export function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  const opening = /<script\b[^>]*>/gi;
  let match: RegExpExecArray | null;
  while ((match = opening.exec(html)) !== null) {
    const start = match.index + match[0].length;
    const end = html.indexOf('</script>', start);
    if (end < 0) break;
    scripts.push(html.slice(start, end));
    opening.lastIndex = end + '</script>'.length;
  }
  return scripts;
}

interface LoadedReference extends KeptPage {
  csp: string;
}

/**
 * GET (and HEAD) `/api/reference`: the page, read from `file` on its first request (not at start:
 * 2.6 MB the cold start does not need) and kept; `no-cache` with a strong ETag, so a browser
 * asks again and gets 304 until a new build. Compressed when the request accepts it and the
 * server compresses at all (`COMPRESSION_MIN_BYTES`). A missing file (a run from the sources
 * that never built) answers 503, saying how to build it.
 */
export function apiReferencePage(options: { file?: string; compressionMinBytes: number | null; logger: Logger }): RequestHandler {
  const file = options.file ?? API_REFERENCE_FILE;
  let loading: Promise<LoadedReference> | null = null;
  const load = () => {
    if (loading === null) {
      loading = readFile(file).then((bytes) => ({ ...keptPage('ref', bytes), csp: apiReferenceCsp(bytes.toString('utf8')) }));
      // A failed read is tried again by the next request (the file may be built meanwhile).
      loading.catch(() => (loading = null));
    }
    return loading;
  };
  return async (req: Request, res: Response) => {
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    let page: LoadedReference;
    try {
      page = await load();
    } catch (error) {
      options.logger.warn('the API reference is not built', { file, ...errorFields(error) });
      res.status(503).setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.end('The API reference is not built: run `npm run build` (npm install does it).\n');
      return;
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', page.csp);
    if (options.compressionMinBytes !== null) res.setHeader('Vary', 'Accept-Encoding');
    await sendKept(req, res, page, options.compressionMinBytes);
  };
}
