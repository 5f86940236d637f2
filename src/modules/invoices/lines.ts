import { invalidAt } from '../../errors.js';
import { offsetStretches, type OffsetStretch } from '../../kernel/local-days.js';
import { amountCents, fromCents } from '../../kernel/money.js';
import { roundSeconds, type RoundingText } from '../../kernel/rounding.js';
import type { OwnTax } from '../../kernel/tax.js';
import type { DocumentLanguage, InvoiceDocumentLine, LineGrouping } from './document.js';
import { formatsOf, labelsOf } from './documents/labels.js';
import { periodDescription } from './tax.js';

/*
 * How an invoice's entries become lines (decisions §11, `--group-by`): one line per group and
 * rate, its quantity the group's seconds and its net rate × seconds / 3600 rounded once to the
 * cent, so quantity × price = net on every line; an entry line is the entry itself, its net the
 * entry's amount. With a rounding rule (decisions 14) each entry's seconds are rounded first,
 * then grouped: a line's quantity is the sum of its entries' rounded seconds. Pure: the entries
 * and the names come from the entries, catalog and accounts modules.
 */

export const LINE_GROUPINGS: readonly LineGrouping[] = ['project', 'task', 'member', 'entry', 'single'];

/**
 * The most lines an invoice holds (issue 44 L6): a client reads every one, and the PDF, the
 * XML and the page grow with them (a year by entry was 57,366 lines, 27 MB of a preview's HTML).
 * A month by entry of a busy team stays well under it.
 */
export const MAX_INVOICE_LINES = 1000;

const GROUPING_WORDS: Record<LineGrouping, string> = {
  project: 'a line per project',
  task: 'a line per project and task',
  member: 'a line per member',
  entry: 'a line per entry',
  single: 'one line for the whole period',
};

/**
 * Refuses (at the Lines field, `groupBy`) an invoice of more lines than an invoice holds, suggesting
 * the groupings that make fewer. `counted: 'up to the cap'` when the count stopped past the cap
 * (one line per entry: the entries are not counted to their end, issue 54 I2), so the refusal says
 * "more than" rather than a number it does not know.
 */
export function checkLineCount(count: number, groupBy: LineGrouping, counted: 'all' | 'up to the cap' = 'all'): void {
  if (count <= MAX_INVOICE_LINES) return;
  const others = LINE_GROUPINGS.filter((g) => g !== groupBy && g !== 'entry').map((g) => GROUPING_WORDS[g]);
  const lines = counted === 'all' ? count.toLocaleString('en') : `more than ${MAX_INVOICE_LINES.toLocaleString('en')}`;
  throw invalidAt(
    'groupBy',
    `This invoice would have ${lines} lines (${GROUPING_WORDS[groupBy]}); an invoice holds at most ${MAX_INVOICE_LINES.toLocaleString('en')}. Choose fewer lines: ${others.slice(0, -1).join(', ')} or ${others.at(-1) as string}; or invoice a shorter range.`,
  );
}

/** Invoiceable time summed per (project, task, member, rate). */
export interface TimeGroup {
  projectId: string;
  taskId: string | null;
  authorId: string;
  hourlyRate: number | null;
  quantitySec: number;
  entryCount: number;
}

/** One invoiceable entry (the `entry` grouping, and every grouping of rounded time). */
export interface TimeEntry {
  id: string;
  startAt: number;
  timeZone: string | null;
  description: string;
  projectId: string;
  taskId: string | null;
  authorId: string;
  hourlyRate: number | null;
  durationSec: number;
  amountCents: number | null;
}

export interface Names {
  projects: ReadonlyMap<string, string>;
  tasks: ReadonlyMap<string, string>;
  members: ReadonlyMap<string, string>;
}

/**
 * The calendar day of each entry's start in the invoice's zone (the creating member's, whose days
 * the range is: decisions 11a), so every line's day lies in the service period. The zone's
 * offsets over the entries' span are found once (kernel/local-days: a few luxon calls a month),
 * not per entry: luxon for each of 20,000 entries cost a third of a second.
 */
function startDays(entries: readonly TimeEntry[], zone: string): (entry: TimeEntry) => string {
  const first = entries[0]?.startAt ?? 0;
  const last = entries.reduce((max, e) => Math.max(max, e.startAt), first);
  if (zone === 'UTC') return (entry) => new Date(entry.startAt).toISOString().slice(0, 10);
  const stretches = offsetStretches(first, last + 1, zone);
  return (entry) => {
    let offset = (stretches[0] as OffsetStretch).offsetMs;
    for (const stretch of stretches) if (stretch.from <= entry.startAt) offset = stretch.offsetMs;
    return new Date(entry.startAt + offset).toISOString().slice(0, 10);
  };
}

/** An entry line's day as the documents write dates in their language: 05.10.2026, 5 Oct 2026. */
export const lineDate = (day: string, language: DocumentLanguage): string => formatsOf(labelsOf(language), 'EUR').date(day);

/**
 * The entries rounded by a rule (issue 56 item 4), each on its own: its seconds rounded, its net
 * rate × rounded seconds / 3600 rounded once to the cent (null without a rate, as before).
 */
export function roundedEntries(entries: readonly TimeEntry[], rule: RoundingText): TimeEntry[] {
  return entries.map((e) => {
    const durationSec = roundSeconds(e.durationSec, rule);
    return { ...e, durationSec, amountCents: amountCents(true, e.hourlyRate, durationSec) };
  });
}

/** Entries summed per (project, task, member, rate), as the entries module sums them for time that is not rounded. */
export function groupsOf(entries: readonly TimeEntry[]): TimeGroup[] {
  const groups = new Map<string, TimeGroup>();
  for (const e of entries) {
    const key = JSON.stringify([e.projectId, e.taskId, e.authorId, e.hourlyRate]);
    const group = groups.get(key);
    if (group) {
      group.quantitySec += e.durationSec;
      group.entryCount += 1;
    } else
      groups.set(key, {
        projectId: e.projectId,
        taskId: e.taskId,
        authorId: e.authorId,
        hourlyRate: e.hourlyRate,
        quantitySec: e.durationSec,
        entryCount: 1,
      });
  }
  return [...groups.values()];
}

/** UTF-8 byte order of the lower-cased text, as SQLite compares text: lines by name. */
const byName = (a: string, b: string) => Buffer.compare(Buffer.from(a.toLowerCase()), Buffer.from(b.toLowerCase()));
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

interface Line {
  sort: Array<string | number>;
  description: string;
  projectIds: Set<string>;
  hourlyRate: number;
  quantitySec: number;
  tax: OwnTax | null;
}

/** A line of time with the VAT of its own work (its task's, else its project's: decisions §12), null: the invoice's own. */
export type TimeLine = InvoiceDocumentLine & { ownTax: OwnTax | null };

/** The tax of a line's own in its key and order: none first, then zero rated, then the standard rate by rate. */
const taxKey = (tax: OwnTax | null): number => (tax === null ? -1 : tax.category === 'Z' ? 0 : tax.rate);

/**
 * The lines of the invoice, each with the tax of its own work (`taxOf`: its task's, else its
 * project's; null: the invoice's own), in the order the grouping reads (names, then ids, then
 * rate, then tax). Time taxed differently is never on one line: a line per project, member or
 * period splits by tax (a line per task or entry has one tax already).
 */
export function linesOf(
  grouping: LineGrouping,
  groups: readonly TimeGroup[],
  entries: readonly TimeEntry[],
  names: Names,
  period: { from: string; to: string; language: DocumentLanguage; timeZone: string },
  taxOf: (projectId: string, taskId: string | null) => OwnTax | null = () => null,
): TimeLine[] {
  const project = (id: string) => names.projects.get(id) ?? id;
  if (grouping === 'entry') {
    // The entries come in the order of their start (then id), as the invoice lists them.
    const dayOf = startDays(entries, period.timeZone);
    return entries.map((e) => ({
      description: `${lineDate(dayOf(e), period.language)} ${e.description.trim() === '' ? project(e.projectId) : e.description.trim()}`,
      projectId: e.projectId,
      quantitySec: e.durationSec,
      hourlyRate: e.hourlyRate as number,
      amount: fromCents(e.amountCents as number),
      ownTax: taxOf(e.projectId, e.taskId),
    }));
  }
  const lines = new Map<string, Line>();
  for (const g of groups) {
    const rate = g.hourlyRate as number;
    const tax = taxOf(g.projectId, g.taskId);
    const taxed = taxKey(tax);
    let key: string;
    let sort: Array<string | number>;
    let description: string;
    if (grouping === 'project') {
      key = JSON.stringify([g.projectId, rate, taxed]);
      sort = [project(g.projectId), g.projectId, rate, taxed];
      description = project(g.projectId);
    } else if (grouping === 'task') {
      key = JSON.stringify([g.projectId, g.taskId, rate]);
      const task = g.taskId === null ? '' : (names.tasks.get(g.taskId) ?? g.taskId);
      sort = [project(g.projectId), g.projectId, task, g.taskId ?? '', rate];
      description = task === '' ? project(g.projectId) : `${project(g.projectId)} – ${task}`;
    } else if (grouping === 'member') {
      key = JSON.stringify([g.authorId, rate, taxed]);
      const member = names.members.get(g.authorId) ?? g.authorId;
      sort = [member, g.authorId, rate, taxed];
      description = member;
    } else {
      key = JSON.stringify([rate, taxed]);
      sort = [rate, taxed];
      description = periodDescription(period.from, period.to, period.language);
    }
    const line = lines.get(key) ?? { sort, description, projectIds: new Set(), hourlyRate: rate, quantitySec: 0, tax };
    line.quantitySec += g.quantitySec;
    line.projectIds.add(g.projectId);
    lines.set(key, line);
  }
  return [...lines.values()]
    .sort((a, b) => {
      for (let i = 0; i < a.sort.length; i++) {
        const x = a.sort[i] as string | number;
        const y = b.sort[i] as string | number;
        const order =
          typeof x === 'number'
            ? x - (y as number)
            : i === 0 || (grouping === 'task' && i === 2)
              ? byName(x, y as string)
              : byBytes(x, y as string);
        if (order !== 0) return order;
      }
      return 0;
    })
    .map((line) => ({
      description: line.description,
      projectId: line.projectIds.size === 1 ? ([...line.projectIds][0] as string) : null,
      quantitySec: line.quantitySec,
      hourlyRate: line.hourlyRate,
      amount: fromCents(amountCents(true, line.hourlyRate, line.quantitySec) as number),
      ownTax: line.tax,
    }));
}
