import { join } from 'node:path';
// @ts-expect-error: plain JavaScript without types (it runs before any build)
import { staleBuild } from '../../bin/build-check.js';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * How a test starts timetrack as a process of its own (the server, a command): node's arguments
 * before the command's own. The build's bundle (dist/bundle/main.js, what `npm start` and
 * `timetrack` run, its threads files of their own beside it: scripts/bundle.ts) when the build is
 * current, as on a fresh clone after `npm ci`; else the sources through tsx (a working copy whose
 * sources changed since the last build), so a test always runs the code as it is.
 * Both are src/main.ts, with the same behaviour; through tsx a process costs about 0.75 s more
 * CPU (a server's threads each load the sources through tsx too), which the process tier pays
 * for every process it starts.
 */
export const BUILD_CURRENT: boolean = (staleBuild as (base: string) => string | null)(PACKAGE_ROOT) === null;

/**
 * A coverage run (c8 sets NODE_V8_COVERAGE) runs tsc's compiled files (dist/src/), not the
 * bundle: their source maps are one to one, and c8 misplaced the bundle's block ranges through its
 * chained maps (branches 85 % of src/ where the files give 92 %), and counted every line of a
 * module it loaded as covered.
 */
export const COVERAGE_RUN: boolean = process.env.NODE_V8_COVERAGE !== undefined;

export const MAIN: readonly string[] = BUILD_CURRENT
  ? [join(PACKAGE_ROOT, 'dist', ...(COVERAGE_RUN ? ['src'] : ['bundle']), 'main.js')]
  : ['--import', 'tsx', join(PACKAGE_ROOT, 'src', 'main.ts')];

/**
 * The `timetrack` command as its users run it (bin/timetrack.js: the bundle when the build is
 * current), node's arguments before the command's own. A coverage run runs `MAIN` instead, the
 * same src/main.ts on tsc's files: a process on the bundle gave c8 its chained source maps, through
 * which every line of a module it loaded read as covered (src/cli/import-commands.ts 100 % of its
 * lines with its dateFormatOf never called).
 */
export const BIN: readonly string[] = COVERAGE_RUN ? MAIN : [join(PACKAGE_ROOT, 'bin', 'timetrack.js')];
