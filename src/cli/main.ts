import type { DatabaseHandle } from '../db/database.js';
import { DomainError } from '../errors.js';
import { stripUnsafe } from '../kernel/input.js';
import type { Services } from '../services.js';
import { UsageError } from './args.js';
import { type Command, commands, ReportedFailure } from './commands.js';
import { type MaintenanceCommand, maintenanceCommands } from './maintenance-commands.js';

export interface CliDeps {
  openDatabase(): DatabaseHandle;
  /** DATABASE_PATH as in effect, for `restore` (which must not open the database it replaces). */
  databasePath?: string;
  createServices(database: DatabaseHandle): Services;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where links point + SETTINGS_PATH (`user invite` prints a link into it; src/links.ts); null when the page is off. */
  settingsUrl?: string | null;
  /** Why that address may be wrong (neither BASE_URL nor a recorded address), printed beside a link. */
  linkWarning?: string | null;
  /** Standard input, whole (`user password` reads the password from it). */
  readStdin?: () => Promise<string>;
  /** Whether stderr is a terminal (an import draws its progress line there). */
  stderrIsTty?: boolean;
}

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';
const listed = (c: Pick<Command, 'usage' | 'summary'>) => `  timetrack ${c.usage}\n      ${c.summary}`;

function helpText(): string {
  const lines = [...Object.values(commands), ...Object.values(maintenanceCommands)].map(listed);
  return `Usage: timetrack <command> [options] [--json]\n\nCommands:\n${lines.join('\n')}\n\nWith --json a command prints exactly one JSON object on stdout; errors go to stderr with a non-zero exit (1: refused, 2: bad arguments).\nRun timetrack <command> --help for more on one command, timetrack <group> --help for a group (workspace, user, member …).\n`;
}

/** `timetrack <group> <action> --help` (text, like `timetrack --help`): the usage, the summary and the details. */
function commandHelp(cmd: Pick<Command, 'usage' | 'summary' | 'details'>): string {
  return `Usage: timetrack ${cmd.usage} [--json]\n\n${cmd.summary}\n${cmd.details ? `\n${cmd.details}\n` : ''}`;
}

/** The commands of a group (`workspace`, `webhook` …), by their full name. */
const groupOf = (group: string) => Object.entries(commands).filter(([name]) => name === group || name.startsWith(`${group} `));

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
  // `<group> <action>`, or a command of one word with its arguments (`import FILE`).
  const pair = `${argv[0]} ${argv[1] ?? ''}`.trim();
  const single = !commands[pair] && commands[argv[0] as string] && !isHelp(argv[1]) ? (argv[0] as string) : null;
  const name = single ?? pair;
  const rest = argv.slice(single ? 1 : 2);
  const fail = (code: string, message: string, exit: number, usage?: string) => {
    if (json) deps.stderr(`${JSON.stringify({ error: { code, message } })}\n`);
    else deps.stderr(`timetrack: ${forTerminal(message)}\n${usage ? `usage: timetrack ${usage}\n` : ''}`);
    return exit;
  };
  const maintenance = maintenanceCommands[argv[0] as string];
  if (maintenance) return runMaintenance(maintenance, argv.slice(1), deps, json, fail);
  const cmd = commands[name];
  const group = groupOf(argv[0] as string);
  if (!cmd && isHelp(argv[1]) && group.length > 0) {
    deps.stdout(`${group.map(([, c]) => listed(c)).join('\n')}\n`);
    return 0;
  }
  if (!cmd) {
    const known = group.length > 0 ? `; the ${argv[0]} commands are ${group.map(([n]) => n).join(', ')}` : '';
    return fail('usage', `unknown command "${name}"${known}; run timetrack --help for the list`, EXIT_USAGE);
  }
  if (rest.some(isHelp)) {
    deps.stdout(commandHelp(cmd));
    return 0;
  }

  let database: DatabaseHandle | undefined;
  try {
    database = deps.openDatabase();
    let drawn = false;
    const result = await Promise.resolve(
      cmd.run(rest, deps.createServices(database), {
        settingsUrl: deps.settingsUrl === undefined ? 'http://localhost:8080/settings' : deps.settingsUrl,
        linkWarning: deps.linkWarning ?? null,
        warn: (line: string) => deps.stderr(json ? `${JSON.stringify({ warning: line })}\n` : `timetrack: warning: ${line}\n`),
        readStdin: deps.readStdin ?? (() => Promise.resolve('')),
        ...(deps.stderrIsTty && !json
          ? {
              progress: (line: string) => {
                drawn = true;
                deps.stderr(`\r\x1b[2K${line}`);
              },
            }
          : {}),
      }),
    ).finally(() => drawn && deps.stderr('\n'));
    if (json) {
      deps.stdout(`${JSON.stringify(result)}\n`);
    } else {
      deps.stdout(forTerminal((cmd.human ?? humanReadable)(result)) + (cmd.note ? `\n${cmd.note}\n` : ''));
    }
    return 0;
  } catch (error) {
    if (error instanceof ReportedFailure) {
      deps.stdout(json ? `${JSON.stringify(error.result)}\n` : forTerminal((cmd.human ?? humanReadable)(error.result)));
      return fail('refused', error.message, EXIT_FAILED);
    }
    if (error instanceof UsageError) return fail('usage', error.message, EXIT_USAGE, cmd.usage);
    if (error instanceof DomainError) return fail(error.code, error.message, EXIT_FAILED);
    throw error;
  } finally {
    database?.close();
  }
}

/** `backup` and `restore`: on the database file, without the services (restore must not open what it replaces). */
function runMaintenance(
  cmd: MaintenanceCommand,
  args: string[],
  deps: CliDeps,
  json: boolean,
  fail: (code: string, message: string, exit: number, usage?: string) => number,
): number {
  if (args.some(isHelp)) {
    deps.stdout(commandHelp(cmd));
    return 0;
  }
  try {
    const result = cmd.run(args, { databasePath: deps.databasePath, openDatabase: deps.openDatabase, now: new Date() });
    deps.stdout(json ? `${JSON.stringify(result)}\n` : forTerminal(humanReadable(result)));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail('usage', error.message, EXIT_USAGE, cmd.usage);
    if (error instanceof DomainError) return fail(error.code, error.message, EXIT_FAILED);
    throw error;
  }
}

/**
 * Output for a person's terminal: without control characters (but its line breaks) or
 * bidirectional controls, which a file name, a name or a cell of an imported file may carry and
 * a terminal would run as escape sequences (`\x1b]0;…` retitles it, `\x1b[2J` clears it).
 * With --json they stay escaped by JSON itself, except the bidirectional ones a program reads as text.
 */
const forTerminal = (text: string): string => stripUnsafe(text, '\n');

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
