import type { Logger } from '../../logger.js';
import { isOperator, type Principal } from '../../principal.js';
import type { ImportContext } from '../entries/service.js';
import { readsInvoices } from '../invoices/service.js';
import type { EventActor } from '../events/service.js';
import { createImportEngine, type EngineDeps, type ImportOutcome, type ImportRequest } from './engine.js';
import { importErrors } from './errors.js';
import type { ImportRow } from './repository.js';
import { type ImportView, importView } from './views.js';
import { processAlive } from '../../processes.js';
import { EARLIEST_INSTANT, LATEST_INSTANT, parseRangeBound } from '../../kernel/time.js';
import { type ExportCounts, exportChunks, type ExportView } from './export.js';

export type { ImportOutcome, ImportProgress, ImportReport, ImportRequest, PreviewRow } from './engine.js';
export { FORMATS, type Format } from './formats.js';
export type { DateOrder } from './dates.js';
export type { ImportView } from './views.js';
export type { ExportCounts } from './export.js';

/** A workspace's export as it streams: its text chunks, what they held so far, and a file name for it. */
export interface WorkspaceExport {
  chunks: AsyncIterable<string>;
  counts: ExportCounts;
  fileName: string;
}
export { createdInWords, restoredInWords } from './views.js';

/** A running import whose process has written nothing for this long is taken for dead (its pid may be reused). */
const STALE_MS = 10 * 60_000;

/**
 * Imports from other trackers (decisions §10): who may import what, the engine's run, the
 * records, undo, and the cleanup of an import whose process died. The operator imports anything;
 * an owner imports the team's history into their workspace (members matched, created when asked);
 * any other member imports their own history only (as `--user` themselves).
 */
export function createImportsService(deps: EngineDeps & { logger?: Logger }) {
  const { repo, write, clock } = deps;
  const engine = createImportEngine(deps);
  const alive = deps.alive ?? processAlive;
  /** Imports this process runs now (never stale, whatever their heartbeat). */
  const mine = new Set<string>();

  const eventActor = (principal: Principal): EventActor =>
    isOperator(principal) ? { userId: null, tokenId: null } : { userId: principal.userId, tokenId: principal.tokenId };

  /** The record, when the principal may see it: the operator, an owner of its workspace, or the member who ran it. */
  function visible(principal: Principal, id: string): ImportRow {
    const row = repo.byId(id);
    if (!row) throw importErrors.notFound(id);
    if (isOperator(principal)) return row;
    if (principal.workspaceId !== row.workspaceId) throw importErrors.notFound(id);
    if (!principal.isOwner && row.actorUserId !== principal.userId) throw importErrors.notFound(id);
    return row;
  }

  const contextOf = (row: ImportRow, actor: EventActor): ImportContext => ({
    workspaceId: row.workspaceId,
    importId: row.id,
    actor,
    webhooks: row.webhooks,
    currency: deps.accounts.currency(row.workspaceId),
  });

  /**
   * Imports whose process is gone (killed, crashed) while they ran: what they wrote is deleted
   * and they are recorded `failed`. Run at the server's start, before each import, and by
   * `import list` / `show`.
   */
  async function recover(): Promise<number> {
    let recovered = 0;
    for (const row of repo.running()) {
      if (mine.has(row.id)) continue;
      const stale = clock.now() - row.heartbeatAt > STALE_MS;
      if (!stale && (row.pid === process.pid || alive(row.pid))) continue;
      await engine.cleanUp(contextOf(row, { userId: null, tokenId: null }));
      write(() =>
        repo.update(row.id, {
          state: 'failed',
          failure: 'The process running this import stopped midway (killed or crashed); what it had written was removed.',
          finishedAt: clock.now(),
        }),
      );
      deps.logger?.warn('import recovered', { importId: row.id, pid: row.pid });
      recovered++;
    }
    return recovered;
  }

  return {
    recover,

    /** Runs an import for the principal (the command line: the operator; the page: a member). */
    async run(principal: Principal, request: ImportRequest): Promise<ImportOutcome> {
      let asked = request;
      if (!isOperator(principal)) {
        if (principal.workspaceId !== request.workspaceId) throw importErrors.notFound(`workspace ${request.workspaceId}`);
        if (!principal.isOwner) {
          if (request.user !== undefined && request.user !== principal.userId) {
            throw importErrors.forbidden('A member imports their own history only; an owner of the workspace imports the team’s.');
          }
          if (request.createMembers) throw importErrors.forbidden('Only an owner of the workspace may create members in an import.');
          asked = { ...request, user: principal.userId };
        }
      }
      await recover();
      const by = {
        actor: eventActor(principal),
        actorUserId: isOperator(principal) ? null : principal.userId,
        // Rates in a file are an owner's (or the operator's) to import, as the API takes a rate from no member.
        fileRates: isOperator(principal) || principal.isOwner,
        attachAccounts: isOperator(principal),
      };
      const running = new Set<string>();
      const outcome = await engine.run(asked, by, (id) => {
        running.add(id);
        mine.add(id);
      });
      for (const id of running) mine.delete(id);
      return outcome;
    },

    /**
     * A whole workspace in the timetrack format (its own row and members, its invoicing, its
     * catalog, archived rows included, its invoices and its completed entries starting in
     * [from, to): calendar days are UTC days), streamed: an import of it with --create-members into
     * an empty workspace gives back every column of every table the workspace owns (but those
     * test/helpers/workspace-tables.ts lists with their reasons). The operator exports any workspace, an owner their own; a member no workspace.
     * An owner who may not read colleagues' money gets the file without it, said in its head
     * (`exportView`, export.ts WITHHELD_PARTS). Refusals (who, a bad range) are thrown here, before the first chunk.
     */
    exportWorkspace(principal: Principal, q: { workspaceId: string; from?: string; to?: string }): WorkspaceExport {
      if (!isOperator(principal)) {
        if (principal.workspaceId !== q.workspaceId) throw importErrors.notFound(`workspace ${q.workspaceId}`);
        if (!principal.isOwner)
          throw importErrors.forbidden('Only an owner of the workspace exports it: its export holds every member’s time and rates.');
      }
      deps.accounts.requireWorkspace(q.workspaceId);
      const from = q.from ? parseRangeBound(q.from, 'from', false) : EARLIEST_INSTANT;
      const to = q.to ? parseRangeBound(q.to, 'to', true) : LATEST_INSTANT;
      if (from >= to) throw importErrors.range();
      const counts: ExportCounts = { entries: 0, clients: 0, projects: 0, tasks: 0, tags: 0, members: 0, invoices: 0, bytes: 0 };
      const currency = deps.accounts.currency(q.workspaceId);
      const chunks = exportChunks(
        exportDeps(deps),
        { workspaceId: q.workspaceId, from, to, currency, view: exportView(principal) },
        counts,
      );
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const span = q.from || q.to ? `-${q.from ? day(from) : 'start'}-to-${q.to ? day(to - 1) : day(clock.now())}` : `-${day(clock.now())}`;
      return { chunks, counts, fileName: `timetrack-${q.workspaceId}${span}.csv` };
    },

    async list(principal: Principal, workspaceId: string): Promise<ImportView[]> {
      if (!isOperator(principal) && principal.workspaceId !== workspaceId) throw importErrors.notFound(`workspace ${workspaceId}`);
      await recover();
      return repo
        .ofWorkspace(workspaceId)
        .filter((row) => isOperator(principal) || principal.isOwner || row.actorUserId === principal.userId)
        .map(importView);
    },

    async show(principal: Principal, id: string): Promise<ImportView> {
      await recover();
      return importView(visible(principal, id));
    },

    /**
     * Undoes a finished import: its entries deleted (entry.deleted to subscribers when it sent
     * entry.created), the catalog rows it created that nothing references any more, its
     * fingerprints (its rows count as not imported), the invoices it restored with their numbers.
     * Refused, naming them, when any entry is invoiced since.
     */
    async undo(principal: Principal, id: string): Promise<{ importId: string; deleted: number }> {
      const row = visible(principal, id);
      if (row.state !== 'done') throw importErrors.notUndoable(id, row.state);
      engine.checkUndo(id, row.workspaceId);
      // Stopped midway (killed), it stays `done` with some entries gone: undo again finishes it.
      const deleted = await engine.cleanUp(contextOf(row, eventActor(principal)));
      write(() => repo.update(id, { state: 'undone', finishedAt: clock.now() }));
      return { importId: id, deleted };
    },
  };
}

export type ImportsService = ReturnType<typeof createImportsService>;

/** What a workspace's export reads, of the other modules. */
const exportDeps = (deps: EngineDeps) => ({
  entries: deps.entries,
  catalog: deps.catalog,
  contacts: deps.accounts.userContacts,
  invoices: deps.invoices,
  rates: deps.accounts.exportRates,
  ...(deps.approvals ? { approvals: deps.approvals } : {}),
  ...(deps.expenses ? { expenses: deps.expenses } : {}),
});

/**
 * Whose money an export holds (issue 54 N7): the invoices module's one rule of who reads invoices
 * and money (`readsInvoices`): an owner without money visibility gets no invoices and no
 * colleagues' rates; the operator everything.
 */
const exportView = (principal: Principal): ExportView =>
  isOperator(principal) ? { money: true, reader: null } : { money: readsInvoices(principal), reader: principal.userId };

/** An import's longest write with and without a server on the database (the command line chooses). */
export { IMPORT_ALONE_WRITE_MS, IMPORT_SHARED_WRITE_MS } from './engine.js';
