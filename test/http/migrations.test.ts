import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { parseConfig } from '../../src/config.js';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { OPERATOR } from '../../src/principal.js';
import { createServices } from '../../src/services.js';
import { migratedUpTo } from '../helpers/old-database.js';
import { createLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';

describe('migrations over existing data', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-migrate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A database migrated up to `lastTag`, open as that version left it, with workspace ws_1 and user usr_1. */
  function oldDatabase(lastTag: string) {
    const path = join(dir, 'timetrack.db');
    migratedUpTo(path, lastTag);
    const old = new Database(path);
    const now = Date.UTC(2026, 10, 2);
    old.prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', ?, ?)").run(now, now);
    old.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_1', 'U', 'u@example.org', ?)").run(now);
    return { path, old, now };
  }

  it('0007 copies each entry’s tags into its row and indexes the folded descriptions already stored', () => {
    const { path, old, now } = oldDatabase('0005_webhook_queue_index');
    old
      .prepare(
        "INSERT INTO tags (id, workspace_id, name, name_key, created_at, updated_at) VALUES ('tag_b', 'ws_1', 'b', 'b', ?, ?), ('tag_a', 'ws_1', 'a', 'a', ?, ?)",
      )
      .run(now, now, now, now);
    const entry = old.prepare(
      "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, end_at, duration_sec, source, created_at, updated_at) VALUES (?, 'ws_1', 'usr_1', ?, 0, ?, ?, 3600, 'api', ?, ?)",
    );
    entry.run('ent_1', 'Quarterly planning', now, now + 3_600_000, now, now);
    entry.run('ent_2', 'untagged work', now, now + 3_600_000, now, now);
    old.prepare("INSERT INTO entry_tags (entry_id, tag_id) VALUES ('ent_1', 'tag_b'), ('ent_1', 'tag_a')").run();
    old.close();

    const database = openDatabase(path);
    try {
      const rows = database.sqlite.prepare('SELECT id, tag_list FROM entries ORDER BY id').all();
      expect(rows).to.deep.equal([
        { id: 'ent_1', tag_list: '["tag_a","tag_b"]' },
        { id: 'ent_2', tag_list: null },
      ]);
      // The index holds the folded text: a lower-case trigram phrase finds 'Quarterly planning'.
      const found = database.sqlite
        .prepare('SELECT e.id FROM entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE entries_fts MATCH \'"plann"\'')
        .all();
      expect(found).to.deep.equal([{ id: 'ent_1' }]);
      // A last character starts a trigram too (the two U+0001 after each description).
      const withK = database.sqlite
        .prepare('SELECT DISTINCT e.id FROM entries_fts_terms t JOIN entries e ON e.rowid = t.doc WHERE term >= ? AND term < ?')
        .all('k', 'k\u{10FFFF}\u{10FFFF}');
      expect(withK).to.deep.equal([{ id: 'ent_2' }]);
      // The backfill left nothing queued; later writes keep tag_list in step and queue the
      // entry for the search index's catch-up (test/fast/unit/search.test.ts).
      const queued = () => database.sqlite.prepare('SELECT entry_rowid FROM entries_fts_pending').pluck().all();
      expect(queued()).to.deep.equal([]);
      database.sqlite.prepare("DELETE FROM entry_tags WHERE entry_id = 'ent_1' AND tag_id = 'tag_a'").run();
      database.sqlite.prepare("UPDATE entries SET description = 'Retro' WHERE id = 'ent_2'").run();
      expect(database.sqlite.prepare("SELECT tag_list FROM entries WHERE id = 'ent_1'").get()).to.deep.equal({ tag_list: '["tag_b"]' });
      expect(queued()).to.deep.equal([database.sqlite.prepare("SELECT rowid FROM entries WHERE id = 'ent_2'").pluck().get()]);
    } finally {
      database.close();
    }
  });

  it('0008 splits delivery errors into a code and its text, and cancels what a disabled subscription left open', () => {
    const { path, old, now } = oldDatabase('0007_report_index_search');
    old
      .prepare(
        "INSERT INTO events (workspace_id, entity, entity_id, operation, event, created_at) VALUES ('ws_1', 'entry', 'ent_1', 'create', 'entry.created', ?)",
      )
      .run(now);
    const hook = old.prepare(
      "INSERT INTO webhooks (id, workspace_id, user_id, url, events, secret_ciphertext, enabled, created_at, updated_at) VALUES (?, 'ws_1', 'usr_1', 'https://h.example.org/', '[]', 'x', ?, ?, ?)",
    );
    hook.run('whk_on', 1, now, now);
    hook.run('whk_off', 0, now, now);
    const delivery = old.prepare(
      "INSERT INTO webhook_deliveries (id, webhook_id, event_seq, event, status, attempt, response_code, error, next_attempt_at, created_at, updated_at) VALUES (?, ?, 1, 'entry.created', ?, ?, ?, ?, ?, ?, ?)",
    );
    delivery.run('d1', 'whk_on', 'failure', 1, 503, 'HTTP 503', now, now, now);
    delivery.run(
      'd2',
      'whk_on',
      'failure',
      1,
      null,
      'blocked_address: h.example.org resolves to 10.0.0.1, a private address (private).',
      now,
      now,
      now,
    );
    delivery.run('d3', 'whk_on', 'failure', 2, null, 'timeout after 10000 ms', now, now, now);
    delivery.run('d4', 'whk_on', 'failure', 1, null, 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:443', now, now, now);
    delivery.run('d5', 'whk_on', 'skipped_visibility', 0, null, 'withheld by the owner’s visibility', null, now, now);
    delivery.run('d6', 'whk_on', 'success', 1, 200, null, null, now, now);
    delivery.run('d7', 'whk_off', 'pending', 0, null, 'subscription disabled', null, now, now);
    delivery.run('d8', 'whk_off', 'failure', 3, 500, 'HTTP 500', now, now, now);
    delivery.run('d9', 'whk_off', 'pending', 0, null, null, now, now, now);
    old.close();

    const database = openDatabase(path);
    try {
      const rows = database.sqlite
        .prepare('SELECT id, status, attempt, error, error_detail AS detail, next_attempt_at AS next FROM webhook_deliveries ORDER BY id')
        .all();
      const cancelled = 'The subscription was disabled before this delivery was made; it is not retried.';
      expect(rows).to.deep.equal([
        { id: 'd1', status: 'failure', attempt: 1, error: 'http_status', detail: 'HTTP 503', next: now },
        {
          id: 'd2',
          status: 'failure',
          attempt: 1,
          error: 'blocked_address',
          detail: 'blocked_address: h.example.org resolves to 10.0.0.1, a private address (private).',
          next: now,
        },
        { id: 'd3', status: 'failure', attempt: 2, error: 'timeout', detail: 'timeout after 10000 ms', next: now },
        {
          id: 'd4',
          status: 'failure',
          attempt: 1,
          error: 'connection_refused',
          detail: 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:443',
          next: now,
        },
        {
          id: 'd5',
          status: 'skipped_visibility',
          attempt: 0,
          error: 'visibility_withheld',
          detail: 'withheld by the owner’s visibility',
          next: null,
        },
        { id: 'd6', status: 'success', attempt: 1, error: null, detail: null, next: null },
        { id: 'd7', status: 'cancelled', attempt: 0, error: 'subscription_disabled', detail: cancelled, next: null },
        { id: 'd8', status: 'cancelled', attempt: 3, error: 'subscription_disabled', detail: cancelled, next: null },
        { id: 'd9', status: 'cancelled', attempt: 0, error: 'subscription_disabled', detail: cancelled, next: null },
      ]);
    } finally {
      database.close();
    }
  });

  it('0009 keeps amounts in whole cents: computed again exactly, except on invoices; project totals follow', () => {
    const { path, old, now } = oldDatabase('0008_webhook_errors');
    old
      .prepare(
        "INSERT INTO projects (id, workspace_id, client_key, name, name_key, color, billable, hourly_rate, archived, created_at, updated_at) VALUES ('prj_1', 'ws_1', '', 'P', 'p', '#000000', 1, 1.005, 0, ?, ?)",
      )
      .run(now, now);
    const entry = old.prepare(
      "INSERT INTO entries (id, workspace_id, author_id, description, project_id, billable, start_at, end_at, duration_sec, hourly_rate, amount, invoice_id, source, created_at, updated_at) VALUES (?, 'ws_1', 'usr_1', '', 'prj_1', ?, ?, ?, ?, ?, ?, ?, 'api', ?, ?)",
    );
    // As the floating-point code wrote them: 1.005 for an hour gave 1 (exact: 1.01).
    entry.run('ent_open', 1, now, now + 3_600_000, 3600, 1.005, 1, null, now, now);
    entry.run('ent_invoiced', 1, now, now + 3_600_000, 3600, 1.005, 1, 'inv_1', now, now);
    entry.run('ent_unbillable', 0, now, now + 3_600_000, 3600, 1.005, 0, null, now, now);
    entry.run('ent_norate', 1, now, now + 3_600_000, 3600, null, null, null, now, now);
    old
      .prepare(
        "INSERT INTO entries (id, workspace_id, author_id, description, project_id, billable, start_at, hourly_rate, source, created_at, updated_at) VALUES ('ent_running', 'ws_1', 'usr_1', '', 'prj_1', 1, ?, 1.005, 'api', ?, ?)",
      )
      .run(now, now, now);
    old.close();

    const database = openDatabase(path);
    try {
      const rows = database.sqlite.prepare('SELECT id, amount_cents AS cents FROM entries ORDER BY id').all();
      expect(rows).to.deep.equal([
        { id: 'ent_invoiced', cents: 100 },
        { id: 'ent_norate', cents: null },
        { id: 'ent_open', cents: 101 },
        { id: 'ent_running', cents: null },
        { id: 'ent_unbillable', cents: 0 },
      ]);
      const columns = database.sqlite.prepare("SELECT name FROM pragma_table_info('entries') WHERE name LIKE 'amount%'").pluck().all();
      expect(columns).to.deep.equal(['amount_cents']);
      expect(
        database.sqlite.prepare("SELECT tracked_sec, amount_cents, entry_count FROM project_totals WHERE project_id = 'prj_1'").get(),
      ).to.deep.equal({
        tracked_sec: 4 * 3600,
        amount_cents: 201,
        entry_count: 4,
      });
      // The triggers keep the totals in cents from now on.
      database.sqlite.prepare("DELETE FROM entries WHERE id = 'ent_open'").run();
      expect(database.sqlite.prepare("SELECT amount_cents FROM project_totals WHERE project_id = 'prj_1'").pluck().get()).to.equal(100);
    } finally {
      database.close();
    }
  });

  it('0010 makes the first member of each workspace its owner, and no one else', () => {
    const { path, old, now } = oldDatabase('0009_money_cents');
    old
      .prepare(
        "INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_2', 'W2', 'EUR', ?, ?), ('ws_empty', 'E', 'EUR', ?, ?)",
      )
      .run(now, now, now, now);
    old.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_2', 'V', 'v@example.org', ?)").run(now);
    const member = old.prepare('INSERT INTO members (workspace_id, user_id, created_at, updated_at) VALUES (?, ?, ?, ?)');
    member.run('ws_1', 'usr_2', now + 1000, now + 1000);
    member.run('ws_1', 'usr_1', now, now);
    member.run('ws_2', 'usr_2', now, now);
    member.run('ws_2', 'usr_1', now, now);
    old.close();

    const database = openDatabase(path);
    try {
      const rows = database.sqlite.prepare('SELECT workspace_id AS w, user_id AS u, is_owner AS owner FROM members ORDER BY w, u').all();
      expect(rows).to.deep.equal([
        { w: 'ws_1', u: 'usr_1', owner: 1 },
        { w: 'ws_1', u: 'usr_2', owner: 0 },
        // A tie on created_at: the one inserted first.
        { w: 'ws_2', u: 'usr_1', owner: 0 },
        { w: 'ws_2', u: 'usr_2', owner: 1 },
      ]);
      const columns = database.sqlite.prepare("SELECT name FROM pragma_table_info('users') WHERE name LIKE 'password%'").pluck().all();
      expect(columns).to.deep.equal(['password_hash', 'password_set_at']);
      expect(database.sqlite.prepare('SELECT count(*) FROM sessions').pluck().get()).to.equal(0);
    } finally {
      database.close();
    }
  });

  it('0018 keeps invoices made before it: no number, no tax (totals are their lines), English; a sent one voids without a credit note', () => {
    const { path, old, now } = oldDatabase('0017_working_day');
    old
      .prepare('INSERT INTO members (workspace_id, user_id, is_owner, created_at, updated_at) VALUES (?, ?, 1, ?, ?)')
      .run('ws_1', 'usr_1', now, now);
    old
      .prepare(
        "INSERT INTO clients (id, workspace_id, name, name_key, created_at, updated_at) VALUES ('cli_1', 'ws_1', 'Acme', 'acme', ?, ?)",
      )
      .run(now, now);
    old
      .prepare(
        "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, end_at, duration_sec, hourly_rate, amount_cents, invoice_id, source, created_at, updated_at) VALUES ('ent_1', 'ws_1', 'usr_1', '', 1, ?, ?, 3600, 150, 15000, 'inv_old', 'api', ?, ?)",
      )
      .run(now, now + 3_600_000, now, now);
    const lines = JSON.stringify([{ description: 'Design', projectId: null, quantitySec: 3600, hourlyRate: 150, amount: 150 }]);
    old
      .prepare(
        "INSERT INTO invoices (id, workspace_id, client_id, status, currency, from_day, to_day, issuer, recipient, lines, total_cents, created_by, created_at, updated_at) VALUES ('inv_old', 'ws_1', 'cli_1', 'sent', 'EUR', '2026-10-01', '2026-10-31', NULL, NULL, ?, 15000, 'usr_1', ?, ?)",
      )
      .run(lines, now, now);
    old.close();

    const database = openDatabase(path);
    try {
      const services = createServices(database, { clock: new ManualClock(now), secretKey: randomBytes(32) });
      expect(services.invoices.get(OPERATOR, 'inv_old')).to.deep.include({
        status: 'sent',
        total: 150,
        number: null,
        issueDate: null,
        dueDate: null,
        paidDate: null,
        netTotal: 150,
        taxTotal: 0,
        grossTotal: 150,
        amountDue: 150,
        creditNote: null,
        note: null,
        language: 'en',
      });
      expect(services.invoices.get(OPERATOR, 'inv_old')).not.to.have.any.keys('taxBreakdown', 'paymentTerms');
      // An invoice issued before numbers existed has none to refer to: voided, it makes no credit note (and uses no number).
      expect(services.invoices.void(OPERATOR, 'inv_old', { userId: 'usr_1' })).to.deep.equal({ id: 'inv_old', from: 'sent', to: 'void' });
      expect(services.invoices.get(OPERATOR, 'inv_old')).to.deep.include({ status: 'void', creditNote: null, amountDue: 0 });
      expect(database.sqlite.prepare('SELECT invoice_id FROM entries').pluck().get()).to.equal(null);
      expect(database.sqlite.prepare('SELECT count(*) FROM invoice_numbers').pluck().get()).to.equal(0);
    } finally {
      database.close();
    }
  });

  it('0031 fills the suggestions of each member from the entries already stored; the triggers keep them after', () => {
    const { path, old, now } = oldDatabase('0030_inv_round_rounding');
    old.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_2', 'V', 'v@example.org', ?)").run(now);
    const entry = old.prepare(
      "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, end_at, duration_sec, source, created_at, updated_at, tag_list) VALUES (?, 'ws_1', ?, ?, ?, ?, ?, 60, 'api', ?, ?, ?)",
    );
    const e = (id: string, user: string, text: string, billable: number, start: number, tags: string | null = null) =>
      entry.run(id, user, text, billable, start, start + 60_000, now, now, tags);
    e('ent_1', 'usr_1', 'Planning', 0, now - 3 * 3_600_000);
    e('ent_2', 'usr_1', 'Planning', 0, now - 3_600_000);
    e('ent_3', 'usr_1', 'Planning', 1, now - 2 * 3_600_000, '["tag_a"]');
    e('ent_4', 'usr_1', '', 0, now);
    e('ent_5', 'usr_2', 'Planning', 0, now - 5 * 3_600_000);
    // A running timer counts too.
    old
      .prepare(
        "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, source, created_at, updated_at) VALUES ('ent_6', 'ws_1', 'usr_2', 'Call', 0, ?, 'api', ?, ?)",
      )
      .run(now, now, now);
    old.close();

    const database = openDatabase(path);
    try {
      const kept = () =>
        database.sqlite
          .prepare(
            'SELECT author_id AS a, description AS d, project_id AS p, task_id AS t, billable AS b, tag_list AS g, uses AS n, last_start AS s FROM entry_suggestions ORDER BY a, d, b',
          )
          .all();
      expect(kept()).to.deep.equal([
        { a: 'usr_1', d: 'Planning', p: '', t: '', b: 0, g: '', n: 2, s: now - 3_600_000 },
        { a: 'usr_1', d: 'Planning', p: '', t: '', b: 1, g: '["tag_a"]', n: 1, s: now - 2 * 3_600_000 },
        { a: 'usr_2', d: 'Call', p: '', t: '', b: 0, g: '', n: 1, s: now },
        { a: 'usr_2', d: 'Planning', p: '', t: '', b: 0, g: '', n: 1, s: now - 5 * 3_600_000 },
      ]);
      // Writes after the migration keep them: the latest use deleted, the older one is the latest left.
      database.sqlite.prepare("DELETE FROM entries WHERE id = 'ent_2'").run();
      database.sqlite.prepare("UPDATE entries SET description = 'Calls' WHERE id = 'ent_6'").run();
      expect(kept().slice(0, 3)).to.deep.equal([
        { a: 'usr_1', d: 'Planning', p: '', t: '', b: 0, g: '', n: 1, s: now - 3 * 3_600_000 },
        { a: 'usr_1', d: 'Planning', p: '', t: '', b: 1, g: '["tag_a"]', n: 1, s: now - 2 * 3_600_000 },
        { a: 'usr_2', d: 'Calls', p: '', t: '', b: 0, g: '', n: 1, s: now },
      ]);
    } finally {
      database.close();
    }
  });

  it('the server backs a database that holds data up before migrating it, and names the backup in its log', async () => {
    const { path, old } = oldDatabase('0008_webhook_errors');
    old.close();
    const lines: string[] = [];
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: path, SCHEDULER_CRON: 'off', READER_THREADS: '0' });
    const running = await startServer(config, { logger: createLogger('info', (l) => lines.push(l)), announce: () => {} });
    await running.close();
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'backed up the database before migrating it');
    expect(logged?.backup).to.match(/timetrack\.db\.before-0009_money_cents\.\d{4}-\d{2}-\d{2}T[\d-]+Z\.bak$/);
    const copy = new Database(logged.backup, { readonly: true });
    try {
      // The copy is the database as it was: migrated up to 0008, with its data.
      expect(copy.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).to.equal(9);
      expect(copy.prepare("SELECT name FROM workspaces WHERE id = 'ws_1'").pluck().get()).to.equal('W');
    } finally {
      copy.close();
    }
  });
});
