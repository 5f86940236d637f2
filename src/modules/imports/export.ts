import { decimalOf } from '../../kernel/money.js';
import type { CatalogImports } from '../catalog/service.js';
import type { EntryImports } from '../entries/service.js';
import { QUOTED_FORMULA_START } from '../../kernel/spreadsheet.js';

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
const flag = (value: boolean): string => (value ? 'true' : 'false');
const money = (value: number | null): string => (value === null ? '' : decimalText(value));

/** What an export wrote, counted while it streams. */
export interface ExportCounts {
  entries: number;
  clients: number;
  projects: number;
  tasks: number;
  tags: number;
  bytes: number;
}

export interface ExportDeps {
  entries: Pick<EntryImports, 'exportPage'>;
  catalog: Pick<CatalogImports, 'snapshot'>;
  contacts: (ids: string[]) => Array<{ id: string; name: string; email: string }>;
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
  q: { workspaceId: string; from: number; to: number; currency: string },
  counts: ExportCounts,
): AsyncGenerator<string> {
  const emit = (text: string): string => {
    counts.bytes += Buffer.byteLength(text);
    return text;
  };
  const header = EXPORT_COLUMNS.map((c) => (c === 'hourlyRate' ? `hourlyRate (${q.currency})` : c));
  yield emit(`\uFEFF${header.join(',')}\r\n`);

  const catalog = deps.catalog.snapshot(q.workspaceId);
  const clientName = new Map(catalog.clients.map((c) => [c.id, c.name]));
  const projects = new Map(
    catalog.projects.map((p) => [p.id, { name: p.name, client: p.clientId ? (clientName.get(p.clientId) ?? '') : '' }]),
  );
  const taskName = new Map(catalog.tasks.map((t) => [t.id, t.name]));
  const tagName = new Map(catalog.tags.map((t) => [t.id, t.name]));
  const blank = (n: number) => Array<string>(n).fill('');
  let text = '';
  // record, id, email, member, start, end, timeZone, description: empty on catalog rows.
  const lead = (record: string) => [record, ...blank(7)];
  for (const c of catalog.clients) text += line([...lead('client'), c.name, '', '', '', '', '', flag(c.archived), '', '', '']);
  for (const p of catalog.projects) {
    const { client } = projects.get(p.id) as { client: string };
    text += line([
      ...lead('project'),
      client,
      p.name,
      '',
      '',
      flag(p.billable),
      money(p.hourlyRate),
      flag(p.archived),
      p.color,
      p.estimateSec === null ? '' : String(p.estimateSec),
      money(p.budgetAmount),
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
      money(t.hourlyRate),
      flag(t.archived),
      '',
      t.estimateSec === null ? '' : String(t.estimateSec),
      '',
    ]);
  }
  for (const t of catalog.tags) text += line([...lead('tag'), '', '', '', tagsCell([t.name]), '', '', '', '', '', '']);
  Object.assign(counts, {
    clients: catalog.clients.length,
    projects: catalog.projects.length,
    tasks: catalog.tasks.length,
    tags: catalog.tags.length,
  });
  yield emit(text);

  const authors = new Map<string, { email: string; name: string }>();
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
      // tags, billable, hourlyRate, and the catalog's four columns empty.
      text +=
        `entry,${e.id},${csvCell(author.email)},${csvCell(author.name)},${isoOf(e.start)},${isoOf(e.end)},${e.timeZone ?? ''},` +
        `${csvCell(e.description)},${csvCell(project?.client ?? '')},${csvCell(project?.name ?? '')},` +
        `${e.taskId === null ? '' : csvCell(taskName.get(e.taskId) ?? '')},${e.tagIds.length === 0 ? '' : csvCell(tagsCell(e.tagIds.map((id) => tagName.get(id) ?? '').filter((name) => name !== '')))},` +
        `${e.billable ? 'true' : 'false'},${e.hourlyRate === null ? 'none' : decimalText(e.hourlyRate)},,,,\r\n`;
    }
    counts.entries += page.length;
    after = (page[page.length - 1] as (typeof page)[number]).position;
    yield emit(text);
    if (page.length < EXPORT_PAGE) break;
    // The event loop turns between pages, however fast the consumer takes them.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
