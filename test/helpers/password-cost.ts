import type { HashCost } from '../../src/modules/sessions/password.js';

/**
 * scrypt's cost in the tests' servers and services: N 2^10 (about 1 ms a hash) instead of
 * production's 2^15 (about 50 ms quiet, far more on a loaded machine), since a test that signs
 * in tests the sign-in, not scrypt. test/fast/unit/sessions.test.ts keeps production's cost, and
 * that a service made without the option uses it.
 */
export const TEST_PASSWORD_COST: HashCost = { N: 2 ** 10, r: 8, p: 1 };
