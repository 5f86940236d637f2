import type { SessionView } from '../modules/sessions/service.js';
import type { ReaderPool } from '../readers/pool.js';
import type { SettingsDeps, Signed } from '../settings/kit.js';
import type { BodyCheck } from './forms.js';
import type { LiveFeed } from './live.js';

/** What the web app's pages are given (src/server.ts makes it): the settings page's, the live feed, the body check, the readers. */
export interface AppDeps extends Omit<SettingsDeps, 'flashes'> {
  live: LiveFeed;
  check: BodyCheck;
  /** The API's reader threads: the Reports page's reads run there, as the report routes' do. */
  readers: ReaderPool;
}

/** A request of a signed-in member (the app's session middleware let it through). */
export type SignedIn = Signed & { session: SessionView; secret: string };
