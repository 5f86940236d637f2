import { expect } from 'chai';
import { DomainError } from '../../src/errors.js';

/** The DomainError `fn` throws; fails the test when it returns or throws anything else. */
export function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  return expect.fail('expected a DomainError, but nothing was thrown');
}
