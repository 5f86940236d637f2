/*
 * A reader thread (started by ./pool.ts through piscina): its own read-only connection and the
 * read services over it; each task is one read, answered as JSON text. Its clock is the
 * request's: every task carries the instant the request thread read.
 */
import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { Clock } from '../clock.js';
import { openDatabase } from '../db/database.js';
import { lowerThreadPriority } from './priority.js';
import { configuredServices } from '../services.js';
import {
  type ReaderHooks,
  type ReaderThreadData,
  type ReadResult,
  type ReadTask,
  readHandlers,
  readTexts,
  runRead,
} from './readers/tasks.js';
import { type ExportOutcome, type ExportTask, runExport } from './readers/export.js';
import { type PreviewTask, runPreview } from './readers/invoice-preview.js';

// Heavy reads give way to the request thread when the cores are busy.
lowerThreadPriority();
const data = workerData as ReaderThreadData;
let now = 0;
const clock: Clock = { now: () => now };
const database = openDatabase(data.databasePath, { readOnly: true, cacheMb: data.cacheMb });
const services = configuredServices(database, data.settings, { clock, secretKey: Buffer.from(data.secretKey) });
const handlers = readHandlers(services);
const texts = readTexts(services);
// Loaded with the first read: a top-level await would keep the thread from loading as it does.
let hooks: Promise<ReaderHooks> | null = null;

export default async function read(task: ReadTask | ExportTask | PreviewTask): Promise<ReadResult | ExportOutcome> {
  now = task.now;
  if (data.hooks) {
    hooks ??= import(data.hooks.module) as Promise<ReaderHooks>;
    (await hooks).beforeRead(task, data.hooks.data);
  }
  // An export of a report: its bytes leave over the task's own port while it runs.
  if ('type' in task && task.type === 'export') return runExport(services, task);
  // The New invoice page's preview (the invoices service's, as the member).
  if ('type' in task) {
    const answer = runPreview(services, task);
    return answer instanceof Uint8Array ? (move(answer) as Uint8Array) : answer;
  }
  const result = await runRead(handlers, task, texts);
  // The bytes change hands: no copy of a large answer on the request thread.
  if (result instanceof Uint8Array) return move(result) as Uint8Array;
  if ('bytes' in result) {
    // An object with its buffer in the transfer list: piscina posts the value and moves the bytes.
    const movable = { [transferableSymbol]: [result.bytes.buffer], [valueSymbol]: result };
    return move(movable as Parameters<typeof move>[0]) as unknown as ReadResult;
  }
  return result;
}
