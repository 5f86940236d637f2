import type { DatabaseHandle } from '../db/database.js';
import { DomainError } from '../errors.js';
import type { Services } from '../services.js';
import { UsageError } from './args.js';
import { commands } from './commands.js';

export interface CliDeps {
  openDatabase(): DatabaseHandle;
  createServices(database: DatabaseHandle): Services;
  stdout(text: string): void;
  stderr(text: string): void;
}

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function helpText(): string {
  const lines = Object.values(commands).map((c) => `  timetrack ${c.usage}\n      ${c.summary}`);
  return `Usage: timetrack <command> [options] [--json]\n\nCommands:\n${lines.join('\n')}\n\nWith --json a command prints exactly one JSON object on stdout; errors go to stderr with a non-zero exit (1: refused, 2: bad arguments).\n`;
}

/**
 * Runs one CLI command. With --json it prints exactly one JSON object on stdout; every error goes
 * to stderr (as JSON `{error: {code, message}}` with --json) with exit code 1 (refused) or 2 (usage).
 */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const json = argv.includes('--json');
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    deps.stdout(helpText());
    return argv.length === 0 ? EXIT_USAGE : 0;
  }
  const name = `${argv[0]} ${argv[1] ?? ''}`.trim();
  const fail = (code: string, message: string, exit: number, usage?: string) => {
    if (json) deps.stderr(`${JSON.stringify({ error: { code, message } })}\n`);
    else deps.stderr(`timetrack: ${message}\n${usage ? `usage: timetrack ${usage}\n` : ''}`);
    return exit;
  };
  const cmd = commands[name];
  if (!cmd) return fail('usage', `unknown command "${name}"; run timetrack --help for the list`, EXIT_USAGE);

  let database: DatabaseHandle | undefined;
  try {
    database = deps.openDatabase();
    const result = await cmd.run(argv.slice(2), deps.createServices(database));
    if (json) {
      deps.stdout(`${JSON.stringify(result)}\n`);
    } else {
      deps.stdout(humanReadable(result) + (cmd.note ? `\n${cmd.note}\n` : ''));
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail('usage', error.message, EXIT_USAGE, cmd.usage);
    if (error instanceof DomainError) return fail(error.code, error.message, EXIT_FAILED);
    throw error;
  } finally {
    database?.close();
  }
}

function humanReadable(result: Record<string, unknown>): string {
  return Object.entries(result)
    .map(([key, value]) => {
      if (Array.isArray(value)) {
        return value.length === 0 ? `${key}: (none)` : `${key}:\n${value.map((item) => `  ${JSON.stringify(item)}`).join('\n')}`;
      }
      return `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    })
    .join('\n')
    .concat('\n');
}
