import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { type ProblemSlug, problemTypes } from '../../generated/problems.js';
import type { DomainErrorCode } from '../errors.js';
import { type Coding, compressAsync, compresses, type EncodedBody, type Negotiated } from '../kernel/compression.js';

export type { EncodedBody } from '../kernel/compression.js';

export const INTERNAL_ERROR_DETAIL = 'The server could not complete this request.';

/** A refusal the HTTP layer itself decides (routing, token, rate limit, scope, validation). */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** The one place where domain error codes become problem types. */
export const slugOfDomainError: Record<DomainErrorCode, ProblemSlug> = {
  invalid: 'invalid-request',
  not_found: 'not-found',
  forbidden: 'forbidden',
  conflict: 'conflict',
  money_visibility_required: 'money-visibility-required',
  rate_limited: 'rate-limited',
};

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

export function problemDocument(problemsBase: string, slug: ProblemSlug, detail: string, instance: string): ProblemDocument {
  const status = problemTypes[slug].status;
  return {
    type: `${problemsBase}/${slug}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail: slug === 'internal-error' ? INTERNAL_ERROR_DETAIL : detail,
    instance,
  };
}

export function sendProblem(
  res: Response,
  problemsBase: string,
  slug: ProblemSlug,
  detail: string,
  instance: string,
  negotiated: Negotiated | null = null,
): Promise<void> | undefined {
  const body = problemDocument(problemsBase, slug, detail, instance);
  res.status(body.status);
  return writeJson(res, 'application/problem+json', JSON.stringify(body), negotiated);
}

/** Bytes a reader thread made: compressed there with `coding`, or (null) left as they are. */

/**
 * Writes a JSON body. An `EncodedBody` goes out as it is; any other body is compressed (on
 * libuv's thread pool, then the promise settles) when `negotiated` asks for it and it is large
 * enough, else written at once. `Content-Length` is always set, so a HEAD response gets the
 * length the GET would have, compressed or not: Node leaves it out when it drops the body of a
 * HEAD. A compression that fails sends the body uncompressed.
 */
export function writeJson(
  res: Response,
  contentType: string,
  body: string | Uint8Array | EncodedBody,
  negotiated: Negotiated | null = null,
): Promise<void> | undefined {
  res.setHeader('Content-Type', contentType);
  if (typeof body === 'object' && 'coding' in body) {
    send(res, body.bytes, body.coding);
    return undefined;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (!compresses(negotiated, bytes.byteLength)) {
    send(res, bytes, null);
    return undefined;
  }
  return compressAsync(bytes, negotiated.coding).then(
    (compressed) => send(res, compressed, negotiated.coding),
    () => send(res, bytes, null),
  );
}

function send(res: Response, bytes: Uint8Array, coding: Coding | null): void {
  if (coding !== null) res.setHeader('Content-Encoding', coding);
  res.setHeader('Content-Length', bytes.byteLength);
  res.end(bytes);
}
