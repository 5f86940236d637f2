import type { ImportRow } from './repository.js';

/** An import record as `import list` / `show` and the Import page show it. */
export interface ImportView {
  id: string;
  workspaceId: string;
  format: string;
  fileName: string;
  /** Who ran it: a member's id, or null for the operator (the command line without --user). */
  by: string | null;
  state: ImportRow['state'];
  webhooks: boolean;
  rows: number;
  imported: number;
  duplicates: number;
  refused: number;
  failure: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export const importView = (row: ImportRow): ImportView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  format: row.format,
  fileName: row.fileName,
  by: row.actorUserId,
  state: row.state,
  webhooks: row.webhooks,
  rows: row.rows,
  imported: row.imported,
  duplicates: row.duplicates,
  refused: row.refused,
  failure: row.failure,
  startedAt: new Date(row.startedAt).toISOString(),
  finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt).toISOString(),
});

/** What an import created (or would create), in words: `1 client, 2 projects, 3 tags` ('' for nothing). */
export function createdInWords(created: { clients: number; projects: number; tasks: number; tags: number; users: number }): string {
  const n = (count: number, one: string) => `${count.toLocaleString('en')} ${one}${count === 1 ? '' : 's'}`;
  return [
    created.clients && n(created.clients, 'client'),
    created.projects && n(created.projects, 'project'),
    created.tasks && n(created.tasks, 'task'),
    created.tags && n(created.tags, 'tag'),
    created.users && n(created.users, 'member'),
  ]
    .filter(Boolean)
    .join(', ');
}

/** What an import restored of a workspace's export (decisions 11a), in words; empty when nothing. */
export function restoredInWords(
  restored: { profile: number; invoicing: number; rates: number; invoices: number; workspace?: number; members?: number } | undefined,
): string {
  if (!restored) return '';
  const n = (count: number, one: string) => `${count.toLocaleString('en')} ${one}${count === 1 ? '' : 's'}`;
  return [
    (restored.workspace ?? 0) > 0 && 'the workspace’s name and settings',
    (restored.members ?? 0) > 0 && `the role and visibility of ${n(restored.members ?? 0, 'member')}`,
    restored.profile > 0 && 'the issuer profile',
    restored.invoicing > 0 && 'the invoicing settings',
    restored.rates > 0 && n(restored.rates, 'rate'),
    restored.invoices > 0 && n(restored.invoices, 'invoice'),
  ]
    .filter(Boolean)
    .join(', ');
}
