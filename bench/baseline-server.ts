/*
 * The benchmark baseline: a bare node:http server over better-sqlite3 doing the same work as
 * the real server for each measured route, with the same token check (prefix lookup joined with
 * member, user and workspace; SHA-256; constant-time compare; revocation and expiry), and the
 * same queries, without a framework, validation, rate limits or logs: the floor the real server
 * is compared against.
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';

const path = process.env.BENCH_DATABASE_PATH;
if (!path) throw new Error('BENCH_DATABASE_PATH is required');
const db = new Database(path);
db.pragma('journal_mode = WAL');
// NORMAL by default; BENCH_SYNCHRONOUS=FULL syncs every commit (the server's durability, without group commit).
db.pragma(`synchronous = ${process.env.BENCH_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL'}`);
db.pragma('busy_timeout = 5000');

const findToken = db.prepare(
  `SELECT t.id, t.workspace_id, t.user_id, t.secret_hash, t.scopes, t.expires_at, t.revoked_at,
          t.minted_can_view_others_time AS mt, t.minted_can_view_others_money AS mm,
          m.can_view_others_time AS ct, m.can_view_others_money AS cm, w.currency
     FROM api_tokens t
     JOIN members m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
     JOIN users u ON u.id = t.user_id AND u.deleted_at IS NULL
     JOIN workspaces w ON w.id = t.workspace_id
    WHERE t.prefix = ?`,
);
const longest = db.prepare('SELECT max(duration_sec) AS max FROM entries WHERE workspace_id = ?');
const listCompleted = db.prepare(
  `SELECT e.*, p.name AS project_name, p.color AS project_color, c.name AS client_name, t.name AS task_name
     FROM entries e
     LEFT JOIN projects p ON p.id = e.project_id
     LEFT JOIN clients c ON c.id = p.client_id
     LEFT JOIN tasks t ON t.id = e.task_id
    WHERE e.workspace_id = ? AND e.start_at < ? AND e.end_at IS NOT NULL AND e.end_at > ? AND e.start_at > ?
    ORDER BY e.start_at DESC, e.id DESC LIMIT ?`,
);
const listRunning = db.prepare(
  `SELECT e.*, p.name AS project_name, p.color AS project_color, c.name AS client_name, t.name AS task_name
     FROM entries e
     LEFT JOIN projects p ON p.id = e.project_id
     LEFT JOIN clients c ON c.id = p.client_id
     LEFT JOIN tasks t ON t.id = e.task_id
    WHERE e.workspace_id = ? AND e.end_at IS NULL`,
);
const projectOf = db.prepare('SELECT id, billable, hourly_rate FROM projects WHERE id = ? AND workspace_id = ?');
const memberRate = db.prepare('SELECT hourly_rate FROM members WHERE workspace_id = ? AND user_id = ?');
const workspaceRate = db.prepare('SELECT hourly_rate FROM workspaces WHERE id = ?');
const insertEntry = db.prepare(
  `INSERT INTO entries (id, workspace_id, author_id, description, project_id, billable, start_at, end_at, duration_sec,
     hourly_rate, amount_cents, source, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'api', ?, ?)`,
);
const insertEvent = db.prepare(
  `INSERT INTO events (workspace_id, entity, entity_id, operation, event, actor_user_id, actor_token_id, payload, created_at)
   VALUES (?, 'entry', ?, 'create', 'entry.created', ?, ?, ?, ?)`,
);

const entryById = db.prepare('SELECT * FROM entries WHERE id = ? AND workspace_id = ?');
const tagsOf = db.prepare('SELECT tag_id FROM entry_tags WHERE entry_id = ? ORDER BY tag_id');
const runningOf = db.prepare('SELECT * FROM entries WHERE workspace_id = ? AND author_id = ? AND end_at IS NULL');
const stopEntry = db.prepare('UPDATE entries SET end_at = ?, duration_sec = ?, amount_cents = ?, updated_at = ? WHERE id = ?');
const insertTimer = db.prepare(
  `INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, hourly_rate, source, created_at, updated_at)
   VALUES (?, ?, ?, '', 0, ?, ?, 'api', ?, ?)`,
);
const insertTimerEvent = db.prepare(
  `INSERT INTO events (workspace_id, entity, entity_id, operation, event, actor_user_id, actor_token_id, payload, created_at)
   VALUES (?, 'entry', ?, ?, ?, ?, ?, ?, ?)`,
);

const pattern = /^tt_([A-Za-z0-9]{8})_([A-Za-z0-9_-]{43})$/;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function authenticate(req: IncomingMessage): Record<string, any> | null {
  const token = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const prefix = pattern.exec(token)?.[1];
  const row = prefix ? (findToken.get(prefix) as Record<string, any> | undefined) : undefined;
  const presented = createHash('sha256').update(token).digest();
  const ok =
    row !== undefined &&
    timingSafeEqual(presented, Buffer.from(row.secret_hash, 'hex')) &&
    row.revoked_at === null &&
    (row.expires_at === null || row.expires_at > Date.now());
  return ok ? row : null;
}

function entryJson(e: Record<string, any>, currency: string, now: number) {
  return {
    id: e.id,
    workspaceId: e.workspace_id,
    authorId: e.author_id,
    description: e.description,
    projectId: e.project_id,
    taskId: e.task_id,
    billable: e.billable === 1,
    start: iso(e.start_at),
    end: iso(e.end_at),
    durationSec: e.end_at === null ? Math.floor((now - e.start_at) / 1000) : e.duration_sec,
    hourlyRate: e.hourly_rate,
    currency,
    source: e.source,
    timeZone: e.time_zone,
    runaway: null,
    tagIds: [] as string[],
    invoiceId: e.invoice_id,
    importId: e.import_id,
    createdAt: iso(e.created_at),
    updatedAt: iso(e.updated_at),
  };
}

function send(res: ServerResponse, status: number, body: unknown) {
  res
    .writeHead(status, { 'content-type': status < 300 ? 'application/json; charset=utf-8' : 'application/problem+json' })
    .end(JSON.stringify(body));
}

function list(token: Record<string, any>, url: URL, res: ServerResponse) {
  const from = Date.parse(`${url.searchParams.get('from')}T00:00:00Z`);
  const to = Date.parse(`${url.searchParams.get('to')}T00:00:00Z`) + 86_400_000;
  const limit = Number(url.searchParams.get('limit') ?? 50);
  const max = (longest.get(token.workspace_id) as { max: number | null }).max ?? 0;
  const rows = [
    ...(listCompleted.all(token.workspace_id, to, from, from - (max + 1) * 1000, limit + 1) as Record<string, any>[]),
    ...(listRunning.all(token.workspace_id) as Record<string, any>[]).filter((e) => e.start_at < to),
  ]
    .sort((a, b) => b.start_at - a.start_at || (a.id < b.id ? 1 : -1))
    .slice(0, limit + 1);
  const page = rows.slice(0, limit);
  const tags = new Map<string, string[]>();
  if (page.length > 0) {
    const ids = page.map((r) => r.id);
    for (const t of db
      .prepare(`SELECT entry_id, tag_id FROM entry_tags WHERE entry_id IN (${ids.map(() => '?').join(',')}) ORDER BY entry_id, tag_id`)
      .all(...ids) as Array<{ entry_id: string; tag_id: string }>) {
      tags.set(t.entry_id, [...(tags.get(t.entry_id) ?? []), t.tag_id]);
    }
  }
  const now = Date.now();
  const data = page.map((e) => ({
    ...entryJson(e, token.currency, now),
    tagIds: tags.get(e.id) ?? [],
    projectName: e.project_name,
    projectColor: e.project_color,
    clientName: e.client_name,
    taskName: e.task_name,
    amount: e.amount_cents === null ? null : e.amount_cents / 100,
  }));
  const last = page[page.length - 1];
  send(res, 200, {
    data,
    nextCursor: rows.length > limit && last ? Buffer.from(`${last.start_at}.${last.id}`).toString('base64url') : null,
  });
}

function create(token: Record<string, any>, body: Record<string, any>, res: ServerResponse) {
  const start = Date.parse(body.start);
  const end = Date.parse(body.end);
  if (!(end > start)) return send(res, 400, {});
  const entry = db
    .transaction(() => {
      const project = body.projectId ? (projectOf.get(body.projectId, token.workspace_id) as Record<string, any> | undefined) : undefined;
      if (body.projectId && !project) return null;
      const billable = body.billable ?? (project ? project.billable === 1 : false);
      const rate =
        project?.hourly_rate ??
        (memberRate.get(token.workspace_id, token.user_id) as any)?.hourly_rate ??
        (workspaceRate.get(token.workspace_id) as any)?.hourly_rate ??
        null;
      const durationSec = Math.floor((end - start) / 1000);
      const amountCents = billable ? (rate === null ? null : Math.round((rate * durationSec) / 36)) : 0;
      const now = Date.now();
      const id = `ent_${randomBytes(10).toString('hex')}`;
      insertEntry.run(
        id,
        token.workspace_id,
        token.user_id,
        body.description ?? '',
        body.projectId ?? null,
        billable ? 1 : 0,
        start,
        end,
        durationSec,
        rate,
        amountCents,
        now,
        now,
      );
      const row = {
        id,
        workspace_id: token.workspace_id,
        author_id: token.user_id,
        description: body.description ?? '',
        project_id: body.projectId ?? null,
        task_id: null,
        billable: billable ? 1 : 0,
        start_at: start,
        end_at: end,
        duration_sec: durationSec,
        hourly_rate: rate,
        source: 'api',
        time_zone: null,
        invoice_id: null,
        import_id: null,
        created_at: now,
        updated_at: now,
      };
      const json = entryJson(row, token.currency, now);
      insertEvent.run(token.workspace_id, id, token.user_id, token.id, JSON.stringify(json), now);
      return json;
    })
    .immediate();
  if (!entry) return send(res, 404, {});
  send(res, 200, { data: entry });
}

function getEntry(token: Record<string, any>, id: string, res: ServerResponse) {
  const row = entryById.get(id, token.workspace_id) as Record<string, any> | undefined;
  if (!row || (row.author_id !== token.user_id && !(token.mt && token.ct))) return send(res, 404, {});
  const json = entryJson(row, token.currency, Date.now());
  json.tagIds = (tagsOf.all(id) as Array<{ tag_id: string }>).map((t) => t.tag_id);
  if (row.author_id !== token.user_id && !(token.mm && token.cm)) json.hourlyRate = null;
  send(res, 200, { data: json });
}

/** Start (stopping a running timer first) or stop, each with its event row, in one transaction. */
function timer(token: Record<string, any>, start: boolean, res: ServerResponse) {
  const now = Date.now();
  const result = db
    .transaction(() => {
      const running = runningOf.get(token.workspace_id, token.user_id) as Record<string, any> | undefined;
      if (running) {
        if (now <= running.start_at) return 400;
        const seconds = Math.floor((now - running.start_at) / 1000);
        stopEntry.run(now, seconds, running.billable ? null : 0, now, running.id);
        insertTimerEvent.run(
          token.workspace_id,
          running.id,
          'update',
          'entry.stopped',
          token.user_id,
          token.id,
          JSON.stringify(entryJson({ ...running, end_at: now, duration_sec: seconds }, token.currency, now)),
          now,
        );
      } else if (!start) {
        return 404;
      }
      if (!start)
        return entryJson({ ...running, end_at: now, duration_sec: Math.floor((now - running!.start_at) / 1000) }, token.currency, now);
      const rate =
        (memberRate.get(token.workspace_id, token.user_id) as any)?.hourly_rate ??
        (workspaceRate.get(token.workspace_id) as any)?.hourly_rate ??
        null;
      const id = `ent_${randomBytes(10).toString('hex')}`;
      insertTimer.run(id, token.workspace_id, token.user_id, now, rate, now, now);
      const row = {
        id,
        workspace_id: token.workspace_id,
        author_id: token.user_id,
        description: '',
        project_id: null,
        task_id: null,
        billable: 0,
        start_at: now,
        end_at: null,
        duration_sec: null,
        hourly_rate: rate,
        source: 'api',
        time_zone: null,
        invoice_id: null,
        import_id: null,
        created_at: now,
        updated_at: now,
      };
      const json = entryJson(row, token.currency, now);
      insertTimerEvent.run(token.workspace_id, id, 'create', 'entry.started', token.user_id, token.id, JSON.stringify(json), now);
      return json;
    })
    .immediate();
  if (typeof result === 'number') return send(res, result, {});
  send(res, 200, { data: result });
}

const server = createServer((req, res) => {
  const token = authenticate(req);
  if (!token) return send(res, 401, {});
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && url.pathname === '/api/v1/me') {
    return send(res, 200, {
      data: {
        tokenId: token.id,
        workspaceId: token.workspace_id,
        userId: token.user_id,
        scopes: JSON.parse(token.scopes),
        visibility: { canViewOthersTime: Boolean(token.mt && token.ct), canViewOthersMoney: Boolean(token.mm && token.cm) },
      },
    });
  }
  if (req.method === 'GET' && url.pathname === '/api/v1/entries') return list(token, url, res);
  if (req.method === 'GET' && url.pathname.startsWith('/api/v1/entries/ent_'))
    return getEntry(token, url.pathname.slice('/api/v1/entries/'.length), res);
  if (req.method === 'POST' && url.pathname === '/api/v1/entries/current') return timer(token, true, res);
  if (req.method === 'POST' && url.pathname === '/api/v1/entries/current/stop') return timer(token, false, res);
  if (req.method === 'POST' && url.pathname === '/api/v1/entries') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => create(token, JSON.parse(Buffer.concat(chunks).toString('utf8')), res));
    return;
  }
  send(res, 404, {});
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`BASELINE_LISTENING http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => db.close()));
