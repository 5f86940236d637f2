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
 * a moment, containing a folded text, the most used first, then the most recent, then by
 * description. The window's rows are chosen and ordered inside entry_suggestions_recent, which
 * holds the start, the description and the count (drizzle/0042), and checked as the description
 * search checks an entry (selection.ts): an all-ASCII description by lower(), any other by
 * tt_fold; '' matches all. Only the `limit` rows chosen are read from the table: a member's 90
 * days are ~900 rows in the bench, and looking each up was most of a suggestion's time (issue 60).
 */
export function createSuggestionQueries(db: Db) {
  const matching = onFirstUse(db, () =>
    db.$client
      .prepare(
        `SELECT s.description, s.project_id, s.task_id, s.billable, s.tag_list, s.uses, s.last_start
       FROM (SELECT rowid AS id, uses, last_start, description
               FROM entry_suggestions INDEXED BY entry_suggestions_recent
              WHERE workspace_id = ? AND author_id = ? AND last_start >= ?
                AND instr(CASE WHEN length(description) = length(CAST(description AS blob)) THEN lower(description) ELSE tt_fold(description) END, ?) > 0
              ORDER BY uses DESC, last_start DESC, description, rowid
              LIMIT ?) AS chosen
       CROSS JOIN entry_suggestions AS s ON s.rowid = chosen.id
       ORDER BY chosen.uses DESC, chosen.last_start DESC, chosen.description, chosen.id`,
      )
      .raw(true),
  );
  return {
    matching: (q: { workspaceId: string; authorId: string; since: number; folded: string; limit: number }): SuggestionRow[] =>
      matching().all(q.workspaceId, q.authorId, q.since, q.folded, q.limit) as SuggestionRow[],
  };
}
