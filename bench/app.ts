/*
 * The web app (/app), on a fresh database of its own in a temp directory (127.0.0.1 only):
 *
 *   1. the week page of a member with 500 entries in that week: time per page at one connection
 *      (p50, p99 over BENCH_APP_PAGES requests; on loopback, close to the server's own time);
 *   2. POST /api/v1/entries throughput (autocannon, BENCH_CONNECTIONS connections, BENCH_SECONDS
 *      seconds) with no live stream open, then with BENCH_APP_STREAMS (200) open streams of the
 *      same workspace; and how long after its 200 each stream was told of each entry (p50, p99).
 *
 *   npx tsx bench/app.ts        (BENCH_ONLY=<text> runs it only when "app" contains it; BENCH_WEEK_ONLY=true: the week page alone)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { OPERATOR } from '../src/principal.js';
import { startServer } from '../src/server.js';
import { signIn } from './settings.js';

const only = process.env.BENCH_ONLY ?? '';
const pages = Number(process.env.BENCH_APP_PAGES ?? 200);
const streamCount = Number(process.env.BENCH_APP_STREAMS ?? 200);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PASSWORD = 'correct horse battery staple';

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** An open live stream: the arrival time of each change it is told of, by entity id. */
/** Whether the streams note what they are told (the probes), or only read it (the throughput run: as a browser, off this process's clock). */
const noting = { on: false };

async function openStream(url: string, cookie: string, seen: Map<string, number[]>) {
  const controller = new AbortController();
  const response = await fetch(`${url}/app/events`, { headers: { cookie }, signal: controller.signal });
  if (response.status !== 200) throw new Error(`stream refused: ${response.status} ${await response.text()}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (!noting.on) continue;
        const now = performance.now();
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          for (const match of buffer.slice(0, cut).matchAll(/"id":"([^"]+)"/g)) {
            const id = match[1] as string;
            seen.set(id, [...(seen.get(id) ?? []), now]);
          }
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // closed
    }
  })();
  return () => controller.abort();
}

async function postLoad(url: string, token: string, _acked: Map<string, number>) {
  let i = 0;
  const result = await autocannon({
    url: `${url}/api/v1/entries`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    setupClient: (client) => {
      client.setBody(JSON.stringify({ start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: `b${i++}` }));
    },
  });
  return result;
}

async function main(): Promise<void> {
  if (!'app'.includes(only)) return;
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-app-'));
  let banner = '';
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_PATH: join(dir, 'timetrack.db'),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_TOKEN_PER_MIN: '1000000000',
    RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
    APP_STREAMS_PER_MEMBER: String(streamCount + 10),
    APP_STREAMS_TOTAL: String(streamCount + 10),
  });
  const running = await startServer(config, { logger: createLogger('warn'), announce: (t) => (banner += t) });
  try {
    const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
    const ownerId = /owner +(usr_\S+)/.exec(banner)?.[1] as string;
    await running.services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    running.services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    // 500 entries in the week of 2026-11-23, ten minutes each.
    const base = Date.parse('2026-11-23T06:00:00Z');
    for (let i = 0; i < 500; i++) {
      const start = base + i * 12 * 60_000;
      const res = await fetch(`${running.url}/api/v1/entries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          start: new Date(start).toISOString(),
          end: new Date(start + 600_000).toISOString(),
          description: `Entry ${i}`,
        }),
      });
      if (res.status !== 200) throw new Error(`seed failed: ${res.status}`);
    }
    const cookie = await signIn(running.url, 'owner@localhost', PASSWORD);
    const times: number[] = [];
    let cpu = process.cpuUsage();
    let bytes = 0;
    for (let i = 0; i < pages + 10; i++) {
      // CPU time of the whole process (server and this client) per page: steadier than wall time on a busy machine.
      if (i === 10) cpu = process.cpuUsage();
      const started = performance.now();
      const page = await fetch(`${running.url}/app/week?date=2026-11-25`, { headers: { cookie } });
      const text = await page.text();
      if (page.status !== 200 || !text.includes('Entry 499')) throw new Error(`week page: ${page.status}`);
      if (i >= 10) times.push(performance.now() - started);
      bytes = text.length;
    }
    const used = process.cpuUsage(cpu);
    console.log(
      `week page, 500 entries: p50 ${ms(pct(times, 50))}, p99 ${ms(pct(times, 99))}, CPU ${ms((used.user + used.system) / 1000 / pages)} a page, ${Math.round(bytes / 1024)} KB (${pages} requests, one connection)`,
    );
    if (process.env.BENCH_WEEK_ONLY === 'true') return;

    await postLoad(running.url, token, new Map()); // warm-up, not counted
    const none = await postLoad(running.url, token, new Map());
    console.log(`POST /entries, no live streams: ${Math.round(none.requests.average)} req/s (non-2xx ${none.non2xx})`);
    const seen = new Map<string, number[]>();
    const closers = await Promise.all(Array.from({ length: streamCount }, () => openStream(running.url, cookie, seen)));
    // Entries made now, each acknowledged at a known time: how long until every stream is told.
    const delays: number[] = [];
    const withStreams = await postLoad(running.url, token, new Map());
    await new Promise((r) => setTimeout(r, 500));
    noting.on = true;
    for (let i = 0; i < 50; i++) {
      const sent = await fetch(`${running.url}/api/v1/entries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ start: '2026-11-02T10:00:00Z', end: '2026-11-02T11:00:00Z', description: `probe ${i}` }),
      });
      const acked = performance.now();
      const id = ((await sent.json()) as { data: { id: string } }).data.id;
      await new Promise((r) => setTimeout(r, 40));
      const deadline = performance.now() + 3000;
      while ((seen.get(id)?.length ?? 0) < streamCount && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const at of seen.get(id) ?? []) delays.push(at - acked);
      const missing = streamCount - (seen.get(id)?.length ?? 0);
      for (let m = 0; m < missing; m++) delays.push(Infinity);
    }
    console.log(
      `POST /entries, ${streamCount} live streams: ${Math.round(withStreams.requests.average)} req/s (non-2xx ${withStreams.non2xx}); ` +
        `${Math.round((withStreams.requests.average / none.requests.average - 1) * 1000) / 10} % against none`,
    );
    console.log(
      `told to every stream after its 200: p50 ${ms(pct(delays, 50))}, p99 ${ms(pct(delays, 99))} (${delays.length} deliveries to streams)`,
    );
    for (const close of closers) close();
    await new Promise((r) => setTimeout(r, 300));
    const after = await postLoad(running.url, token, new Map());
    console.log(`POST /entries, no live streams again: ${Math.round(after.requests.average)} req/s (the machine's drift between runs)`);
  } finally {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
