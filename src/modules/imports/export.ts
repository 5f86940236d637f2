import { decimalOf } from '../../kernel/money.js';
import type { CatalogImports } from '../catalog/service.js';
import type { EntryImports } from '../entries/service.js';
import { QUOTED_FORMULA_START } from '../../kernel/spreadsheet.js';
import type { InvoiceTransfer } from '../invoices/service.js';
import type { ApprovalRecord, ApprovalTransfer, PeriodRecord, PersonRecord } from '../approvals/service.js';
import type { ExportedWorkspaceSettings } from '../accounts/service.js';
import type { ExpenseTransfer } from '../expenses/service.js';

/**
 * The columns of the timetrack format as a whole-workspace export writes them (the importer reads
 * them by name, in any order and case; docs/importing.md). `record` says what a row is: an entry,
 * or a catalog row (client, project, task, tag) that must exist whether entries use it or not.
 */
export const EXPORT_COLUMNS = [
  'record',
  'id',
  'email',
  'member',
  'start',
  'end',
  'timeZone',
  'description',
  'client',
  'project',
  'task',
  'tags',
  'billable',
  'hourlyRate',
  'archived',
  'color',
  'estimateSec',
  'budgetAmount',
  'data',
  'invoice',
] as const;

/** Entries read a query: a page is ~1,000 rows of work on the thread (~8 ms), then the event loop turns. */
export const EXPORT_PAGE = 1000;

const NEEDS_QUOTES = /[",\r\n]/;
/** A cell a spreadsheet would run as a formula (and one so prefixed already: its prefix is doubled, so the import's undoing of one is exact). */
const FORMULA = QUOTED_FORMULA_START;

/**
 * One cell, RFC 4180: quoted when it holds a quote, a comma or a line break (quotes doubled).
 * A cell whose first non-space character is `=`, `+`, `-`, `@` (or ＝ ＋ － ＠), or that begins
 * with a tab or a CR, is prefixed with `'` so a spreadsheet shows it as text (formula injection);
 * the importer takes exactly one `'` off a cell of this format that begins with `'`s and such a start.
 */
export function csvCell(value: string): string {
  if (value === '') return value;
  const first = value.charCodeAt(0);
  // = + - @, or a quote, a tab, CR, space or anything beyond ASCII (then the regular expression decides:
  // spaces before a formula, full-width ＝ ＋ － ＠; src/kernel/spreadsheet.ts): the common cell skips it.
  const formula =
    first === 61 || first === 43 || first === 45 || first === 64 || ((first === 39 || first <= 32 || first > 127) && FORMULA.test(value));
  const safe = formula ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Tag names in one cell: comma-separated, a name holding a comma or a quote quoted as in CSV (the importer splits it so). */
export function tagsCell(names: string[]): string {
  return names.map((name) => (/[",]/.test(name) ? `"${name.replace(/"/g, '""')}"` : name)).join(',');
}

/** A rate or an amount as the decimal it is, never in exponent form (1e-7 is 0.0000001). */
export function decimalText(value: number): string {
  const text = String(value);
  if (!text.includes('e')) return text;
  const { units, scale } = decimalOf(value);
  const digits = units.toString().padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`.replace(/\.?0+$/, '');
}

/** An instant as ISO-8601 UTC, without milliseconds when it has none. */
const isoOf = (ms: number): string => {
  const text = new Date(ms).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
};

const line = (cells: string[]): string => `${cells.map(csvCell).join(',')}\r\n`;
/** A project's or task's `data`: its own VAT (decisions §12) as `{"v":1,"taxCategory":"S","taxRate":7}`, or empty without one. */
const workData = (w: { taxCategory: string | null; taxRate: number | null }): string =>
  w.taxCategory === null ? '' : JSON.stringify({ v: 1, taxCategory: w.taxCategory, taxRate: w.taxRate });
const flag = (value: boolean): string => (value ? 'true' : 'false');
const decimalOrEmpty = (value: number | null): string => (value === null ? '' : decimalText(value));

/** What an export wrote, counted while it streams. */
export interface ExportCounts {
  entries: number;
  clients: number;
  projects: number;
  tasks: number;
  tags: number;
  members: number;
  invoices: number;
  bytes: number;
}

export interface ExportDeps {
  entries: Pick<EntryImports, 'exportPage'>;
  catalog: Pick<CatalogImports, 'snapshot' | 'clientRecord'>;
  contacts: (ids: string[]) => Array<{ id: string; name: string; email: string }>;
  invoices: Pick<InvoiceTransfer, 'exportProfile' | 'exportSettings' | 'exportInvoices'>;
  /** Approval and lock (decisions §13): the settings and the periods with their audit; absent: none. */
  approvals?: Pick<ApprovalTransfer, 'exportOf'>;
  /** Expenses with their receipts (issue 57): absent, none. */
  expenses?: Pick<ExpenseTransfer, 'exportOf'>;
  /** The workspace's rate and settings, and its members' rates and flags with their emails and names. */
  rates: (workspaceId: string) => {
    workspace: number | null;
    settings: ExportedWorkspaceSettings | null;
    members: Array<{
      userId: string;
      name: string;
      email: string;
      hourlyRate: number | null;
      isOwner: boolean;
      canViewOthersTime: boolean;
      canViewOthersMoney: boolean;
    }>;
  };
}

/**
 * What a whole-workspace export leaves out for an exporter who may not read colleagues' money
 * (issue 54 N7: the rule of who reads invoices and money, src/modules/invoices/access.ts): the
 * invoices and credit notes (with the entries' `invoice` cells), project and task rates and
 * budgets, and the rates of colleagues' entries (their `hourlyRate` cells empty: an import gives
 * them the usual resolution). The exporter's own entries keep their rates; the workspace's and
 * the members' rates, the issuer profile and the invoicing settings stay (an owner reads and sets
 * them on the Workspace and Members pages, whatever they may see). The file says so in its head:
 * a `withheld` row right after the header, its sentence in `description` and the list in `data`.
 */
export const WITHHELD_PARTS = ['invoices', 'projectRates', 'taskRates', 'budgets', 'colleaguesEntryRates'] as const;
export const WITHHELD_SENTENCE =
  "This export leaves out what its exporter may not read (colleagues' money): invoices and credit notes, project and task rates and budgets, and the rates of colleagues' entries (empty: an import gives them the usual rate). An owner who sees colleagues' money, or the operator (timetrack export), exports them.";

/** Whose money an export holds: all of it, or (null reader: the operator) only what `reader` may read. */
export interface ExportView {
  /** False: the exporter may not read colleagues' money (WITHHELD_PARTS are left out). */
  money: boolean;
  /** The exporter, whose own entries keep their rates when money is withheld. */
  reader: string | null;
}

/** The version of the rate records (`workspace`, `member`). */
const RATE_RECORD_VERSION = 1;
/** A record's JSON, for the `data` cell. */
const json = (value: unknown): string => JSON.stringify(value);

/**
 * The issuer profile, the invoicing settings, the workspace's row (its rate, name, runaway and
 * request settings, join domains) and each member's (rate, owner role, what they see), each as the
 * JSON of its record.
 */
function workspaceRecords(deps: ExportDeps, workspaceId: string, rates: ReturnType<ExportDeps['rates']>): string {
  const empty = (n: number) => Array<string>(n).fill('');
  const record = (kind: string, data: unknown) => line([kind, ...empty(17), json(data), '']);
  let text = '';
  const profile = deps.invoices.exportProfile(workspaceId);
  if (profile !== null) text += record('profile', { v: 1, profile });
  const settings = deps.invoices.exportSettings(workspaceId);
  if (settings !== null) text += record('invoicing', { v: 1, settings });
  text += record('workspace', { v: RATE_RECORD_VERSION, hourlyRate: rates.workspace, ...(rates.settings ?? {}) });
  for (const m of rates.members) {
    const { hourlyRate, isOwner, canViewOthersTime, canViewOthersMoney } = m;
    const data = { v: RATE_RECORD_VERSION, hourlyRate, isOwner, canViewOthersTime, canViewOthersMoney };
    text += line(['member', '', m.email, m.name, ...empty(14), json(data), '']);
  }
  return text;
}

/** A workspace's invoices and credit notes as rows: each its record, with the names of the client, projects and members it refers to. */
function invoiceRecords(
  deps: ExportDeps,
  workspaceId: string,
  names: {
    clientName: Map<string, string>;
    projects: Map<string, { name: string; client: string }>;
    emails: Map<string, { email: string; name: string }>;
  },
): { text: string; count: number } {
  const { clientName, projects, emails } = names;
  const empty = (n: number) => Array<string>(n).fill('');
  const invoices = deps.invoices.exportInvoices(workspaceId);
  const unknownUsers = [...new Set(invoices.flatMap((i) => [i.createdBy, ...i.userIds]).filter((id) => !emails.has(id)))];
  for (const c of deps.contacts(unknownUsers)) emails.set(c.id, { email: c.email, name: c.name });
  let text = '';
  for (const i of invoices) {
    const author = emails.get(i.createdBy) ?? { email: '', name: '' };
    const refs = {
      projects: Object.fromEntries(i.projectIds.flatMap((id) => (projects.has(id) ? [[id, projects.get(id)]] : []))),
      users: Object.fromEntries(i.userIds.flatMap((id) => (emails.has(id) ? [[id, { email: emails.get(id)?.email }]] : []))),
    };
    text += line([
      'invoice',
      i.id,
      author.email,
      author.name,
      ...empty(4),
      clientName.get(i.clientId) ?? '',
      ...empty(9),
      json({ ...i.record, refs }),
      '',
    ]);
  }
  return { text, count: invoices.length };
}

/**
 * Approval and lock (decisions §13) as rows after the entries (an import writes the entries
 * before it restores what locks them): the settings (`approval`) and each period (`period`, its
 * member in the email and member columns) with its audit, people by email and name; '' when none.
 */
function approvalRecords(deps: ExportDeps, workspaceId: string): string {
  const found = deps.approvals?.exportOf(workspaceId) ?? null;
  if (found === null) return '';
  const ids = new Set<string>(found.settings?.approvers ?? []);
  for (const { period, audit } of found.periods) {
    ids.add(period.userId);
    if (period.decidedBy) ids.add(period.decidedBy);
    for (const a of audit) if (a.byUserId) ids.add(a.byUserId);
  }
  const people = new Map(deps.contacts([...ids]).map((c) => [c.id, { email: c.email, name: c.name }]));
  const personOf = (id: string): PersonRecord => people.get(id) ?? { email: '', name: '' };
  const empty = (n: number) => Array<string>(n).fill('');
  let text = '';
  if (found.settings) {
    const record: ApprovalRecord = { v: 1, ...found.settings, approvers: found.settings.approvers.map(personOf) };
    text += line(['approval', ...empty(17), json(record), '']);
  }
  for (const { period: p, audit } of found.periods) {
    const member = personOf(p.userId);
    const record: PeriodRecord = {
      v: 1,
      kind: p.kind,
      startDay: p.startDay,
      timeZone: p.timeZone,
      from: new Date(p.fromAt).toISOString(),
      to: new Date(p.toAt).toISOString(),
      state: p.state,
      note: p.note,
      submittedAt: p.submittedAt === null ? null : new Date(p.submittedAt).toISOString(),
      decidedAt: p.decidedAt === null ? null : new Date(p.decidedAt).toISOString(),
      decidedBy: p.decidedBy === null ? null : personOf(p.decidedBy),
      audit: audit.map((a) => ({
        action: a.action,
        by: a.byUserId !== null ? personOf(a.byUserId) : a.byName !== null ? { email: '', name: a.byName } : null,
        note: a.note,
        at: new Date(a.at).toISOString(),
      })),
    };
    text += line(['period', p.id, member.email, member.name, ...empty(14), json(record), '']);
  }
  return text;
}

/**
 * A workspace in the timetrack format, as text chunks (a UTF-8 BOM first, CRLF lines): the
 * header, the whole catalog (clients, projects, tasks, tags, archived ones included, each with
 * what a new row of it needs: a project's color, billable default, rate, estimate and budget, a
 * task's rate and estimate), then the completed entries starting in [from, to), in the order they
 * are stored (mostly the order they were made: reading so is three times as fast), each
 * with its author's email and name, its zone, its work and tags by name, billable and rate
 * (`none`: the entry has no rate, which the import keeps). The entries are read a page at a time
 * by keyset (their storage position), so memory stays flat and no statement stays open between chunks: a
 * consumer that waits (a slow download) holds nothing of the database. A write meanwhile may land
 * before or after the position read: the export is of the entries as each page found them.
 */
export async function* exportChunks(
  deps: ExportDeps,
  q: { workspaceId: string; from: number; to: number; currency: string; view?: ExportView },
  counts: ExportCounts,
): AsyncGenerator<string> {
  const money = q.view?.money ?? true;
  const reader = q.view?.reader ?? null;
  const emit = (text: string): string => {
    counts.bytes += Buffer.byteLength(text);
    return text;
  };
  const header = EXPORT_COLUMNS.map((c) => (c === 'hourlyRate' ? `hourlyRate (${q.currency})` : c));
  // The file's head says what it leaves out (issue 54 N7), before any record.
  const withheld = money
    ? ''
    : line([
        'withheld',
        ...Array<string>(6).fill(''),
        WITHHELD_SENTENCE,
        ...Array<string>(10).fill(''),
        json({ v: 1, withheld: WITHHELD_PARTS }),
        '',
      ]);
  yield emit(`\uFEFF${header.join(',')}\r\n${withheld}`);

  const catalog = deps.catalog.snapshot(q.workspaceId);
  const clientName = new Map(catalog.clients.map((c) => [c.id, c.name]));
  const projects = new Map(
    catalog.projects.map((p) => [p.id, { name: p.name, client: p.clientId ? (clientName.get(p.clientId) ?? '') : '' }]),
  );
  const taskName = new Map(catalog.tasks.map((t) => [t.id, t.name]));
  const tagName = new Map(catalog.tags.map((t) => [t.id, t.name]));
  const blank = (n: number) => Array<string>(n).fill('');
  // record, id, email, member, start, end, timeZone, description: empty on catalog rows.
  const lead = (record: string) => [record, ...blank(7)];
  // The workspace's own records first (an import applies them before the rows that use them).
  const rates = deps.rates(q.workspaceId);
  let text = workspaceRecords(deps, q.workspaceId, rates);
  const emails = new Map(rates.members.map((m) => [m.userId, { email: m.email, name: m.name }]));
  for (const c of catalog.clients)
    text += line([...lead('client'), c.name, '', '', '', '', '', flag(c.archived), '', '', '', json(deps.catalog.clientRecord(c)), '']);
  for (const p of catalog.projects) {
    const { client } = projects.get(p.id) as { client: string };
    text += line([
      ...lead('project'),
      client,
      p.name,
      '',
      '',
      flag(p.billable),
      money ? decimalOrEmpty(p.hourlyRate) : '',
      flag(p.archived),
      p.color,
      p.estimateSec === null ? '' : String(p.estimateSec),
      money ? decimalOrEmpty(p.budgetAmount) : '',
      workData(p),
      '',
    ]);
  }
  for (const t of catalog.tasks) {
    const project = projects.get(t.projectId) as { name: string; client: string };
    text += line([
      ...lead('task'),
      project.client,
      project.name,
      t.name,
      '',
      '',
      money ? decimalOrEmpty(t.hourlyRate) : '',
      flag(t.archived),
      '',
      t.estimateSec === null ? '' : String(t.estimateSec),
      '',
      workData(t),
      '',
    ]);
  }
  for (const t of catalog.tags) text += line([...lead('tag'), '', '', '', tagsCell([t.name]), '', '', '', '', '', '', '', '']);
  // Invoices and credit notes, oldest first, after the catalog (an import finds their client and
  // projects by name) and before the entries (which name the invoice that holds them).
  const invoices = money ? invoiceRecords(deps, q.workspaceId, { clientName, projects, emails }) : { text: '', count: 0 };
  text += invoices.text;
  Object.assign(counts, {
    clients: catalog.clients.length,
    projects: catalog.projects.length,
    tasks: catalog.tasks.length,
    tags: catalog.tags.length,
    members: rates.members.length,
    invoices: invoices.count,
  });
  yield emit(text);

  const authors = new Map<string, { email: string; name: string }>();
  /** An entry's rate: exactly, `none` when it has none; empty when it is a colleague's money the exporter may not read. */
  const rateCell = (e: { authorId: string; hourlyRate: number | null }): string =>
    !money && e.authorId !== reader ? '' : e.hourlyRate === null ? 'none' : decimalText(e.hourlyRate);
  let after = 0;
  for (;;) {
    const page = deps.entries.exportPage({
      workspaceId: q.workspaceId,
      from: q.from,
      to: q.to,
      after,
      limit: EXPORT_PAGE,
    });
    if (page.length === 0) break;
    const unknown = [...new Set(page.map((e) => e.authorId).filter((id) => !authors.has(id)))];
    for (const c of deps.contacts(unknown)) authors.set(c.id, { email: c.email, name: c.name });
    text = '';
    for (const e of page) {
      const author = authors.get(e.authorId) ?? { email: '', name: '' };
      const project = e.projectId === null ? undefined : projects.get(e.projectId);
      // One line by concatenation (the cells whose text we made ourselves need no quoting):
      // record, id, email, member, start, end, timeZone, description, client, project, task,
      // tags, billable, hourlyRate, the catalog's four columns empty, data (what the runaway check
      // recorded on it, when it did), and its invoice.
      text +=
        `entry,${e.id},${csvCell(author.email)},${csvCell(author.name)},${isoOf(e.start)},${isoOf(e.end)},${e.timeZone ?? ''},` +
        `${csvCell(e.description)},${csvCell(project?.client ?? '')},${csvCell(project?.name ?? '')},` +
        `${e.taskId === null ? '' : csvCell(taskName.get(e.taskId) ?? '')},${e.tagIds.length === 0 ? '' : csvCell(tagsCell(e.tagIds.map((id) => tagName.get(id) ?? '').filter((name) => name !== '')))},` +
        `${e.billable ? 'true' : 'false'},${rateCell(e)},,,,,${e.runaway ? csvCell(json({ v: 1, runaway: e.runaway })) : ''},${money ? (e.invoiceId ?? '') : ''}\r\n`;
    }
    counts.entries += page.length;
    after = (page[page.length - 1] as (typeof page)[number]).position;
    yield emit(text);
    if (page.length < EXPORT_PAGE) break;
    // The event loop turns between pages, however fast the consumer takes them.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const approvals = approvalRecords(deps, q.workspaceId);
  if (approvals !== '') yield emit(approvals);
  // Expenses last (an import binds an invoiced one to the invoice restored above), each with its receipt's parts.
  for await (const chunk of expenseRecords(deps, q.workspaceId, { projects, emails, money, reader })) yield emit(chunk);
}

/**
 * Expenses (issue 57) as rows, a chunk per expense: its record (`expense`: its author in the
 * email and member columns, its project in client and project, its invoice's exported id in
 * invoice), then its receipt's bytes in `receipt` rows of at most 64,000 characters of base64
 * (its exported id in the id column). An exporter who may not read colleagues' money gets their
 * own expenses, without invoices (issue 54 N7).
 */
async function* expenseRecords(
  deps: ExportDeps,
  workspaceId: string,
  a: {
    projects: Map<string, { name: string; client: string }>;
    emails: Map<string, { email: string; name: string }>;
    money: boolean;
    reader: string | null;
  },
): AsyncGenerator<string> {
  if (!deps.expenses) return;
  const empty = (n: number) => Array<string>(n).fill('');
  for (const { row, record, parts } of deps.expenses.exportOf(workspaceId)) {
    if (!a.money && row.authorId !== a.reader) continue;
    if (!a.emails.has(row.authorId)) for (const c of deps.contacts([row.authorId])) a.emails.set(c.id, { email: c.email, name: c.name });
    const author = a.emails.get(row.authorId) ?? { email: '', name: '' };
    const project = a.projects.get(row.projectId) ?? { name: '', client: '' };
    let text = line([
      'expense',
      row.id,
      author.email,
      author.name,
      ...empty(4),
      project.client,
      project.name,
      ...empty(8),
      json(record),
      a.money ? (row.invoiceId ?? '') : '',
    ]);
    parts.forEach((bytes, part) => {
      text += line(['receipt', row.id, ...empty(16), json({ v: 1, part, bytes }), '']);
    });
    yield text;
    // The event loop turns between expenses (a receipt is up to 10 MB of base64).
    await new Promise((resolve) => setImmediate(resolve));
  }
}
