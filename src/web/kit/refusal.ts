import { problemTypes } from '../../../generated/problems.js';
import { DomainError } from '../../errors.js';
import { slugOfDomainError } from '../../http/problems.js';
import type { FieldErrors } from './fields.js';

/** The status the API answers a domain refusal with (its own mapping: 400, 403, 404, 409, 429). */
export const statusOf = (error: DomainError): number => problemTypes[slugOfDomainError[error.code]].status;

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
  const message = options.message ? options.message(error.message) : error.message;
  return { status: statusOf(error), field, message, errors: field === null ? {} : { [field]: message } };
}
