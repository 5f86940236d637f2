import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Clock } from '../../clock.js';
import { newId, newTimeId } from '../../ids.js';
import { DomainError } from '../../errors.js';
import { type Key, type Vars, type Words, words } from '../../i18n/index.js';
import { stripUnsafe } from '../../kernel/input.js';
import { type CatalogImports, nameKey, type ProjectRow, type TaskRow } from '../catalog/service.js';
import type { EntryImports, ImportContext } from '../entries/service.js';
import type { ExportedInvoice, InvoiceTransfer } from '../invoices/service.js';
import type { ApprovalRecord, ApprovalTransfer, PeriodRecord } from '../approvals/service.js';
import { assembleReceipt, type ExpenseRecord, type ExpenseTransfer, type ReceiptPartRecord, receiptCheck } from '../expenses/service.js';
import type { DomainWrite, EventActor } from '../events/service.js';
import type { ExportedWorkspaceSettings } from '../accounts/service.js';
import type { ExportDeps } from './export.js';
import { csvRecords } from './csv.js';
import { type DateOrder, needsOrder, orderEvidence, ZoneClock } from './dates.js';
import { importErrors } from './errors.js';
import {
  detectFormat,
  FORMAT_NAMES,
  type Format,
  type Header,
  readHeader,
  rowReader,
  SPECS,
  type SourceRow,
  unreadableMoneyColumn,
} from './formats.js';
import type { CreatedKind, ImportsRepository } from './repository.js';
import {
  type CheckedRow,
  createRowChecker,
  fingerprintOf,
  MEMBER_FLAGS,
  type RestoreKind,
  type RestoreRecord,
  RowRefusal,
  type RowWork,
  userKeyOf,
} from './rows.js';

/** What an import is asked to do (the command's flags, the page's form). */
export interface ImportRequest {
  workspaceId: string;
  /** The file on disk (the page stores an upload first). */
  path: string;
  /** The name shown in the import record (the path's base name by default). */
  fileName?: string;
  format?: Format | 'auto';
  timeZone?: string;
  dateFormat?: DateOrder;
  /** A member's id or email: every row is theirs (the file's user columns are ignored). */
  user?: string;
  createMembers?: boolean;
  skipInvalid?: boolean;
  dryRun?: boolean;
  webhooks?: boolean;
  /** Called every few thousand rows and at each phase's end. */
  progress?: (progress: ImportProgress) => void;
  /** Whose words the refused rows are in: the command line's (the default), or the Import page's. */
  wording?: 'command line' | 'page';
}

export interface ImportProgress {
  phase: 'reading' | 'checking' | 'writing';
  rows: number;
  bytes: number;
  totalBytes: number;
}

export interface Refused {
  line: number;
  /** Why, in English: the command line's, the API's and the export's words. */
  message: string;
  /** The same reason's words for people by key, on a run for the Import page (`wording: 'page'`), where it has them. */
  words?: Words;
}

/** A row as it will be stored (the dry run's preview). */
export interface PreviewRow extends RowWork {
  member: string;
  start: string;
  end: string;
  /** Where the rate comes from: the file's rate, the file's amount, or (null rate) the task's, project's, member's or workspace's; `none`: the file says none. */
  rateFrom: 'rate' | 'amount' | 'resolved' | 'none';
}

/** What an import did, or would do (a dry run); the shape of `import --json`. */
export interface ImportReport {
  importId: string | null;
  format: Format;
  dryRun: boolean;
  rows: number;
  imported: number;
  duplicates: number;
  refused: Refused[];
  created: { clients: number; projects: number; tasks: number; tags: number; users: number };
  unmatchedUsers: Array<{ name: string; email: string; rows: number; firstLine: number }>;
  /** What the import did differently from the file, in words (a member's rates not taken, a currency assumed). */
  notices: string[];
  /** The same notices' words for people by key, in step with `notices`, on a run for the Import page (`wording: 'page'`). */
  noticeWords?: Words[];
  /** What it restored (a dry run: would restore) of a workspace's export beyond its catalog and entries (decisions 11a). */
  restored: RestoredCounts;
}

/** The workspace records an import restored: the issuer profile, the invoicing settings, rates (the workspace's and members'), invoices. */
export interface RestoredCounts {
  profile: number;
  invoicing: number;
  rates: number;
  invoices: number;
  /** The workspace's name and settings (1: restored into a workspace that held nothing yet; issue 56 item 6). */
  workspace: number;
  /** Members the import made who got the file's owner role and visibility. */
  members: number;
}
const noneRestored = (): RestoredCounts => ({ profile: 0, invoicing: 0, rates: 0, invoices: 0, workspace: 0, members: 0 });

/** The report, and whether it wrote (false: refused rows stopped it, or a dry run). */
export interface ImportOutcome {
  report: ImportReport;
  /** True when refused rows stopped it (nothing was written). */
  stopped: boolean;
  /** The rows a run with --skip-invalid would write (new, not refused). */
  importable: number;
  /**
   * Whether an import of the file (with --skip-invalid when rows are refused) would write anything:
   * entries, members, catalog rows to create, or workspace records to restore (issue 54 I3: a file
   * of only a workspace's profile, settings and invoices is imported too).
   */
  writes: boolean;
  preview: PreviewRow[];
}

/** Who runs an import, as the service decided. */
export interface ImportBy {
  actor: EventActor;
  actorUserId: string | null;
  /** Whether the file's rates are taken: an owner's or the operator's import; a member's own history takes the usual resolution. */
  fileRates: boolean;
  /**
   * Whether `--create-members` may make a member of an account that already holds a file user's
   * email: the operator's import only. An owner's never does (decisions 8a): whoever holds an
   * address joins only through an invitation they accept, so those users stay unmatched.
   */
  attachAccounts: boolean;
}

/** The refused rows listed at most (the rest are counted in one last line). */
const REFUSED_LISTED = 1000;
/** Rows read ahead of the writes, at least (the writes take them in transactions of their budget). */
export const IMPORT_BATCH = 500;
/**
 * How long one write of an import holds the database's write lock, at most (plus one row), while
 * a server runs on the database: its writes wait no longer than this for their turn.
 */
export const IMPORT_SHARED_WRITE_MS = 20;
/**
 * The same with no server on the database (the command line, before the team starts): a longer
 * write shares each commit's page writes among more rows (measured at 100,000 rows: 20 ms 28.2 s,
 * 100 ms 23.9 s, 250 ms 21.4 s, 1 s 18.8 s); another command's write waits at most this.
 */
export const IMPORT_ALONE_WRITE_MS = 500;
/** The page cache of the importing connection while it writes (64 MiB). */
const IMPORT_CACHE_KIB = 64 * 1024;
/** WAL pages between the importing connection's checkpoints (40 MiB): a page rewritten by many batches is copied back once. */
const IMPORT_CHECKPOINT_PAGES = 10_000;
const PREVIEW_ROWS = 10;
/** Rows whose fingerprints one statement looks up (the check's duplicates). */
const LOOKUP_BATCH = 500;

export interface EngineDeps {
  repo: ImportsRepository;
  write: DomainWrite;
  clock: Clock;
  entries: EntryImports;
  catalog: CatalogImports;
  accounts: {
    memberDirectory(workspaceId: string): Array<{ userId: string; name: string; email: string }>;
    joinImported(workspaceId: string, input: { name: string; email: string }): string;
    /** Whether an account already holds the email (never told to anyone: it only keeps an owner's import from attaching it). */
    emailHeld(email: string): boolean;
    currency(workspaceId: string): string;
    /** Names and emails of accounts by id (an export's authors, members or not). */
    userContacts(ids: string[]): Array<{ id: string; name: string; email: string }>;
    /** Throws not_found for a workspace that does not exist. */
    requireWorkspace(id: string): void;
    /** The workspace's rate and settings, its members' rates and flags (a workspace's export). */
    exportRates: ExportDeps['rates'];
    /** The workspace's own name and settings (compared with a file's). */
    workspaceSettings(workspaceId: string): ExportedWorkspaceSettings | null;
    /** Inside the import's write: the workspace's (userId null) or a member's rate from the file, where none is set. */
    restoreRate(workspaceId: string, userId: string | null, rate: number): boolean;
    /** Inside the import's write: the file's workspace name and settings, into a workspace that held nothing; the names of those set. */
    restoreWorkspace(workspaceId: string, settings: Partial<ExportedWorkspaceSettings>, operator: boolean): string[];
    /** Inside the import's write: a member's flags from the file, for a member the same import made. */
    restoreMemberFlags(
      workspaceId: string,
      userId: string,
      flags: { isOwner: boolean; canViewOthersTime: boolean; canViewOthersMoney: boolean },
    ): boolean;
  };
  /** The invoicing part of a workspace (decisions 11a): the issuer profile, the settings, the invoices, as records. */
  invoices: InvoiceTransfer;
  /** Approval and lock (decisions §13): the settings and the periods with their audit, as records; absent: none. */
  approvals?: ApprovalTransfer;
  /** Expenses with their receipts (issue 57), as records; absent: none. */
  expenses?: ExpenseTransfer;
  /** The next write's budget in ms (default IMPORT_SHARED_WRITE_MS), asked before each write. */
  writeMs?: () => number;
  /** Whether the process of a running import is alive (stale records are cleaned up). */
  alive?: (pid: number) => boolean;
  pid?: number;
}

interface FileUser {
  name: string;
  email: string;
  rows: number;
  firstLine: number;
}

/** Pass 1's findings: the format, the users, the date order evidence, the currency. */
interface Scan {
  header: Header;
  format: Format;
  rows: number;
  users: Map<string, FileUser>;
  order: DateOrder | null;
  currency: string | null;
}

/**
 * The import engine: three streaming passes over the file, so a million rows never sit in memory.
 * 1. scan: the header and format, the file's users, the evidence of its date order, its currency;
 * 2. check: every row read and checked, members matched, duplicates counted (nothing written);
 * 3. write: the rows again, in short batches through the one write path, each with its
 *    fingerprint, the catalog found or created, its sync event (and webhooks when asked).
 * A failure in pass 3 deletes what was written and records the import `failed`.
 */
export function createImportEngine(deps: EngineDeps) {
  return {
    /** `started` is told the import's id once its record is written (before the first row). */
    run: (request: ImportRequest, by: ImportBy, started?: (id: string) => void) => run(deps, request, by, started),
    cleanUp: (ctx: ImportContext) => cleanUp(deps, ctx),
    /**
     * An undo's check, in one write: the entries of invoices the import restored go with those
     * invoices (its cleanUp deletes them), so they are released; an entry on an invoice made
     * since refuses the undo, naming it (and the release is rolled back).
     */
    checkUndo(importId: string, workspaceId: string): void {
      const created = deps.repo.created(importId);
      const restored = new Set(created.filter((c) => c.kind === 'invoice').map((c) => c.id));
      // Its numbers go with its invoices: refused once a number was given after them (a restored
      // draft issued or voided, or the series gone on), as the next document would get it again.
      // Numbered invoices were restored only into an empty register: any other number came after.
      if (restored.size > 0) {
        const numbers = new Set(created.filter((c) => c.kind === 'number').map((c) => c.id));
        const since = deps.invoices
          .numbersOf(workspaceId)
          .filter((n) => !numbers.has(n.number) && (numbers.size > 0 || restored.has(n.invoiceId)))
          .map((n) => n.number);
        if (since.length > 0) throw importErrors.numberedSince(importId, since);
      }
      deps.write(() => {
        // The approval records it restored go with it (they hold its own entries); then approved or waiting time, or
        // time before the lock date, is deleted by nobody (decisions §13): refused, and all this rolled back.
        const periods = created.filter((c) => c.kind === 'period').map((c) => c.id);
        const settings = created.some((c) => c.kind === 'approval');
        if (periods.length > 0 || settings) deps.approvals?.deleteRestored(workspaceId, periods, settings);
        const locked = deps.entries.lockedOfImport(workspaceId, importId);
        if (locked) throw importErrors.locked(importId, locked);
        for (const invoiceId of restored) deps.entries.releaseInvoice(invoiceId);
        const invoiced = deps.entries.invoiced(importId);
        if (invoiced.length > 0) throw importErrors.invoiced(importId, invoiced);
      });
    },
  };
}

/**
 * Reads the file once: the header and format, the file's users, the evidence of its date order,
 * its currency (pass 1), and, when `checking` is given, every row checked as it is read (pass 2
 * in the same reading). Checking stops at the first day written day-or-month first when no order
 * is known yet: the order is decided over the whole file, so those rows need a second reading.
 */
async function readFile(
  request: ImportRequest,
  progress: (phase: ImportProgress['phase'], rows: number, bytes: number) => void,
  checking: ((found: Pick<Scan, 'header' | 'format' | 'users'>) => CheckPass) | null,
  /** The workspace's currency (a refusal of a money column names it). */
  currencyOfWorkspace = 'EUR',
): Promise<{ found: Scan; checked: CheckResult | null }> {
  let head: { header: Header; format: Format; reader: ReturnType<typeof rowReader>; pass: CheckPass | null } | null = null;
  let rows = 0;
  let bytes = 0;
  const users = new Map<string, FileUser>();
  let dmyLine = 0;
  let mdyLine = 0;
  let undecided: { line: number; cell: string } | null = null;
  let currency: string | null = null;
  for await (const record of csvRecords(request.path, (n) => (bytes += n))) {
    if (!head) {
      const header = readHeader(record.cells);
      const format = detectFormat(header, request.format ?? 'auto');
      // A money column whose heading cannot be read is refused at the header, before any row.
      const unreadable = unreadableMoneyColumn(format, header);
      if (unreadable)
        throw importErrors.moneyColumn(unreadable.cell, unreadable.column, unreadable.field, FORMAT_NAMES[format], currencyOfWorkspace);
      currency = header.currency;
      head = { header, format, reader: rowReader(format, header), pass: checking?.({ header, format, users }) ?? null };
      continue;
    }
    rows++;
    if (rows % 20000 === 0) progress(head.pass ? 'checking' : 'reading', rows, bytes);
    const row = head.reader.read(record.cells);
    for (const cell of [row.startDate, row.endDate]) {
      if (cell === '') continue;
      const evidence = orderEvidence(cell);
      if (evidence === 'DMY' && dmyLine === 0) dmyLine = record.line;
      else if (evidence === 'MDY' && mdyLine === 0) mdyLine = record.line;
      else if (evidence === null && undecided === null && needsOrder(cell)) undecided = { line: record.line, cell };
      if (head.pass && !request.dateFormat && needsOrder(cell)) head.pass = null;
    }
    if (head.format === 'harvest' && row.currency !== '' && currency === null) currency = row.currency.slice(-3).toUpperCase();
    const key = request.user ? '' : userKeyOf(row);
    if (key !== '') {
      const user = users.get(key);
      if (user) user.rows++;
      else users.set(key, { name: row.name, email: row.email, rows: 1, firstLine: record.line });
    }
    const width = head.header.keys.length;
    head.pass?.row(record.line, record.cells.length < width ? shortRow(record.cells.length, width) : row);
  }
  if (!head) throw importErrors.empty();
  if (rows === 0) throw importErrors.headerOnly();
  progress(head.pass ? 'checking' : 'reading', rows, bytes);
  let order: DateOrder | null = request.dateFormat ?? null;
  if (!order) {
    if (dmyLine && mdyLine) throw importErrors.dateOrderMixed(dmyLine, mdyLine);
    order = dmyLine ? 'DMY' : mdyLine ? 'MDY' : null;
    if (!order && undecided) throw importErrors.dateOrderUnknown(undecided.line, undecided.cell);
  }
  const found = { header: head.header, format: head.format, rows, users, order, currency } satisfies Scan;
  return { found, checked: head.pass?.result() ?? null };
}

/** The member a user of the file is: by email (case-insensitive), else by exact full name when one member has it; null when none. */
function userMatcher(deps: EngineDeps, workspaceId: string) {
  const directory = deps.accounts.memberDirectory(workspaceId);
  const byEmail = new Map(directory.map((m) => [m.email.toLowerCase(), m.userId]));
  const byName = new Map<string, string | null>();
  for (const m of directory) byName.set(m.name, byName.has(m.name) ? null : m.userId);
  const known = new Map<string, string | null>();
  return (key: string, user: FileUser | undefined): string | null => {
    let id = known.get(key);
    if (id === undefined) {
      id = (user?.email ? byEmail.get(user.email.toLowerCase()) : undefined) ?? (user?.name ? byName.get(user.name) : undefined) ?? null;
      known.set(key, id);
    }
    return id;
  };
}

function fixedUser(deps: EngineDeps, workspaceId: string, user: string): { userId: string; name: string } {
  const directory = deps.accounts.memberDirectory(workspaceId);
  const found = directory.find((m) => m.userId === user || m.email.toLowerCase() === user.toLowerCase());
  if (!found) throw importErrors.notMember(user, workspaceId);
  return found;
}

/** Who an import writes for and how its events go out. */
const contextOf = (request: ImportRequest, importId: string, by: ImportBy, currency: string): ImportContext => ({
  workspaceId: request.workspaceId,
  importId,
  actor: by.actor,
  webhooks: request.webhooks === true,
  currency,
});

async function run(deps: EngineDeps, request: ImportRequest, by: ImportBy, started?: (id: string) => void): Promise<ImportOutcome> {
  const { repo, write, clock } = deps;
  const totalBytes = statSync(request.path).size;
  const progress = (phase: ImportProgress['phase'], rows: number, bytes: number) => request.progress?.({ phase, rows, bytes, totalBytes });
  const workspaceCurrency = deps.accounts.currency(request.workspaceId);
  const fixed = request.user ? fixedUser(deps, request.workspaceId, request.user) : null;
  const author = fixed?.userId ?? null;
  const money = { rates: by.fileRates, currency: workspaceCurrency };

  // Who the rows belong to: each user of the file matched when first met.
  const match = userMatcher(deps, request.workspaceId);
  const matched = new Map<string, string>();
  const memberOf = (key: string, users: Map<string, FileUser>): string | null => {
    const id = matched.get(key) ?? match(key, users.get(key));
    if (id !== null) matched.set(key, id);
    return id;
  };
  // Addresses an account holds stay unmatched in an owner's import: they join by invitation only (decisions 8a).
  const held = new Set<string>();
  const willCreate = (user: FileUser | undefined) => {
    if (request.createMembers !== true || user === undefined || user.email === '') return false;
    if (by.attachAccounts || !deps.accounts.emailHeld(user.email)) return true;
    held.add(user.email.toLowerCase());
    return false;
  };
  // A checker per pass: Harvest's rows carry state (where a member's day has got to).
  const checkPass = (order: DateOrder | null) => (file: Pick<Scan, 'format' | 'users'>) =>
    createCheckPass(deps, request, file.format, {
      check: createRowChecker(file.format, { order, zone: zoneFor(file.format, request), fixedUser: author !== null, ...money }),
      unmatched: (key) => author === null && memberOf(key, file.users) === null && !willCreate(file.users.get(key)),
      willJoin: (key) => author === null && memberOf(key, file.users) === null && willCreate(file.users.get(key)),
      authorOf: (row) => author ?? matched.get(row.userKey) ?? null,
      user: (key) => file.users.get(key),
      fixedName: fixed?.name ?? null,
      restores: { fileRates: by.fileRates, fixed: author !== null },
    });

  // Passes 1 and 2: what the file is, and every row checked before the first write; in one
  // reading when no day needs the file's date order decided first.
  const reading = await withCache(repo, () => readFile(request, progress, checkPass(request.dateFormat ?? null), workspaceCurrency));
  const { found } = reading;
  const { format } = found;
  if (found.currency && found.currency !== workspaceCurrency) throw importErrors.currency(found.currency, workspaceCurrency);
  const toCreate = new Map<string, FileUser>();
  const unmatchedUsers: ImportReport['unmatchedUsers'] = [];
  for (const [key, user] of author ? [] : found.users) {
    if (memberOf(key, found.users) !== null) continue;
    if (willCreate(user)) toCreate.set(user.email.toLowerCase(), user);
    else unmatchedUsers.push({ name: user.name, email: user.email, rows: user.rows, firstLine: user.firstLine });
  }
  const { refused, refusedCount, duplicates, fresh, preview, names, moneyRows, ratesIgnored, restoring, refusedRestores } =
    reading.checked ?? (await withCache(repo, () => checkAll(request, found, progress, checkPass(found.order)(found))));
  const check = () =>
    createRowChecker(format, { order: found.order, zone: zoneFor(format, request), fixedUser: author !== null, ...money });
  // What the check decided of the workspace records: the lines refused, whether the workspace takes the file's settings.
  const restores = { refused: refusedRestores, settings: restoring.counts.workspace > 0 };
  const authorOf = (row: CheckedRow): string | null => author ?? matched.get(row.userKey) ?? null;
  const report: ImportReport = {
    importId: null,
    format,
    dryRun: request.dryRun === true,
    rows: found.rows,
    imported: 0,
    duplicates,
    refused,
    created: {
      clients: names.clients.size,
      projects: names.projects.size,
      tasks: names.tasks.size,
      tags: names.tags.size,
      users: toCreate.size,
    },
    unmatchedUsers,
    ...noticesFor(request, { format, currency: found.currency, workspaceCurrency, moneyRows, ratesIgnored, invite: held.size, restoring }),
    restored: restoring.counts,
  };
  const stopped = refusedCount > 0 && request.skipInvalid !== true;
  // Anything to write: the same test as the writes' own (below) for "nothing new".
  const writes =
    fresh > 0 || toCreate.size > 0 || [...Object.values(report.created), ...Object.values(restoring.counts)].some((n) => n > 0);
  if (stopped || request.dryRun) {
    return { report: { ...report, imported: stopped ? 0 : fresh }, stopped, importable: fresh, writes, preview };
  }

  // Pass 3: the writes.
  const importId = newId('imp');
  const now = clock.now();
  write(() =>
    repo.insert({
      id: importId,
      workspaceId: request.workspaceId,
      format,
      fileName: stripUnsafe(request.fileName ?? basename(request.path)).slice(0, 200) || 'import.csv',
      actorUserId: by.actorUserId,
      state: 'running',
      webhooks: request.webhooks === true,
      rows: found.rows,
      refused: refusedCount,
      pid: deps.pid ?? process.pid,
      heartbeatAt: now,
      startedAt: now,
    }),
  );
  started?.(importId);
  const ctx = contextOf(request, importId, by, workspaceCurrency);
  try {
    // Nothing new (the same file again): the check has counted the duplicates; the rows need no third read.
    const counts = !writes
      ? { imported: 0, duplicates, created: report.created, restored: noneRestored() }
      : await tuned(repo, () => writeRows(deps, { request, found, ctx, check, authorOf, toCreate, matched, progress, by, restores }));
    write(() =>
      repo.update(importId, {
        state: 'done',
        imported: counts.imported,
        duplicates: counts.duplicates,
        finishedAt: clock.now(),
        heartbeatAt: clock.now(),
      }),
    );
    return {
      report: { ...report, importId, ...counts },
      stopped: false,
      importable: counts.imported,
      writes,
      preview,
    };
  } catch (error) {
    await cleanUp(deps, ctx);
    write(() => repo.update(importId, { state: 'failed', failure: (error as Error).message, finishedAt: clock.now() }));
    throw error;
  }
}

interface CheckResult {
  /** Rows with a rate from the file (taken or not), and those whose rate was not taken (a member's import). */
  moneyRows: number;
  ratesIgnored: number;
  /** The workspace records the import would restore, those it leaves (a member's import), and fields it does not know. */
  restoring: {
    counts: RestoredCounts;
    ignored: Record<RestoreKind, number>;
    kept: { profile: number; invoicing: number; workspace: number };
    unknown: string[];
    /** What the file's exporter could not read, so the export left it out (its `withheld` head: issue 54 N7). */
    withheld: string[];
  };
  refused: Refused[];
  refusedCount: number;
  duplicates: number;
  fresh: number;
  preview: PreviewRow[];
  names: NewNames;
  /** The lines of workspace records refused (an invoice that breaks a rule of an issued one): the writes leave them out. */
  refusedRestores: Set<number>;
}

/** Pass 2, row by row: each row checked, duplicates counted, what the catalog lacks named; nothing written. */
interface CheckPass {
  row(line: number, source: SourceRow | RowRefusal): void;
  result(): CheckResult;
}

/** Pass 2 as a reading of its own (the file's date order decided by pass 1). */
async function checkAll(
  request: ImportRequest,
  found: Scan,
  progress: (phase: ImportProgress['phase'], rows: number, bytes: number) => void,
  pass: CheckPass,
): Promise<CheckResult> {
  await eachRow(request, found, progress, 'checking', (line, source) => pass.row(line, source));
  return pass.result();
}

function createCheckPass(
  deps: EngineDeps,
  request: ImportRequest,
  format: Format,
  a: {
    check: ReturnType<typeof createRowChecker>;
    /** Whether a user of the file is no member and will not be made one (their rows are refused). */
    unmatched: (key: string) => boolean;
    /** Whether a user of the file is no member and the import will make them one (--create-members). */
    willJoin: (key: string) => boolean;
    authorOf: (row: CheckedRow) => string | null;
    user: (key: string) => FileUser | undefined;
    /** The member of --user (every row is theirs). */
    fixedName: string | null;
    /** Whether the workspace records are taken (an owner's or the operator's import), and whether every row is --user's. */
    restores: { fileRates: boolean; fixed: boolean };
  },
): CheckPass {
  const { repo } = deps;
  const refused: Refused[] = [];
  let refusedCount = 0;
  let duplicates = 0;
  let fresh = 0;
  let moneyRows = 0;
  let ratesIgnored = 0;
  const seen = new Set<number>();
  const preview: PreviewRow[] = [];
  const names: NewNames = { clients: new Set(), projects: new Set(), tasks: new Set(), tags: new Set(), known: new Map() };
  const refuse = (line: number, message: string, said?: Words) => {
    refusedCount++;
    if (refused.length < REFUSED_LISTED)
      refused.push(said !== undefined && request.wording === 'page' ? { line, message, words: said } : { line, message });
  };
  const restoring = {
    counts: noneRestored(),
    ignored: {
      profile: 0,
      invoicing: 0,
      workspace: 0,
      member: 0,
      invoice: 0,
      withheld: 0,
      approval: 0,
      period: 0,
      expense: 0,
      receipt: 0,
    } as Record<RestoreKind, number>,
    kept: { profile: 0, invoicing: 0, workspace: 0 },
    unknown: new Set<string>(),
    withheld: new Set<string>(),
  };
  /** The lines of workspace records the check refused (with --skip-invalid the writes leave them out). */
  const refusedRestores = new Set<number>();
  const restoreCheck = createRestoreCheck(deps, request, format, a, restoring, refuse, () => duplicates++, refusedRestores);
  // A row in a member's submitted or approved period, or before the lock date, is refused like any other (decisions §13).
  const locked = deps.entries.lockRefusals(request.workspaceId);
  /** Rows checked, waiting for one lookup of their fingerprints (then counted in file order). */
  let pending: Array<{ line: number; row: CheckedRow; authorId: string | null; fingerprint: string | null }> = [];
  const settle = () => {
    const known = repo.knownFingerprints(
      request.workspaceId,
      pending.flatMap((p) => (p.fingerprint === null ? [] : [p.fingerprint])),
    );
    for (const { line, row, authorId, fingerprint } of pending) {
      let short: number | null = null;
      if (fingerprint !== null) {
        short = Number.parseInt(Buffer.from(fingerprint.slice(0, 8), 'base64url').toString('hex'), 16);
        // A row the workspace has (the same file again) is a duplicate, locked or not: nothing of it would be written.
        if (seen.has(short) || known.has(fingerprint)) {
          duplicates++;
          continue;
        }
      }
      // A member the import will make has no periods, but the lock date holds for everyone.
      const lock = locked ? locked(authorId ?? '', row.start) : null;
      if (lock) {
        refuse(line, request.wording === 'page' ? (lock.people ?? lock.message) : lock.message);
        continue;
      }
      if (short !== null) seen.add(short);
      fresh++;
      countNew(deps, request.workspaceId, row, names);
      if (preview.length < PREVIEW_ROWS) preview.push(previewOf(row, a.fixedName ?? memberName(a.user(row.userKey))));
    }
    pending = [];
  };
  return {
    row(line, source) {
      const row = checkRow(a.check, line, source, refuse);
      if (!row) return;
      if (row.rateIgnored) ratesIgnored++;
      if (row.restore) return restoreCheck.row(line, row);
      for (const field of row.catalog?.unknown ?? []) restoring.unknown.add(field);
      if (row.catalog) {
        // A catalog row of the timetrack format: no entry, a client, project, task or tag that must exist.
        countNew(deps, request.workspaceId, row, names);
        return;
      }
      if (row.hourlyRate !== null || row.rateIgnored) moneyRows++;
      if (row.userKey !== '' && a.unmatched(row.userKey)) {
        refuse(
          line,
          request.wording === 'page'
            ? `${describeUser(a.user(row.userKey))} matches no member of the workspace: add them on the Members page, or tick “Add users of the file who match no member”`
            : `${describeUser(a.user(row.userKey))} matches no member of the workspace: add them (timetrack member add), or import with --create-members`,
          noSuchMember(a.user(row.userKey)),
        );
        return;
      }
      const authorId = a.authorOf(row);
      pending.push({ line, row, authorId, fingerprint: authorId ? fingerprintOf(format, authorId, row) : null });
      if (pending.length >= LOOKUP_BATCH) settle();
    },
    result() {
      settle();
      seen.clear();
      // The file's invoices as a whole (their series), once every row is read; refusals in the order of their lines.
      restoreCheck.finish();
      refused.sort((x, y) => x.line - y.line);
      if (refusedCount > refused.length) refused.push({ line: 0, message: `… and ${refusedCount - refused.length} more refused rows` });
      const restored = { ...restoring, unknown: [...restoring.unknown].sort(), withheld: [...restoring.withheld] };
      return { refused, refusedCount, duplicates, fresh, preview, names, moneyRows, ratesIgnored, restoring: restored, refusedRestores };
    },
  };
}

/**
 * The check of a workspace record (the timetrack format's profile, invoicing, workspace, member
 * and invoice rows) in pass 2: left out of a member's import (they are an owner's); refused when
 * it names a member who is none; an invoice restored before counted a duplicate; any other
 * invoice checked by the invoices module by the rules of an issued one (issue 54 N3: its numbers,
 * dates, totals, parties, note, fills and sends; unique against the workspace and the file), and
 * the file's series as a whole once every row is read (`finish`: no gap under the file's number
 * pattern, restored together or not at all); else counted as what the import will restore.
 */
function createRestoreCheck(
  deps: EngineDeps,
  request: Pick<ImportRequest, 'workspaceId' | 'wording'>,
  format: Format,
  a: {
    unmatched: (key: string) => boolean;
    willJoin: (key: string) => boolean;
    user: (key: string) => FileUser | undefined;
    restores: { fileRates: boolean; fixed: boolean };
  },
  restoring: {
    counts: RestoredCounts;
    ignored: Record<RestoreKind, number>;
    kept: { profile: number; invoicing: number; workspace: number };
    unknown: Set<string>;
    withheld: Set<string>;
  },
  refuse: (line: number, message: string, said?: Words) => void,
  duplicate: () => void,
  refusedRestores: Set<number>,
) {
  const { workspaceId } = request;
  // Read once per check, before any write: whether the workspace has its own profile and settings.
  let owned: { profile: boolean; invoicing: boolean } | undefined;
  const own = () => (owned ??= deps.invoices.hasOwn(workspaceId));
  // Whether the workspace holds nothing yet (no entry, no catalog row): then it takes the file's name and settings.
  let empty: boolean | undefined;
  const holdsNothing = () => (empty ??= workspaceHoldsNothing(deps, workspaceId));
  const differs = (settings: Partial<ExportedWorkspaceSettings>): boolean => {
    const current = deps.accounts.workspaceSettings(workspaceId) as Record<string, unknown> | null;
    return Object.entries(settings).some(([key, value]) => JSON.stringify(value) !== JSON.stringify(current?.[key]));
  };
  // The invoices module's check of the file's invoices (made at the first one: it reads the workspace's numbers).
  let invoices: ReturnType<InvoiceTransfer['restoreCheck']> | undefined;
  const invoiceCheck = () => (invoices ??= deps.invoices.restoreCheck(workspaceId));
  /** The number pattern of the file's invoicing settings (its series is numbered by it), or null when the file has none. */
  let pattern: string | null = null;
  const receipts = receiptsCheck(refuse, refusedRestores, request.wording === 'page');
  return {
    row(line: number, row: CheckedRow): void {
      const { kind, data, unknown } = row.restore as RestoreRecord;
      for (const field of unknown) restoring.unknown.add(field);
      // The head of an export that left out what its exporter may not read: nothing to restore, a notice to give.
      if (kind === 'withheld') {
        for (const part of data.withheld as string[]) restoring.withheld.add(part);
        return;
      }
      if (kind === 'invoicing' && typeof data.numberPattern === 'string') pattern = data.numberPattern;
      // Approval and lock (decisions §13): an owner's or the operator's import of the whole workspace restores them (pass 3).
      if (kind === 'approval' || kind === 'period') {
        if (!a.restores.fileRates || a.restores.fixed) restoring.ignored[kind]++;
        return;
      }
      // Expenses and their receipts (issue 57): an owner's or the operator's import of the whole workspace restores them (pass 3).
      if (kind === 'expense' || kind === 'receipt') {
        const restores = a.restores.fileRates && !a.restores.fixed;
        if (kind === 'expense' && !restores) restoring.ignored.expense++;
        if (restores) receipts.row(line, row);
        return;
      }
      const settings = (data.settings ?? {}) as Partial<ExportedWorkspaceSettings>;
      const flags = MEMBER_FLAGS.some((flag) => data[flag] !== undefined);
      // A rate record without a rate, settings or flags carries nothing to restore (a member's row names the member).
      if (kind === 'workspace' && data.hourlyRate === null && Object.keys(settings).length === 0) return;
      if (kind === 'member' && data.hourlyRate === null && !flags) return;
      if (!a.restores.fileRates || (kind === 'member' && a.restores.fixed)) {
        // Said when it has a rate (the notice names rates); a name, settings and flags are an owner's, left without a word.
        if ((kind !== 'member' && kind !== 'workspace') || data.hourlyRate !== null) restoring.ignored[kind]++;
        return;
      }
      // A member the workspace does not have (and the import will not make): no rate to set; the report lists them as unmatched.
      if (kind === 'member' && row.userKey !== '' && a.unmatched(row.userKey)) return;
      if (kind === 'member') {
        if (data.hourlyRate !== null) restoring.counts.rates++;
        // The file's owner role and visibility go to the members the import makes; the workspace's own keep theirs.
        if (flags && row.userKey !== '' && a.willJoin(row.userKey)) restoring.counts.members++;
        return;
      }
      if (kind === 'workspace') {
        if (data.hourlyRate !== null) restoring.counts.rates++;
        if (Object.keys(settings).length === 0) return;
        // The name and settings go into a workspace that holds nothing yet (a new one on the other server); a workspace in use keeps its own.
        if (holdsNothing()) restoring.counts.workspace = 1;
        else if (differs(settings)) restoring.kept.workspace = 1;
        return;
      }
      if (kind === 'invoice') {
        const record = data as unknown as ExportedInvoice['record'];
        if (row.userKey !== '' && a.unmatched(row.userKey)) {
          invoiceCheck().refused(record);
          refusedRestores.add(line);
          refuse(
            line,
            `${describeUser(a.user(row.userKey))} matches no member of the workspace: add them (timetrack member add), or import with --create-members`,
            noSuchMember(a.user(row.userKey)),
          );
          return;
        }
        const fingerprint = fingerprintOf(format, '', row);
        if (deps.repo.knownFingerprints(workspaceId, [fingerprint]).has(fingerprint)) return duplicate();
        try {
          invoiceCheck().invoice(line, record);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          refusedRestores.add(line);
          refuse(line, error.message, error.words);
          return;
        }
      }
      if ((kind === 'profile' || kind === 'invoicing') && own()[kind]) {
        restoring.kept[kind]++;
        return;
      }
      restoring.counts[kind === 'invoice' ? 'invoices' : kind]++;
    },
    /** Once every row is read: the refusals of the file's series (each such invoice no longer counted as restored). */
    finish(): void {
      receipts.finish();
      for (const { key, message, words: said } of invoices?.finish(pattern) ?? []) {
        if (refusedRestores.has(key)) continue;
        refusedRestores.add(key);
        restoring.counts.invoices--;
        refuse(key, message, said);
      }
    },
  };
}

/**
 * The receipts of the file's expenses, checked in pass 2 as pass 3 puts them together (issue 57):
 * the parts that follow an expense's row with its id, in order, against its record (count, size,
 * SHA-256, the type their content shows), read one part at a time. A receipt that fails refuses
 * its expense's row as a damaged invoice refuses its own: the import stops naming the expense and
 * what to do, and with --skip-invalid the rest is imported without that expense (so nothing is
 * imported with a receipt silently missing).
 */
function receiptsCheck(refuse: (line: number, message: string) => void, refusedRestores: Set<number>, page: boolean) {
  let open: { line: number; sourceId: string; expense: ExpenseRecord; check: ReturnType<typeof receiptCheck> } | null = null;
  const settle = () => {
    if (open === null) return;
    const { line, expense, check } = open;
    open = null;
    const why = check.why();
    if (why === null) return;
    refusedRestores.add(line);
    const what = `the expense of ${expense.day} “${expense.description}” (${(expense.amountCents / 100).toFixed(2)} ${expense.currency})`;
    refuse(
      line,
      `${what}: ${why}. Export the workspace again on the server it came from and import that file${
        page
          ? ', or import the rest without this expense (the button below) and add it with its receipt on the Expenses page'
          : ', or import the rest with --skip-invalid and add this expense with its receipt again (timetrack expense add … --receipt FILE)'
      }.`,
    );
  };
  return {
    row(line: number, row: CheckedRow): void {
      const { kind, data } = row.restore as RestoreRecord;
      if (kind === 'expense') {
        settle();
        const expense = data as unknown as ExpenseRecord;
        if (expense.receipt !== null) open = { line, sourceId: row.sourceId as string, expense, check: receiptCheck(expense.receipt) };
        return;
      }
      const part = data as unknown as ReceiptPartRecord;
      // As pass 3 reads them: a part of another expense, or out of order, is not this receipt's.
      if (open !== null && open.sourceId === row.sourceId && part.part === open.check.parts()) open.check.add(part.bytes);
    },
    finish: settle,
  };
}

/** Whether a workspace holds nothing yet: no completed entry and no client, project, task or tag (a new workspace on another server). */
function workspaceHoldsNothing(deps: EngineDeps, workspaceId: string): boolean {
  const entries = deps.entries.exportPage({ workspaceId, from: -8.64e15, to: 8.64e15, after: 0, limit: 1 });
  if (entries.length > 0) return false;
  const catalog = deps.catalog.snapshot(workspaceId);
  return catalog.clients.length + catalog.projects.length + catalog.tasks.length + catalog.tags.length === 0;
}

/**
 * The workspace records of a file written in pass 3, inside its writes: the issuer profile and
 * the invoicing settings where the workspace has none, the workspace's and members' rates where
 * none is set, each invoice with its numbers, its client, author, projects and the members of
 * its fills mapped to the workspace's (an invoice restored before is skipped). The entries that
 * follow name their invoice by its exported id: `invoiceOf` gives its id here.
 */
function createRestorer(
  deps: EngineDeps,
  a: {
    ctx: ImportContext;
    catalog: ReturnType<typeof catalogCache>;
    authorOf: (row: CheckedRow) => string | null;
    memberId: (email: string) => string | null;
    by: ImportBy;
    fixed: boolean;
    /** An invoice the workspace has from an earlier import of the file: counted with the duplicates. */
    duplicate: () => void;
    /** Whether the check found the workspace holding nothing, so it takes the file's name and settings. */
    takesSettings: boolean;
    /** The members this import made: they take the file's owner role and visibility. */
    joined: ReadonlySet<string>;
  },
  restored: RestoredCounts,
) {
  const invoiceIds = new Map<string, string>();
  /** The expense of the file whose receipt's parts come next: its new id, its receipt's record, the parts read. */
  let receipt: { sourceId: string; expenseId: string; record: ExpenseRecord['receipt']; parts: string[] } | null = null;
  const { ctx } = a;
  return {
    invoiceOf: (ref: string | null): string | null => (ref === null ? null : (invoiceIds.get(ref) ?? null)),
    apply(record: Parameters<EntryImports['insert']>[0], row: CheckedRow): void {
      const { kind, data } = row.restore as RestoreRecord;
      if (!a.by.fileRates || kind === 'withheld') return;
      const workspaceId = ctx.workspaceId;
      if (kind === 'profile') restored.profile += Number(deps.invoices.restoreProfile(workspaceId, data));
      else if (kind === 'invoicing') restored.invoicing += Number(deps.invoices.restoreSettings(workspaceId, data));
      else if (kind === 'workspace' || kind === 'member') {
        const rate = data.hourlyRate as number | null;
        const userId = kind === 'member' ? a.authorOf(row) : null;
        if (kind === 'member' && (a.fixed || userId === null)) return;
        if (rate !== null) restored.rates += Number(deps.accounts.restoreRate(workspaceId, userId, rate));
        const settings = (data.settings ?? {}) as Partial<ExportedWorkspaceSettings>;
        if (kind === 'workspace' && a.takesSettings && Object.keys(settings).length > 0)
          // A request budget beyond the server's limit only from the operator's import (`attachAccounts`: the operator's alone), as on the page.
          restored.workspace = Number(deps.accounts.restoreWorkspace(workspaceId, settings, a.by.attachAccounts).length > 0);
        if (kind === 'member' && userId !== null && a.joined.has(userId) && MEMBER_FLAGS.some((flag) => data[flag] !== undefined)) {
          const flags = {
            isOwner: data.isOwner === true,
            canViewOthersTime: data.canViewOthersTime === true,
            canViewOthersMoney: data.canViewOthersMoney === true,
          };
          restored.members += Number(deps.accounts.restoreMemberFlags(workspaceId, userId, flags));
        }
      } else if (kind === 'expense') {
        // An expense (issue 57), after the invoices and entries: a new id, its author, project and invoice mapped; its receipt's parts follow.
        receipt = null;
        if (a.fixed || !deps.expenses) return;
        const author = a.authorOf(row);
        const project = author === null ? undefined : a.catalog.work(record, { ...row, task: '' }).project;
        if (author === null || !project) return;
        if (!deps.repo.addFingerprint(workspaceId, fingerprintOf('timetrack', '', row), ctx.importId)) return;
        const expense = data as unknown as ExpenseRecord;
        const invoiceId = row.invoiceRef === null ? null : (invoiceIds.get(row.invoiceRef) ?? null);
        const id = deps.expenses.restore(workspaceId, newTimeId('exp', expense.createdAt), expense, {
          authorId: author,
          projectId: project.id,
          invoiceId,
        });
        deps.repo.addCreated(ctx.importId, 'expense', id);
        if (expense.receipt !== null) receipt = { sourceId: row.sourceId as string, expenseId: id, record: expense.receipt, parts: [] };
      } else if (kind === 'receipt') {
        // A part of the receipt of the expense just restored (in order); the last one writes its bytes, checked.
        const part = data as unknown as ReceiptPartRecord;
        if (
          !deps.expenses ||
          receipt === null ||
          receipt.record === null ||
          receipt.sourceId !== row.sourceId ||
          part.part !== receipt.parts.length
        )
          return;
        receipt.parts.push(part.bytes);
        if (receipt.parts.length < receipt.record.parts) return;
        const file = assembleReceipt(receipt.record, receipt.parts);
        if ('bytes' in file) deps.expenses.restoreReceipt(workspaceId, receipt.expenseId, receipt.record, file.bytes);
        receipt = null;
      } else if (kind === 'approval' || kind === 'period') {
        // Approval and lock (decisions §13), after the entries in the file: the settings where the workspace has none, each period where its member has none.
        if (a.fixed || !deps.approvals) return;
        const memberOf = (email: string) => (email === '' ? null : a.memberId(email));
        if (kind === 'approval') {
          if (deps.approvals.restoreSettings(workspaceId, data as unknown as ApprovalRecord, memberOf))
            deps.repo.addCreated(ctx.importId, 'approval', workspaceId);
          return;
        }
        const member = a.authorOf(row);
        const id = member === null ? null : deps.approvals.restorePeriod(workspaceId, member, data as unknown as PeriodRecord, memberOf);
        if (id !== null) deps.repo.addCreated(ctx.importId, 'period', id);
      } else {
        const author = a.authorOf(row);
        if (author === null) return;
        if (!deps.repo.addFingerprint(workspaceId, fingerprintOf('timetrack', '', row), ctx.importId)) return a.duplicate();
        const refs = (data.refs ?? {}) as {
          projects?: Record<string, { client?: string; name?: string }>;
          users?: Record<string, { email?: string }>;
        };
        const id = deps.invoices.restoreInvoice(record, ctx, data as unknown as ExportedInvoice['record'], {
          clientId: a.catalog.client(record, row.client),
          createdBy: author,
          project: (old) => {
            const named = refs.projects?.[old];
            if (!named?.name) return null;
            return a.catalog.work(record, { ...row, client: named.client ?? '', project: named.name, task: '' }).project?.id ?? null;
          },
          user: (old) => {
            const email = refs.users?.[old]?.email;
            return email ? a.memberId(email) : null;
          },
        });
        deps.repo.addCreated(ctx.importId, 'invoice', id);
        for (const n of (data as unknown as ExportedInvoice['record']).numbers) deps.repo.addCreated(ctx.importId, 'number', n.number);
        invoiceIds.set(row.sourceId as string, id);
        restored.invoices++;
      }
    },
  };
}

/** The report's notices; on a run for the Import page, their words for people beside them (said in its reader's language). */
function noticesFor({ wording }: ImportRequest, a: Parameters<typeof noticesOf>[0]): Pick<ImportReport, 'notices' | 'noticeWords'> {
  const { notices, words: said } = noticesOf(a);
  return wording === 'page' ? { notices, noticeWords: said } : { notices };
}

/** What a notice lists as not imported, each by its key (said in a list: `{{left, nouns}}`). */
const NOTICE_ITEMS = {
  profile: 'integrations.imports.notices.items.profile',
  invoicing: 'integrations.imports.notices.items.invoicing',
  rates: 'integrations.imports.notices.items.rates',
  invoices: 'integrations.imports.notices.items.invoices',
  approval: 'integrations.imports.notices.items.approval',
  periods: 'integrations.imports.notices.items.periods',
  expenses: 'integrations.imports.notices.items.expenses',
} as const satisfies Record<string, Key>;

/**
 * What the preview and the result say beside the counts: the file's rates that a member's import
 * does not take (rates are an owner's to set), and rates read in the workspace's currency because
 * the file names none; and the same notices' words for people by key, in step.
 */
function noticesOf(a: {
  format: Format;
  currency: string | null;
  workspaceCurrency: string;
  moneyRows: number;
  ratesIgnored: number;
  invite: number;
  restoring: CheckResult['restoring'];
}): { notices: string[]; words: Words[] } {
  const notices: string[] = [];
  /** Each notice's words for people by key, in step with `notices` (the Import page says them in its reader's language). */
  const said: Words[] = [];
  const note = (message: string, key: Key, vars?: Vars) => {
    notices.push(message);
    said.push(words(key, vars));
  };
  const ignored = a.restoring.ignored;
  const count = (n: number, what: string) => `${n.toLocaleString('en')} ${what}${n === 1 ? '' : 's'}`;
  const left = [
    ignored.profile > 0 ? 'issuer profile' : '',
    ignored.invoicing > 0 ? 'invoicing settings' : '',
    ignored.workspace + ignored.member > 0 ? count(ignored.workspace + ignored.member, 'rate') : '',
    ignored.invoice > 0 ? count(ignored.invoice, 'invoice') : '',
    ignored.approval > 0 ? 'approval settings' : '',
    ignored.period > 0 ? count(ignored.period, 'approval period') : '',
    ignored.expense > 0 ? count(ignored.expense, 'expense') : '',
  ].filter(Boolean);
  const item = (n: number, name: keyof typeof NOTICE_ITEMS) => (n > 0 ? NOTICE_ITEMS[name] : '');
  if (left.length > 0)
    note(
      `The file's ${left.join(', ')} are not imported: a workspace's profile, settings, rates and invoices are an owner's to import (and a member's rate is not taken when every row is one member's).`,
      'integrations.imports.notices.left',
      {
        left: [
          item(ignored.profile, 'profile'),
          item(ignored.invoicing, 'invoicing'),
          item(ignored.workspace + ignored.member, 'rates'),
          item(ignored.invoice, 'invoices'),
          item(ignored.approval, 'approval'),
          item(ignored.period, 'periods'),
          item(ignored.expense, 'expenses'),
        ]
          .filter(Boolean)
          .join(' '),
        rates: ignored.workspace + ignored.member,
        invoices: ignored.invoice,
        periods: ignored.period,
        expenses: ignored.expense,
      },
    );
  const kept = [a.restoring.kept.profile > 0 ? 'issuer profile' : '', a.restoring.kept.invoicing > 0 ? 'invoicing settings' : ''].filter(
    Boolean,
  );
  if (a.restoring.kept.workspace > 0)
    note(
      "The workspace's own name and settings are kept: a file's are taken only by a workspace that holds nothing yet (no entry, client, project, task or tag). Change them on the Workspace page if the file's should apply.",
      'integrations.imports.notices.workspaceKept',
    );
  if (kept.length > 0)
    note(
      `The workspace's own ${kept.join(' and ')} ${kept.length === 1 ? 'is' : 'are'} kept: the file's ${kept.length === 1 ? 'is' : 'are'} not imported over ${kept.length === 1 ? 'it' : 'them'}. Change ${kept.length === 1 ? 'it' : 'them'} on the Workspace page (or timetrack workspace profile / invoicing) if the file's should apply.`,
      kept.length === 2
        ? 'integrations.imports.notices.kept.both'
        : a.restoring.kept.profile > 0
          ? 'integrations.imports.notices.kept.profile'
          : 'integrations.imports.notices.kept.invoicing',
    );
  if (a.restoring.withheld.length > 0)
    note(
      "The file was exported by someone who may not read colleagues' money, so it leaves out invoices and credit notes, project and task rates and budgets, and the rates of colleagues' entries: those entries get the rate of their task, project, member or workspace here. To carry them, export the workspace as an owner who sees colleagues' money, or with timetrack export.",
      'integrations.imports.notices.withheld',
    );
  if (a.restoring.unknown.length > 0)
    note(
      `The file carries fields this version of timetrack does not know (${a.restoring.unknown.join(', ')}): they were left out. Import it with the version that wrote it, or a newer one, to keep them.`,
      'integrations.imports.notices.unknown',
      { fields: a.restoring.unknown.join(', ') },
    );
  const rows = (n: number) => `${n.toLocaleString('en')} row${n === 1 ? '' : 's'}`;
  if (a.invite > 0) {
    note(
      `${a.invite === 1 ? 'One person' : `${a.invite.toLocaleString('en')} people`} of the file cannot be made ${a.invite === 1 ? 'a member' : 'members'} by an import (listed as unmatched): add each on the Members page, which sends an invitation; once accepted, import the file again.`,
      'integrations.imports.notices.invite',
      { count: a.invite },
    );
  }
  if (a.ratesIgnored > 0) {
    note(
      `The file's rates (${rows(a.ratesIgnored)}) are not imported: rates are an owner's to set. Your entries get the rate of their task, their project, your membership or the workspace, as the entries you track do; an owner can import the file with its rates.`,
      'integrations.imports.notices.ratesIgnored',
      { count: a.ratesIgnored },
    );
  } else if (a.moneyRows > 0 && a.currency === null) {
    note(
      `The file names no currency: its rates (${rows(a.moneyRows)}) are read as ${a.workspaceCurrency}, the workspace's currency.${a.format === 'kimai' ? ' (Kimai exports name none: check that its customers bill in ' + a.workspaceCurrency + '.)' : ''}`,
      a.format === 'kimai' ? 'integrations.imports.notices.noCurrencyKimai' : 'integrations.imports.notices.noCurrency',
      { count: a.moneyRows, currency: a.workspaceCurrency },
    );
  }
  return { notices, words: said };
}

/** The zone local times are read in: required by formats without offsets, checked. */
function zoneFor(format: Format, request: ImportRequest): ZoneClock | null {
  if (SPECS[format].local && !request.timeZone) throw importErrors.timeZoneNeeded(format);
  if (!request.timeZone) return null;
  try {
    return new ZoneClock(request.timeZone);
  } catch {
    throw importErrors.unknownZone(request.timeZone);
  }
}

/** The check's lookups (a fingerprint a row) with the import's page cache, not the default 2 MB. */
async function withCache<T>(repo: ImportsRepository, body: () => Promise<T>): Promise<T> {
  const cache = repo.cacheKib();
  repo.setCacheKib(Math.max(cache, IMPORT_CACHE_KIB));
  try {
    return await body();
  } finally {
    repo.setCacheKib(cache);
  }
}

/**
 * Runs the writes of an import on a connection tuned for them, then sets it back. The batches are
 * not synced one by one (synchronous NORMAL): a power cut loses at most the last ones, and the
 * import is then `running` and cleaned up as a killed one; the record of its end is written with
 * the connection's own setting, synced before anyone is told it is done. The rows land all over
 * the entries' indexes: a page cache that holds them saves a read per row. Statement journals in
 * memory: on disk they cost a write per page a row changed twice.
 */
async function tuned<T>(repo: ImportsRepository, body: () => Promise<T>): Promise<T> {
  const synchronous = repo.synchronous();
  const cache = repo.cacheKib();
  const temp = repo.tempStore();
  const checkpoint = repo.walAutocheckpoint();
  repo.setSynchronous(1);
  if (checkpoint > 0) repo.setWalAutocheckpoint(Math.max(checkpoint, IMPORT_CHECKPOINT_PAGES));
  repo.setCacheKib(Math.max(cache, IMPORT_CACHE_KIB));
  repo.setTempStore(2);
  try {
    return await body();
  } finally {
    repo.setSynchronous(synchronous);
    repo.setCacheKib(cache);
    repo.setTempStore(temp);
    repo.setWalAutocheckpoint(checkpoint);
  }
}

/** Pass 3: rows in batches of IMPORT_BATCH, each batch one short write. */
async function writeRows(
  deps: EngineDeps,
  a: {
    request: ImportRequest;
    found: Scan;
    ctx: ImportContext;
    check: () => ReturnType<typeof createRowChecker>;
    authorOf: (row: CheckedRow) => string | null;
    toCreate: Map<string, FileUser>;
    matched: Map<string, string>;
    progress: (phase: ImportProgress['phase'], rows: number, bytes: number) => void;
    by: ImportBy;
    /** The lines of workspace records the check refused; whether the workspace holds nothing, so it takes the file's name and settings. */
    restores: { refused: ReadonlySet<number>; settings: boolean };
  },
) {
  const { repo, write, clock } = deps;
  const { ctx, found } = a;
  const created = { clients: 0, projects: 0, tasks: 0, tags: 0, users: 0 };
  let imported = 0;
  let duplicates = 0;
  let batches = 0;
  const joined = joinMembers(deps, ctx, a.toCreate, a.matched, created);
  const catalog = catalogCache(deps, ctx, created, a.by.fileRates);
  const directory = new Map(deps.accounts.memberDirectory(ctx.workspaceId).map((m) => [m.email.toLowerCase(), m.userId]));
  const restored = noneRestored();
  const restorer = createRestorer(
    deps,
    {
      ctx,
      catalog,
      authorOf: a.authorOf,
      memberId: (email) => a.matched.get(email.toLowerCase()) ?? directory.get(email.toLowerCase()) ?? null,
      by: a.by,
      fixed: a.request.user !== undefined,
      duplicate: () => duplicates++,
      takesSettings: a.restores.settings,
      joined,
    },
    restored,
  );
  const check = a.check();
  let batch: CheckedRow[] = [];
  const writeMs = deps.writeMs ?? (() => IMPORT_SHARED_WRITE_MS);
  let budget = writeMs();
  /** The rows read so far, in writes that hold the lock at most `budget` ms each (a server's writes wait no longer). */
  const flush = async () => {
    const rows = batch;
    batch = [];
    let next = 0;
    while (next < rows.length) {
      write((record) => {
        const began = performance.now();
        deps.entries.startWrite(ctx);
        // With --skip-invalid, the rows the check refused for approval or the lock date are left out (decisions §13).
        const locked = a.request.skipInvalid ? deps.entries.lockRefusals(ctx.workspaceId) : null;
        do {
          const row = rows[next++] as CheckedRow;
          if (row.catalog) {
            catalog.define(record, row);
            continue;
          }
          if (row.restore) {
            // A record the check refused (--skip-invalid imports the rest): not restored.
            if (!a.restores.refused.has(row.line)) restorer.apply(record, row);
            continue;
          }
          const authorId = a.authorOf(row);
          if (!authorId) continue;
          const fingerprint = fingerprintOf(found.format, authorId, row);
          if (locked?.(authorId, row.start)) {
            // Left out; the workspace's own copy (the same file again) is counted as the check counted it.
            if (repo.knownFingerprints(ctx.workspaceId, [fingerprint]).size > 0) duplicates++;
            continue;
          }
          if (!repo.addFingerprint(ctx.workspaceId, fingerprint, ctx.importId)) {
            duplicates++;
            continue;
          }
          const work = catalog.work(record, row);
          deps.entries.insert(record, ctx, {
            authorId,
            start: row.start,
            end: row.end,
            description: row.description,
            project: work.project,
            task: work.task,
            tagIds: catalog.tags(record, row.tags),
            billable: row.billable,
            hourlyRate: row.hourlyRate,
            noRate: row.noRate,
            timeZone: row.timeZone,
            invoiceId: restorer.invoiceOf(row.invoiceRef),
            runaway: row.runaway,
          });
          imported++;
        } while (next < rows.length && performance.now() - began < budget);
        repo.update(ctx.importId, { heartbeatAt: clock.now(), imported, duplicates });
      });
      batches++;
      budget = writeMs();
      // Let the event loop (and other writers waiting for the lock) run between the writes.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await eachRow(
    a.request,
    found,
    a.progress,
    'writing',
    (line, source) => {
      const row = checkRow(check, line, source, () => undefined);
      if (row) batch.push(row);
    },
    async () => {
      // Rows enough for the budget's write (about 40 µs a row at best), read ahead of it.
      if (batch.length >= Math.max(IMPORT_BATCH, budget * 25)) await flush();
    },
  );
  await flush();
  return { imported, duplicates, created, restored, batches };
}

/** The file's users the import makes members (`--create-members`), in one write: their ids, each matched to its key. */
function joinMembers(
  deps: EngineDeps,
  ctx: ImportContext,
  toCreate: Map<string, FileUser>,
  matched: Map<string, string>,
  created: ImportReport['created'],
): Set<string> {
  const joined = new Set<string>();
  if (toCreate.size === 0) return joined;
  deps.write(() => {
    for (const [key, user] of toCreate) {
      const id = deps.accounts.joinImported(ctx.workspaceId, { name: user.name, email: user.email });
      matched.set(key, id);
      joined.add(id);
      deps.repo.addCreated(ctx.importId, 'user', id);
      created.users++;
    }
  });
  return joined;
}

/** Found-or-created catalog rows of one import, cached by name key. */
function catalogCache(deps: EngineDeps, ctx: ImportContext, created: ImportReport['created'], fileRates: boolean) {
  const { catalog, repo } = deps;
  const clients = new Map<string, { id: string }>();
  const projects = new Map<string, ProjectRow>();
  const tasks = new Map<string, TaskRow>();
  const tags = new Map<string, { id: string }>();
  /** The rows this import created: a catalog row of the file sets what they hold (rows found are left as they are). */
  const createdHere = new Set<string>();
  const note = (kind: CreatedKind, id: string, isNew: boolean, count: keyof ImportReport['created']) => {
    if (!isNew) return;
    repo.addCreated(ctx.importId, kind, id);
    createdHere.add(id);
    created[count]++;
  };
  /** The row cached under `key`, else the one `findOrCreate` gives (noted when it made it), cached. */
  const cachedRow = <Row extends { id: string }>(
    cache: Map<string, Row>,
    key: string,
    kind: CreatedKind,
    count: keyof ImportReport['created'],
    findOrCreate: () => { row: Row; created: boolean },
  ): Row => {
    let row = cache.get(key);
    if (!row) {
      const got = findOrCreate();
      note(kind, got.row.id, got.created, count);
      row = got.row;
      cache.set(key, row);
    }
    return row;
  };
  type Record = Parameters<EntryImports['insert']>[0];
  const clientOf = (record: Record, name: string): string =>
    cachedRow(clients, nameKey(name), 'client', 'clients', () => catalog.client(record, ctx.workspaceId, ctx.actor, name)).id;
  const self = {
    /**
     * A catalog row of the file (the timetrack format): found or created like the names of an
     * entry, and, when this import created it, given the file's settings (archived, color,
     * billable default, rate, estimate, budget).
     */
    define(record: Record, row: CheckedRow): void {
      const { kind, attrs } = row.catalog as NonNullable<CheckedRow['catalog']>;
      if (kind === 'tag') {
        self.tags(record, row.tags);
        return;
      }
      let id: string;
      if (kind === 'client') id = clientOf(record, row.client);
      else {
        const { project, task } = self.work(record, row);
        const target = (kind === 'project' ? project : task) as ProjectRow | TaskRow;
        id = target.id;
        // The cached row serves the entries that follow (their billable default, their rate).
        if (createdHere.has(id)) Object.assign(target, attrs);
      }
      if (createdHere.has(id) && Object.keys(attrs).length > 0) catalog.configure(record, ctx.workspaceId, ctx.actor, kind, id, attrs);
      // A client's invoicing details (a workspace's export), on a client this import made: an owner's to import.
      const details = (row.catalog as NonNullable<CheckedRow['catalog']>).details;
      if (kind === 'client' && createdHere.has(id) && details && fileRates)
        catalog.restoreClient(record, ctx.workspaceId, ctx.actor, id, details);
    },
    /** A client by name, found or created (an invoice's). */
    client: (record: Record, name: string): string => clientOf(record, name),
    work(record: Record, row: CheckedRow): { project: ProjectRow | null; task: TaskRow | null } {
      if (row.project === '') return { project: null, task: null };
      const clientId = row.client !== '' ? clientOf(record, row.client) : null;
      const projectKey = `${clientId ?? ''}\u0000${nameKey(row.project)}`;
      const project = cachedRow(projects, projectKey, 'project', 'projects', () =>
        catalog.project(record, ctx.workspaceId, ctx.actor, clientId, row.project),
      );
      if (row.task === '') return { project, task: null };
      const taskKey = `${project.id}\u0000${nameKey(row.task)}`;
      const task = cachedRow(tasks, taskKey, 'task', 'tasks', () => catalog.task(record, ctx.workspaceId, ctx.actor, project.id, row.task));
      return { project, task };
    },
    tags(record: Record, names: string[]): string[] {
      const ids = names.map(
        (name) => cachedRow(tags, nameKey(name), 'tag', 'tags', () => catalog.tag(record, ctx.workspaceId, ctx.actor, name)).id,
      );
      return [...new Set(ids)].sort();
    },
  };
  return self;
}

/** Which of the row's names the catalog lacks (a dry run's `created`), by name key. */
function countNew(deps: EngineDeps, workspaceId: string, row: CheckedRow, names: NewNames) {
  const { catalog } = deps;
  const known = names.known;
  const look = <T>(key: string, find: () => T | undefined): T | undefined => {
    if (!known.has(key)) known.set(key, find() ?? null);
    return (known.get(key) ?? undefined) as T | undefined;
  };
  for (const tag of row.tags) {
    const key = nameKey(tag);
    if (!names.tags.has(key) && !look(`tag\u0000${key}`, () => catalog.findTag(workspaceId, tag))) names.tags.add(key);
  }
  if (row.project === '') {
    if (row.catalog?.kind === 'client' && !names.clients.has(nameKey(row.client))) {
      if (!look(`client\u0000${nameKey(row.client)}`, () => catalog.findClient(workspaceId, row.client)))
        names.clients.add(nameKey(row.client));
    }
    return;
  }
  let clientId: string | null = null;
  let clientNew = false;
  if (row.client !== '') {
    const client = look<{ id: string }>(`client\u0000${nameKey(row.client)}`, () => catalog.findClient(workspaceId, row.client));
    clientId = client?.id ?? null;
    clientNew = !client;
    if (clientNew) names.clients.add(nameKey(row.client));
  }
  const projectKey = `${nameKey(row.client)}\u0000${nameKey(row.project)}`;
  const project = clientNew
    ? undefined
    : look<{ id: string }>(`project\u0000${projectKey}`, () => catalog.findProject(workspaceId, clientId, row.project));
  if (row.task !== '') {
    const taskKey = `${projectKey}\u0000${nameKey(row.task)}`;
    if (!project || !look(`task\u0000${taskKey}`, () => catalog.findTask(project.id, row.task))) names.tasks.add(taskKey);
  }
  if (!project) names.projects.add(projectKey);
}

/** What a dry run would create, by name key, and what the catalog was found to hold. */
interface NewNames {
  clients: Set<string>;
  projects: Set<string>;
  tasks: Set<string>;
  tags: Set<string>;
  known: Map<string, unknown>;
}

/** The invoices an import restored (a workspace's export). */
const restoredInvoices = (deps: EngineDeps, importId: string): string[] =>
  deps.repo
    .created(importId)
    .filter((c) => c.kind === 'invoice')
    .map((c) => c.id);

/**
 * Deletes what an import wrote, in short writes: the invoices it restored (their entries
 * released, their numbers and sends deleted), its entries (each with its entry.deleted event),
 * its fingerprints (its rows count as not imported), the catalog rows it created that nothing
 * references any more.
 */
async function cleanUp(deps: EngineDeps, ctx: ImportContext): Promise<number> {
  const { repo, write } = deps;
  // The expenses it restored first (with their receipts): they may name its invoices.
  const expenses = repo
    .created(ctx.importId)
    .filter((c) => c.kind === 'expense')
    .map((c) => c.id);
  if (expenses.length > 0) write(() => deps.expenses?.deleteRestored(ctx.workspaceId, expenses));
  // The invoices it restored first: their entries released, the invoices and their numbers deleted.
  const invoices = restoredInvoices(deps, ctx.importId);
  if (invoices.length > 0)
    write((record) => {
      for (const id of invoices) deps.entries.releaseInvoice(id);
      deps.invoices.deleteRestored(record, ctx.workspaceId, ctx.actor, invoices);
    });
  let deleted = 0;
  for (;;) {
    const n = write((record) => deps.entries.deleteSome(record, ctx, IMPORT_BATCH));
    deleted += n;
    if (n < IMPORT_BATCH) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  while (write(() => repo.deleteFingerprints(ctx.importId, 5000)) === 5000) await new Promise((resolve) => setImmediate(resolve));
  const order: Record<CreatedKind, number> = {
    expense: -4,
    period: -3,
    approval: -3,
    number: -2,
    invoice: -1,
    tag: 0,
    task: 1,
    project: 2,
    client: 3,
    user: 4,
  };
  const created = repo.created(ctx.importId).sort((x, y) => order[x.kind] - order[y.kind]);
  write((record) => {
    for (const { kind, id } of created) {
      if (kind === 'client' || kind === 'project' || kind === 'task' || kind === 'tag')
        deps.catalog.deleteIfUnused(record, ctx.workspaceId, ctx.actor, kind, id);
    }
  });
  return deleted;
}

export type ImportEngine = ReturnType<typeof createImportEngine>;

/** Rows of the file after its header, read by the format, with the pass's progress; `between` runs after each row (the write batches). */
async function eachRow(
  request: ImportRequest,
  found: Scan,
  progress: (phase: ImportProgress['phase'], rows: number, bytes: number) => void,
  phase: ImportProgress['phase'],
  each: (line: number, row: SourceRow | RowRefusal) => void,
  between?: () => Promise<void>,
): Promise<void> {
  const reader = rowReader(found.format, found.header);
  const width = found.header.keys.length;
  let bytes = 0;
  let rows = 0;
  let first = true;
  for await (const record of csvRecords(request.path, (n) => (bytes += n))) {
    if (first) {
      first = false;
      continue;
    }
    rows++;
    if (rows % 20000 === 0) progress(phase, rows, bytes);
    each(record.line, record.cells.length < width ? shortRow(record.cells.length, width) : reader.read(record.cells));
    if (between) await between();
  }
  progress(phase, rows, bytes);
}

/** Why a row with fewer cells than the header is refused. */
const shortRow = (cells: number, width: number): RowRefusal =>
  new RowRefusal(
    `the row has ${cells} cell${cells === 1 ? '' : 's'} and the header ${width}: a cell is missing (or a quote is not closed)`,
    words('integrations.imports.reasons.shortRow', { count: cells, width }),
  );

function checkRow(
  check: ReturnType<typeof createRowChecker>,
  line: number,
  source: SourceRow | RowRefusal,
  refuse: (line: number, message: string, said?: Words) => void,
): CheckedRow | null {
  if (source instanceof RowRefusal) {
    refuse(line, source.message, source.words);
    return null;
  }
  try {
    return check(line, source);
  } catch (error) {
    if (error instanceof RowRefusal) {
      refuse(line, error.message, error.words);
      return null;
    }
    throw error;
  }
}

function describeUser(user: FileUser | undefined): string {
  if (!user) return 'The user';
  if (user.name && user.email) return `${user.name} <${user.email}>`;
  return user.email || user.name;
}

/** A user of the file the workspace lacks, in words for people (the Import page's; the message stays the report's English). */
const noSuchMember = (user: FileUser | undefined): Words =>
  words('integrations.imports.reasons.noSuchMember', { user: describeUser(user) });

const memberName = (user: FileUser | undefined): string => user?.name || user?.email || '';

function previewOf(row: CheckedRow, member: string): PreviewRow {
  return {
    line: row.line,
    member,
    start: new Date(row.start).toISOString(),
    end: new Date(row.end).toISOString(),
    description: row.description,
    client: row.client,
    project: row.project,
    task: row.task,
    tags: row.tags,
    billable: row.billable,
    hourlyRate: row.hourlyRate,
    rateFrom: row.noRate ? 'none' : (row.rateFrom ?? 'resolved'),
  };
}
