import { sql } from 'drizzle-orm';
import type { entries } from '../schema.js';

const p = (name: string) => sql.placeholder(name);

/** The columns every new entry sets, as placeholders named after the EntryInsert fields (one insert per shape). */
export const INSERT_VALUES = Object.fromEntries(
  [
    'id',
    'workspaceId',
    'authorId',
    'description',
    'projectId',
    'taskId',
    'billable',
    'startAt',
    'endAt',
    'durationSec',
    'amountCents',
    'hourlyRate',
    'source',
    'timeZone',
    'originId',
    'importId',
    'tagList',
    'createdAt',
    'updatedAt',
  ].map((name) => [name, p(name)]),
) as unknown as typeof entries.$inferInsert;
