import { and, eq, inArray } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Db } from '../../db/database.js';
import { users } from '../accounts/schema.js';
import { clients, projects, tags, tasks } from '../catalog/schema.js';

type Grouping = components['schemas']['ReportGrouping'];
export type Key = string | number | null;
export interface Named {
  key: string | null;
  name: string | null;
}

const TIME_GROUPINGS = new Set<Grouping>(['day', 'week', 'month']);
export const isTimeGrouping = (grouping: Grouping): grouping is 'day' | 'week' | 'month' => TIME_GROUPINGS.has(grouping);

/** The display names of report keys: looked up for just the keys present, in one query per grouping. */
export function createNamer(db: Db) {
  const lookups: Partial<Record<Grouping, (workspaceId: string, ids: string[]) => Array<{ id: string; name: string }>>> = {
    project: (workspaceId, ids) =>
      db
        .select({ id: projects.id, name: projects.name })
        .from(projects)
        .where(and(eq(projects.workspaceId, workspaceId), inArray(projects.id, ids)))
        .all(),
    client: (workspaceId, ids) =>
      db
        .select({ id: clients.id, name: clients.name })
        .from(clients)
        .where(and(eq(clients.workspaceId, workspaceId), inArray(clients.id, ids)))
        .all(),
    task: (workspaceId, ids) =>
      db
        .select({ id: tasks.id, name: tasks.name })
        .from(tasks)
        .where(and(eq(tasks.workspaceId, workspaceId), inArray(tasks.id, ids)))
        .all(),
    tag: (workspaceId, ids) =>
      db
        .select({ id: tags.id, name: tags.name })
        .from(tags)
        .where(and(eq(tags.workspaceId, workspaceId), inArray(tags.id, ids)))
        .all(),
    user: (_workspaceId, ids) => db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids)).all(),
  };

  return function namer(grouping: Grouping, workspaceId: string, keys: Key[]): (raw: Key) => Named {
    const lookup = lookups[grouping];
    const ids = lookup ? [...new Set(keys.filter((k): k is string => typeof k === 'string'))] : [];
    const names = new Map(ids.length > 0 && lookup ? lookup(workspaceId, ids).map((r) => [r.id, r.name]) : []);
    return (raw) => {
      if (raw === null) return { key: null, name: null };
      if (grouping === 'billable') return raw ? { key: 'true', name: 'Billable' } : { key: 'false', name: 'Non-billable' };
      // Time buckets are keyed (and named) by their local date or month.
      if (TIME_GROUPINGS.has(grouping)) return { key: String(raw), name: String(raw) };
      return { key: String(raw), name: names.get(String(raw)) ?? String(raw) };
    };
  };
}

export type Namer = ReturnType<typeof createNamer>;

const collator = new Intl.Collator();

/** Entity groups by name (null last), time buckets chronologically, billable first. */
export const order = (grouping: Grouping) => (a: Named, b: Named) => {
  if (a.key === null || b.key === null) return a.key === null ? (b.key === null ? 0 : 1) : -1;
  if (TIME_GROUPINGS.has(grouping)) return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  if (grouping === 'billable') return a.key === 'true' ? -1 : 1;
  const byName = collator.compare((a.name ?? '').toLowerCase(), (b.name ?? '').toLowerCase());
  return byName !== 0 ? byName : a.key < b.key ? -1 : 1;
};

/** The place of each named key in `order`. */
export function ranks(grouping: Grouping, named: Named[]): Map<string | null, number> {
  return new Map([...named].sort(order(grouping)).map((n, i) => [n.key, i]));
}
