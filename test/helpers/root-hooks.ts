import { PACKAGE_ROOT } from '../../src/paths.js';
import { threadsFromBuild } from '../../src/threads/boot.js';
import { closeSharedBrowser } from './chromium.js';
import { BUILD_CURRENT, COVERAGE_RUN } from './entry.js';

// The threads of the servers a test starts in process (readers, documents, the checkpointer, the
// sender, imports) run the build's bundle when it is current, as the processes of
// test/helpers/entry.ts and `npm start` do: the same code, without each thread loading the sources through tsx (about half a second of
// CPU a thread; the http tier started ~250 threads in two minutes). A working copy whose sources
// changed since `npm run build` runs them through tsx, as it should.
if (BUILD_CURRENT) threadsFromBuild(PACKAGE_ROOT, COVERAGE_RUN ? 'files' : 'bundle');

/**
 * Mocha's root hooks (every config's `require`): what a test run shares is closed once, when the
 * run (or, in parallel mode, the file) ends. Nothing here is started eagerly.
 */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeSharedBrowser();
  },
};
