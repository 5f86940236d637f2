import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/**
 * One headless Chromium for the whole test run (Debian's package, driven by playwright-core,
 * which downloads no browser of its own). It is launched by the first file that asks and closed
 * by the root hook (test/helpers/root-hooks.ts) when mocha ends, so a browser file still runs
 * alone; each file opens its own contexts and closes them with `closeContexts` when it ends.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
export const CHROMIUM_SKIP_REASON = `skipped: no Chromium at ${CHROMIUM} (install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH)`;

let shared: Promise<Browser> | undefined;

/** The run's browser, launched on first use. */
export function sharedBrowser(): Promise<Browser> {
  shared ??= import('playwright-core').then(({ chromium }) =>
    chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
      // Nothing may leave loopback: no background fetches, updates or sync of Chromium's own.
      args: [
        '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    }),
  );
  return shared;
}

/** Closes every context a file left open in the shared browser (its pages with them). */
export async function closeContexts(): Promise<void> {
  if (!shared) return;
  const browser = await shared;
  await Promise.all(browser.contexts().map((c) => c.close()));
}

/** Closes the run's browser (the root hook's afterAll). */
export async function closeSharedBrowser(): Promise<void> {
  const launched = shared;
  shared = undefined;
  if (launched) await (await launched).close();
}
