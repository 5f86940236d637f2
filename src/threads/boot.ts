import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The one way a thread of this package starts. Compiled (npm start), a thread runs its `.js`
 * module. Under tsx (the tests, `npm run cli`) it starts on ./tsx-boot.mjs, which registers tsx's
 * loader in the thread (a worker thread does not inherit the main thread's on Node 20) and then
 * imports the `.ts` module: the same for the pools (piscina loads the boot as their module) and
 * the single threads. `workerData` carries the thread's own data and, under tsx, what to boot.
 */
export function threadModule(callerUrl: string, relative: string, workerData: object = {}): { filename: string; workerData: object } {
  const typescript = callerUrl.endsWith('.ts');
  const filename = new URL(`${relative}${typescript ? '.ts' : '.js'}`, callerUrl).href;
  if (!typescript) return { filename, workerData };
  return {
    filename: new URL('./tsx-boot.mjs', import.meta.url).href,
    workerData: { ...workerData, tsxApi: tsxLoaderApi(), threadModule: filename },
  };
}

/** Starts a worker thread on a module of this package, named relative to the caller (`startThread(import.meta.url, './sender-thread', …)`). */
export function startThread(callerUrl: string, relative: string, options: WorkerOptions = {}): Worker {
  const { filename, workerData } = threadModule(callerUrl, relative, options.workerData as object | undefined);
  return new Worker(new URL(filename), { ...options, workerData });
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
