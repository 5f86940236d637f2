/*
 * An import thread (started by ./imports.ts for the settings page): its own connection to the
 * database and the services over it, one import run for the principal it was given, its
 * progress and its outcome posted back. The request thread never parses or writes a row.
 * Or a workspace's export: its chunks posted back one at a time, each after the request thread
 * says the previous one has left (its response drained), so a slow download holds one chunk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.js';
import { openDatabase, type Synchronous } from '../db/database.js';
import { DomainError } from '../errors.js';
import type { ExportCounts, ImportRequest } from '../modules/imports/service.js';
import type { Principal } from '../principal.js';
import { configuredServices, type GraphSettings, type Services } from '../services.js';

export interface ImportThreadData {
  databasePath: string;
  secretKey: Uint8Array;
  settings: GraphSettings;
  synchronous: Synchronous;
  principal: Principal;
  request: Omit<ImportRequest, 'progress'>;
  /** Set: undo this import instead of running the request. */
  undo: string | null;
  /** Set: export this workspace (the request is not run). */
  exportOf?: { workspaceId: string; from?: string; to?: string };
}

export type ImportThreadMessage =
  | { type: 'progress'; rows: number; bytes: number; totalBytes: number; phase: string }
  | { type: 'done'; outcome: Awaited<ReturnType<Services['imports']['run']>> }
  | { type: 'undone'; deleted: number }
  | { type: 'refused'; code: DomainError['code']; message: string }
  | { type: 'failed'; message: string }
  | { type: 'export-start'; fileName: string }
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'export-done'; counts: ExportCounts };

const data = workerData as ImportThreadData;
const port = parentPort;
if (!port) throw new Error('the import thread runs as a worker');
const database = openDatabase(data.databasePath, { synchronous: data.synchronous });
const services = configuredServices(database, data.settings, { clock: systemClock, secretKey: Buffer.from(data.secretKey) });
const post = (message: ImportThreadMessage) => port.postMessage(message);
/** The request thread's word that a chunk has left: the next one is made only then. */
let acknowledged: (() => void) | null = null;
port.on('message', () => {
  const next = acknowledged;
  acknowledged = null;
  next?.();
});

try {
  if (data.exportOf) {
    const run = services.imports.exportWorkspace(data.principal, data.exportOf);
    // The first chunk waits for the request thread's word too: it has its response ready then.
    const asked = new Promise<void>((resolve) => (acknowledged = resolve));
    post({ type: 'export-start', fileName: run.fileName });
    await asked;
    const encoder = new TextEncoder();
    for await (const chunk of run.chunks) {
      const bytes = encoder.encode(chunk);
      const sent = new Promise<void>((resolve) => (acknowledged = resolve));
      port.postMessage({ type: 'chunk', bytes } satisfies ImportThreadMessage, [bytes.buffer]);
      await sent;
    }
    post({ type: 'export-done', counts: run.counts });
  } else if (data.undo !== null) {
    post({ type: 'undone', deleted: (await services.imports.undo(data.principal, data.undo)).deleted });
  } else {
    const outcome = await services.imports.run(data.principal, { ...data.request, progress: (p) => post({ type: 'progress', ...p }) });
    post({ type: 'done', outcome });
  }
} catch (error) {
  // The Import page's runs: a refusal in a person's words where the service has them.
  if (error instanceof DomainError) post({ type: 'refused', code: error.code, message: error.people ?? error.message });
  else post({ type: 'failed', message: (error as Error).message });
} finally {
  database.close();
  port.removeAllListeners('message');
}
