import type { ProjectChoice, TagChoice, TaskChoice } from './pickers.js';

/** What a description's quick entry names: its project (and task), its tags, and the text without them. */
export interface QuickEntry {
  description: string;
  projectId: string | null;
  taskId: string | null;
  tagIds: string[];
}

/** A name ends where the text does, or at a space or a punctuation mark that follows it (`#onsite,`). */
const endsAt = (text: string, at: number) => at === text.length || /[\s,.;:!?)]/.test(text[at] as string);

/**
 * The longest of `names` that `text` holds at `at` as a whole word (case-insensitive): its index
 * and length, or null. Two choices of the same name are none (the person picks from the list).
 */
function longestAt(text: string, at: number, names: readonly string[]): { index: number; length: number } | null {
  const lower = text.toLowerCase();
  let best: { index: number; length: number; twice: boolean } | null = null;
  names.forEach((name, index) => {
    const n = name.toLowerCase();
    if (n === '' || !lower.startsWith(n, at) || !endsAt(text, at + n.length)) return;
    if (best === null || n.length > best.length) best = { index, length: n.length, twice: false };
    else if (n.length === best.length) best.twice = true;
  });
  const found = best as { index: number; length: number; twice: boolean } | null;
  return found === null || found.twice ? null : { index: found.index, length: found.length };
}

/**
 * Quick entry (Toggl's): in a description, `@Project`, `@Project / Task` and `#tag` typed whole,
 * at the start or after a space, name the entry's project, task and tags, and leave the text.
 * Names are the catalog's as the form offers them (active projects, their tasks, the tags), read
 * without regard to case; a word that names nothing (`#123`, `bob@acme`) stays text. The page's
 * script offers the same names in the suggestion list as one types (src/web/assets/script.js).
 */
export function quickEntry(
  text: string,
  catalog: { projects: readonly ProjectChoice[]; tasks: readonly TaskChoice[]; tags: readonly TagChoice[] },
): QuickEntry {
  const found: QuickEntry = { description: text, projectId: null, taskId: null, tagIds: [] };
  if (!/(?:^|\s)[@#]/.test(text)) return found;
  const cuts: Array<[number, number]> = [];
  for (let i = 0; i < text.length; i++) {
    const mark = text[i];
    if ((mark !== '@' && mark !== '#') || (i > 0 && !/\s/.test(text[i - 1] as string))) continue;
    if (mark === '#') {
      const tag = longestAt(
        text,
        i + 1,
        catalog.tags.map((t) => t.name),
      );
      if (!tag) continue;
      const id = (catalog.tags[tag.index] as TagChoice).id;
      if (!found.tagIds.includes(id)) found.tagIds.push(id);
      cuts.push([i, i + 1 + tag.length]);
      i += tag.length;
      continue;
    }
    if (found.projectId !== null) continue;
    const project = longestAt(
      text,
      i + 1,
      catalog.projects.map((p) => p.name),
    );
    if (!project) continue;
    const chosen = catalog.projects[project.index] as ProjectChoice;
    found.projectId = chosen.id;
    let end = i + 1 + project.length;
    // `@Project / Task` (spaces around the slash optional): a task of that project.
    const slash = /^\s*\/\s*/.exec(text.slice(end));
    if (slash) {
      const tasks = catalog.tasks.filter((t) => t.projectId === chosen.id && !t.archived);
      const task = longestAt(
        text,
        end + slash[0].length,
        tasks.map((t) => t.name),
      );
      if (task) {
        found.taskId = (tasks[task.index] as TaskChoice).id;
        end += slash[0].length + task.length;
      }
    }
    cuts.push([i, end]);
    i = end - 1;
  }
  if (cuts.length === 0) return found;
  let rest = text;
  for (const [from, to] of [...cuts].reverse()) rest = `${rest.slice(0, from)}${rest.slice(to)}`;
  found.description = rest
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .trim();
  return found;
}
