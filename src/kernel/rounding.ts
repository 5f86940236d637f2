import { DomainError } from '../errors.js';
import { words } from '../i18n/index.js';

/*
 * The rounding rule of billed time (issue 56 item 4, decisions 14): none, or up / nearest / down
 * to a step of 1, 3, 5, 6, 10, 15, 30 or 60 minutes, applied to each entry's duration on its own
 * (never to a day's or a line's sum, and never by the clock: an entry from 23:50 to 00:20 is
 * 30 minutes wherever its days fall). Written once: the invoices module rounds its lines by it,
 * the reports module the entries a member asks to see rounded, the catalog checks a client's
 * override with it. Pure.
 */

export const ROUNDING_MODES = ['up', 'nearest', 'down'] as const;
export type RoundingMode = (typeof ROUNDING_MODES)[number];
export const ROUNDING_STEPS = [1, 3, 5, 6, 10, 15, 30, 60] as const;
export type RoundingStep = (typeof ROUNDING_STEPS)[number];

/** A rule as it is stored and typed: `up-15`, `nearest-6`, `down-1`. */
export type RoundingText = `${RoundingMode}-${RoundingStep}`;

export interface RoundingRule {
  mode: RoundingMode;
  minutes: RoundingStep;
}

/** Every rule, in the order the forms list them (by step, then up, nearest, down). */
export const ROUNDING_RULES: readonly RoundingText[] = ROUNDING_STEPS.flatMap((step) =>
  ROUNDING_MODES.map((mode): RoundingText => `${mode}-${step}`),
);

const PATTERN = /^(up|nearest|down)[-\s:]?(\d{1,2})\s*(?:m|min|mins|minutes?)?$/i;

const EXPECTED =
  'none, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes, written as up-15, nearest-6 or down-1 (each entry rounded on its own)';

/**
 * A rule as typed (`up-15`, `Nearest 6`, `down-1min`) in its stored form, or null for `none` or
 * blank; anything else is refused at `field`, saying what to give.
 */
export function parseRounding(value: unknown, field = 'rounding'): RoundingText | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string')
    throw new DomainError('invalid', `${field} must be ${EXPECTED} (got ${JSON.stringify(value)}).`, {
      field,
      people: `Choose no rounding, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes.`,
      words: words('input.refused.rounding'),
    });
  const text = value.trim();
  if (text === '' || text.toLowerCase() === 'none') return null;
  const match = PATTERN.exec(text);
  const mode = match?.[1]?.toLowerCase() as RoundingMode | undefined;
  const minutes = Number(match?.[2]);
  if (mode === undefined || !(ROUNDING_STEPS as readonly number[]).includes(minutes))
    throw new DomainError('invalid', `${field} must be ${EXPECTED} (got ${JSON.stringify(value)}).`, {
      field,
      people: `"${text}" is no rounding rule: choose none, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes.`,
      words: words('input.refused.roundingText', { text }),
    });
  return `${mode}-${minutes as RoundingStep}`;
}

/** The rule of a stored text (null: none). */
export function ruleOf(text: RoundingText | null): RoundingRule | null {
  if (text === null) return null;
  const [mode, minutes] = text.split('-') as [RoundingMode, string];
  return { mode, minutes: Number(minutes) as RoundingStep };
}

/**
 * An entry's seconds under a rule (null: as they are): up to the next whole step (1 s becomes
 * the step; a whole step stays), down to the last (less than a step becomes 0), or to the
 * nearest (exactly half a step goes up: 7:30 becomes 15:00 with a 15-minute step).
 */
export function roundSeconds(seconds: number, rule: RoundingRule | RoundingText | null): number {
  const r = typeof rule === 'string' ? ruleOf(rule) : rule;
  if (r === null) return seconds;
  const step = r.minutes * 60;
  const steps =
    r.mode === 'up' ? Math.ceil(seconds / step) : r.mode === 'down' ? Math.floor(seconds / step) : Math.floor((seconds + step / 2) / step);
  return steps * step;
}

/** A rule in words: `up to 15 minutes`, `to the nearest 6 minutes`, `down to 1 minute`; `none`. */
export function roundingWords(rule: RoundingText | null): string {
  const r = ruleOf(rule);
  if (r === null) return 'none';
  const step = r.minutes === 1 ? '1 minute' : r.minutes === 60 ? '1 hour' : `${r.minutes} minutes`;
  return r.mode === 'nearest' ? `to the nearest ${step}` : `${r.mode} to ${step}`;
}

/** A rule as a form's choice says it: `Up to 15 minutes`, `To the nearest 6 minutes`. */
export function roundingLabel(rule: RoundingText): string {
  const words = roundingWords(rule);
  return `${words.slice(0, 1).toUpperCase()}${words.slice(1)}`;
}

/**
 * Whether every rounded time is a whole hundredth of an hour (36 s): 3, 6, 15, 30 and 60 minutes
 * are, so hours print with two decimals; 1, 5 and 10 minutes are not (5 minutes is 0.083333… h).
 */
export const inHundredths = (rule: RoundingText | null): boolean =>
  rule !== null && ((ruleOf(rule) as RoundingRule).minutes * 60) % 36 === 0;

/** A client's own rule over the workspace's: a rule, `none` (no rounding whatever the workspace's), or null (the workspace's). */
export type ClientRounding = RoundingText | 'none' | null;

/** A client's rule as typed: blank or null is the workspace's, `none` no rounding, else a rule (refused at `field` otherwise). */
export function parseClientRounding(value: unknown, field = 'rounding'): ClientRounding {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    if (value.trim() === '') return null;
    if (value.trim().toLowerCase() === 'none') return 'none';
  }
  return parseRounding(value, field);
}

/** The rule an entry of a client is rounded by: the client's own (`none` included), else the workspace's. */
export const ruleFor = (workspace: RoundingText | null, client: ClientRounding | undefined): RoundingText | null =>
  client === null || client === undefined ? workspace : client === 'none' ? null : client;

/**
 * The SQL of roundSeconds over an integer column of non-negative seconds (SQLite divides integers
 * as integers): the reports round each entry in their one pass over the entries. The same
 * arithmetic as roundSeconds, kept beside it (test/fast/unit/rounding.test.ts runs both).
 */
export function roundedSecondsSql(column: string, rule: RoundingText | null): string {
  const r = ruleOf(rule);
  if (r === null) return column;
  const step = r.minutes * 60;
  const add = r.mode === 'up' ? step - 1 : r.mode === 'down' ? 0 : step / 2;
  return `((${column} + ${add}) / ${step} * ${step})`;
}
