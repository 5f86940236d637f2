import { sql } from 'drizzle-orm';
import type { entries } from '../schema.js';
import type { EntryRow } from '../views.js';

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

/** An entry as inserted: every column a write sets (booleans as SQLite integers: prepared statements do not map them). */
export interface EntryInsert {
  id: string;
  workspaceId: string;
  authorId: string;
  description: string;
  projectId: string | null;
  taskId: string | null;
  billable: 0 | 1;
  startAt: number;
  endAt: number | null;
  durationSec: number | null;
  amountCents: number | null;
  hourlyRate: number | null;
  source: EntryRow['source'];
  timeZone: string | null;
  originId: string | null;
  createdAt: number;
  updatedAt: number;
  /** The import that wrote it (null for every other write). */
  importId?: string | null;
  /** The tag ids as a sorted JSON array, when the tags are written before the entry (an import). */
  tagList?: string | null;
}
