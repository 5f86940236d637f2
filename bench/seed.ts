/*
 * Builds the benchmark dataset in a fresh SQLite file with the real migrations: one workspace,
 * 50 members, 2,000 projects under 200 clients and 50 tags (see SIZES), and `entries` completed
 * entries spread over the four years before NOW (about 250,000 a year), a third of them tagged. Rows are
 * written with prepared statements in large transactions (the project_totals triggers fire as in
 * production). Prints nothing; returns the owner's token and some ids.
 */
import { OPERATOR } from '../src/principal.js';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { createWrite } from '../src/db/write.js';
import { createEntriesRepository } from '../src/modules/entries/repository.js';
import { amountCents } from '../src/kernel/money.js';
import { secondsBetween } from '../src/kernel/time.js';
import { createServices } from '../src/services.js';

export const NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
export const SIZES = { members: 50, clients: 200, projects: 2000, tags: 50, entries: 1_000_000 };

export interface Dataset {
  workspaceId: string;
  ownerToken: string;
  projectIds: string[];
  tagIds: string[];
}

export function seed(databasePath: string, sizes = SIZES): Dataset {
  const database = openDatabase(databasePath);
  const clock = new ManualClock(NOW);
  const services = createServices(database, { clock, secretKey: randomBytes(32) });
  const { accounts, tokens, catalog } = services;
  const workspace = accounts.createWorkspace(OPERATOR, { name: 'Bench', hourlyRate: 60 });
  const userIds: string[] = [];
  for (let i = 0; i < sizes.members; i++) {
    const user = accounts.createUser(OPERATOR, { name: `Member ${i}`, email: `member${i}@bench.example` });
    accounts.addMember(OPERATOR, {
      workspaceId: workspace.id,
      userId: user.id,
      canViewOthersTime: i === 0,
      canViewOthersMoney: i === 0,
      hourlyRate: i % 3 === 0 ? 80 : null,
    });
    userIds.push(user.id);
  }
  const owner = tokens.create(OPERATOR, {
    workspaceId: workspace.id,
    userId: userIds[0] as string,
    name: 'bench',
    scopes: ['entries:read', 'entries:write', 'catalog:read', 'catalog:write', 'reports:read'],
  });
  const actor = tokens.authenticate(owner.token)!.actor;
  const clientIds: string[] = [];
  const projectIds: string[] = [];
  const tagIds: string[] = [];
  database.sqlite.transaction(() => {
    for (let i = 0; i < sizes.clients; i++) clientIds.push(catalog.clients.create(actor, { name: `Client ${i}` }).id);
    for (let i = 0; i < sizes.projects; i++) {
      const project = catalog.projects.create(actor, {
        name: `Project ${i}`,
        clientId: clientIds[i % clientIds.length] as string,
        billable: i % 4 !== 0,
        hourlyRate: i % 5 === 0 ? 120 : null,
        estimateSec: 3_600_000,
        budgetAmount: 50_000,
      });
      projectIds.push(project.id);
    }
    for (let i = 0; i < sizes.tags; i++) tagIds.push(catalog.tags.create(actor, { name: `tag ${i}` }).id);
  })();

  const insert = database.sqlite.prepare(
    `INSERT INTO entries (id, workspace_id, author_id, description, project_id, billable, start_at, end_at, duration_sec,
       hourly_rate, amount_cents, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'api', ?, ?)`,
  );
  const tag = database.sqlite.prepare('INSERT INTO entry_tags (entry_id, tag_id) VALUES (?, ?)');
  const span = 4 * 365 * 86_400_000;
  const batch = 50_000;
  let n = 0;
  let seedValue = 42;
  const random = () => {
    seedValue = (seedValue * 1103515245 + 12345) & 0x7fffffff;
    return seedValue / 0x7fffffff;
  };
  while (n < sizes.entries) {
    database.sqlite.transaction(() => {
      for (let i = 0; i < batch && n < sizes.entries; i++, n++) {
        const start = NOW - Math.floor(random() * span);
        const durationSec = 600 + Math.floor(random() * 7 * 3600);
        const end = start + durationSec * 1000;
        const projectIndex = Math.floor(random() * projectIds.length);
        const billable = projectIndex % 4 !== 0;
        const rate = projectIndex % 5 === 0 ? 120 : 60;
        const id = `ent_${n.toString(36).padStart(8, '0')}${randomBytes(6).toString('hex')}`;
        insert.run(
          id,
          workspace.id,
          userIds[n % userIds.length],
          `Work item ${n % 997}`,
          projectIds[projectIndex],
          billable ? 1 : 0,
          start,
          end,
          secondsBetween(start, end),
          rate,
          amountCents(billable, rate, durationSec),
          start,
          start,
        );
        if (n % 3 === 0) tag.run(id, tagIds[n % tagIds.length]);
      }
    })();
  }
  // The entries as the server would have indexed them by now (its job takes the queue in batches).
  const indexer = searchIndexer(database.db);
  indexer.catchUp(sizes.entries + 1);
  database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  database.sqlite.exec('ANALYZE');
  database.close();
  return { workspaceId: workspace.id, ownerToken: owner.token, projectIds, tagIds };
}

/** The search index's catch-up as the entries service runs it: each batch in a write of its own. */
function searchIndexer(db: Parameters<typeof createEntriesRepository>[0]) {
  const { searchIndex } = createEntriesRepository(db);
  const write = createWrite(db, null);
  return { catchUp: (size = 500) => write(() => searchIndex.catchUp(size)), pending: () => searchIndex.pending() };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The dataset of `sizes`, built once and kept in the temp directory; rebuilt when the size or the
 * migrations (their text) change. Returns its path (copy it before writing to it) and its ids.
 */
export function cachedDataset(sizes = SIZES): { path: string; data: Dataset } {
  const migrations = readdirSync(join(root, 'drizzle'))
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const digest = createHash('sha256');
  for (const file of migrations) digest.update(readFileSync(join(root, 'drizzle', file)));
  const cached = join(tmpdir(), `timetrack-bench-${sizes.entries}-m${migrations.length}-${digest.digest('hex').slice(0, 8)}.db`);
  const meta = `${cached}.json`;
  if (!existsSync(cached) || !existsSync(meta)) {
    rmSync(cached, { force: true });
    const started = Date.now();
    const data = seed(cached, sizes);
    writeFileSync(meta, JSON.stringify(data));
    console.log(`built the dataset (${sizes.entries} entries) in ${Math.round((Date.now() - started) / 1000)} s: ${cached}`);
  }
  return { path: cached, data: JSON.parse(readFileSync(meta, 'utf8')) as Dataset };
}
