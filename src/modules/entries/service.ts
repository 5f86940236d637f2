import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { CursorCodec } from '../../kernel/cursor.js';
import type { DomainWrite } from '../events/service.js';
import { createCatalogRepository } from '../catalog/repository.js';
import { createEntryCore } from './core.js';
import { createEntriesService } from './entries.js';
import { createEntryLister } from './list.js';
import { createEntriesRepository } from './repository.js';
import { createTimersService } from './timers.js';

/** Entries and timers over one repository and the shared rules; the lister also serves the detailed report. */
export function createEntryServices({ db, clock, write, cursors }: { db: Db; clock: Clock; write: DomainWrite; cursors: CursorCodec }) {
  const repo = createEntriesRepository(db);
  const core = createEntryCore({ repo, catalog: createCatalogRepository(db), clock });
  const lister = createEntryLister({ db, cursors });
  return {
    lister,
    entries: createEntriesService({ clock, write, repo, core, lister }),
    timers: createTimersService({ clock, write, repo, core }),
  };
}
