import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on a module of this package, named relative to the caller
 * (`startThread(import.meta.url, './checkpointer-thread', …)`): the compiled `.js` file when the
 * server runs compiled, the `.ts` file when it runs under tsx (tests). A worker thread does not
 * inherit tsx's loader from the main thread on Node 20, so for a `.ts` module the thread first
 * registers tsx and then imports the module: the one line of JavaScript below, the same for
 * every thread; the threads themselves are TypeScript.
 */
const TSX_BOOT = `const { workerData } = require('node:worker_threads');
import(workerData.tsxApi).then((tsx) => { tsx.register(); return import(workerData.threadModule); });`;

export function startThread(callerUrl: string, relative: string, options: WorkerOptions = {}): Worker {
  const typescript = callerUrl.endsWith('.ts');
  const module = new URL(`${relative}${typescript ? '.ts' : '.js'}`, callerUrl);
  if (!typescript) return new Worker(module, options);
  const tsxApi = tsxLoaderApi();
  return new Worker(TSX_BOOT, {
    ...options,
    eval: true,
    workerData: { ...(options.workerData as object), tsxApi, threadModule: module.href },
  });
}

/** The path of an installed package's entry, resolved from this package (not the working directory). */
export const resolvePackage = (name: string): string => createRequire(import.meta.url).resolve(name);

/**
 * The ESM entry of tsx's loader API, read from its package's exports (under mocha this module may
 * be loaded as CommonJS, where import.meta.resolve is not available).
 */
function tsxLoaderApi(): string {
  const manifest = resolvePackage('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = exports['./esm/api'];
  if (!api) throw new Error('tsx has no ./esm/api export');
  return pathToFileURL(join(dirname(manifest), api.import.default)).href;
}
