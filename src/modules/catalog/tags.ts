import type { components } from '../../../generated/openapi.js';
import { catalogErrors } from './errors.js';
import type { Actor } from '../../principal.js';
import { type CatalogDeps, catalogEvent, stillReferenced } from './common.js';
import { acceptedName, nameKey, newNamedRow } from './names.js';
import { type TagView, tagView } from './views.js';

type Schemas = components['schemas'];

const taken = (name: string) => () => `A tag named "${name}" exists already in this workspace.`;

/** Tags, which entries carry any number of. */
export function createTagsService({ clock, write, repo, entries }: CatalogDeps) {
  return {
    list(actor: Actor): TagView[] {
      return repo.tags(actor.workspaceId).map(tagView);
    },

    get(actor: Actor, id: string): TagView {
      return tagView(repo.tag(actor.workspaceId, id));
    },

    create(actor: Actor, input: Schemas['TagCreate']): TagView {
      const name = acceptedName(input.name);
      return write(
        (record) => {
          const row = repo.insertTag(newNamedRow('tag', actor.workspaceId, name, clock.now()));
          const view = tagView(row);
          record(catalogEvent(actor, 'tag', row.id, 'create', view));
          return view;
        },
        { conflict: taken(name), conflictField: 'name' },
      );
    },

    update(actor: Actor, id: string, patch: Schemas['TagPatch']): TagView {
      const name = acceptedName(patch.name);
      return write(
        (record) => {
          repo.tag(actor.workspaceId, id);
          const row = repo.updateTag(id, { name, nameKey: nameKey(name), updatedAt: clock.now() });
          const view = tagView(row);
          record(catalogEvent(actor, 'tag', id, 'update', view));
          return view;
        },
        { conflict: taken(name), conflictField: 'name' },
      );
    },

    delete(actor: Actor, id: string): void {
      write(
        (record) => {
          repo.tag(actor.workspaceId, id);
          if (entries().usesTag(id)) throw catalogErrors.tagInUse(id);
          repo.deleteTag(id);
          record(catalogEvent(actor, 'tag', id, 'delete', { id }));
        },
        { referenced: stillReferenced('tag', id) },
      );
    },
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
