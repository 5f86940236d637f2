import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { type Coding, compressAsync, negotiate } from '../kernel/compression.js';

/** A page the server keeps in memory once read: its bytes, its strong ETag's tag, its compressed forms (made once each). */
export interface KeptPage {
  bytes: Buffer;
  tag: string;
  /** Compressed once per coding, on libuv's thread pool, on first request. */
  encoded: Map<Coding, Promise<Uint8Array>>;
}

/** A kept page of `bytes`, tagged `<prefix>-<sha-256 of the bytes>`. */
export const keptPage = (prefix: string, bytes: Buffer): KeptPage => ({
  bytes,
  tag: `${prefix}-${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}`,
  encoded: new Map(),
});

/** `If-None-Match` naming the page in any coding (weakly or not), or `*`. */
const matches = (header: string | undefined, tag: string) =>
  header !== undefined &&
  header.split(',').some((item) => {
    const named = item.trim().replace(/^W\//, '');
    return named === '*' || named === `"${tag}"` || named === `"${tag}-br"` || named === `"${tag}-gzip"`;
  });

/**
 * Answers GET (and HEAD) with a kept page, `no-cache` and a strong ETag: 304 when the request names
 * it, else the bytes, compressed when the request accepts a coding and the server compresses at all
 * (`COMPRESSION_MIN_BYTES`). The API reference and the changelog are served so; the caller sets
 * the type and its other headers first.
 */
export async function sendKept(req: Request, res: Response, page: KeptPage, compressionMinBytes: number | null): Promise<void> {
  res.setHeader('Cache-Control', 'no-cache');
  const negotiated = negotiate(req.headers['accept-encoding'], compressionMinBytes);
  const coding = negotiated !== null && page.bytes.byteLength >= negotiated.minBytes ? negotiated.coding : null;
  // A strong validator names one byte sequence: the coding is part of it (as the catalog's ETags).
  res.setHeader('ETag', coding === null ? `"${page.tag}"` : `"${page.tag}-${coding}"`);
  if (matches(req.headers['if-none-match'], page.tag)) {
    res.status(304).end();
    return;
  }
  let body: Uint8Array = page.bytes;
  if (coding !== null) {
    if (!page.encoded.has(coding)) page.encoded.set(coding, compressAsync(page.bytes, coding));
    body = await (page.encoded.get(coding) as Promise<Uint8Array>);
    res.setHeader('Content-Encoding', coding);
  }
  res.status(200).setHeader('Content-Length', body.byteLength);
  res.end(body);
}

/**
 * The policy of a page the server writes itself that loads nothing, runs no script and may not be
 * framed: it allows only the page's one inline style, by its hash.
 */
export const inlineStyleCsp = (style: string): string =>
  [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
