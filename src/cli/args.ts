import { type ParseArgsConfig, parseArgs } from 'node:util';
import { dayStart, looksLikeCalendarDay, parseInstant } from '../kernel/time.js';

/** A mistake in how a command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export function parse(args: string[], options: OptionSpec, positionals: number) {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, '.'));
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(
      positionals === 0
        ? `unexpected argument ${JSON.stringify(parsed.positionals[0])}`
        : `expected ${positionals} argument${positionals > 1 ? 's' : ''}, got ${parsed.positionals.length}`,
    );
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
}

export function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string') throw new UsageError(`--${name} is required`);
  return value;
}

/** The member a command names: `--workspace W --user U` (both required, in that order). */
export function memberOf(values: Record<string, string | boolean | undefined>): { workspaceId: string; userId: string } {
  return { workspaceId: required(values, 'workspace'), userId: required(values, 'user') };
}

export function optionalString(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A number option; `none` clears a nullable setting. */
export function optionalNumber(
  values: Record<string, string | boolean | undefined>,
  name: string,
  nullable = false,
): number | null | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  if (nullable && raw === 'none') return null;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) {
    throw new UsageError(`--${name} must be a number${nullable ? ' or none' : ''} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

export function optionalInteger(
  values: Record<string, string | boolean | undefined>,
  name: string,
  nullable = false,
): number | null | undefined {
  const value = optionalNumber(values, name, nullable);
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new UsageError(`--${name} must be a whole number`);
  return value;
}

export function optionalBoolean(values: Record<string, string | boolean | undefined>, name: string): boolean | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new UsageError(`--${name} must be true or false (got ${JSON.stringify(raw)})`);
}

/** An ISO-8601 date-time with Z or an offset, or a calendar day (midnight UTC). */
export function optionalInstant(values: Record<string, string | boolean | undefined>, name: string): number | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
  try {
    if (!iso.test(raw)) throw new Error('not ISO-8601');
    return looksLikeCalendarDay(raw) ? dayStart(raw, `--${name}`) : parseInstant(raw, `--${name}`);
  } catch {
    throw new UsageError(
      `--${name} must be an ISO-8601 date-time such as 2027-01-31T00:00:00Z, or a day such as 2027-01-31 (got ${JSON.stringify(raw)})`,
    );
  }
}
