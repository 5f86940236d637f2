import type { components } from '../../../generated/openapi.js';

type Grouping = components['schemas']['ReportGrouping'];
export type Key = string | number | null;
export interface Named {
  key: string | null;
  name: string | null;
}

const TIME_GROUPINGS = new Set<Grouping>(['day', 'week', 'month']);
export const isTimeGrouping = (grouping: Grouping): grouping is 'day' | 'week' | 'month' => TIME_GROUPINGS.has(grouping);

/** Where the names of report keys come from: the catalog's and the accounts' services. */
export interface NamePorts {
  projectLabels(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  clientNames(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  taskNames(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  tagNames(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  userNames(ids: string[]): Array<{ id: string; name: string }>;
}

/** The display names of report keys: looked up for just the keys present, in one query per grouping. */
export function createNamer(ports: NamePorts) {
  const lookups: Partial<Record<Grouping, (workspaceId: string, ids: string[]) => Array<{ id: string; name: string }>>> = {
    project: ports.projectLabels,
    client: ports.clientNames,
    task: ports.taskNames,
    tag: ports.tagNames,
    user: (_workspaceId, ids) => ports.userNames(ids),
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
