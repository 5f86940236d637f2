/*
 * How the changes are shown: `text` (the terminal), `markdown` (a table for a pull request's job
 * summary or a merge request's note), `github` (GitHub workflow commands: an annotation on the
 * line of the contract where each change is) and `codequality` (GitLab's code-quality report).
 */
import { createHash } from 'node:crypto';
import type { Change } from './diff.js';
import type { AcceptedChange, Judged, Status, Verdict } from './gate.js';
import type { SourceMap } from './source.js';

/** A judged change with its line in the new file (and in the old one, where it was there). */
export interface Placed extends Judged {
  line: number;
  /** False when the new file has no place of its own for it (a removed thing): `line` is its parent's. */
  exact: boolean;
  /** Its line in the base's file, when it was there. */
  beforeLine?: number;
}

export interface Side {
  /** `2ff300f`, `working tree`. */
  label: string;
  /** How it was chosen: `merge base with main`, `last tag`. */
  why?: string;
  version: string;
}

/** `2ff300f (merge base with main; version 1.0.0)`. */
const sideText = (side: Side): string => `${side.label} (${side.why ? `${side.why}; ` : ''}version ${side.version})`;

export interface Report {
  /** The contract, as a path in the repository: `openapi/openapi.yaml`. */
  file: string;
  acceptedFile: string;
  base: Side;
  head: Side;
  verdict: Verdict;
  /** Every change, placed, in the order shown: blocking, other breaking, the rest; then by line. */
  changes: Placed[];
  /** Prefix of a link to a line of the new file (`https://github.com/o/r/blob/<sha>/`), if any. */
  sourceUrl?: string;
}

const ORDER: Record<Status, number> = { blocking: 0, accepted: 1, major: 1, 'non-breaking': 2 };

/** Places each change in the new file (its own line, else its parent's) and the old one. */
export function place(verdict: Verdict, after: SourceMap, before: SourceMap | undefined): Placed[] {
  const placed = verdict.changes.map((change): Placed => {
    const found = change.where.after ? after.line(change.where.after) : { line: 1, exact: false };
    // Gone from the new file: its line there is another node's (the parent, the schema that lost a keyword).
    const last = (pointer: string | undefined) => pointer?.split('/').pop();
    const removed = change.where.before !== undefined && last(change.where.after) !== last(change.where.before);
    const beforeLine = change.where.before && before ? before.line(change.where.before).line : undefined;
    return { ...change, line: found.line, exact: found.exact && !removed, ...(beforeLine !== undefined ? { beforeLine } : {}) };
  });
  return placed.sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.line - b.line);
}

// ----------------------------------------------------------------------------------------------
// text

/** One line per change, the breaking ones first (the terminal's form, unchanged). */
export function formatChanges(changes: (Change & { accepted?: AcceptedChange })[]): string[] {
  const sorted = [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)];
  return sorted.map((c) => {
    const what = c.detail ? `${c.kind}: ${c.detail}` : c.kind;
    const accepted = c.accepted ? `  (accepted: ${c.accepted.reason})` : '';
    return `${c.breaking ? 'BREAKING    ' : 'non-breaking'}  ${c.location}  ${what}${accepted}`;
  });
}

/** The summary line under the list and what the gate decided. */
export function summaryLines(report: Report): string[] {
  const { verdict, acceptedFile } = report;
  const breaking = verdict.changes.filter((c) => c.breaking);
  const accepted = breaking.filter((c) => c.status === 'accepted').length;
  const lines = [`${verdict.changes.length} changes, ${breaking.length} breaking (${accepted} accepted in ${acceptedFile}).`];
  for (const entry of verdict.unused) lines.push(`note: ${acceptedFile} entry matches no change: ${entry.kind} at ${entry.location}`);
  if (verdict.majorRaised && breaking.length > 0) lines.push('info.version has a new major version: breaking changes are allowed.');
  for (const change of verdict.blocking) if (change.note) lines.push(`${change.location} ${change.kind}: ${change.note}`);
  return lines;
}

// ----------------------------------------------------------------------------------------------
// markdown

/** A table cell: no line breaks, `|` escaped. */
const cell = (text: string): string => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
/** Inline code that survives any backticks inside. */
const code = (text: string): string => {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${text.includes('`') ? ` ${text} ` : text}${fence}`;
};
const arrow = (detail: string): string => detail.replace(/ -> /g, ' → ');

/** `GET /api/v1/entries query.limit` → [`GET /api/v1/entries`, `query.limit`]. */
export function splitLocation(location: string): [string, string] {
  const match = /^(webhook \S+(?: [A-Z]+(?= |$))?|[A-Z]+ \/\S*|\/\S*)(?: (.*))?$/.exec(location);
  return match ? [match[1] as string, match[2] ?? ''] : [location, ''];
}

const STATUS_TEXT: Record<Status, string> = {
  blocking: '**no**',
  accepted: 'yes',
  major: 'new major',
  'non-breaking': '',
};

function lineCell(report: Report, change: Placed): string {
  const label = change.exact ? String(change.line) : `${change.line}*`;
  return report.sourceUrl ? `[${label}](${report.sourceUrl}${report.file}#L${change.line})` : label;
}

function row(report: Report, change: Placed): string {
  const [operation, rest] = splitLocation(change.location);
  const where = rest ? `${code(operation)} ${code(rest)}` : code(operation);
  let accepted = STATUS_TEXT[change.status];
  if (change.status === 'accepted' && change.accepted) accepted = `yes: ${change.accepted.reason}`;
  if (change.status === 'major') accepted = `new major version (${report.head.version})`;
  if (change.status === 'blocking' && change.note) accepted = `**no**: ${change.note}`;
  const cells = [lineCell(report, change), where, code(change.kind), arrow(change.detail), change.breaking ? '**yes**' : 'no', accepted];
  return `| ${cells.map(cell).join(' | ')} |`;
}

const HEADER = ['| Line | Location | Change | Before → after | Breaking | Accepted |', '|---:|---|---|---|---|---|'];

/** Past this many non-breaking rows, they are folded under a summary line. */
const FOLD_AFTER = 30;

export function formatMarkdown(report: Report): string {
  const { verdict, changes, file, base, head } = report;
  const breaking = changes.filter((c) => c.breaking);
  const rest = changes.filter((c) => !c.breaking);
  const out: string[] = [`### Contract changes: \`${file}\``, ''];
  out.push(`${sideText(base)} → ${sideText(head)}`, '');
  if (verdict.blocking.length > 0) {
    out.push(
      `:x: **${verdict.blocking.length} breaking change${verdict.blocking.length === 1 ? '' : 's'} not accepted.** ` +
        `Raise \`info.version\`'s major, or have each reviewed and listed in \`${report.acceptedFile}\` with a reason.`,
    );
  } else if (breaking.length > 0) {
    out.push(`:white_check_mark: ${breaking.length} breaking change${breaking.length === 1 ? '' : 's'}, each accepted.`);
  } else {
    out.push(`:white_check_mark: No breaking change${changes.length > 0 ? '' : ' (no change at all)'}.`);
  }
  out.push('', `${changes.length} change${changes.length === 1 ? '' : 's'}, ${breaking.length} breaking.`);
  if (changes.some((c) => !c.exact))
    out.push('', '`*` The line of what now holds a removed thing (its parent); the change says where it was.');
  if (breaking.length > 0) out.push('', ...HEADER, ...breaking.map((c) => row(report, c)));
  if (rest.length > 0) {
    const table = [...HEADER, ...rest.map((c) => row(report, c))];
    if (rest.length > FOLD_AFTER)
      out.push('', `<details><summary>${rest.length} non-breaking changes</summary>`, '', ...table, '', '</details>');
    else out.push('', ...table);
  }
  for (const entry of verdict.unused)
    out.push('', `Note: \`${report.acceptedFile}\` entry matches no change: \`${entry.kind}\` at \`${entry.location}\`.`);
  return `${out.join('\n')}\n`;
}

// ----------------------------------------------------------------------------------------------
// github

/** Escapes for workflow commands: the message, and (more) a property value. */
const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

type Level = 'error' | 'warning' | 'notice';
const LEVEL: Record<Status, Level> = { blocking: 'error', accepted: 'warning', major: 'warning', 'non-breaking': 'notice' };
const TITLE: Record<Level, string> = {
  error: 'Breaking change, not accepted',
  warning: 'Breaking change, accepted',
  notice: 'Contract change',
};

/** GitHub shows at most 10 annotations of each level per step. */
const PER_LEVEL = 10;

/** What the gate made of a change, for an annotation or a report line. */
function verdictText(report: Report, change: Placed): string {
  let text = '';
  if (change.status === 'accepted' && change.accepted) text += `; accepted: ${change.accepted.reason}`;
  if (change.status === 'major') text += `; allowed by the new major version ${report.head.version}`;
  if (change.status === 'blocking') text += change.note ? `; ${change.note}` : `; not accepted in ${report.acceptedFile}`;
  if (!change.exact && change.beforeLine !== undefined)
    text += `; it was at line ${change.beforeLine} of ${report.file} at ${report.base.label}`;
  return text;
}

/** One change in a line of text. */
function describe(report: Report, change: Placed): string {
  return `${change.location}: ${change.kind}${change.detail ? ` (${change.detail})` : ''}${verdictText(report, change)}`;
}

/**
 * Changes at one line, one line of text per kind of change: a change to a shared component is
 * listed once per operation that uses it, so those operations are named together.
 */
function describeAll(report: Report, changes: Placed[]): string {
  const groups = new Map<string, { first: Placed; operations: string[] }>();
  for (const change of changes) {
    const [operation, rest] = splitLocation(change.location);
    const id = [change.kind, change.detail, rest, verdictText(report, change)].join('\u0000');
    const group = groups.get(id) ?? { first: change, operations: [] };
    group.operations.push(operation);
    groups.set(id, group);
  }
  return [...groups.values()]
    .map(({ first, operations }) => {
      if (operations.length === 1) return describe(report, first);
      const rest = splitLocation(first.location)[1];
      const what = `${rest ? `${rest}: ` : ''}${first.kind}${first.detail ? ` (${first.detail})` : ''}`;
      return `${what} in ${operations.length} operations (${operations.join(', ')})${verdictText(report, first)}`;
    })
    .join('\n');
}

/**
 * One annotation per line of the contract and level (a shared component's change is listed once
 * per operation that uses it, on the component's line), errors first; a level's annotations past
 * GitHub's ten are summed up in its last one.
 */
export function formatGithub(report: Report): string[] {
  const groups = new Map<string, { level: Level; line: number; changes: Placed[] }>();
  for (const change of report.changes) {
    const level = LEVEL[change.status];
    const id = `${level} ${change.line}`;
    const group = groups.get(id) ?? { level, line: change.line, changes: [] };
    group.changes.push(change);
    groups.set(id, group);
  }
  const out: string[] = [];
  for (const level of ['error', 'warning', 'notice'] as const) {
    const mine = [...groups.values()].filter((g) => g.level === level);
    const shown = mine.length > PER_LEVEL ? mine.slice(0, PER_LEVEL - 1) : mine;
    for (const group of shown) {
      const count = group.changes.length;
      const title = `${TITLE[level]}${count > 1 ? ` (${count})` : ''}`;
      const message = describeAll(report, group.changes);
      out.push(`::${level} file=${escapeProperty(report.file)},line=${group.line},title=${escapeProperty(title)}::${escapeData(message)}`);
    }
    const hidden = mine.slice(shown.length);
    if (hidden.length > 0) {
      const count = hidden.reduce((n, g) => n + g.changes.length, 0);
      const lines = hidden.map((g) => g.line).join(', ');
      const message = `${count} more on lines ${lines}: see the job summary's table.`;
      out.push(
        `::${level} file=${escapeProperty(report.file)},line=${hidden[0]?.line ?? 1},title=${escapeProperty(`${TITLE[level]} (more)`)}::${escapeData(message)}`,
      );
    }
  }
  return out;
}

// ----------------------------------------------------------------------------------------------
// codequality (GitLab)

const SEVERITY: Record<Status, string> = { blocking: 'critical', accepted: 'minor', major: 'minor', 'non-breaking': 'info' };

/** GitLab's code-quality report (a subset of the Code Climate format): one issue per change. */
export function formatCodeQuality(report: Report): string {
  const issues = report.changes.map((change) => ({
    description: describe(report, change),
    check_name: change.kind,
    fingerprint: createHash('sha256').update(`${change.location}\n${change.kind}\n${change.detail}`).digest('hex'),
    severity: SEVERITY[change.status],
    location: { path: report.file, lines: { begin: change.line } },
  }));
  return `${JSON.stringify(issues, null, 2)}\n`;
}
