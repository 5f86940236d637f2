/*
 * Two parts of `npm run bench` beside the throughput table: the costliest request of each read
 * route (every parameter combination worth trying, with the owner's token and with a member's
 * who sees only their own entries; the slowest one timed at one connection), and point reads
 * while heavy reads run beside them. Loopback only; every request is bounded in time.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface Tokens {
  owner: string;
  /** A member without canViewOthersTime: reports and lists hold their own entries. */
  own: string;
}

export interface CostRow {
  route: string;
  token: keyof Tokens;
  /** The slowest parameter combination found. */
  path: string;
  p50Ms: number;
  /** How many combinations were tried. */
  tried: number;
  status: number;
}

const GROUPINGS = ['project', 'client', 'task', 'tag', 'user', 'billable', 'day', 'week', 'month'];
const YEAR = 'from=2025-11-01&to=2026-10-31';
const FOUR_YEARS = 'from=2022-11-01&to=2026-10-31';

/** One request's time in ms (and its status); a request past 60 s counts as 60 s. */
async function timed(url: string, token: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  } catch {
    return { ms: 60_000, status: 0 };
  }
}

/** The candidate requests of each read route. */
export function candidates(data: { projectIds: string[]; tagIds: string[]; entryId: string }): Record<string, string[]> {
  const oneTag = `tagIds=${data.tagIds[0]}`;
  const manyTags = `tagIds=${data.tagIds.slice(0, 20).join(',')}`;
  const filters = [
    '',
    oneTag,
    manyTags,
    'search=zzzz',
    'search=Work',
    'search=zq',
    'search=Work%20item%2042',
    'billable=false',
    `projectIds=${data.projectIds.slice(0, 50).join(',')}`,
  ];
  const summary: string[] = [];
  for (const groupBy of GROUPINGS) {
    summary.push(`/api/v1/reports/summary?${YEAR}&groupBy=${groupBy}`);
    for (const sub of GROUPINGS) if (sub !== groupBy) summary.push(`/api/v1/reports/summary?${YEAR}&groupBy=${groupBy}&subGroupBy=${sub}`);
  }
  for (const filter of filters.slice(1))
    summary.push(`/api/v1/reports/summary?${YEAR}&${filter}`, `/api/v1/reports/summary?${YEAR}&groupBy=tag&${filter}`);
  summary.push(`/api/v1/reports/summary?${YEAR}&groupBy=day&subGroupBy=week&timeZone=Europe/Berlin`);
  return {
    'GET /entries': [
      ...filters.map((f) => `/api/v1/entries?${FOUR_YEARS}&limit=500&${f}`),
      ...filters.map((f) => `/api/v1/entries?from=2026-10-01&to=2026-10-01&${f}`),
      `/api/v1/entries?from=1900-01-01&to=9998-12-31&limit=500`,
    ],
    'GET /reports/summary': summary,
    'GET /reports/detailed': filters.map((f) => `/api/v1/reports/detailed?${YEAR}&limit=500&${f}`),
    'GET /reports/weekly': ['project', 'client', 'user'].flatMap((g) => [
      `/api/v1/reports/weekly?from=2026-10-26&groupBy=${g}`,
      `/api/v1/reports/weekly?from=2026-10-26&groupBy=${g}&${manyTags}`,
      `/api/v1/reports/weekly?from=2026-10-26&groupBy=${g}&search=Work`,
    ]),
    'GET /projects': ['/api/v1/projects', '/api/v1/projects?archived=false'],
    'GET /clients': ['/api/v1/clients'],
    'GET /tasks': ['/api/v1/tasks'],
    'GET /tags': ['/api/v1/tags'],
    'GET /projects/{id}': [`/api/v1/projects/${data.projectIds[0]}`],
    'GET /entries/{id}': [`/api/v1/entries/${data.entryId}`],
    'GET /entries/current': ['/api/v1/entries/current'],
    'GET /me': ['/api/v1/me'],
  };
}

/** For each route and token: every candidate once, then the slowest one five more times. */
export async function costliest(url: string, tokens: Tokens, routes: Record<string, string[]>): Promise<CostRow[]> {
  const rows: CostRow[] = [];
  for (const [route, paths] of Object.entries(routes)) {
    for (const kind of ['owner', 'own'] as const) {
      let worst = { path: paths[0] as string, ms: -1 };
      for (const path of paths) {
        const { ms } = await timed(`${url}${path}`, tokens[kind]);
        if (ms > worst.ms) worst = { path, ms };
      }
      const samples: number[] = [];
      let status = 0;
      for (let i = 0; i < 5; i++) {
        const result = await timed(`${url}${worst.path}`, tokens[kind]);
        samples.push(result.ms);
        status = result.status;
      }
      samples.sort((a, b) => a - b);
      rows.push({ route, token: kind, path: worst.path, p50Ms: Math.round(samples[2] as number), tried: paths.length, status });
    }
  }
  return rows;
}

export interface MixedRow {
  beside: string;
  pointReqPerSec: number;
  pointP50Ms: number;
  pointP99Ms: number;
  heavyReqPerSec: number | null;
  heavyP99Ms: number | null;
}

const load = (url: string, token: string, connections: number, duration: number) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ url, connections, duration, headers: { authorization: `Bearer ${token}` } }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );

/** Point reads (10 connections) alone, then beside 4 connections of each heavy read. */
export async function mixed(url: string, token: string, entryId: string, seconds: number): Promise<MixedRow[]> {
  const point = `${url}/api/v1/entries/${entryId}`;
  const rows: MixedRow[] = [];
  const alone = await load(point, token, 10, seconds);
  rows.push({
    beside: 'nothing',
    pointReqPerSec: Math.round(alone.requests.average),
    pointP50Ms: alone.latency.p50,
    pointP99Ms: alone.latency.p99,
    heavyReqPerSec: null,
    heavyP99Ms: null,
  });
  for (const [beside, path] of [
    ['4 connections of one-year summaries by project', `/api/v1/reports/summary?${YEAR}`],
    ['4 connections of the 2,000-project list', '/api/v1/projects'],
  ] as const) {
    const [light, heavy] = await Promise.all([load(point, token, 10, seconds), load(`${url}${path}`, token, 4, seconds)]);
    rows.push({
      beside,
      pointReqPerSec: Math.round(light.requests.average),
      pointP50Ms: light.latency.p50,
      pointP99Ms: light.latency.p99,
      heavyReqPerSec: Math.round(heavy.requests.average),
      heavyP99Ms: heavy.latency.p99,
    });
  }
  return rows;
}
