import { closeSharedBrowser } from './chromium.js';

/**
 * Mocha's root hooks (every config's `require`): what a test run shares is closed once, when the
 * run (or, in parallel mode, the file) ends. Nothing here is started eagerly.
 */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeSharedBrowser();
  },
};
