import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { checkExport, type ExportRequest, exportFormatOf, exportKindOf, writeExport } from '../modules/reports/service.js';
import { sessionView } from '../modules/sessions/views.js';
import { OPERATOR } from '../principal.js';
import { optionalString, required, UsageError } from './args.js';
import { type Command, command, flag, str } from './command.js';

const GROUPINGS = ['project', 'client', 'task', 'tag', 'user'] as const;

function grouping(value: string | undefined, option: string): ExportRequest['groupBy'] | undefined {
  if (value === undefined) return undefined;
  if (!(GROUPINGS as readonly string[]).includes(value))
    throw new UsageError(`--${option} must be one of ${GROUPINGS.join(', ')} (got ${JSON.stringify(value)})`);
  return value as ExportRequest['groupBy'];
}

/** A refusal of the export's own values (format, kind) as a usage error naming them. */
function valueOf<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export const reportCommands: Record<string, Command> = {
  // The Reports page's downloads on the command line (decisions §11): the same export, the
  // operator acting as the member (what they may see, in their zone and with their first day).
  'report export': command(
    'report export --workspace W --user U --kind detailed|summary|weekly --format csv|xlsx|pdf --from YYYY-MM-DD --to YYYY-MM-DD [--group-by G] [--sub-group-by G] [--member U|everyone] [--time-zone Z] [--rounded] --out FILE',
    'Export a report as the member sees it on the Reports page: entries, the summary or the timesheet, as CSV, Excel or PDF. Nothing is written when it is refused.',
    {
      workspace: str,
      user: str,
      kind: str,
      format: str,
      from: str,
      to: str,
      'group-by': str,
      'sub-group-by': str,
      member: str,
      'time-zone': str,
      rounded: flag,
      out: str,
    },
    0,
    async (v, _p, s) => {
      const workspaceId = required(v, 'workspace');
      const userId = required(v, 'user');
      // A missing workspace, account or membership is named.
      s.accounts.getMember(OPERATOR, { workspaceId, userId });
      const member = s.accounts.membership(workspaceId, userId);
      if (!member) throw new UsageError(`${userId} is not a member of ${workspaceId}`);
      const actor = sessionView(member, '').actor;
      const prefs = s.accounts.preferences(userId);
      const whose = optionalString(v, 'member') ?? userId;
      const zone = optionalString(v, 'time-zone') ?? prefs.timeZone;
      const request: ExportRequest = {
        kind: valueOf(() => exportKindOf(required(v, 'kind'))),
        format: valueOf(() => exportFormatOf(required(v, 'format'))),
        from: required(v, 'from'),
        to: required(v, 'to'),
        ...(zone ? { timeZone: zone } : {}),
        weekStart: prefs.weekStart ?? 'monday',
        groupBy: grouping(optionalString(v, 'group-by'), 'group-by') ?? 'project',
        subGroupBy: grouping(optionalString(v, 'sub-group-by'), 'sub-group-by') ?? null,
        ...(whose === 'everyone' ? {} : { userIds: [whose] }),
        // Each entry rounded as invoices round it (its client's rule, else the workspace's), as the page's choice.
        ...(v.rounded === true ? { rounded: true } : {}),
      };
      const out = resolve(required(v, 'out'));
      // Decided before the file is made: a refusal leaves nothing behind.
      const table = s.reports.exportTable(actor, request);
      checkExport(table, request.format);
      // Written beside the target and renamed into place whole: a failure leaves no half a file.
      const partial = join(dirname(out), `.${basename(out)}.${randomBytes(4).toString('hex')}.partial`);
      const file = await open(partial, 'wx', 0o600);
      try {
        const written = await writeExport(table, request.format, {
          cancelled: false,
          async write(chunk) {
            await file.write(chunk);
          },
        });
        await file.sync();
        await file.close();
        await rename(partial, out);
        return { file: out, kind: request.kind, format: request.format, rows: written.rows, bytes: written.bytes };
      } catch (error) {
        await file.close().catch(() => undefined);
        await rm(partial, { force: true });
        throw error;
      }
    },
  ),
};
