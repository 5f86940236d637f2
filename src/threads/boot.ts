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
export function threadModule(
  callerUrl: string,
  relative: string,
  workerData: object = {},
): { filename: string; workerData: object; execArgv?: string[] } {
  const typescript = callerUrl.endsWith('.ts');
  if (typescript && compiled !== null) {
    const built = compiledUrl(callerUrl, compiled);
    if (built !== null) return { filename: new URL(`${relative}.js`, built).href, workerData, execArgv: withoutTsx(process.execArgv) };
  }
  const filename = new URL(`${relative}${typescript ? '.ts' : '.js'}`, callerUrl).href;
  if (!typescript) return { filename, workerData };
  return {
    filename: new URL('./tsx-boot.mjs', import.meta.url).href,
    workerData: { ...workerData, tsxApi: tsxLoaderApi(), threadModule: filename },
  };
}

/** The package's root and its build's, when threads started under tsx are to run the build instead (`threadsFromBuild`). */
let compiled: { root: string; dist: string } | null = null;

/**
 * Under tsx, threads start from the compiled build (dist/, `npm run build`) instead of loading
 * the sources through tsx in each thread: the tests' choice (test/helpers/root-hooks.ts), made only
 * when the build is current, so a thread runs the same code as the sources. Through tsx each
 * thread costs about half a second of CPU to start (its own loader, esbuild compiling every
 * module it imports), and a test server starts several (the checkpointer with every server).
 * `null` goes back to the sources. A compiled (npm start) process runs its threads from the
 * build anyway.
 */
export function threadsFromBuild(packageRoot: string | null): void {
  compiled =
    packageRoot === null
      ? null
      : { root: pathToFileURL(`${packageRoot}/`).href, dist: pathToFileURL(join(packageRoot, 'dist') + '/').href };
}

/**
 * Node's options for a thread that runs the build: the process's own without tsx's loader (a
 * thread inherits `--import tsx`, which would register tsx in it for nothing: ~0.1 s a thread).
 */
function withoutTsx(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (/^--(import|require|loader|experimental-loader)=tsx(\/|$)/.test(arg)) continue;
    if (/^--(import|require|loader|experimental-loader)$/.test(arg) && /^tsx(\/|$)/.test(argv[i + 1] ?? '')) {
      i += 1;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}

/** The build's URL of a source module (`…/src/threads/x.ts` → `…/dist/src/threads/x.js`), or null outside the package's sources. */
function compiledUrl(sourceUrl: string, where: { root: string; dist: string }): string | null {
  if (!sourceUrl.startsWith(`${where.root}src/`)) return null;
  return `${where.dist}${sourceUrl.slice(where.root.length).replace(/\.ts$/, '.js')}`;
}

/** Starts a worker thread on a module of this package, named relative to the caller (`startThread(import.meta.url, './sender-thread', …)`). */
export function startThread(callerUrl: string, relative: string, options: WorkerOptions = {}): Worker {
  const { filename, workerData, execArgv } = threadModule(callerUrl, relative, options.workerData as object | undefined);
  return new Worker(new URL(filename), { ...(execArgv ? { execArgv } : {}), ...options, workerData });
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
