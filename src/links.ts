import { readFileSync, writeFileSync } from 'node:fs';

/** Where links point, and why a person should check it (null when the address is known for sure). */
export interface LinkBase {
  url: string;
  warning: string | null;
}

/**
 * The one rule for every link the server and the command line print (the first-start banner,
 * setup links from the Members page and from `timetrack user invite`): BASE_URL when set;
 * otherwise the address the server recorded when it last started (so the page, the banner and
 * the command line agree, and a session cookie made at that address is sent back to it);
 * otherwise a guess, with a warning that says what to set.
 */
export function linkBase(config: { baseUrl: string; baseUrlSet: boolean }, recorded: string | null): LinkBase {
  if (config.baseUrlSet) return { url: config.baseUrl, warning: null };
  if (recorded !== null) return { url: recorded, warning: null };
  return {
    url: config.baseUrl,
    warning: `BASE_URL is not set and no server has recorded its address yet, so this link guesses ${config.baseUrl}. Set BASE_URL to the address people reach the server at, or start the server once, then make the link again.`,
  };
}

/** The file beside the database where the server records the address it listens at (kept after it stops). */
export const addressFile = (databasePath: string): string => `${databasePath}.server-address`;

/** At start: records the address the server listens at, for the command line's links. */
export function recordAddress(databasePath: string, url: string): void {
  if (databasePath === ':memory:') return;
  writeFileSync(addressFile(databasePath), `${url}\n`, { mode: 0o600 });
}

/** The address the server recorded at its last start, or null (none, or not an http(s) URL). */
export function recordedAddress(databasePath: string): string | null {
  if (databasePath === ':memory:') return null;
  try {
    const text = readFileSync(addressFile(databasePath), 'utf8').trim();
    return /^https?:\/\/[^\s/]+$/.test(text) ? text : null;
  } catch {
    return null;
  }
}
