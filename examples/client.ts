/*
 * A typed client of the timetrack API in a few lines: openapi-fetch over the types that
 * openapi-typescript compiles from the contract (generated/openapi.ts). Paths, parameters, bodies
 * and answers are checked by the TypeScript compiler against the contract.
 *
 *   TIMETRACK_URL=http://localhost:8080 TIMETRACK_TOKEN=tt_… npx tsx examples/client.ts
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

export async function example(baseUrl: string, token: string, log: (line: string) => void = console.log): Promise<void> {
  const api = timetrackClient(baseUrl, token);

  // A week of entries, page by page: pass nextCursor back unchanged until it is null.
  let cursor: string | undefined;
  let rows = 0;
  let seconds = 0;
  do {
    const { data, error } = await api.GET('/api/v1/entries', {
      params: { query: { from: '2026-11-02', to: '2026-11-08', limit: 2, ...(cursor ? { cursor } : {}) } },
    });
    if (error) throw new Error(`${slugOf(error)}: ${error.detail}`);
    rows += data.data.length;
    seconds += data.data.reduce((sum, entry) => sum + entry.durationSec, 0);
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
  log(`the week: ${rows} entries, ${(seconds / 3600).toFixed(2)} h`);

  // Start a timer, then stop it.
  const started = await api.POST('/api/v1/entries/current', { body: { description: 'Writing the report' } });
  if (started.error) throw new Error(`${slugOf(started.error)}: ${started.error.detail}`);
  log(`started ${started.data.data.id} at ${started.data.data.start}`);
  const stopped = await api.POST('/api/v1/entries/current/stop', { body: {} });
  if (stopped.error) throw new Error(`${slugOf(stopped.error)}: ${stopped.error.detail}`);
  log(`stopped after ${stopped.data.data.durationSec} s`);

  // A problem document: 404 not-found for an entry that does not exist (or is not visible).
  const missing = await api.GET('/api/v1/entries/{id}', { params: { path: { id: 'ent_does_not_exist' } } });
  if (missing.error) log(`${missing.response.status} ${slugOf(missing.error)}: ${missing.error.detail}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { TIMETRACK_URL = 'http://localhost:8080', TIMETRACK_TOKEN } = process.env;
  if (!TIMETRACK_TOKEN) throw new Error('Set TIMETRACK_TOKEN to an API token (timetrack token create …).');
  await example(TIMETRACK_URL, TIMETRACK_TOKEN);
}
