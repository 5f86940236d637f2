/* How a CLI command is declared (shared by the command tables). */
import type { Services } from '../services.js';
import { type OptionSpec, parse } from './args.js';

export interface Command {
  usage: string;
  summary: string;
  /** A line printed under the human-readable output (not with --json). */
  note?: string;
  /** More than the summary, printed by `timetrack <group> <action> --help` (the values an option takes …). */
  details?: string;
  run(args: string[], services: Services): Record<string, unknown> | Promise<Record<string, unknown>>;
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
  ) => Record<string, unknown> | Promise<Record<string, unknown>>,
  note?: string,
  details?: string,
): Command {
  return {
    usage,
    summary,
    ...(note ? { note } : {}),
    ...(details ? { details } : {}),
    run: (args, services) => {
      const { values, positionals: p } = parse(args, options, positionals);
      return body(values, p, services);
    },
  };
}
