import type { components } from '../../../generated/openapi.js';
import { catalogErrors } from './errors.js';
import type { Actor } from '../../principal.js';
import { amountCents } from '../../kernel/money.js';
import { secondsBetween } from '../../kernel/time.js';
import type { ClientsService } from './clients.js';
import { type CatalogDeps, catalogEvent, copyGiven, stillReferenced } from './common.js';
import { acceptedName, nameKey, newNamedRow } from './names.js';
import type { ProjectWithTotals } from './repository.js';
import type { projects } from './schema.js';
import { type LiveTotals, type ProjectView, projectView } from './views.js';
import { requireMoneyVisible } from './money.js';

type Schemas = components['schemas'];

const DEFAULT_COLOR = '#9e9e9e';
const parentLabel = (clientId: string | null) => (clientId ? `client ${clientId}` : 'projects without a client');

/**
 * Projects, with their progress: the stored totals of their completed entries (kept by triggers)
 * plus what their running timers have tracked so far.
 */
export function createProjectsService({ clock, write, repo, entries }: CatalogDeps, clients: ClientsService) {
  /** What each project's running timers add at `now`, read through the partial index of running timers. */
  function liveTotals(workspaceId: string, now = clock.now()): Map<string, LiveTotals> {
    const live = new Map<string, LiveTotals>();
    for (const entry of entries().running(workspaceId)) {
      if (entry.projectId === null) continue;
      const elapsed = secondsBetween(entry.startAt, now);
      const sum = live.get(entry.projectId) ?? { trackedSec: 0, billableSec: 0, cents: 0 };
      sum.trackedSec += elapsed;
      if (entry.billable) {
        sum.billableSec += elapsed;
        sum.cents += amountCents(true, entry.hourlyRate, elapsed) ?? 0;
      }
      live.set(entry.projectId, sum);
    }
    return live;
  }

  /** Views for a token (progress only when it may see others' money), or null for the full view of a sync event. */
  function views(rows: ProjectWithTotals[], actor: Actor | null): ProjectView[] {
    const moneyVisible = actor === null || actor.canViewOthersMoney;
    const live = moneyVisible && rows.length > 0 ? liveTotals(rows[0]?.workspaceId ?? '') : new Map<string, LiveTotals>();
    return rows.map((row) => projectView(row, live.get(row.id), moneyVisible));
  }

  const viewOf = (workspaceId: string, id: string, actor: Actor | null): ProjectView =>
    views([repo.projectWithTotals(workspaceId, id)], actor)[0] as ProjectView;

  return {
    liveTotals,

    list(actor: Actor, query: { archived?: boolean; clientIds?: string[] }): ProjectView[] {
      const clientIds = query.clientIds ? new Set(query.clientIds) : null;
      const rows = repo
        .projectsWithTotals(actor.workspaceId)
        .filter(
          (row) =>
            (query.archived === undefined || row.archived === query.archived) &&
            (!clientIds || (row.clientId !== null && clientIds.has(row.clientId))),
        );
      return views(rows, actor);
    },

    get(actor: Actor, id: string): ProjectView {
      return viewOf(actor.workspaceId, id, actor);
    },

    create(actor: Actor, input: Schemas['ProjectCreate']): ProjectView {
      requireMoneyVisible(actor, input, ['hourlyRate', 'budgetAmount']);
      const name = acceptedName(input.name);
      let clientId: string | null = null;
      return write(
        (record) => {
          clientId = clients.usable(actor.workspaceId, input.clientId);
          const own = newNamedRow('prj', actor.workspaceId, name, clock.now());
          const { id } = own;
          repo.insertProject({
            ...own,
            clientId,
            clientKey: clientId ?? '',
            color: (input.color ?? DEFAULT_COLOR).toLowerCase(),
            billable: input.billable ?? false,
            hourlyRate: input.hourlyRate ?? null,
            estimateSec: input.estimateSec ?? null,
            budgetAmount: input.budgetAmount ?? null,
          });
          record(catalogEvent(actor, 'project', id, 'create', viewOf(actor.workspaceId, id, null)));
          return viewOf(actor.workspaceId, id, actor);
        },
        { conflict: () => `A project named "${name}" exists already among ${parentLabel(clientId)}.`, conflictField: 'name' },
      );
    },

    update(actor: Actor, id: string, patch: Schemas['ProjectPatch']): ProjectView {
      requireMoneyVisible(actor, patch, ['hourlyRate', 'budgetAmount']);
      const name = patch.name === undefined ? undefined : acceptedName(patch.name);
      let parent: string | null = null;
      let shownName = name ?? '';
      return write(
        (record) => {
          const current = repo.project(actor.workspaceId, id);
          shownName = name ?? current.name;
          parent = current.clientId;
          const values: Partial<typeof projects.$inferInsert> = { updatedAt: clock.now() };
          if (patch.clientId !== undefined) {
            parent = patch.clientId === current.clientId ? current.clientId : clients.usable(actor.workspaceId, patch.clientId);
            Object.assign(values, { clientId: parent, clientKey: parent ?? '' });
          }
          if (name !== undefined) Object.assign(values, { name, nameKey: nameKey(name) });
          if (patch.color !== undefined) values.color = patch.color.toLowerCase();
          copyGiven(values, patch, ['billable', 'hourlyRate', 'estimateSec', 'budgetAmount', 'archived']);
          repo.updateProject(id, values);
          record(catalogEvent(actor, 'project', id, 'update', viewOf(actor.workspaceId, id, null)));
          return viewOf(actor.workspaceId, id, actor);
        },
        { conflict: () => `A project named "${shownName}" exists already among ${parentLabel(parent)}.`, conflictField: 'name' },
      );
    },

    delete(actor: Actor, id: string): void {
      write(
        (record) => {
          repo.project(actor.workspaceId, id);
          // Whose entries they are is not said: a member may not see colleagues' time.
          if (entries().usesProject(id)) throw catalogErrors.projectHasEntries(id);
          repo.deleteProject(id);
          record(catalogEvent(actor, 'project', id, 'delete', { id }));
        },
        { referenced: stillReferenced('project', id) },
      );
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
