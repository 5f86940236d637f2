import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { type ProblemSlug, problemTypes } from '../../generated/problems.js';
import type { DomainErrorCode } from '../errors.js';

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

export function sendProblem(res: Response, problemsBase: string, slug: ProblemSlug, detail: string, instance: string): void {
  const body = problemDocument(problemsBase, slug, detail, instance);
  res.status(body.status);
  writeJson(res, 'application/problem+json', JSON.stringify(body));
}

/**
 * Writes a JSON body. A HEAD response gets the length the GET would have: Node computes it for a
 * body it sends, but leaves it out when it drops the body of a HEAD.
 */
export function writeJson(res: Response, contentType: string, text: string | Uint8Array): void {
  res.setHeader('Content-Type', contentType);
  if (res.req.method === 'HEAD') res.setHeader('Content-Length', typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength);
  res.end(text);
}
