/**
 * The benchmark baseline: a bare node:http server over better-sqlite3 doing the same token check
 * as the real server (prefix lookup joined with member, user and workspace; SHA-256; constant-time
 * compare; revocation and expiry), then the same GET /api/v1/me body. No framework, no
 * validation, no rate limiting: the floor the real server is compared against.
 */
import { createServer } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import Database from 'better-sqlite3';

const path = process.env.BENCH_DATABASE_PATH;
if (!path) throw new Error('BENCH_DATABASE_PATH is required');
const db = new Database(path, { readonly: true });
db.pragma('journal_mode = WAL');
const find = db.prepare(
  `SELECT t.id, t.workspace_id, t.user_id, t.secret_hash, t.scopes, t.expires_at, t.revoked_at,
          t.minted_can_view_others_time AS mt, t.minted_can_view_others_money AS mm,
          m.can_view_others_time AS ct, m.can_view_others_money AS cm
     FROM api_tokens t
     JOIN members m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
     JOIN users u ON u.id = t.user_id AND u.deleted_at IS NULL
     JOIN workspaces w ON w.id = t.workspace_id
    WHERE t.prefix = ?`,
);
const pattern = /^tt_([A-Za-z0-9]{8})_([A-Za-z0-9_-]{43})$/;

const server = createServer((req, res) => {
  const header = req.headers.authorization ?? '';
  const token = /^Bearer +(\S+) *$/i.exec(header)?.[1] ?? '';
  const prefix = pattern.exec(token)?.[1];
  const row = prefix ? (find.get(prefix) as Record<string, any> | undefined) : undefined;
  const presented = createHash('sha256').update(token).digest();
  const ok =
    row !== undefined &&
    timingSafeEqual(presented, Buffer.from(row.secret_hash, 'hex')) &&
    row.revoked_at === null &&
    (row.expires_at === null || row.expires_at > Date.now());
  if (!ok || req.url !== '/api/v1/me') {
    res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{}');
    return;
  }
  const body = JSON.stringify({
    data: {
      tokenId: row.id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      scopes: JSON.parse(row.scopes),
      visibility: { canViewOthersTime: Boolean(row.mt && row.ct), canViewOthersMoney: Boolean(row.mm && row.cm) },
    },
  });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`BASELINE_LISTENING http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => db.close()));
