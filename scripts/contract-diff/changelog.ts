/*
 * A CHANGELOG.md section from the changes between two versions of the contract: what was added
 * (operations with their summaries, webhooks, parameters, fields, responses, headers), what was
 * deprecated (with its dates), what else changed, and each breaking change with the reason it
 * was accepted. Changes of one kind at one place shared by several operations (a component) are
 * one line naming the operations.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { isObject, METHODS, segmentsOf, type Json } from './diff.js';
import type { Judged, Verdict } from './gate.js';
import { splitLocation } from './formats.js';

export interface ChangelogInput {
  verdict: Verdict;
  /** The newer contract (summaries and deprecation dates are read from it). */
  after: unknown;
  version: string;
  /** YYYY-MM-DD of the newer side. */
  date: string;
  /** Set for a version with no release yet: the heading says so, with the revision. */
  unreleased?: string;
  /** `none`, `v1.0.0 (version 1.0.0)`. */
  fromLabel: string;
  toLabel: string;
  /** The command that writes this section, quoted in it. */
  command: string;
  acceptedFile: string;
}

const ADDED = new Set([
  'path-added',
  'operation-added',
  'webhook-added',
  'parameter-added',
  'property-added',
  'response-added',
  'header-added',
  'media-type-added',
  'request-body-added',
  'variant-added',
]);
const DEPRECATED = new Set(['operation-deprecated', 'parameter-deprecated', 'property-deprecated']);

const code = (text: string) => `\`${text}\``;
const arrow = (detail: string) => detail.replace(/ -> /g, ' → ');

/** The value a JSON pointer names in a parsed document. */
function valueAt(doc: unknown, pointer: string): Json | undefined {
  let node: unknown = doc;
  for (const key of segmentsOf(pointer)) {
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node as Json | undefined;
}

const firstSentence = (text: unknown): string =>
  typeof text === 'string' ? (/^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim())?.[0] ?? text.trim()).replace(/\s+/g, ' ') : '';

/** The operations of an added path, or the added operation or webhook, with their summaries. */
function operationLines(change: Judged, after: unknown): string[] {
  const at = change.where.after;
  const found = at ? valueAt(after, at) : undefined;
  if (!isObject(found)) return [`- ${code(change.location)}`];
  const describe = (label: string, op: Json | undefined, name: string) => {
    if (!isObject(op)) return `- ${code(label)}`;
    const summary = typeof op.summary === 'string' && op.summary !== name ? op.summary : firstSentence(op.description);
    return `- ${code(label)}${summary ? `: ${summary}` : ''}${op.deprecated === true ? ' (deprecated)' : ''}`;
  };
  if (change.kind === 'path-added') {
    return METHODS.filter((m) => isObject(found[m])).map((m) => describe(`${m.toUpperCase()} ${change.location}`, found[m], ''));
  }
  if (change.kind === 'webhook-added') {
    const name = change.location.replace(/^webhook /, '');
    return METHODS.filter((m) => isObject(found[m])).map((m) => describe(`webhook ${name}`, found[m], name));
  }
  return [describe(change.location, found, '')];
}

/** When it was deprecated and when it goes, from the extensions beside `deprecated: true`. */
function deprecationLine(change: Judged, after: unknown): string {
  const at = change.where.after ?? '';
  const owner = valueAt(after, at.replace(/\/deprecated$/, ''));
  const since = isObject(owner) && typeof owner['x-deprecated-at'] === 'string' ? owner['x-deprecated-at'] : undefined;
  const sunset = isObject(owner) && typeof owner['x-sunset'] === 'string' ? owner['x-sunset'] : undefined;
  const dates = [since && `on ${since}`, sunset && `sunset ${sunset}`].filter(Boolean).join(', ');
  const what = change.kind === 'property-deprecated' ? 'field' : change.kind === 'parameter-deprecated' ? 'parameter' : 'operation';
  return `- ${code(change.location)} deprecated${dates ? ` ${dates}` : ''} (${what}).`;
}

/** A place below the operation with its response status taken out: `response 200 header.ETag` -> [`response * header.ETag`, `200`]. */
const withoutStatus = (rest: string): [string, string | undefined] => {
  const match = /^response (\S+)(.*)$/.exec(rest);
  return match ? [`response *${match[2]}`, match[1]] : [rest, undefined];
};

/**
 * Changes of one kind, detail and verdict at one place below the operation (responses of any
 * status), over several operations: one line, naming the operations (or "every operation") and
 * the statuses.
 */
function grouped(changes: Judged[], prefix: (c: Judged) => string, everyOperation: Set<string>): string[] {
  const groups = new Map<string, { first: Judged; place: string; statuses: Set<string>; operations: Set<string> }>();
  for (const change of changes) {
    const [operation, rest] = splitLocation(change.location);
    const [place, status] = withoutStatus(rest);
    const id = [change.kind, change.detail, change.status, change.accepted?.reason ?? '', change.note ?? '', place].join('\u0000');
    const group = groups.get(id) ?? { first: change, place, statuses: new Set<string>(), operations: new Set<string>() };
    group.operations.add(operation);
    if (status !== undefined) group.statuses.add(status);
    groups.set(id, group);
  }
  return [...groups.values()].map(({ first, place, statuses, operations }) => {
    const rest = place.replace(/^response \*/, `response${statuses.size > 1 ? 's' : ''} ${[...statuses].sort().join(', ')}`);
    const all = operations.size > 1 && [...everyOperation].every((op) => operations.has(op));
    const where = all
      ? 'every operation'
      : operations.size > 1
        ? `${operations.size} operations (${[...operations].map(code).join(', ')})`
        : [...operations].map(code).join('');
    const what = `${rest ? `${code(rest)} ` : ''}${first.kind}${first.detail ? `: ${arrow(first.detail)}` : ''}`;
    return `- ${prefix(first)}${where}: ${what}`;
  });
}

/** `GET /api/v1/me`, … : every operation of the contract's paths. */
function operationsOf(doc: unknown): Set<string> {
  const out = new Set<string>();
  const paths = isObject(doc) && isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths))
    for (const method of METHODS) if (isObject(item) && isObject(item[method])) out.add(`${method.toUpperCase()} ${path}`);
  return out;
}

export function formatChangelog(input: ChangelogInput): string {
  const { verdict, after } = input;
  const changes = verdict.changes;
  const heading = `## ${input.version} (${input.unreleased ? `unreleased; ${input.date}, ${input.unreleased}` : input.date})`;
  const out = [
    heading,
    '',
    `Generated by \`${input.command}\` from the contract (\`openapi/openapi.yaml\`): the changes for clients from ` +
      `${input.fromLabel} to ${input.toLabel}. Regenerate it rather than editing it.`,
  ];
  const every = operationsOf(after);
  const section = (title: string, lines: string[]) => {
    if (lines.length > 0) out.push('', `### ${title}`, '', ...lines);
  };
  const operations = changes.filter((c) => ['path-added', 'operation-added', 'webhook-added'].includes(c.kind));
  const added = changes.filter((c) => !c.breaking && ADDED.has(c.kind) && !operations.includes(c));
  section('Added', [...operations.flatMap((c) => operationLines(c, after)), ...grouped(added, () => '', every)]);
  section(
    'Deprecated',
    changes.filter((c) => DEPRECATED.has(c.kind)).map((c) => deprecationLine(c, after)),
  );
  section(
    'Changed',
    grouped(
      changes.filter((c) => !c.breaking && !ADDED.has(c.kind) && !DEPRECATED.has(c.kind)),
      () => '',
      every,
    ),
  );
  section(
    'Breaking',
    grouped(
      changes.filter((c) => c.breaking),
      (c) => {
        if (c.status === 'accepted') return `**Breaking** (accepted: ${c.accepted?.reason ?? ''}): `;
        if (c.status === 'major') return `**Breaking** (new major version ${input.version}): `;
        return `**Breaking** (not accepted in \`${input.acceptedFile}\`${c.note ? `; ${c.note}` : ''}): `;
      },
      every,
    ),
  );
  if (changes.length === 0) out.push('', 'No change for clients.');
  return `${out.join('\n')}\n`;
}

/**
 * Puts `section` into the changelog file: in place of the section of the same version (from its
 * `## <version>` heading to the next `## `), else above the newest one. Returns what it did.
 */
export function writeSection(file: string, section: string, version: string): 'replaced' | 'added' {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const isSection = (line: string) => line.startsWith('## ');
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const start = lines.findIndex((line) => new RegExp(`^## ${escaped}(?:\\s|$)`).test(line));
  const body = section.replace(/\n+$/, '').split('\n');
  if (start >= 0) {
    const next = lines.findIndex((line, i) => i > start && isSection(line));
    const end = next < 0 ? lines.length : next;
    lines.splice(start, end - start, ...body, ...(next < 0 ? [] : ['']));
    writeFileSync(file, `${lines.join('\n').replace(/\n+$/, '')}\n`);
    return 'replaced';
  }
  const first = lines.findIndex(isSection);
  const at = first < 0 ? lines.length : first;
  lines.splice(at, 0, ...body, '');
  writeFileSync(file, `${lines.join('\n').replace(/\n+$/, '')}\n`);
  return 'added';
}
