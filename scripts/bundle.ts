/*
 * `npm run build`'s last step (after tsc): bundles the compiled server and command line
 * (dist/src/main.js) and each worker thread's entry (dist/src/threads/*-thread.js) with esbuild into
 * dist/bundle/, which `npm start` and the `timetrack` command run. A cold start spent about 60 % of
 * its time evaluating modules, most of it CommonJS packages loaded through ESM's translators, one
 * file at a time; one ESM file per entry (with the chunks they share) loads in a fraction of that
 * (docs/design.md, "One bundle for the start").
 *
 * Every entry, thread and chunk is written in one folder, so a thread's file is a sibling of
 * whichever chunk starts it (src/threads/boot.ts). The main entry keeps its dynamic imports as
 * chunks: a command does not load the HTTP stack. Packages are bundled except those that must stay
 * files in node_modules (EXTERNAL). The source maps chain through tsc's, back to src/*.ts.
 *
 *   npx tsx scripts/bundle.ts
 */
import { readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../src/paths.js';

/**
 * Packages loaded from node_modules at run time, each for a reason of its own:
 * - better-sqlite3: a native addon (found through `bindings` relative to its own folder);
 * - piscina: starts its pool's threads on its own worker.js, found relative to its own folder;
 * - pdfkit: reads its colour profile (data/sRGB_IEC61966_2_1.icc, every PDF/A invoice) relative to its own file;
 * - fontkit: pdfkit's, kept one copy with it; loaded only for a PDF;
 * - exceljs: loaded only for an XLSX, large (bundling it adds nothing to a start);
 * - tsx: only a thread started under tsx (the tests' sources) loads it;
 * - iconv-lite (body-parser's, mailparser's): its code-page tables (~470 kB of JSON) are read only
 *   for a body in such a charset; inlined, they were compiled at every start (~13 ms of the server's).
 */
export const EXTERNAL = ['better-sqlite3', 'piscina', 'pdfkit', 'fontkit', 'exceljs', 'tsx', 'iconv-lite'];

/** The bundle's folder, and its entries' names (each `dist/bundle/<name>.js`). */
export const BUNDLE_DIR = join(PACKAGE_ROOT, 'dist', 'bundle');

export async function bundle(): Promise<void> {
  const compiled = join(PACKAGE_ROOT, 'dist', 'src');
  const threads = readdirSync(join(compiled, 'threads'))
    .filter((name) => name.endsWith('-thread.js'))
    .map((name) => join(compiled, 'threads', name));
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  const result = await build({
    entryPoints: [join(compiled, 'main.js'), ...threads],
    absWorkingDir: PACKAGE_ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: BUNDLE_DIR,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    // Class and function names as written: error classes and logs name them.
    keepNames: true,
    external: EXTERNAL,
    // How src/threads/boot.ts knows its threads are the bundle's files.
    define: { TIMETRACK_BUNDLE: 'true' },
    // CommonJS packages inside an ESM file still call require() (of node's own modules, of
    // stdnum's validators by name) and read __dirname: both as in a CommonJS module here.
    banner: {
      js: [
        "import { createRequire as __timetrackRequire } from 'node:module';",
        "import { fileURLToPath as __timetrackPath } from 'node:url';",
        'const require = __timetrackRequire(import.meta.url);',
        'const __filename = __timetrackPath(import.meta.url);',
        "const __dirname = __timetrackPath(new URL('.', import.meta.url));",
      ].join(' '),
    },
    logLevel: 'warning',
    metafile: true,
  });
  const outputs = Object.entries(result.metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
  process.stdout.write(`bundle: ${outputs.length} files, ${(bytes / 1e6).toFixed(1)} MB in ${relative(PACKAGE_ROOT, BUNDLE_DIR)}/\n`);
}

await bundle();
