import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../principal.js';
import type { CatalogService } from '../modules/catalog/service.js';
import type { EventLog } from '../modules/events/service.js';
import type { Negotiated } from '../kernel/compression.js';

/** The catalog lists that carry an ETag, and the name each tag starts with. */
const CATALOG_LISTS = { listClients: 'clients', listProjects: 'projects', listTasks: 'tasks', listTags: 'tags' } as const;
export type CatalogListId = keyof typeof CATALOG_LISTS;

export const isCatalogList = (operationId: string): operationId is CatalogListId => Object.hasOwn(CATALOG_LISTS, operationId);

/**
 * Strong validators of the catalog lists, made without reading the list: `"<list>-<hash>"`,
 * then `-br` or `-gzip` when the request negotiated that coding (a strong validator names one
 * sequence of bytes; the compressed ones are others).
 *
 * The hash covers the workspace's change-log position (the events service's `position`, src/modules/events/service.ts: the
 * state of the workspace's data the list reads, moved by any catalog write for clients, tasks
 * and tags, by any write at all for projects, whose `progress` changes with every entry; never
 * shown as it is, since it counts writes), and it is keyed:
 * - by the process (a random value drawn at start: a restart, an upgrade that
 *   changes the views, a migration or a restore of an older backup, which issues the same seqs
 *   again, all change every tag), the operation, the workspace, the token's visibility (money
 *   fields are null without canViewOthersMoney), the validated query, and for projects seen with
 *   money the running timers' live totals at the request's instant: a running timer's project
 *   progress grows every second without a write.
 *
 * Read before the list (on another connection): a write in between labels the newer list with
 * the older position, which is never current again, so the tag only fails to match later; it
 * never matches a list it does not describe.
 */
export function catalogValidators(deps: { catalog: CatalogService; events: EventLog }) {
  const boot = randomBytes(16);
  const { projects } = deps.catalog;
  return {
    /** The list's validator for this actor and query at `now` (the instant its read uses), without coding or quotes. */
    tag(operationId: CatalogListId, actor: Actor, query: Record<string, unknown>, now: number): string {
      const scope = operationId === 'listProjects' ? 'all' : 'catalog';
      const position = deps.events.position(actor.workspaceId, scope);
      const live =
        operationId === 'listProjects' && actor.canViewOthersMoney
          ? [...projects.liveTotals(actor.workspaceId, now)].sort(([a], [b]) => (a < b ? -1 : 1))
          : [];
      const canonicalQuery = Object.keys(query)
        .sort()
        .map((key) => [key, query[key]]);
      const hash = createHash('sha256')
        .update(boot)
        .update(
          JSON.stringify([
            operationId,
            actor.workspaceId,
            position,
            actor.canViewOthersMoney,
            actor.canViewOthersTime,
            canonicalQuery,
            live,
          ]),
        )
        .digest('hex')
        .slice(0, 20);
      return `${CATALOG_LISTS[operationId]}-${hash}`;
    },
  };
}

export type CatalogValidators = ReturnType<typeof catalogValidators>;

/** The ETag header value of a validator for the coding the request negotiated. */
export const etagHeader = (tag: string, negotiated: Negotiated | null): string =>
  `"${tag}${negotiated === null ? '' : `-${negotiated.coding}`}"`;

/**
 * Whether `If-None-Match` names this validator: `*`, or one of its entity tags, compared weakly
 * (a `W/` prefix ignored, RFC 9110 13.1.2) and in any coding (the client holds the same list).
 */
export function noneMatch(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  for (const [, opaque = ''] of value.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    if (opaque.replace(/-(?:br|gzip)$/, '') === tag) return true;
  }
  return false;
}

/**
 * The last catalog lists answered, by their ETag header (the validator and the coding): a strong
 * validator names one sequence of bytes, so a request whose validator is one of these gets the
 * same bytes again without a read. A write to the workspace moves the change-log position in every
 * tag it could change, so nothing is dropped by hand: an entry whose tag is no longer current is
 * never asked for again and ages out. The reader pool commits the server's open batch of writes
 * before each read (src/server.ts `beforeRead`), so a list is never older than its tag; a list
 * read after a write that came between its tag and its read is kept under the older tag, which no
 * request makes any more: never served for a list it does not describe. At most `entries` lists and `maxBytes` bytes, the oldest dropped first: the
 * 2,000-project list is 874 KB as it is, 117 KB in gzip.
 */
export function keptLists<T extends Uint8Array | { bytes: Uint8Array }>(limits: { entries: number; maxBytes: number }) {
  const kept = new Map<string, T>();
  let bytes = 0;
  const size = (body: T) => (body instanceof Uint8Array ? body.byteLength : body.bytes.byteLength);
  return {
    get: (etag: string): T | undefined => kept.get(etag),
    keep(etag: string, body: T): void {
      if (kept.has(etag) || size(body) > limits.maxBytes) return;
      kept.set(etag, body);
      bytes += size(body);
      for (const [oldest, old] of kept) {
        if (kept.size <= limits.entries && bytes <= limits.maxBytes) break;
        kept.delete(oldest);
        bytes -= size(old);
      }
    },
  };
}
