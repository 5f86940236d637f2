import { DomainError } from '../errors.js';

/** Input rules of names, codes, rates and counts, shared by the modules (a refusal is a domain error). */
/** `what` is the input in words (the message starts with it), `field` its API name (the refusal's `field`). */
export function requireName(value: string, what: string, field = 'name', max = 200): string {
  const name = value.trim();
  if (name === '') throw new DomainError('invalid', `${what} must not be empty.`, { field });
  if (name.length > max) throw new DomainError('invalid', `${what} must be at most ${max} characters.`, { field });
  return name;
}

export function requireCurrency(value: string): string {
  if (!/^[A-Z]{3}$/.test(value))
    throw new DomainError('invalid', `currency must be an ISO 4217 code such as EUR (got ${JSON.stringify(value)}).`, {
      field: 'currency',
    });
  return value;
}

export function requireRate(value: number | null, what: string, field = 'hourlyRate'): number | null {
  if (value === null) return null;
  if (!Number.isFinite(value) || value < 0 || value > 1_000_000_000) {
    throw new DomainError('invalid', `${what} must be a number from 0 to 1000000000.`, { field });
  }
  return value;
}

export function requirePositiveInt(value: number, what: string, field: string, max = 1_000_000_000): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new DomainError('invalid', `${what} must be a whole number from 1 to ${max}.`, { field });
  }
  return value;
}

export function requireEmail(value: string): string {
  const email = value.trim();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new DomainError('invalid', `email must look like name@example.org (got ${JSON.stringify(value)}).`, { field: 'email' });
  }
  return email;
}
