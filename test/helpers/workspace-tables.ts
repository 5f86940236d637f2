import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../../src/schema.js';

/*
 * A workspace as its database rows, every table and column taken from the schema (drizzle's table
 * definitions, src/schema.ts), for the round trip of a whole-workspace export (issue 56 item 6):
 * a table or a column added later is compared too, unless it is listed below with the reason it
 * does not travel. Ids become what they point to (a name, an email, a key), since an import gives
 * rows new ids.
 */

/** Every table of the schema: its name and its columns as the database names them. */
export const SCHEMA_TABLES: ReadonlyArray<{ name: string; columns: string[] }> = (Object.values(schema) as unknown[])
  .filter((value): value is SQLiteTable => is(value, SQLiteTable))
  .map((table) => getTableConfig(table))
  .map((config) => ({ name: config.name, columns: config.columns.map((c) => c.name) }));

/** Tables whose rows are no workspace's data, and why an export leaves them out. */
export const NOT_CARRIED: Readonly<Record<string, string>> = {
  users:
    "accounts, not the workspace's: one may be in several workspaces; a member travels as their email and name (members), and the password hash is a secret of this server",
  invitations: 'one-time links of this server, stored as hashes of their secrets (an owner invites anew on the other server)',
  email_changes: "a person's pending change of address, a link of this server (a hash of its secret)",
  password_resets: 'one-time links of this server (hashes of their secrets)',
  setup_links: 'one-time links of this server (hashes of their secrets)',
  sessions: "sign-ins to this server's pages (secrets)",
  lobby_sessions: "sign-ins to this server's pages (secrets)",
  sign_in_attempts: "this server's record of failed sign-ins (its rate limits)",
  oidc_identities: "bindings of accounts to this server's identity provider",
  oidc_sessions: "sign-ins through this server's identity provider",
  api_tokens: 'secrets (hashes): tokens are made anew for the other server',
  webhooks: 'subscriptions carry their signing secrets; a receiver is set up anew for the other server (docs/importing.md)',
  webhook_deliveries: 'the delivery log of this server',
  webhook_pings: 'the delivery log of this server',
  events: "this server's sync log: a client syncs anew against the other server",
  mail_messages: 'the mail this server sent and its relay log (a restored send of an invoice is history: docs/importing.md)',
  mail_budget_uses: "this server's mail budget",
  imports: "the bookkeeping of this server's imports (the import into the other server keeps its own)",
  import_created: "the bookkeeping of this server's imports",
  import_fingerprints: "the bookkeeping of this server's imports (the entries' and invoices' ids are the file's fingerprints)",
  entry_tombstones: "the web app's ten seconds of Undo after a delete",
  entry_suggestions:
    "what typing a description suggests: each member's entries summed by triggers in every write, so the import's writes fill it (the entries are compared)",
  timer_stop_links: "one-time Stop links of a running timer's reminder (hashes of their secrets); a running timer is not exported",
};

/** A reference to another row: the table it points to. */
type Ref = 'users' | 'clients' | 'projects' | 'tasks' | 'tags' | 'entries' | 'invoices' | 'approval_periods' | 'expenses';

/** How a workspace's rows of an owned table are read, what its references point to, and the columns that do not travel. */
interface Owned {
  /** The workspace's rows (one `?`: the workspace's id). */
  sql: string;
  refs?: Record<string, Ref>;
  /** JSON columns that hold references: how to make them comparable. */
  json?: Record<string, (value: unknown, key: Keys) => unknown>;
  /** Columns that do not travel, each with its reason. */
  excluded?: Record<string, string>;
}

const WORKSPACE = "the workspace's own id: the file goes into another workspace";
const NEW_ID = 'an id the import gives anew: what refers to the row is compared by what it points to';
const WRITTEN = 'when the row was written to this database: an import writes it now (sync and the pages read changes by it)';

/** The tables a workspace owns (decisions 11a: everything it owns travels), each with the columns that do not. */
export const OWNED: Readonly<Record<string, Owned>> = {
  workspaces: {
    sql: 'SELECT * FROM workspaces WHERE id = ?',
    excluded: { id: WORKSPACE, created_at: WRITTEN, updated_at: WRITTEN },
  },
  members: {
    sql: 'SELECT * FROM members WHERE workspace_id = ?',
    refs: { user_id: 'users' },
    excluded: { workspace_id: WORKSPACE, created_at: WRITTEN, updated_at: WRITTEN },
  },
  workspace_join_domains: { sql: 'SELECT * FROM workspace_join_domains WHERE workspace_id = ?', excluded: { workspace_id: WORKSPACE } },
  clients: {
    sql: 'SELECT * FROM clients WHERE workspace_id = ?',
    excluded: { id: NEW_ID, workspace_id: WORKSPACE, created_at: WRITTEN, updated_at: WRITTEN },
  },
  projects: {
    sql: 'SELECT * FROM projects WHERE workspace_id = ?',
    refs: { client_id: 'clients', client_key: 'clients' },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE, created_at: WRITTEN, updated_at: WRITTEN },
  },
  tasks: {
    sql: 'SELECT * FROM tasks WHERE workspace_id = ?',
    refs: { project_id: 'projects' },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE, created_at: WRITTEN, updated_at: WRITTEN },
  },
  tags: {
    sql: 'SELECT * FROM tags WHERE workspace_id = ?',
    excluded: { id: NEW_ID, workspace_id: WORKSPACE, created_at: WRITTEN, updated_at: WRITTEN },
  },
  project_totals: {
    sql: 'SELECT t.* FROM project_totals t JOIN projects p ON p.id = t.project_id WHERE p.workspace_id = ?',
    refs: { project_id: 'projects' },
  },
  entries: {
    sql: 'SELECT * FROM entries WHERE workspace_id = ? AND end_at IS NOT NULL',
    refs: { author_id: 'users', project_id: 'projects', task_id: 'tasks', invoice_id: 'invoices' },
    excluded: {
      id: NEW_ID,
      workspace_id: WORKSPACE,
      created_at: WRITTEN,
      updated_at: WRITTEN,
      source: "an imported entry's provenance: `import`, with import_id, by which its undo finds it (docs/importing.md)",
      import_id: "an imported entry's provenance: the import that wrote it (its undo finds it by it)",
      origin_id: "the id an API client gave the write that made the entry, for that client's own sync with that server",
      tag_list: "a copy of the entry's tags in ids, kept by triggers (entry_tags is compared)",
    },
  },
  entry_tags: {
    sql: 'SELECT t.* FROM entry_tags t JOIN entries e ON e.id = t.entry_id WHERE e.workspace_id = ? AND e.end_at IS NOT NULL',
    refs: { entry_id: 'entries', tag_id: 'tags' },
  },
  invoices: {
    sql: 'SELECT * FROM invoices WHERE workspace_id = ?',
    refs: { client_id: 'clients', created_by: 'users' },
    json: {
      lines: (lines, key) =>
        (lines as Array<Record<string, unknown>>).map((l) => ({
          ...l,
          projectId: l.projectId == null ? null : key.projects(l.projectId as string),
        })),
      einvoice_fills: (fills, key) => (fills as Array<Record<string, unknown>>).map((f) => ({ ...f, by: key.users(f.by as string) })),
    },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE },
  },
  invoice_numbers: {
    sql: 'SELECT * FROM invoice_numbers WHERE workspace_id = ?',
    refs: { invoice_id: 'invoices' },
    excluded: { workspace_id: WORKSPACE },
  },
  invoice_settings: {
    sql: 'SELECT * FROM invoice_settings WHERE workspace_id = ?',
    excluded: { workspace_id: WORKSPACE, updated_at: WRITTEN },
  },
  invoice_payments: {
    sql: 'SELECT * FROM invoice_payments WHERE workspace_id = ?',
    refs: { invoice_id: 'invoices', recorded_by: 'users' },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE },
  },
  invoice_sends: {
    sql: 'SELECT * FROM invoice_sends WHERE workspace_id = ?',
    refs: { invoice_id: 'invoices', sent_by: 'users' },
    excluded: {
      id: NEW_ID,
      workspace_id: WORKSPACE,
      mail_id: 'the mail message of the server that sent it, which stays there (a restored send is marked `restored:`)',
    },
  },
  invoice_reminders: {
    sql: 'SELECT * FROM invoice_reminders WHERE workspace_id = ?',
    refs: { invoice_id: 'invoices' },
    excluded: {
      id: NEW_ID,
      workspace_id: WORKSPACE,
      mail_id: 'the mail message of the server that sent it, which stays there (a restored reminder is marked `restored:`)',
    },
  },
  approval_settings: {
    sql: 'SELECT * FROM approval_settings WHERE workspace_id = ?',
    excluded: { workspace_id: WORKSPACE, updated_at: WRITTEN },
  },
  approvers: {
    sql: 'SELECT * FROM approvers WHERE workspace_id = ?',
    refs: { user_id: 'users' },
    excluded: { workspace_id: WORKSPACE, created_at: WRITTEN },
  },
  approval_periods: {
    sql: 'SELECT * FROM approval_periods WHERE workspace_id = ?',
    refs: { user_id: 'users', decided_by: 'users' },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE, updated_at: WRITTEN },
  },
  approval_audit: {
    sql: 'SELECT * FROM approval_audit WHERE workspace_id = ?',
    refs: { period_id: 'approval_periods', by_user_id: 'users' },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE },
  },
  expenses: {
    sql: 'SELECT * FROM expenses WHERE workspace_id = ?',
    refs: { author_id: 'users', project_id: 'projects', invoice_id: 'invoices' },
    excluded: { id: NEW_ID, workspace_id: WORKSPACE },
  },
  expense_receipts: {
    sql: 'SELECT * FROM expense_receipts WHERE workspace_id = ?',
    refs: { expense_id: 'expenses' },
    // The bytes compared by their SHA-256 (the same bytes, the same digest; a megabyte as JSON would be slow to compare).
    json: {
      bytes: (bytes) =>
        createHash('sha256')
          .update(bytes as Buffer)
          .digest('hex'),
    },
    excluded: { workspace_id: WORKSPACE },
  },
};

/** What an id points to, by table: an email, a name, a key. */
interface Keys {
  users(id: string): string;
  clients(id: string): string;
  projects(id: string): string;
  tasks(id: string): string;
  tags(id: string): string;
  entries(id: string): string;
  invoices(id: string): string;
  approval_periods(id: string): string;
  expenses(id: string): string;
}

/** A JSON text as a value with its keys sorted (the order of an object's keys is not what it holds). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}
const parsed = (value: unknown): unknown => {
  if (typeof value !== 'string' || !/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

/**
 * Every row of every table the workspace owns, as comparable values: columns by the schema, ids as
 * what they point to, JSON parsed with sorted keys, the excluded columns left out; each table's rows
 * sorted. `skipMembers`: emails of members that are the test's own (its readers), left out.
 */
export function workspaceRows(databasePath: string, workspaceId: string, skipMembers: string[] = []): Record<string, string[]> {
  const db = new Database(databasePath, { readonly: true });
  try {
    const all = (sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as Array<Record<string, unknown>>;
    const email = new Map(all('SELECT id, email FROM users').map((u) => [u.id as string, (u.email as string).toLowerCase()]));
    const rows = Object.fromEntries(Object.entries(OWNED).map(([table, owned]) => [table, all(owned.sql, workspaceId)]));
    const by = <T>(table: string, key: (row: Record<string, unknown>) => T) =>
      new Map((rows[table] ?? []).map((r) => [r.id as string, key(r)]));
    const clientName = by('clients', (r) => r.name as string);
    const projectKey = by('projects', (r) => `${r.client_id ? clientName.get(r.client_id as string) : ''}/${r.name as string}`);
    const taskKey = by('tasks', (r) => `${projectKey.get(r.project_id as string)}/${r.name as string}`);
    const tagName = by('tags', (r) => r.name as string);
    const invoiceKey = by('invoices', (r) =>
      JSON.stringify([
        r.number,
        r.from_day,
        r.to_day,
        clientName.get(r.client_id as string),
        (JSON.parse(r.lines as string) as Array<{ projectId: string | null }>).map((l) =>
          l.projectId ? projectKey.get(l.projectId) : null,
        ),
      ]),
    );
    const entryKey = by('entries', (r) =>
      JSON.stringify([
        email.get(r.author_id as string),
        r.start_at,
        r.end_at,
        r.description,
        projectKey.get(r.project_id as string) ?? null,
      ]),
    );
    const periodKey = by('approval_periods', (r) => JSON.stringify([email.get(r.user_id as string), r.kind, r.start_day]));
    const expenseKey = by('expenses', (r) =>
      JSON.stringify([
        email.get(r.author_id as string),
        r.day,
        r.description,
        r.amount_cents,
        projectKey.get(r.project_id as string),
        r.created_at,
      ]),
    );
    const known = (map: Map<string, string>, what: string) => (id: string) => map.get(id) ?? `unknown ${what} ${id}`;
    const keys: Keys = {
      users: known(email, 'user'),
      clients: known(clientName, 'client'),
      projects: known(projectKey, 'project'),
      tasks: known(taskKey, 'task'),
      tags: known(tagName, 'tag'),
      entries: known(entryKey, 'entry'),
      invoices: known(invoiceKey, 'invoice'),
      approval_periods: known(periodKey, 'approval period'),
      expenses: known(expenseKey, 'expense'),
    };
    const out: Record<string, string[]> = {};
    for (const [table, owned] of Object.entries(OWNED)) {
      out[table] = (rows[table] ?? [])
        .filter((r) => table !== 'members' || !skipMembers.includes(email.get(r.user_id as string) ?? ''))
        .map((r) => {
          const row: Record<string, unknown> = {};
          for (const [column, value] of Object.entries(r)) {
            if (owned.excluded?.[column]) continue;
            const ref = owned.refs?.[column];
            let v = ref && typeof value === 'string' && value !== '' ? keys[ref](value) : parsed(value);
            const json = owned.json?.[column];
            if (json && v !== null) v = json(v, keys);
            row[column] = canonical(v);
          }
          return JSON.stringify(row);
        })
        .sort();
    }
    return out;
  } finally {
    db.close();
  }
}
