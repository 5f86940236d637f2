import {
  createdInWords,
  type DateOrder,
  FORMATS,
  type Format,
  type ImportProgress,
  type ImportReport,
  restoredInWords,
} from '../modules/imports/service.js';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { DomainError } from '../errors.js';
import { OPERATOR } from '../principal.js';
import type { Services } from '../services.js';
import { optionalString, required, UsageError } from './args.js';
import { type Command, command, flag, type CommandContext, ReportedFailure, str } from './command.js';

const DATE_FORMATS = ['YMD', 'DMY', 'MDY'] as const;

function formatOf(raw: string | undefined): Format | 'auto' {
  if (raw === undefined || raw === 'auto') return 'auto';
  if (!(FORMATS as readonly string[]).includes(raw))
    throw new UsageError(`--format must be auto, ${FORMATS.join(', ')} (got ${JSON.stringify(raw)})`);
  return raw as Format;
}

function dateFormatOf(raw: string | undefined): DateOrder | undefined {
  if (raw === undefined) return undefined;
  const upper = raw.toUpperCase();
  if (!(DATE_FORMATS as readonly string[]).includes(upper))
    throw new UsageError(`--date-format must be YMD, DMY or MDY (got ${JSON.stringify(raw)})`);
  return upper as DateOrder;
}

/** The progress line on a terminal: rows read, rows/s, elapsed, and what is left, estimated from the bytes read. */
export function progressLine(p: ImportProgress, elapsedMs: number): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rate = Math.round(p.rows / seconds);
  const share = p.totalBytes > 0 ? Math.min(p.bytes / p.totalBytes, 1) : 1;
  // Three passes over the file: reading, checking, writing; the estimate counts the passes left.
  const pass = { reading: 0, checking: 1, writing: 2 }[p.phase];
  const done = (pass + share) / 3;
  const left = done > 0 ? Math.max(0, Math.round((seconds / done) * (1 - done))) : null;
  return `${p.phase} ${p.rows.toLocaleString('en')} rows, ${rate.toLocaleString('en')} rows/s, ${Math.round(seconds)} s elapsed${left === null ? '' : `, about ${left} s left`}`;
}

function progressOf(context: CommandContext): ((p: ImportProgress) => void) | undefined {
  const write = context.progress;
  if (!write) return undefined;
  const started = Date.now();
  return (p) => write(progressLine(p, Date.now() - started));
}

const n = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

/** An import's report as a person reads it: what was (or would be) written, what was refused and where, what to do next. */
export function importReport(result: Record<string, unknown>): string {
  const r = result as unknown as ImportReport;
  const lines: string[] = [];
  const verb = r.dryRun ? 'would import' : 'imported';
  lines.push(
    `${r.format} file, ${n(r.rows, 'row')}: ${verb} ${n(r.imported, 'entry', 'entries')}, ${n(r.duplicates, 'duplicate')} skipped (imported before).`,
  );
  const made = createdInWords(r.created);
  if (made !== '') lines.push(`${r.dryRun || r.importId === null ? 'To create' : 'Created'}: ${made}.`);
  const restored = restoredInWords(r.restored);
  if (restored !== '') lines.push(`${r.dryRun || r.importId === null ? 'To restore' : 'Restored'}: ${restored}.`);
  for (const notice of r.notices ?? []) lines.push(`Note: ${notice}`);
  if (r.unmatchedUsers.length > 0) {
    lines.push('Users of the file who match no member (add them with timetrack member add, or import with --create-members):');
    for (const u of r.unmatchedUsers)
      lines.push(`  ${u.name}${u.email ? ` <${u.email}>` : ''}: ${n(u.rows, 'row')}, first on line ${u.firstLine}`);
  }
  if (r.refused.length > 0) {
    lines.push('Refused rows:');
    for (const row of r.refused) lines.push(row.line > 0 ? `  line ${row.line}: ${row.message}` : `  ${row.message}`);
  }
  if (r.importId) lines.push(`Import ${r.importId}; undo it with: timetrack import undo ${r.importId}`);
  return `${lines.join('\n')}\n`;
}

const withHuman = (human: Command['human'], cmd: Command): Command => ({ ...cmd, human });

/**
 * `export`: a workspace into FILE in the timetrack format, streamed (the chunks are written as
 * the entries are read, a page at a time). Written to FILE.partial and renamed when complete, so
 * FILE is never half an export.
 */
async function exportWorkspace(
  services: Services,
  q: { workspaceId: string; from?: string; to?: string },
  out: string,
  progress?: (line: string) => void,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const run = services.imports.exportWorkspace(OPERATOR, q);
  const partial = `${out}.partial`;
  const file = createWriteStream(partial);
  try {
    // events.once rejects when the stream fails instead (no directory, no room, no permission).
    await once(file, 'open');
    let shown = 0;
    for await (const chunk of run.chunks) {
      if (!file.write(chunk)) await once(file, 'drain');
      if (progress && run.counts.entries - shown >= 50_000) {
        shown = run.counts.entries;
        const seconds = (Date.now() - started) / 1000;
        progress(
          `exported ${shown.toLocaleString('en')} entries, ${Math.round(shown / Math.max(seconds, 0.001)).toLocaleString('en')} rows/s`,
        );
      }
    }
    file.end();
    await once(file, 'finish');
    renameSync(partial, out);
  } catch (error) {
    file.destroy();
    rmSync(partial, { force: true });
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'invalid',
      `Cannot write ${out}: ${(error as Error).message}. Choose a file in a directory that exists and may be written.`,
    );
  }
  return { workspaceId: q.workspaceId, path: out, ...run.counts };
}

/** `import …`: another tracker's export into a workspace (decisions §10). */
export const importCommands: Record<string, Command> = {
  import: withHuman(
    importReport,
    command(
      'import FILE --workspace W [--format auto|toggl|clockify|harvest|kimai|timetrack] [--time-zone ZONE] [--date-format YMD|DMY|MDY] [--user U] [--create-members] [--skip-invalid] [--dry-run] [--webhooks]',
      "Import another tracker's CSV export as completed entries (source import); every row is checked before the first write.",
      {
        workspace: str,
        format: str,
        'time-zone': str,
        'date-format': str,
        user: str,
        'create-members': flag,
        'skip-invalid': flag,
        'dry-run': flag,
        webhooks: flag,
      },
      1,
      async (v, p, s, c) => {
        const outcome = await s.imports.run(OPERATOR, {
          workspaceId: required(v, 'workspace'),
          path: p[0] as string,
          format: formatOf(optionalString(v, 'format')),
          ...(optionalString(v, 'time-zone') ? { timeZone: optionalString(v, 'time-zone') } : {}),
          ...(v['date-format'] ? { dateFormat: dateFormatOf(optionalString(v, 'date-format')) } : {}),
          ...(optionalString(v, 'user') ? { user: optionalString(v, 'user') } : {}),
          createMembers: v['create-members'] === true,
          skipInvalid: v['skip-invalid'] === true,
          dryRun: v['dry-run'] === true,
          webhooks: v.webhooks === true,
          progress: progressOf(c),
        });
        const report = { ...outcome.report };
        if (outcome.stopped) {
          throw new ReportedFailure(
            report,
            `${report.refused.length === 1 ? 'A row was' : 'Rows were'} refused; nothing was imported. Fix the file (each refusal names its line and column), or import the rest with --skip-invalid.`,
          );
        }
        return report;
      },
      undefined,
      [
        'Formats: CSV exports of Toggl Track (detailed report), Clockify (detailed report), Harvest (detailed time report),',
        'Kimai (CSV export), or timetrack (email, start, end, description, client, project, task, tags, billable, hourlyRate).',
        '--time-zone is required for files with local times (all but timetrack). Rows go to members by email, else by exact',
        'name; --user writes every row as one member. A row imported before (same member, times, description, work, tags)',
        'is skipped as a duplicate. Webhook deliveries are sent only with --webhooks. Undo with timetrack import undo ID.',
      ].join('\n'),
    ),
  ),
  export: command(
    'export --workspace W [--from D] [--to D] --out FILE',
    'Write a whole workspace (its catalog and its completed entries) into FILE in the timetrack format, which timetrack import reads back.',
    { workspace: str, from: str, to: str, out: str },
    0,
    (v, _p, s, c) => {
      const from = optionalString(v, 'from');
      const to = optionalString(v, 'to');
      return exportWorkspace(
        s,
        { workspaceId: required(v, 'workspace'), ...(from ? { from } : {}), ...(to ? { to } : {}) },
        required(v, 'out'),
        c.progress,
      );
    },
    undefined,
    [
      "The workspace's name and settings, its members with their roles, visibility and rates, the issuer profile and",
      'invoicing settings, every client, project, task and tag (archived ones too, with their settings), every invoice',
      'and credit note, and every completed entry starting from --from (a day, or an ISO date-time; UTC days) up to the',
      'end of --to, with its member, zone, work, tags, billable flag, rate and invoice. UTF-8 with a BOM, RFC 4180.',
      'timetrack import FILE --workspace W2 --create-members into a new workspace on another server gives all of it',
      'back (docs/importing.md).',
    ].join('\n'),
  ),
  'import list': command('import list --workspace W', "A workspace's imports, newest first.", { workspace: str }, 0, async (v, _p, s) => ({
    imports: await s.imports.list(OPERATOR, required(v, 'workspace')),
  })),
  'import show': command('import show IMPORT_ID', 'One import: who ran it, when, its state and counts.', {}, 1, async (_v, p, s) => ({
    ...(await s.imports.show(OPERATOR, p[0] as string)),
  })),
  'import undo': command(
    'import undo IMPORT_ID',
    'Delete the entries of an import, and the clients, projects, tasks and tags it created that nothing uses any more.',
    {},
    1,
    (_v, p, s) => s.imports.undo(OPERATOR, p[0] as string),
  ),
};
