import type { Db } from '../../../db/database.js';
import { onFirstUse } from '../../../db/prepared.js';

/** A row of entry_suggestions as a suggestion reads it (schema.ts `entrySuggestions`: '' for none). */
export type SuggestionRow = [
  description: string,
  projectId: string,
  taskId: string,
  billable: number,
  tagList: string,
  uses: number,
  lastStart: number,
];

/**
 * Suggestions while typing (the web app's timer), from entry_suggestions, which triggers on
 * entries keep (drizzle/0031_entry_suggestions.sql): a member's distinct descriptions used since
 * a moment, containing a folded text, the most used first, then the most recent. The window's
 * rows are read through entry_suggestions_recent and checked as the description search checks
 * an entry (selection.ts): an all-ASCII description by lower(), any other by tt_fold; '' matches all.
 */
export function createSuggestionQueries(db: Db) {
  const matching = onFirstUse(db, () =>
    db.$client
      .prepare(
        `SELECT description, project_id, task_id, billable, tag_list, uses, last_start
       FROM entry_suggestions
       WHERE workspace_id = ? AND author_id = ? AND last_start >= ?
         AND instr(CASE WHEN length(description) = length(CAST(description AS blob)) THEN lower(description) ELSE tt_fold(description) END, ?) > 0
       ORDER BY uses DESC, last_start DESC
       LIMIT ?`,
      )
      .raw(true),
  );
  return {
    matching: (q: { workspaceId: string; authorId: string; since: number; folded: string; limit: number }): SuggestionRow[] =>
      matching().all(q.workspaceId, q.authorId, q.since, q.folded, q.limit) as SuggestionRow[],
  };
}
