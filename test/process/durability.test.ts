import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { createServices } from '../../src/services.js';
import { send, startTestServer } from '../helpers/server.js';
import { MAIN } from '../helpers/entry.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** The real server as its own process (npm start), on loopback, over the given database file. */
async function startServerProcess(databasePath: string, port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_TOKEN_PER_MIN: '100000000',
      RATE_LIMIT_WORKSPACE_PER_MIN: '100000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await send(`http://127.0.0.1:${port}`, 'GET', '/api/v1/openapi.json').catch(() => null);
    if (res?.status === 200) return { child, output: () => out };
    if (Date.now() > until) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('durability', function () {
  this.timeout(90_000);
  let dir: string;
  let databasePath: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-durability-'));
    databasePath = join(dir, 'timetrack.db');
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL during a write load: every acknowledged write is there, nothing half-written, integrity ok', async () => {
    const port = await freePort();
    const first = await startServerProcess(databasePath, port);
    children.push(first.child);
    const token = /token +(tt_\S+)/.exec(first.output())?.[1] as string;
    const base = `http://127.0.0.1:${port}`;
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const originId = `w${n}-${i}`;
        const res = await send(base, 'POST', '/api/v1/entries', {
          token,
          json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: randomBytes(8).toString('hex'), originId },
        }).catch(() => null);
        if (res?.status === 200) acknowledged.push(res.body.data.id);
        else if (res !== null) throw new Error(`unexpected ${res.status}: ${res.text}`);
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    // Killed in the middle of the load: once more than 50 writes were acknowledged (a fixed 1.5 s
    // saw 48 on a loaded machine), with 8 more in flight.
    const loaded = Date.now() + 20_000;
    while (acknowledged.length <= 50 && Date.now() < loaded) await new Promise((r) => setTimeout(r, 25));
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).to.be.greaterThan(50);

    const db = new Database(databasePath);
    try {
      expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
      const ids = new Set((db.prepare('SELECT id FROM entries').all() as Array<{ id: string }>).map((r) => r.id));
      for (const id of acknowledged) expect(ids.has(id), id).to.equal(true);
      // Nothing half-written: every entry has exactly its entry.created event, and no event lacks its entry.
      const orphans = db
        .prepare(
          `SELECT count(*) AS n FROM entries e WHERE (SELECT count(*) FROM events v WHERE v.entity_id = e.id AND v.event = 'entry.created') <> 1`,
        )
        .get() as { n: number };
      const lost = db
        .prepare(
          `SELECT count(*) AS n FROM events v WHERE v.entity = 'entry' AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = v.entity_id)`,
        )
        .get() as { n: number };
      expect(orphans.n).to.equal(0);
      expect(lost.n).to.equal(0);
    } finally {
      db.close();
    }

    // And the server starts again on the same file and serves what was acknowledged.
    const second = await startServerProcess(databasePath, port);
    children.push(second.child);
    const last = acknowledged[acknowledged.length - 1] as string;
    expect((await send(base, 'GET', `/api/v1/entries/${last}`, { token })).status).to.equal(200);
  });

  it('the CLI and the server write the same database at once: waits, no SQLITE_BUSY, no 500', async () => {
    const port = await freePort();
    const server = await startServerProcess(databasePath, port);
    children.push(server.child);
    const token = /token +(tt_\S+)/.exec(server.output())?.[1] as string;
    const workspaceId = /workspace +(ws_\S+)/.exec(server.output())?.[1] as string;
    const base = `http://127.0.0.1:${port}`;

    // A CLI-side connection holds the write lock for 1.5 s while HTTP writes arrive.
    const holder = new Database(databasePath);
    holder.pragma('busy_timeout = 5000');
    const statuses: number[] = [];
    const posts = (count: number) =>
      Promise.all(
        Array.from({ length: count }, async () => {
          const res = await send(base, 'POST', '/api/v1/entries', {
            token,
            json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' },
          });
          statuses.push(res.status);
        }),
      );
    holder.exec('BEGIN IMMEDIATE');
    holder.prepare("UPDATE workspaces SET name = 'held' WHERE id = ?").run(workspaceId);
    const during = posts(10);
    await new Promise((r) => setTimeout(r, 1500));
    holder.exec('COMMIT');
    await during;
    holder.close();

    // CLI commands (their own connections) interleaved with HTTP writes.
    let cliFailures = 0;
    const cli = async (i: number) => {
      const code = await runCli(['user', 'create', '--name', `U${i}`, '--email', `u${i}@example.org`, '--json'], {
        openDatabase: () => openDatabase(databasePath),
        createServices: (database) => createServices(database, { clock: systemClock, secretKey: randomBytes(32) }),
        stdout: () => {},
        stderr: () => {},
      });
      if (code !== 0) cliFailures++;
    };
    const http = posts(40);
    for (let i = 0; i < 20; i++) {
      await cli(i);
      await new Promise((r) => setTimeout(r, 5));
    }
    await http;
    expect(cliFailures).to.equal(0);
    expect(statuses).to.have.length(50);
    expect(
      statuses.every((s) => s === 200),
      JSON.stringify(statuses),
    ).to.equal(true);
    expect(server.output()).not.to.contain('SQLITE_BUSY');
  });

  it('a worker thread checkpoints the WAL into the database file once the WAL holds 1,000 pages; the server’s own connection only past 16,384', async () => {
    const server = await startTestServer();
    try {
      expect(server.running.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).to.equal(16_384);
      const file = server.config.databasePath;
      const wal = () => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      const stamp = () => `${statSync(file).size} bytes, modified ${statSync(file).mtimeMs}`;
      const before = statSync(file).size;
      const untouched = stamp();
      // Below 1,000 pages (4,120,000 bytes of WAL) no thread runs and nothing checkpoints: the file
      // stays as it was, also across a few of the server's looks at the WAL (every 500 ms).
      let written = 0;
      const writeUntil = async (bytes: number) => {
        while (wal() < bytes) {
          expect(stamp(), `the database file after ${written} entries (WAL ${wal()} bytes)`).to.equal(untouched);
          const res = await server.request('POST', '/api/v1/entries', {
            json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: `${written} ${'x'.repeat(490)}` },
          });
          expect(res.status).to.equal(200);
          written += 1;
        }
      };
      await writeUntil(2_000_000);
      await new Promise((r) => setTimeout(r, 1_200));
      await writeUntil(4_120_000);
      // Far below the server's own threshold: only the worker, started now, writes the file.
      const until = Date.now() + 5_000;
      while (statSync(file).size <= before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(statSync(file).size, `after ${written} entries`).to.be.greaterThan(before + written * 490);
    } finally {
      await server.close();
    }
  });
});
