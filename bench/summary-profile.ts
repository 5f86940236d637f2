/*
 * The costliest summary (issue 60), timed by phase, in process, as a reader thread runs it: the
 * cached 1M-entry dataset (bench/seed.ts) opened read-only with the reader's cache, the real
 * services over it, the owner's summary of a year by tag then project, and what the Reports page
 * asks of the same (a window of 100 groups with their 10 largest sub-groups).
 *
 *   npx tsx bench/summary-profile.ts [runs=7]
 *   OLD_SRC=/path/to/other/tree/src npx tsx bench/summary-profile.ts 7   (old against new, alternated)
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/summary-profile.ts 5
 *
 * Phases of one answer: the SQL (the entries module's aggregate, raw rows), the merge of its rows
 * into the report's keys (reports/aggregate.ts: one row per tag of each tag list), the names'
 * lookups, the arranging (groups and sub-groups in order: summary.ts), and the JSON text and its
 * UTF-8 bytes (`rest`: all but the SQL, the merge and the names). `cpu` is the process's CPU time.
 * Each run prints the phases; the end prints the medians, and the answer's size.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { pickEntryFilters } from '../src/modules/entries/filters.js';
import { createAggregator } from '../src/modules/reports/aggregate.js';
import { reportRange } from '../src/modules/reports/buckets.js';
import { createNamer } from '../src/modules/reports/names.js';
import { summaryText, summaryWindow, type SummaryRequest } from '../src/modules/reports/summary.js';
import { createServices } from '../src/services.js';
import { cachedDataset } from './seed.js';

const runs = Number(process.argv[2] ?? 7);
console.log(
  `load average at the start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const { path, data } = cachedDataset();
const clock: Clock = { now: () => Date.UTC(2026, 10, 1, 12) };
// Authenticate on a connection of its own (the check records the token's use); read as a reader thread does.
const writer = openDatabase(path);
const actor = createServices(writer, { clock, secretKey: randomBytes(32) }).tokens.authenticate(data.ownerToken)!.actor;
writer.close();
const database = openDatabase(path, { readOnly: true, cacheMb: 8 });
const services = createServices(database, { clock, secretKey: randomBytes(32) });

const YEAR = { from: '2025-11-01', to: '2026-10-31' };
const query = { ...YEAR, groupBy: 'tag', subGroupBy: 'project' } as const;

// The reports service's own ports (services.ts) over a tree's services, each timed.
const spent = { sql: 0, names: 0 };
const timedPort =
  <A extends unknown[], R>(fn: (...args: A) => R, into: keyof typeof spent) =>
  (...args: A): R => {
    const t = performance.now();
    try {
      return fn(...args);
    } finally {
      spent[into] += performance.now() - t;
    }
  };
type Ports = Parameters<typeof createAggregator>[0] & Parameters<typeof createNamer>[0];
function portsOf(of: typeof services): Ports {
  const catalog = of.catalog as unknown as Record<string, (...args: never[]) => unknown>;
  return {
    aggregate: timedPort(of.entries.aggregate, 'sql'),
    clientsOfProjects: catalog.clientsOfProjects as never,
    projectLabels: timedPort(catalog.projectLabels as never, 'names'),
    clientNames: timedPort(catalog.clientNames as never, 'names'),
    taskNames: timedPort(catalog.taskNames as never, 'names'),
    tagNames: timedPort(catalog.tagNames as never, 'names'),
    userNames: timedPort(of.accounts.userNames, 'names'),
  } as Ports;
}
let merged = 0;
/** The reports module's pieces of a tree (this one, or OLD_SRC's: the same files of another commit). */
async function tree(src: string | null) {
  type Modules = [
    typeof import('../src/modules/reports/aggregate.js'),
    typeof import('../src/modules/reports/names.js'),
    typeof import('../src/modules/reports/summary.js'),
  ];
  const [a, n, s] = (
    src
      ? await Promise.all(['aggregate', 'names', 'summary'].map((m) => import(`${src}/modules/reports/${m}.ts`)))
      : [{ createAggregator }, { createNamer }, { summaryText, summaryWindow }]
  ) as Modules;
  // The other tree's services too (its entries module's SQL), over the same connection.
  const ports = portsOf(
    src
      ? ((await import(`${src}/services.ts`)) as typeof import('../src/services.js')).createServices(database, {
          clock,
          secretKey: randomBytes(32),
        })
      : services,
  );
  const aggregator = a.createAggregator(ports);
  const timedAggregator: typeof aggregator = (request) => {
    const t = performance.now();
    const sqlBefore = spent.sql;
    try {
      return aggregator(request);
    } finally {
      merged += performance.now() - t - (spent.sql - sqlBefore);
    }
  };
  return { ports, aggregator, timedAggregator, namer: n.createNamer(ports), summaryText: s.summaryText, summaryWindow: s.summaryWindow };
}
const trees = { new: await tree(null), ...(process.env.OLD_SRC ? { old: await tree(process.env.OLD_SRC) } : {}) };

const request: SummaryRequest = {
  actor,
  zone: 'UTC',
  range: reportRange(YEAR.from, YEAR.to, 'UTC'),
  filters: pickEntryFilters({}),
  groupBy: 'tag',
  subGroupBy: 'project',
};
const head = { from: new Date(request.range.from).toISOString(), to: new Date(request.range.to).toISOString() };

// The same bytes as the service's (what the reader thread answers), else this measures something else.
const theirs = services.reports.summaryJson(actor, { ...query, timeZone: 'UTC' });
for (const [name, t] of Object.entries(trees)) {
  const ours = t.summaryText(t.aggregator, t.namer, request, {
    ...head,
    timeZone: 'UTC',
    currency: actor.currency,
    groupBy: 'tag',
    subGroupBy: 'project',
  });
  if (ours !== theirs) throw new Error(`the ${name} tree's text differs from the service answer`);
  const window = { offset: 0, limit: 100, subGroups: 10 };
  if (
    JSON.stringify(t.summaryWindow(t.aggregator, t.namer, request, window)) !==
    JSON.stringify(trees.new.summaryWindow(trees.new.aggregator, trees.new.namer, request, window))
  )
    throw new Error(`the ${name} tree's window differs`);
}
console.log(`answer: ${Buffer.byteLength(theirs)} bytes, ${(JSON.parse(theirs) as { groups: unknown[] }).groups.length} groups`);

// CHECK=all: every grouping and sub-grouping of a month (and of the year by tag), the old tree's service against this one's.
if (process.env.CHECK === 'all' && process.env.OLD_SRC) {
  const old = ((await import(`${process.env.OLD_SRC}/services.ts`)) as typeof import('../src/services.js')).createServices(database, {
    clock,
    secretKey: randomBytes(32),
  });
  const groupings = ['project', 'client', 'task', 'tag', 'user', 'billable', 'day', 'week', 'month'] as const;
  let compared = 0;
  for (const groupBy of groupings)
    for (const subGroupBy of [undefined, ...groupings.filter((g) => g !== groupBy)]) {
      const q = {
        from: groupBy === 'tag' ? YEAR.from : '2026-10-01',
        to: YEAR.to,
        timeZone: 'Europe/Berlin',
        groupBy,
        ...(subGroupBy ? { subGroupBy } : {}),
      };
      if (old.reports.summaryJson(actor, q) !== services.reports.summaryJson(actor, q)) throw new Error(`differs: ${JSON.stringify(q)}`);
      compared++;
    }
  console.log(`${compared} summaries byte-identical to the old tree's`);
}

type Phases = Record<string, number>;
function phases(run: () => unknown): Phases {
  spent.sql = 0;
  spent.names = 0;
  merged = 0;
  const t = performance.now();
  const cpuBefore = process.cpuUsage();
  run();
  const total = performance.now() - t;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    cpu: (cpu.user + cpu.system) / 1000,
    total,
    sql: spent.sql,
    merge: merged,
    names: spent.names,
    rest: total - spent.sql - merged - spent.names,
  };
}

// The answer's bytes, as the reader thread hands them over (threads/readers/tasks.ts).
const encoder = new TextEncoder();
const scenarios: Record<string, () => unknown> = {};
for (const [name, t] of Object.entries(trees)) {
  const { timedAggregator, namer } = t;
  // The SQL alone: the entries module's sums of a year by tag list then project.
  scenarios[`${name} sql`] = () => t.ports.aggregate(actor, { filters: request.filters, ...request.range, keys: ['tag', 'project'] });
  // The arranging alone: a window of no groups writes nothing.
  scenarios[`${name} arrange`] = () => t.summaryWindow(timedAggregator, namer, request, { offset: 0, limit: 0, subGroups: 0 });
  // The API's answer: arranging and the JSON text.
  scenarios[`${name} api`] = () => encoder.encode(`{"data":${t.summaryText(timedAggregator, namer, request, head)}}`);
  // The Reports page's summary read: the window of the first 100 groups, 10 sub-groups each, as JSON.
  scenarios[`${name} page`] = () =>
    encoder.encode(JSON.stringify({ data: t.summaryWindow(timedAggregator, namer, request, { offset: 0, limit: 100, subGroups: 10 }) }));
}
// The service's whole read as the reader thread calls it (this tree; nothing timed inside).
scenarios['new service'] = () => `{"data":${services.reports.summaryJson(actor, query)}}`;
const only = process.env.SCENARIOS?.split(',');
const results: Record<string, Phases[]> = {};
for (let i = 0; i < runs; i++) {
  for (const [name, run] of Object.entries(scenarios)) {
    if (only && !only.some((o) => name.endsWith(o))) continue;
    const p = phases(run);
    (results[name] ??= []).push(p);
    console.log(
      `${i} ${name.padEnd(14)} ${Object.entries(p)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join('  ')}`,
    );
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
console.log(`medians of ${runs} (ms):`);
for (const [name, list] of Object.entries(results)) {
  const keys = Object.keys(list[0] as Phases);
  console.log(`  ${name.padEnd(14)} ${keys.map((k) => `${k} ${median(list.map((p) => p[k] as number)).toFixed(0)}`).join('  ')}`);
}
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
database.close();
