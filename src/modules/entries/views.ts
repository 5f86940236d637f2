import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../principal.js';
import { amountOf, fromCents } from '../../kernel/money.js';
import { secondsBetween, toIso } from '../../kernel/time.js';
import type { entries } from './schema.js';

export type EntryView = components['schemas']['Entry'];
export type EntryRowView = components['schemas']['EntryListRow'];
export type EntryRow = typeof entries.$inferSelect;

export interface ViewContext {
  now: number;
  currency: string;
  /** Null for the unredacted snapshot of a domain event. */
  actor: Actor | null;
}

/** Whether the money of this entry is withheld from the actor (a colleague's, without canViewOthersMoney). */
export const moneyWithheld = (row: Pick<EntryRow, 'authorId'>, actor: Actor | null): boolean =>
  actor !== null && row.authorId !== actor.userId && !actor.canViewOthersMoney;

export function durationOf(row: Pick<EntryRow, 'startAt' | 'endAt' | 'durationSec'>, now: number): number {
  return row.endAt === null ? secondsBetween(row.startAt, now) : (row.durationSec ?? secondsBetween(row.startAt, row.endAt));
}

/** An entry's tag ids, sorted, from its row (tag_list: kept by triggers on entry_tags). */
export const tagIdsOfRow = (row: Pick<EntryRow, 'tagList'>): string[] =>
  row.tagList === null ? [] : (JSON.parse(row.tagList) as string[]);

export function entryView(row: EntryRow, tagIds: string[], ctx: ViewContext): EntryView {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    authorId: row.authorId,
    description: row.description,
    projectId: row.projectId,
    taskId: row.taskId,
    billable: row.billable,
    start: toIso(row.startAt),
    end: row.endAt === null ? null : toIso(row.endAt),
    durationSec: durationOf(row, ctx.now),
    hourlyRate: moneyWithheld(row, ctx.actor) ? null : row.hourlyRate,
    currency: ctx.currency,
    source: row.source,
    timeZone: row.timeZone,
    runaway:
      row.runawayDetectedAt === null
        ? null
        : {
            detectedAt: toIso(row.runawayDetectedAt),
            elapsedSec: row.runawayElapsedSec ?? 0,
            limitSec: row.runawayLimitSec ?? 0,
            action: row.runawayAction ?? 'flagged',
            resolvedAt: row.runawayResolvedAt === null ? null : toIso(row.runawayResolvedAt),
          },
    tagIds,
    invoiceId: row.invoiceId,
    importId: row.importId,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

export interface RowNames {
  projectName: string | null;
  projectColor: string | null;
  clientName: string | null;
  taskName: string | null;
}

export function entryRowView(row: EntryRow, tagIds: string[], names: RowNames, ctx: ViewContext): EntryRowView {
  const view = entryView(row, tagIds, ctx);
  const amount = moneyWithheld(row, ctx.actor)
    ? null
    : row.endAt === null
      ? amountOf(row.billable, row.hourlyRate, view.durationSec)
      : row.amountCents === null
        ? null
        : fromCents(row.amountCents);
  return { ...view, ...names, amount };
}
