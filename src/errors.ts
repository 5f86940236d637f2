import type { Words } from './i18n/index.js';

/*
 * Domain errors: what a service raises when a request cannot be carried out. Services know
 * nothing of HTTP; src/http/problems.ts is the one place that maps these codes to problem
 * documents.
 */

/** The stable codes of domain errors (the CLI prints them; HTTP maps them to problem types). */
export type DomainErrorCode =
  | 'invalid' // the input breaks a rule the contract cannot express
  | 'not_found' // no such resource, or one the actor may not see
  | 'forbidden' // the actor sees the resource but may not do this to it
  | 'conflict' // the write collides with existing data
  | 'money_visibility_required' // the answer would reveal colleagues' money
  | 'rate_limited'; // the actor asked too often (a test ping): try again later

export class DomainError extends Error {
  override name = 'DomainError';
  /** The input the refusal is about, by its API name (`end`, `hourlyRate`, `email`), when it is about one: pages show it at that field. */
  readonly field: string | undefined;
  /**
   * The same refusal in a person's words, where the message speaks to a program or an operator
   * (an id, a parameter, a command line): what a page shows (src/web/kit/refusal.ts `spoken`).
   * The API and the command line keep `message`.
   */
  readonly people: string | undefined;
  /**
   * The words for people by their key (src/i18n), said in the page reader's language; before
   * `people` where both are given. The API and the command line keep `message`.
   */
  readonly words: Words | undefined;
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    options: { field?: string; people?: string; words?: Words } = {},
  ) {
    super(message);
    this.field = options.field;
    this.people = options.people;
    this.words = options.words;
  }
}

/** A DomainError as data, to cross a thread (an Error does not cross whole): code, message, field and words for people. */
export interface DomainErrorData {
  code: DomainErrorCode;
  message: string;
  field?: string;
  people?: string;
  words?: Words;
}

export const errorData = (error: DomainError): DomainErrorData => ({
  code: error.code,
  message: error.message,
  ...(error.field === undefined ? {} : { field: error.field }),
  ...(error.people === undefined ? {} : { people: error.people }),
  ...(error.words === undefined ? {} : { words: error.words }),
});

/** The DomainError of its data, raised again on the other side of the thread. */
export const errorOf = (data: DomainErrorData): DomainError =>
  new DomainError(data.code, data.message, {
    ...(data.field === undefined ? {} : { field: data.field }),
    ...(data.people === undefined ? {} : { people: data.people }),
    ...(data.words === undefined ? {} : { words: data.words }),
  });

/** A budget is spent (issue 44, M5): `rate_limited` (429), with how long to wait (pages and the API send it as Retry-After). */
export class BudgetSpent extends DomainError {
  override name = 'BudgetSpent';
  constructor(
    message: string,
    readonly retryAfterSec: number,
  ) {
    super('rate_limited', message);
  }
}

/** A refusal of one input, at its field. */
export const invalidAt = (field: string, message: string, people?: string): DomainError =>
  new DomainError('invalid', message, { field, ...(people === undefined ? {} : { people }) });

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} was not found.`);
