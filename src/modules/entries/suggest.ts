import type { Clock } from '../../clock.js';
import type { Actor } from '../../principal.js';
import type { EntryLister } from './list.js';

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
export function suggestionsOf({ clock, lister }: { clock: Clock; lister: EntryLister }) {
  return {
    /**
     * The member's own past entries whose description contains `text` (case-insensitively), as
     * typing suggests them: each distinct description, project, task, tags and billable once,
     * the most used first, then the most recent, from the last 90 days.
     */
    suggestions(actor: Actor, text: string, limit = 8): Suggestion[] {
      const now = clock.now();
      const search = text.trim().slice(0, 200);
      const page = lister.page(
        actor,
        {
          listing: 'suggestions',
          select: 'overlap',
          order: 'desc',
          from: now - SUGGEST_DAYS * 86_400_000,
          to: now + 86_400_000,
          filters: { userIds: [actor.userId], ...(search === '' ? {} : { search }) },
          limit: 200,
        },
        { now, currency: actor.currency },
      );
      const seen = new Map<string, Suggestion>();
      for (const entry of page.rows) {
        if (entry.description === '' || entry.authorId !== actor.userId) continue;
        const key = JSON.stringify([entry.description, entry.projectId, entry.taskId, entry.billable, entry.tagIds]);
        const known = seen.get(key);
        if (known) known.uses++;
        else
          seen.set(key, {
            description: entry.description,
            projectId: entry.projectId,
            projectName: entry.projectName,
            clientName: entry.clientName,
            taskId: entry.taskId,
            taskName: entry.taskName,
            tagIds: entry.tagIds,
            billable: entry.billable,
            lastStart: entry.start,
            uses: 1,
          });
      }
      return [...seen.values()].sort((a, b) => b.uses - a.uses || (a.lastStart < b.lastStart ? 1 : -1)).slice(0, limit);
    },
  };
}
