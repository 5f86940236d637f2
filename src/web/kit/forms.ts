import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { DateTime } from 'luxon';
import { zoneOffset } from './times.js';
import type { ContractDocument } from '../../contract.js';
import { DomainError } from '../../errors.js';
import { describeValidationErrors } from '../../http/validation-errors.js';

/**
 * The web app's writes are checked against the same contract schemas as the API's request
 * bodies (a 501-character description is refused with the API's own words), then go to the
 * same services. Returns the check: null when the body fits, else the API's message. The
 * schemas are compiled at the first check, not at the server's start (about a third of
 * `startServer`'s CPU when they were: docs/benchmarks.md, issue 60).
 */
export function createBodyCheck(contract: ContractDocument) {
  let ajv: Ajv2020 | undefined;
  return (schema: string, body: Record<string, unknown>): void => {
    ajv ??= contractAjv(contract);
    const validate = ajv.getSchema(`contract#/components/schemas/${schema}`);
    if (!validate) throw new Error(`the contract has no schema ${schema}`);
    if (!validate(body)) {
      const errors = validate.errors ?? [];
      // The first failing property of the body is the field the form shows the message at.
      const path = errors[0]?.instancePath.split('/')[1];
      const missing = (errors[0]?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
      const field = path || (typeof missing === 'string' ? missing : undefined);
      throw new DomainError('invalid', describeValidationErrors(errors), field ? { field } : {});
    }
  };
}

export type BodyCheck = ReturnType<typeof createBodyCheck>;

/**
 * The schemas of a contract's components, compiled once per process and contract text: each
 * server of a process (the tests start hundreds) shares them, as their validators hold no state
 * between calls. Not checked against JSON Schema's meta-schema (`validateSchema: false`): that
 * check was about 75 ms of a start, and the contract is linted by redocly and spectral in `npm test`.
 */
const ajvs = new Map<string, Ajv2020>();
function contractAjv(contract: ContractDocument): Ajv2020 {
  const key = createHash('sha256').update(JSON.stringify(contract.components)).digest('hex');
  let ajv = ajvs.get(key);
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'contract', components: contract.components } as object);
    ajvs.set(key, ajv);
  }
  return ajv;
}

/** A form field as text ('' when absent or not text). */
export const field = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** A form field that may repeat (checkboxes of one name), as a list. */
export const fields = (req: Request, name: string): string[] => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

/** A form's text fields as sent (a refused form shows them again). */
export const sentValues = (req: Request): Record<string, string> =>
  Object.fromEntries(Object.entries((req.body ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;

/** A decimal field (a decimal comma is read too): blank is null, else a number from 0 (the service checks the range). */
export function decimalOf(text: string, what: string, field: string, example = '85 or 92.50, or empty for none'): number | null {
  const value = text.trim().replace(',', '.');
  if (value === '') return null;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new DomainError('invalid', `${what} must be a number such as ${example}.`, { field });
  return Number(value);
}

/** A local date and time typed in a form (`2026-11-23T09:30`, seconds optional) read in the member's zone, as an offset date-time. */
export function instantOf(local: string, zone: string, field: string): string {
  const text = local.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text))
    throw new DomainError('invalid', `${field}: "${local}" is not a date and time such as 2026-11-23T09:30.`, { field });
  const at = DateTime.fromISO(text, { zone });
  if (!at.isValid) throw new DomainError('invalid', `${field}: "${local}" is not a date and time that exists.`, { field });
  return at.toISO({ suppressMilliseconds: true }) as string;
}

/** Seconds as the week shows them: `1:05:09`. */
export function clockOf(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The week holding `date` (a day in the zone, or today), starting on the member's first day:
 * its days as [start, end) instants in the zone (a 23- or 25-hour day is one day).
 */
export function weekOf(date: string | undefined, zone: string, weekStart: 'monday' | 'sunday', now: number) {
  const parsed = date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? DateTime.fromISO(date, { zone }) : null;
  const day = (parsed?.isValid ? parsed : DateTime.fromMillis(now, { zone })).startOf('day');
  const back = weekStart === 'monday' ? day.weekday - 1 : day.weekday % 7;
  const first = day.minus({ days: back });
  const days = Array.from({ length: 7 }, (_, i) => {
    const start = first.plus({ days: i });
    return { key: start.toISODate() as string, start, end: start.plus({ days: 1 }) };
  });
  return { days, start: first, end: first.plus({ days: 7 }) };
}

/**
 * The wall clock of a zone, fast: an instant (ms) as its local date and time to the second. The
 * zone's offset is looked up once per quarter hour of instants (offsets change on those), so a
 * week of 500 entries costs a few lookups instead of a thousand date parses.
 */
export function wallClock(zone: string): (ms: number) => { date: string; time: string } {
  return (ms: number) => {
    const iso = new Date(ms + zoneOffset(zone, ms) * 60_000).toISOString();
    return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
  };
}
