/* How a CLI command is declared (shared by the command tables). */
import type { Services } from '../services.js';
import { type OptionSpec, parse } from './args.js';

/** What some commands need beyond their arguments and the services. */
export interface CommandContext {
  /** Where the settings page is (src/links.ts's address + SETTINGS_PATH), or null when it is off. */
  settingsUrl: string | null;
  /** Why that address may be wrong, or null (see src/links.ts). */
  linkWarning: string | null;
  /** A line on stderr beside the result (a JSON object `{warning}` with --json). */
  warn(line: string): void;
  /** The whole of standard input (a password is read from it, never from an argument). */
  readStdin(): Promise<string>;
  /** A progress line on stderr, rewritten in place: only on a terminal and without --json. */
  progress?: (line: string) => void;
}

/**
 * A command that ran and refused (an import stopped by refused rows): its result is printed on
 * stdout as any result, the message on stderr, and the exit code is 1.
 */
export class ReportedFailure extends Error {
  override name = 'ReportedFailure';
  constructor(
    readonly result: Record<string, unknown>,
    message: string,
  ) {
    super(message);
  }
}

export interface Command {
  usage: string;
  summary: string;
  /** A line printed under the human-readable output (not with --json). */
  note?: string;
  /** More than the summary, printed by `timetrack <group> <action> --help` (the values an option takes …). */
  details?: string;
  /** The result as a person reads it (without --json), when the generic `key: value` lines do not serve. */
  human?: (result: Record<string, unknown>) => string;
  run(args: string[], services: Services, context: CommandContext): Record<string, unknown> | Promise<Record<string, unknown>>;
}

export const str = { type: 'string' } as const;
export const flag = { type: 'boolean' } as const;

export function command(
  usage: string,
  summary: string,
  options: OptionSpec,
  positionals: number,
  body: (
    v: Record<string, string | boolean | undefined>,
    p: string[],
    s: Services,
    c: CommandContext,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>,
  note?: string,
  details?: string,
): Command {
  return {
    usage,
    summary,
    ...(note ? { note } : {}),
    ...(details ? { details } : {}),
    run: (args, services, context) => {
      const { values, positionals: p } = parse(args, options, positionals);
      return body(values, p, services, context);
    },
  };
}
