import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import {
  backupBeforeMigrating,
  backupTo,
  inspect,
  pendingMigrations,
  restoreFrom,
  serverMark,
  serverRuns,
  takeServerLock,
} from '../../src/db/backup.js';
import { openDatabase } from '../../src/db/database.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { parseConfig } from '../../src/config.js';
import { DomainError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { migratedUpTo, migrationTags } from '../helpers/old-database.js';
import { send } from '../helpers/server.js';
import { BIN } from '../helpers/entry.js';

const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('not refused');
};

/** Copies, checks and restores of the database file (the CLI's backup and restore run these). */
describe('db/backup', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-backup-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A migrated database with `n` sync events. */
  function database(name: string, n: number): string {
    const path = join(dir, name);
    const handle = openDatabase(path);
    handle.sqlite.prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', 0, 0)").run();
    const event = handle.sqlite.prepare(
      "INSERT INTO events (workspace_id, entity, entity_id, operation, created_at) VALUES ('ws_1', 'client', 'cli_1', 'create', 0)",
    );
    for (let i = 0; i < n; i++) event.run();
    handle.close();
    return path;
  }

  it('a backup is a checked copy, mode 0600, that never overwrites a file', () => {
    const source = openDatabase(database('timetrack.db', 3));
    try {
      const to = join(dir, 'copy.db');
      expect(backupTo(source.sqlite, to)).to.deep.equal({ path: to, bytes: statSync(to).size, lastEventSeq: 3, integrity: 'ok' });
      expect(statSync(to).mode & 0o777).to.equal(0o600);
      expect(refusal(() => backupTo(source.sqlite, to))).to.include({ code: 'conflict' });
      expect(refusal(() => backupTo(source.sqlite, join(dir, 'nowhere', 'copy.db')))).to.include({ code: 'invalid' });
    } finally {
      source.close();
    }
  });

  it('inspect refuses what is not a sound timetrack database', () => {
    writeFileSync(join(dir, 'text.db'), 'not a database at all, just some text that is long enough to look like a header');
    expect(refusal(() => inspect(join(dir, 'text.db'))).message).to.match(/not an SQLite database|cannot be opened/);
    const other = new Database(join(dir, 'other.db'));
    other.exec('CREATE TABLE t (x)');
    other.close();
    expect(refusal(() => inspect(join(dir, 'other.db'))).message).to.equal(`${join(dir, 'other.db')} is not a timetrack database.`);
  });

  it('refuses a file whose schema is not what the migrations produce at its level, naming the difference', () => {
    // An extra trigger that re-promotes its author at every sign-in: integrity_check passes it.
    const crafted = database('crafted.db', 1);
    const sqlite = new Database(crafted);
    sqlite.exec(`CREATE TRIGGER promote AFTER INSERT ON sessions BEGIN UPDATE members SET is_owner = 1 WHERE user_id = 'usr_evil'; END`);
    expect(sqlite.pragma('integrity_check', { simple: true })).to.equal('ok');
    sqlite.close();
    const current = database('timetrack.db', 5);
    const refused = refusal(() => restoreFrom(crafted, current, new Date(0)));
    expect(refused.code).to.equal('invalid');
    expect(refused.message).to.equal(
      `${crafted} is refused: its schema is not what timetrack's migrations produce at its migration level: an extra trigger promote. Restore only a copy of a timetrack database (timetrack backup, or a Litestream replica of one).`,
    );
    expect(inspect(current).lastEventSeq).to.equal(5); // untouched
    // A changed index and a rewritten migration record are named too.
    const altered = database('altered.db', 1);
    const other = new Database(altered);
    other.exec('DROP INDEX members_user; CREATE INDEX members_user ON members (user_id, workspace_id)');
    other.close();
    expect(refusal(() => inspect(altered)).message).to.contain('the index members_user differs');
    const record = database('record.db', 1);
    const third = new Database(record);
    third.exec("UPDATE __drizzle_migrations SET hash = 'x' WHERE rowid = 1");
    third.close();
    expect(refusal(() => inspect(record)).message).to.contain('its record of applied migrations is not the shipped migrations');
    // A sound file of an older migration level passes: it is migrated at the next start.
    const older = join(dir, 'older.db');
    const tags = migrationTags();
    migratedUpTo(older, tags[tags.length - 2] as string);
    const old = new Database(older);
    old.prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', 0, 0)").run();
    old
      .prepare("INSERT INTO events (workspace_id, entity, entity_id, operation, created_at) VALUES ('ws_1', 'client', 'c', 'create', 0)")
      .run();
    old.close();
    expect(inspect(older).lastEventSeq).to.equal(1);
  });

  it('tells whether a server runs on a database: its mark of a live process, or its lock held', () => {
    const path = database('timetrack.db', 1);
    // No mark: no server (and the lock is not probed).
    expect(serverRuns(path)).to.equal(false);
    writeFileSync(serverMark(path), String(process.pid));
    expect(serverRuns(path)).to.equal(true);
    // A mark left by a crash (its process gone): the lock is free, so no server.
    writeFileSync(serverMark(path), '999999999');
    expect(serverRuns(path)).to.equal(false);
    // A server whose process id means nothing here (another pid namespace) holds the lock.
    const held = takeServerLock(path);
    expect(serverRuns(path)).to.equal(true);
    held?.release();
    expect(serverRuns(path)).to.equal(false);
  });

  it('restore keeps the replaced database and its WAL beside it, and refuses while a server runs', () => {
    const current = database('timetrack.db', 5);
    const backup = database('backup.db', 2);
    writeFileSync(`${current}-wal`, '');
    // A server holds the database's lock: refused, nothing touched, whatever its mark says (a
    // server in another pid namespace, or on another host over shared storage, has a process
    // id that means nothing here).
    const held = takeServerLock(current);
    expect(held).to.not.equal(null);
    writeFileSync(serverMark(current), '999999999');
    expect(refusal(() => restoreFrom(backup, current, new Date(0))).message).to.equal(
      `A server (process 999999999) uses ${current}: it holds ${current}.server-lock. Stop it first, then restore.`,
    );
    expect(inspect(current).lastEventSeq).to.equal(5);
    // A second server is refused too.
    expect(takeServerLock(current)).to.equal(null);
    held?.release();
    // A mark left by a server that is gone does not count: the lock decides.
    writeFileSync(serverMark(current), String(process.pid));
    const restored = restoreFrom(backup, current, new Date(Date.UTC(2026, 10, 23, 9, 12)));
    const kept = `${current}.replaced-2026-11-23T09-12-00-000Z`;
    expect(restored).to.deep.equal({
      restoredFrom: backup,
      databasePath: current,
      replacedKeptAt: kept,
      lastEventSeq: 2,
      pendingMigrations: [],
    });
    expect(inspect(current).lastEventSeq).to.equal(2);
    expect(inspect(kept).lastEventSeq).to.equal(5);
    expect(readdirSync(dir)).to.include.members([`timetrack.db.replaced-2026-11-23T09-12-00-000Z-wal`]);
    expect(statSync(current).mode & 0o777).to.equal(0o600);
    expect(refusal(() => restoreFrom(join(dir, 'missing.db'), current, new Date()))).to.include({ code: 'not_found' });
  });

  it('restore changes nothing when the copy cannot be made', () => {
    const current = database('timetrack.db', 5);
    const backup = database('backup.db', 2);
    // The copy's place beside the database is taken (by a folder): copying there fails.
    const now = new Date(Date.UTC(2026, 10, 23, 9, 30));
    mkdirSync(`${current}.restoring-2026-11-23T09-30-00-000Z`);
    const error = refusal(() => restoreFrom(backup, current, now));
    expect(error.code).to.equal('invalid');
    expect(error.message).to.match(/could not be copied beside .*; nothing was changed\.$/);
    expect(inspect(current).lastEventSeq).to.equal(5);
    expect(readdirSync(dir).filter((f) => f.includes('.replaced-'))).to.deep.equal([]);
  });

  it('restore refuses a backup written by a newer version', () => {
    const backup = database('backup.db', 1);
    const newer = new Database(backup);
    newer.prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', ?)").run(Date.UTC(2099, 0, 1));
    newer.close();
    expect(refusal(() => restoreFrom(backup, join(dir, 'timetrack.db'), new Date())).message).to.equal(
      `${backup} was written by a newer version of timetrack than this one; upgrade first.`,
    );
  });

  it('before migrating a database that holds data: a backup beside it, the newest `keep` kept', () => {
    // A database as the version before the last two migrations left it, with 4 events.
    const path = join(dir, 'timetrack.db');
    const tags = migrationTags();
    migratedUpTo(path, tags[tags.length - 3] as string);
    const old = new Database(path);
    old.prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', 0, 0)").run();
    const event = old.prepare(
      "INSERT INTO events (workspace_id, entity, entity_id, operation, created_at) VALUES ('ws_1', 'client', 'cli_1', 'create', 0)",
    );
    for (let i = 0; i < 4; i++) event.run();
    expect(pendingMigrations(old)).to.have.length(2);
    const first = backupBeforeMigrating(old, path, 2, new Date(Date.UTC(2026, 10, 23, 1)));
    const second = backupBeforeMigrating(old, path, 2, new Date(Date.UTC(2026, 10, 23, 2)));
    const third = backupBeforeMigrating(old, path, 2, new Date(Date.UTC(2026, 10, 23, 3)));
    expect(backupBeforeMigrating(old, path, 0, new Date())).to.equal(null);
    old.close();
    const copy = new Database(third!, { readonly: true });
    // The journal's last two migrations, whatever they are now.
    const journal = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'drizzle', 'meta', '_journal.json'), 'utf8')) as {
      entries: Array<{ tag: string }>;
    };
    const lastTwo = journal.entries.slice(-2).map((e) => e.tag);
    expect(pendingMigrations(copy)).to.deep.equal(lastTwo);
    copy.close();
    expect(third).to.match(new RegExp(`timetrack\\.db\\.before-${lastTwo[0]}\\.2026-11-23T03-00-00-000Z\\.bak$`));
    const kept = readdirSync(dir).filter((f) => f.endsWith('.bak'));
    expect(kept.sort()).to.deep.equal([second, third].map((p) => p!.slice(dir.length + 1)).sort());
    expect(first).to.be.a('string');
    expect(inspect(third!).lastEventSeq).to.equal(4);
    // A new, empty database has nothing to back up.
    const fresh = new Database(join(dir, 'fresh.db'));
    expect(backupBeforeMigrating(fresh, join(dir, 'fresh.db'), 2, new Date())).to.equal(null);
    fresh.close();
  });
});

/** `timetrack backup` and `restore` as a person runs them: the real command, beside a running server. */
describe('timetrack backup and restore (the command, beside the real server)', function () {
  this.timeout(60_000);
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-backup-cli-'));
    path = join(dir, 'data', 'timetrack.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = () => parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: path, SCHEDULER_CRON: 'off', READER_THREADS: '0' });
  /** The server on `path`; its bootstrap token (printed on the first start only). */
  async function serve(): Promise<{ running: RunningServer; token: string }> {
    let banner = '';
    const running = await startServer(config(), { logger: createLogger('silent'), announce: (t) => (banner += t) });
    return { running, token: /token +(tt_\S+)/.exec(banner)?.[1] ?? '' };
  }
  /** The `timetrack` command in its own process, on `path`. */
  const timetrack = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [...BIN, ...args, '--json'], { env: { ...process.env, DATABASE_PATH: path } }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const entry = (url: string, token: string, n: number) =>
    send(url, 'POST', '/api/v1/entries', {
      token,
      json: { description: `write ${n}`, start: '2026-11-01T08:00:00Z', end: '2026-11-01T09:00:00Z' },
    });

  it('takes a consistent copy under a write load: it opens, passes integrity_check, and holds every write acknowledged before it began', async () => {
    const { running, token } = await serve();
    const acknowledged: string[] = [];
    let writing = true;
    let n = 0;
    const writer = async () => {
      while (writing) {
        const res = await entry(running.url, token, ++n);
        if (res.status === 200) acknowledged.push(res.body.data.id as string);
      }
    };
    try {
      const writers = [writer(), writer(), writer()];
      while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 10));
      const before = [...acknowledged];
      const to = join(dir, 'copy.db');
      const backup = await timetrack('backup', '--to', to);
      const afterCount = acknowledged.length;
      writing = false;
      await Promise.all(writers);
      expect(backup.code, backup.stderr).to.equal(0);
      const printed = JSON.parse(backup.stdout);
      expect(printed).to.include({ path: to, integrity: 'ok', bytes: statSync(to).size });
      expect(afterCount).to.be.above(before.length); // the server kept writing while the copy was made
      const copy = new Database(to, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).to.equal('ok');
        const ids = new Set(copy.prepare('SELECT id FROM entries').pluck().all() as string[]);
        expect(before.filter((id) => !ids.has(id))).to.deep.equal([]);
        expect(copy.prepare('SELECT max(seq) FROM events').pluck().get()).to.equal(printed.lastEventSeq);
      } finally {
        copy.close();
      }
      // A backup never overwrites.
      const again = await timetrack('backup', '--to', to);
      expect([again.code, JSON.parse(again.stderr).error.code]).to.deep.equal([1, 'conflict']);
    } finally {
      writing = false;
      await running.close();
    }
  });

  it('a second server on the same database is refused while the first holds its lock', async () => {
    const first = await serve();
    try {
      const second = await startServer(config(), { logger: createLogger('silent') }).catch((e: Error) => e);
      expect(second).to.be.instanceOf(Error);
      expect((second as Error).message).to.equal(`Another server uses ${path} (it holds ${path}.server-lock); stop it first.`);
      expect((await send(first.running.url, 'GET', '/healthz')).status).to.equal(200);
    } finally {
      await first.running.close();
    }
    const again = await serve();
    await again.running.close();
  });

  it('restore: refused while the server runs; stopped, the backup replaces the database and the old one is kept', async () => {
    const first = await serve();
    const kept = await entry(first.running.url, first.token, 1);
    const to = join(dir, 'copy.db');
    expect((await timetrack('backup', '--to', to)).code).to.equal(0);
    const lost = await entry(first.running.url, first.token, 2);
    const refused = await timetrack('restore', '--from', to);
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr).error).to.deep.equal({
      code: 'conflict',
      message: `A server (process ${process.pid}) uses ${path}: it holds ${path}.server-lock. Stop it first, then restore.`,
    });
    await first.running.close();
    expect(existsSync(`${path}.server-pid`)).to.equal(false);

    const restored = await timetrack('restore', '--from', to);
    expect(restored.code, restored.stderr).to.equal(0);
    const result = JSON.parse(restored.stdout);
    expect(result).to.include({ restoredFrom: to, databasePath: path });
    expect(result.pendingMigrations).to.deep.equal([]);
    expect(result.replacedKeptAt).to.match(/timetrack\.db\.replaced-\d{4}-\d{2}-\d{2}T/);

    const second = await serve();
    try {
      const get = (id: string) => send(second.running.url, 'GET', `/api/v1/entries/${id}`, { token: first.token });
      expect((await get(kept.body.data.id)).status).to.equal(200);
      expect((await get(lost.body.data.id)).status).to.equal(404);
    } finally {
      await second.running.close();
    }
    const old = new Database(result.replacedKeptAt, { readonly: true });
    expect(old.prepare('SELECT count(*) FROM entries WHERE id = ?').pluck().get(lost.body.data.id)).to.equal(1);
    old.close();
  });
});
