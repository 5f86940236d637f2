import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * True in the bundle (scripts/bundle.ts defines it): the code runs from dist/bundle/, where every
 * thread's entry is a file of its own beside the chunks, named as its module (`reader-thread.js`).
 */
declare const TIMETRACK_BUNDLE: boolean | undefined;
const bundled = typeof TIMETRACK_BUNDLE !== 'undefined' && TIMETRACK_BUNDLE;

/**
 * The one way a thread of this package starts. Bundled (npm start, `timetrack`: dist/bundle/), a
 * thread runs its entry there, a sibling of this code's own file (whichever chunk holds it), named
 * as its module (`reader-thread.js`). Compiled file by file (dist/src/), a thread runs its `.js`
 * module. Under tsx (the tests, `npm run cli`) it starts on ./tsx-boot.mjs, which registers tsx's
 * loader in the thread (a worker thread does not inherit the main thread's on Node 20) and then
 * imports the `.ts` module: the same for the pools (piscina loads the boot as their module) and
 * the single threads; or on the bundle's file when the tests chose it (`threadsFromBuild`).
 * `workerData` carries the thread's own data and, under tsx, what to boot.
 */
export function threadModule(
  callerUrl: string,
  relative: string,
  workerData: object = {},
): { filename: string; workerData: object; execArgv?: string[] } {
  if (bundled) return { filename: new URL(`./${basename(relative)}.js`, import.meta.url).href, workerData };
  const typescript = callerUrl.endsWith('.ts');
  if (typescript && built !== null && callerUrl.startsWith(`${built.root}src/`)) {
    // `files`: tsc's compiled module beside the caller's (dist/src/…), whose source map is one to
    // one: what a coverage run needs (c8 misplaces block ranges through the bundle's chained maps).
    const filename =
      built.files === null
        ? `${built.bundle}${basename(relative)}.js`
        : new URL(`${relative}.js`, `${built.files}${callerUrl.slice(built.root.length)}`).href;
    return { filename, workerData, execArgv: withoutTsx(process.execArgv) };
  }
  const filename = new URL(`${relative}${typescript ? '.ts' : '.js'}`, callerUrl).href;
  if (!typescript) return { filename, workerData };
  return {
    filename: new URL('./tsx-boot.mjs', import.meta.url).href,
    workerData: { ...workerData, tsxApi: tsxLoaderApi(), threadModule: filename },
  };
}

/** Whether this Node knows the switch that turns require(esm) off (20.19 and later). */
const REQUIRE_ESM_SWITCH = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module');

/**
 * A piscina pool's module: threadModule's, with require(esm) off in the pool's threads. piscina
 * loads its module with require() first, which on Node 20.19+ is require(esm); its synchronous
 * instantiation, interrupted by the thread's termination, ends the whole process with a V8 fatal
 * error ("IsGraphAsync must be used on an instantiated module", SIGABRT) instead of ending the
 * thread. A pool is terminated so when the server closes while a thread starts: a fresh clone's
 * `npm test` of 5a800c6 lost a mocha worker with test/http/health.test.ts, whose production
 * set-up closed at once. Without require(esm) piscina imports the module, as it does any module
 * require() refuses, and a termination ends only the thread.
 */
export function poolModule(callerUrl: string, relative: string, workerData: object = {}): ReturnType<typeof threadModule> {
  const started = threadModule(callerUrl, relative, workerData);
  if (!REQUIRE_ESM_SWITCH) return started;
  return { ...started, execArgv: [...threadOptions(started.execArgv ?? process.execArgv), '--no-experimental-require-module'] };
}

/** Node's options a thread may be given, alone or with their value (`--import=x`, `--import x`). */
const THREAD_OPTION =
  /^--(import|require|loader|experimental-loader|conditions|enable-source-maps|no-warnings|no-deprecation|trace-warnings|trace-uncaught)(=|$)/;
const TAKES_VALUE = /^--(import|require|loader|experimental-loader|conditions)$/;

/**
 * What a thread keeps of the options it would inherit. Given its own options, a thread starts
 * only on those Node accepts in a thread: V8's (`--max-old-space-size=512`, as `npm start`
 * passes) and the process's own refuse the Worker (ERR_WORKER_INVALID_EXEC_ARGV), where an
 * inheriting thread ignores them. The rest is left out: a thread's heap has its own limits.
 */
export function threadOptions(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!THREAD_OPTION.test(arg)) continue;
    kept.push(arg);
    if (TAKES_VALUE.test(arg) && i + 1 < argv.length) kept.push(argv[++i] ?? '');
  }
  return kept;
}

/** The package's root and its bundle's folder, when threads started under tsx are to run the bundle instead (`threadsFromBuild`). */
let built: { root: string; bundle: string; files: string | null } | null = null;

/**
 * Under tsx, threads start from the build's bundle (dist/bundle/, `npm run build`) instead of
 * loading the sources through tsx in each thread: the tests' choice (test/helpers/root-hooks.ts),
 * made only when the build is current, so a thread runs the same code as the sources, as `npm
 * start` runs it. Through tsx each thread costs about half a second of CPU to start (its own
 * loader, esbuild compiling every module it imports), and a test server starts several (the
 * checkpointer with every server). `null` goes back to the sources. A built process runs its
 * threads from its own build anyway.
 */
export function threadsFromBuild(packageRoot: string | null, form: 'bundle' | 'files' = 'bundle'): void {
  built =
    packageRoot === null
      ? null
      : {
          root: pathToFileURL(`${packageRoot}/`).href,
          bundle: pathToFileURL(join(packageRoot, 'dist', 'bundle') + '/').href,
          files: form === 'files' ? pathToFileURL(join(packageRoot, 'dist') + '/').href : null,
        };
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

/** Starts a worker thread on a module of this package, named relative to the caller (`startThread(import.meta.url, './sender-thread', …)`). */
export function startThread(callerUrl: string, relative: string, options: WorkerOptions = {}): Worker {
  const { filename, workerData, execArgv } = threadModule(callerUrl, relative, options.workerData as object | undefined);
  return new Worker(new URL(filename), { ...(execArgv ? { execArgv } : {}), ...options, workerData });
}

/** The path of an installed package's entry, resolved from this package (not the working directory). */
export const resolvePackage = (name: string): string => createRequire(import.meta.url).resolve(name);

/**
 * The ESM entry of tsx's loader API, read from its package's exports (this module may also be
 * loaded as CommonJS by a tool's require hook, where import.meta.resolve is not available; the
 * tests load it as an ES module since 01a92e0).
 */
function tsxLoaderApi(): string {
  const manifest = resolvePackage('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = exports['./esm/api'];
  if (!api) throw new Error('tsx has no ./esm/api export');
  return pathToFileURL(join(dirname(manifest), api.import.default)).href;
}
