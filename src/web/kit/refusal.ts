import { problemTypes } from '../../../generated/problems.js';
import { DomainError } from '../../errors.js';
import { slugOfDomainError } from '../../http/problems.js';
import type { FieldErrors } from './fields.js';
import { t } from '../../i18n/index.js';

/** The status the API answers a domain refusal with (its own mapping: 400, 403, 404, 409, 429). */
export const statusOf = (error: DomainError): number => problemTypes[slugOfDomainError[error.code]].status;

/** What a page says when something is not there, or not the reader's to see (never which, nor an id), in the reader's language. */
export const notFoundWords = (): string => t('refusal.notFound');

/**
 * A refusal as a page says it to the person reading: the service's words for people where it
 * has them (by key, in the reader's language; else as written: no ids, no parameters, no
 * command lines), a plain "not here" for anything not found, else its message. Pages never show
 * a DomainError's `message` themselves (test/fast/architecture.test.ts).
 */
export function spoken(error: DomainError): string {
  if (error.words !== undefined) return t(error.words.key, error.words.vars);
  if (error.people !== undefined) return error.people;
  if (error.code === 'not_found') return notFoundWords();
  return error.message;
}

/** The refusals a form shows at its fields (the input was refused), as opposed to a page of its own (not found, not allowed). */
export const isFormRefusal = (error: unknown): error is DomainError =>
  error instanceof DomainError && (error.code === 'invalid' || error.code === 'conflict');

/**
 * A refusal as a form shows it: its status, and its message at the form field it is about (the
 * error's own `field`, renamed where the form calls it otherwise), or at `fallback`, or nowhere.
 */
export function refusal(
  error: DomainError,
  options: { fields?: Record<string, string>; fallback?: string; message?: (text: string) => string } = {},
): { status: number; field: string | null; message: string; errors: FieldErrors } {
  const named = error.field === undefined ? undefined : (options.fields?.[error.field] ?? error.field);
  const field = named ?? options.fallback ?? null;
  const message = options.message ? options.message(spoken(error)) : spoken(error);
  return { status: statusOf(error), field, message, errors: field === null ? {} : { [field]: message } };
}
