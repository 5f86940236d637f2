/*
 * Sign-in through the identity provider on the 1,000,000-entry dataset (bench/seed.ts, cached in
 * the temp directory like bench/run.ts's): the query plans of the oidc module's statements and the
 * accounts statements it added, with 50 bound members, 1,000 open sessions through the provider
 * and a listed join domain; the cost on every page of a signed-in person (the session's row read
 * to know whether a check is due), as settings pages a second with a session opened through the
 * provider against one opened with a password; and the time of a whole sign-in (start, the
 * provider's pages, the way back) against oidc-provider on 127.0.0.1.
 *
 *   npx tsx bench/oidc.ts        (BENCH_SECONDS, BENCH_CONNECTIONS; prints a table)
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createLogger } from '../src/logger.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { OPERATOR } from '../src/principal.js';
import { startServer } from '../src/server.js';
import { createServices } from '../src/services.js';
import { CookieBrowser, freePort, startTestProvider, timetrackClient } from '../test/helpers/oidc-provider.js';
import { type Dataset, seed, SIZES } from './seed.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PASSWORD = 'correct horse battery staple';

/** The cached dataset bench/run.ts builds (the same name), built here when missing. */
function dataset(): { path: string; data: Dataset } {
  const migrations = readdirSync(join(PACKAGE_ROOT, 'drizzle'))
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const digest = createHash('sha256');
  for (const file of migrations) digest.update(readFileSync(join(PACKAGE_ROOT, 'drizzle', file)));
  const cached = join(tmpdir(), `timetrack-bench-${SIZES.entries}-m${migrations.length}-${digest.digest('hex').slice(0, 8)}.db`);
  if (!existsSync(cached) || !existsSync(`${cached}.json`)) {
    rmSync(cached, { force: true });
    const started = Date.now();
    writeFileSync(`${cached}.json`, JSON.stringify(seed(cached)));
    console.log(`built the dataset (${SIZES.entries} entries) in ${Math.round((Date.now() - started) / 1000)} s: ${cached}`);
  }
  return { path: cached, data: JSON.parse(readFileSync(`${cached}.json`, 'utf8')) as Dataset };
}

/** The statements added for the provider, as the repositories write them (src/modules/*\/repository.sql). */
const STATEMENTS: Array<[string, string, unknown[]]> = [
  ['session of a cookie (every page)', 'select * from oidc_sessions where session_hash = ?', ['x']],
  ['identity by sub', 'select user_id from oidc_identities where issuer = ? and subject = ?', ['i', 'sub-7']],
  ['identity of an account', 'select subject from oidc_identities where user_id = ? and issuer = ?', ['u', 'i']],
  ['sessions of a sid (back-channel)', 'select session_hash from oidc_sessions where issuer = ? and sid = ?', ['i', 'sid-7-3']],
  ['sessions of a sub (back-channel)', 'select session_hash from oidc_sessions where issuer = ? and subject = ?', ['i', 'sub-7']],
  ['mark checked', 'update oidc_sessions set checked_at = ?, refresh_token = ? where session_hash = ?', [1, 'r', 'x']],
  ['workspaces joinable by a domain', 'select workspace_id from workspace_join_domains where domain = ?', ['joiners.example']],
  ['join domains of a workspace', 'select domain from workspace_join_domains where workspace_id = ? order by domain asc', ['w']],
  [
    'account by email (with break_glass)',
    'select id, name, password_hash, break_glass from users where lower(email) = lower(?) and deleted_at is null',
    ['member7@bench.example'],
  ],
  ['sessions of an account (cascade)', 'delete from sessions where user_id = ?', ['u']],
];

/** A copy of the dataset with the provider's people: 50 bound members, 20 sessions each through it, a join domain. */
function prepare(path: string, issuer: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-oidc-'));
  const copy = join(dir, 'timetrack.db');
  copyFileSync(path, copy);
  const database = openDatabase(copy);
  const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
  const workspaceId = services.accounts.listWorkspaces(OPERATOR)[0]!.id;
  services.accounts.setWorkspace(OPERATOR, workspaceId, { joinDomains: ['joiners.example', 'bench.example'] });
  const members = services.accounts.listMembers(OPERATOR, workspaceId);
  const sqlite = database.sqlite;
  const insertSession = sqlite.prepare(
    'insert into sessions (secret_hash, user_id, workspace_id, csrf_token, created_at, last_seen_at) values (?, ?, ?, ?, ?, ?)',
  );
  const insertOidc = sqlite.prepare(
    'insert into oidc_sessions (session_hash, issuer, subject, sid, refresh_token, checked_at, created_at) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertIdentity = sqlite.prepare(
    'insert into oidc_identities (issuer, subject, user_id, created_at, last_sign_in_at) values (?, ?, ?, ?, ?)',
  );
  const now = Date.now();
  sqlite.transaction(() => {
    members.forEach((member, i) => {
      // memberN@bench.example is the provider's sub-N (the one signing in below is sub-0, member0).
      const n = /^member(\d+)@/.exec(member.email)?.[1] ?? `x${i}`;
      insertIdentity.run(issuer, `sub-${n}`, member.userId, now, now);
      for (let s = 0; s < 20; s++) {
        const hash = randomBytes(32).toString('hex');
        insertSession.run(hash, member.userId, workspaceId, 'csrf', now, now);
        insertOidc.run(hash, issuer, `sub-${n}`, `sid-${n}-${s}`, null, now, now);
      }
    });
  })();
  sqlite.exec('analyze');
  console.log('\nQuery plans (1,000,000 entries, 50 bound members, 1,000 sessions through the provider):');
  for (const [name, sql, params] of STATEMENTS) {
    const plan = (sqlite.prepare(`explain query plan ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
    console.log(`  ${name}: ${plan.join('; ')}`);
  }
  database.close();
  return copy;
}

async function pagesPerSecond(url: string, cookie: string): Promise<{ rps: number; p50: number; p99: number }> {
  const first = await fetch(url, { headers: { cookie, 'sec-fetch-mode': 'navigate' }, redirect: 'manual' });
  if (first.status !== 200) throw new Error(`${url} answered ${first.status} ${first.headers.get('location') ?? ''}`);
  const result = await autocannon({ url, connections, duration: seconds, headers: { cookie, 'sec-fetch-mode': 'navigate' } });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 2xx at ${url}`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const { path } = dataset();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const provider = await startTestProvider({
    clients: [timetrackClient(base)],
    users: { 'sub-0': { email: 'member0@bench.example', email_verified: true } },
  });
  const copy = prepare(path, provider.issuer);
  const config = parseConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: base,
    DATABASE_PATH: copy,
    LOG_LEVEL: 'warn',
    SCHEDULER_CRON: 'off',
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: 'timetrack',
    OIDC_CLIENT_SECRET: 'timetrack-test-secret',
  });
  const running = await startServer(config, { logger: createLogger('warn') });
  try {
    // A session of the same member opened with a password, for the comparison (first: setting a password ends the account's sessions).
    const member = running.services.accounts.credentials('member0@bench.example')!;
    await running.services.sessions.setPassword(OPERATOR, member.id, PASSWORD);
    const signIn = await running.services.sessions.signIn({ email: 'member0@bench.example', password: PASSWORD, address: '127.0.0.1' });
    if (signIn.kind !== 'signed-in') throw new Error('password sign-in failed');
    // Sign-ins through the provider: start, its login and consent, the way back (the server's part is the way back).
    const total: number[] = [];
    const wayBack: number[] = [];
    let cookie = '';
    for (let i = 0; i < 20; i++) {
      const browser = new CookieBrowser();
      const started = performance.now();
      const start = await browser.request(`${base}/settings/oidc/start`);
      const callback = await browser.authorize(start.headers.get('location') as string, 'sub-0', `${base}/settings/oidc/callback`);
      const before = performance.now();
      const done = await browser.request(callback);
      if (done.status !== 200) throw new Error(`sign-in answered ${done.status}`);
      wayBack.push(performance.now() - before);
      total.push(performance.now() - started);
      cookie = `tt_session=${browser.cookie(base, 'tt_session')}`;
    }
    const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(1);
    // Each twice, in turn (password first), so neither gains from coming second (a warmer process).
    const rounds: Array<{ rps: number; p50: number; p99: number }> = [];
    for (let round = 0; round < 4; round++)
      rounds.push(await pagesPerSecond(`${base}/settings/tokens`, round % 2 === 0 ? `tt_session=${signIn.session.secret}` : cookie));
    const mean = (a: { rps: number; p50: number; p99: number }, b: { rps: number; p50: number; p99: number }) => ({
      rps: Math.round((a.rps + b.rps) / 2),
      p50: (a.p50 + b.p50) / 2,
      p99: (a.p99 + b.p99) / 2,
    });
    const viaPassword = mean(rounds[0]!, rounds[2]!);
    const viaProvider = mean(rounds[1]!, rounds[3]!);
    console.log('\n| measure | value |\n| --- | --- |');
    console.log(`| sign-in through the provider, whole (p50 of 20) | ${p50(total)} ms |`);
    console.log(
      `| its way back on this server: code exchange, keys, claims, session (p50 of 20; the first ${wayBack[0]!.toFixed(1)} ms) | ${p50(wayBack)} ms |`,
    );
    console.log(
      `| GET /settings/tokens, session through the provider (${connections} connections, mean of 2 runs) | ${viaProvider.rps} req/s, p50 ${viaProvider.p50} ms, p99 ${viaProvider.p99} ms |`,
    );
    console.log(
      `| GET /settings/tokens, session with a password (mean of 2 runs, alternating) | ${viaPassword.rps} req/s, p50 ${viaPassword.p50} ms, p99 ${viaPassword.p99} ms |`,
    );
  } finally {
    await running.close();
    await provider.close();
    rmSync(join(copy, '..'), { recursive: true, force: true });
  }
}

await main();
