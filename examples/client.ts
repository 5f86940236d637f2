/*
 * A typed client of the timetrack API in a few lines: openapi-fetch over the types that
 * openapi-typescript compiles from the contract (generated/openapi.ts). Paths, parameters, bodies
 * and answers are checked by the TypeScript compiler against the contract.
 *
 *   TIMETRACK_URL=http://localhost:8080 TIMETRACK_TOKEN=tt_… npx tsx examples/client.ts
 *
 * It says first what it will write, then works in a project of its own: it creates the project,
 * reads the current week (in TIMETRACK_TIME_ZONE, else this machine's zone), runs a one-second
 * timer in the project (only when no timer of yours is running: starting one would stop yours),
 * shows a problem document, and deletes the entry and the project again, also when a step fails.
 * The token needs entries:read, entries:write, catalog:read and catalog:write.
 */
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/openapi.js';

type Problem = components['schemas']['Problem'];

export function timetrackClient(baseUrl: string, token: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
}

/** A problem document's slug: branch on it, never on the human text. */
const slugOf = (problem: Problem) => problem.type.split('/').pop();
const fail = (step: string, problem: Problem): never => {
  throw new Error(`${step}: ${slugOf(problem)}: ${problem.detail}`);
};

export interface ExampleOptions {
  baseUrl: string;
  token: string;
  /** The zone whose week is read (IANA name); this machine's by default. */
  timeZone?: string;
  /** The instant whose week is read; now by default. */
  now?: Date;
  /** Between starting and stopping the timer (a second by default). */
  wait?: () => Promise<void>;
  log?: (line: string) => void;
}

export async function example(options: ExampleOptions): Promise<void> {
  const { baseUrl, token, log = console.log } = options;
  const timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const wait = options.wait ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 1000)));
  const api = timetrackClient(baseUrl, token);
  const name = `timetrack client example ${new Date().toISOString()}`;
  log(
    `This writes to ${baseUrl}: a project "${name}" and, unless a timer of yours is running, one entry in it; ` +
      'both are deleted at the end (webhook subscribers see the entry created and deleted).',
  );

  const project = await api.POST('/api/v1/projects', { body: { name } });
  if (project.error) fail('creating the project', project.error);
  const projectId = project.data!.data.id;
  log(`created project ${projectId}`);
  let entryId: string | null = null;
  try {
    // The current week in a zone: a calendar-day from/to would be UTC days, so the bounds are
    // sent as date-times with the zone's offset (to is exclusive).
    const week = weekOf(options.now ?? new Date(), timeZone);
    let cursor: string | undefined;
    let rows = 0;
    let seconds = 0;
    do {
      const { data, error } = await api.GET('/api/v1/entries', {
        params: { query: { from: week.from, to: week.to, limit: 100, ...(cursor ? { cursor } : {}) } },
      });
      if (error) fail('reading the week', error);
      rows += data!.data.length;
      seconds += data!.data.reduce((sum, entry) => sum + entry.durationSec, 0);
      cursor = data!.nextCursor ?? undefined;
    } while (cursor);
    log(`this week (${week.from} to ${week.to}, ${timeZone}): ${rows} entries, ${(seconds / 3600).toFixed(2)} h`);

    // A timer in the example's project, unless one of yours runs (a start would stop it).
    const current = await api.GET('/api/v1/entries/current');
    if (current.error) fail('reading the running timer', current.error);
    if (current.data!.data !== null) {
      log(`a timer of yours is running (${current.data!.data.id}): no timer started, yours is left alone`);
    } else {
      const started = await api.POST('/api/v1/entries/current', { body: { projectId, description: 'Trying the API' } });
      if (started.error) fail('starting a timer', started.error);
      entryId = started.data!.data.id;
      log(`started ${entryId} at ${started.data!.data.start}`);
      await wait();
      const stopped = await api.POST('/api/v1/entries/current/stop', { body: {} });
      if (stopped.error) fail('stopping the timer', stopped.error);
      log(`stopped after ${stopped.data!.data.durationSec} s`);
    }

    // A problem document: 404 not-found for an entry that does not exist (or is not visible).
    const missing = await api.GET('/api/v1/entries/{id}', { params: { path: { id: 'ent_does_not_exist' } } });
    if (missing.error) log(`${missing.response.status} ${slugOf(missing.error)}: ${missing.error.detail}`);
  } finally {
    // What the example wrote goes again: the entry first (a project with entries cannot be deleted).
    if (entryId !== null) {
      const { error } = await api.DELETE('/api/v1/entries/{id}', { params: { path: { id: entryId } } });
      if (error) log(`could not delete entry ${entryId}: ${slugOf(error)}: ${error.detail}`);
    }
    const { error } = await api.DELETE('/api/v1/projects/{id}', { params: { path: { id: projectId } } });
    log(error ? `could not delete project ${projectId}: ${slugOf(error)}: ${error.detail}` : `deleted what it wrote`);
  }
}

/** Monday 00:00 of the week of `now` in `timeZone`, and the next Monday 00:00, as offset date-times. */
export function weekOf(now: Date, timeZone: string): { from: string; to: string } {
  const part = (date: Date, options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat('en-US', { timeZone, ...options }).formatToParts(date);
  const value = (parts: Intl.DateTimeFormatPart[], type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const local = part(now, { year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short' });
  const day = Date.UTC(+value(local, 'year'), +value(local, 'month') - 1, +value(local, 'day'));
  const monday = day - ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(value(local, 'weekday')) * 86_400_000;
  const midnight = (utcDay: number) => {
    // The zone's offset at that local midnight ("GMT+01:00"; "GMT" alone is +00:00).
    const offsetAt = (instant: number) => value(part(new Date(instant), { timeZoneName: 'longOffset' }), 'timeZoneName').slice(3);
    const offset = offsetAt(utcDay - minutes(offsetAt(utcDay)) * 60_000) || '+00:00';
    return `${new Date(utcDay).toISOString().slice(0, 10)}T00:00:00${offset}`;
  };
  return { from: midnight(monday), to: midnight(monday + 7 * 86_400_000) };
}

const minutes = (offset: string) => {
  const match = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { TIMETRACK_URL = 'http://localhost:8080', TIMETRACK_TOKEN, TIMETRACK_TIME_ZONE } = process.env;
  if (!TIMETRACK_TOKEN) throw new Error('Set TIMETRACK_TOKEN to an API token (timetrack token create …).');
  await example({ baseUrl: TIMETRACK_URL, token: TIMETRACK_TOKEN, ...(TIMETRACK_TIME_ZONE ? { timeZone: TIMETRACK_TIME_ZONE } : {}) });
}
