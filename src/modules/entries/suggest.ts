import type { Clock } from '../../clock.js';
import { fold } from '../../kernel/fold.js';
import { toIso } from '../../kernel/time.js';
import type { Actor } from '../../principal.js';
import type { ListerCatalog } from './list.js';
import type { EntriesRepository } from './repository.js';

/** How far back typing looks for a member's past entries. */
const SUGGEST_DAYS = 90;

/** A past entry offered while typing a description: what choosing it fills in. */
export interface Suggestion {
  description: string;
  projectId: string | null;
  projectName: string | null;
  clientName: string | null;
  taskId: string | null;
  taskName: string | null;
  tagIds: string[];
  billable: boolean;
  lastStart: string;
  uses: number;
}

/** Suggestions while a member types a description (part of the entries service). */
export function suggestionsOf({
  clock,
  repo,
  catalog,
}: {
  clock: Clock;
  repo: EntriesRepository;
  catalog: Pick<ListerCatalog, 'projectLabels' | 'taskNames'>;
}) {
  return {
    /**
     * The member's own past entries whose description contains `text` (case-insensitively, as
     * the description search folds it), as typing suggests them: each distinct description,
     * project, task, tags and billable once, last used in the 90 days before now, the most used
     * first, then the most recent. Read from the table the entries' writes keep of them
     * (entry_suggestions: how many of the member's entries have each, and the latest start),
     * a handful of rows, not every matching entry (issue 60).
     */
    suggestions(actor: Actor, text: string, limit = 8): Suggestion[] {
      const now = clock.now();
      const rows = repo.suggestions.matching({
        workspaceId: actor.workspaceId,
        authorId: actor.userId,
        since: now - SUGGEST_DAYS * 86_400_000,
        folded: fold(text.trim().slice(0, 200)),
        limit,
      });
      const projectIds = [...new Set(rows.map((r) => r[1]).filter((id) => id !== ''))];
      const taskIds = [...new Set(rows.map((r) => r[2]).filter((id) => id !== ''))];
      const projects = new Map(projectIds.length === 0 ? [] : catalog.projectLabels(actor.workspaceId, projectIds).map((p) => [p.id, p]));
      const tasks = new Map(taskIds.length === 0 ? [] : catalog.taskNames(actor.workspaceId, taskIds).map((t) => [t.id, t.name]));
      return rows.map(([description, projectId, taskId, billable, tagList, uses, lastStart]) => {
        const project = projects.get(projectId);
        return {
          description,
          projectId: projectId === '' ? null : projectId,
          projectName: project?.name ?? null,
          clientName: project?.clientName ?? null,
          taskId: taskId === '' ? null : taskId,
          taskName: tasks.get(taskId) ?? null,
          tagIds: tagList === '' ? [] : (JSON.parse(tagList) as string[]),
          billable: billable === 1,
          lastStart: toIso(lastStart),
          uses,
        };
      });
    },
  };
}
