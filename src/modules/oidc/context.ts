import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { subkey } from '../../kernel/keys.js';
import { seal } from '../../kernel/seal.js';
import type { Logger } from '../../logger.js';
import type { AccountsService } from '../accounts/service.js';
import type { SessionsService } from '../sessions/service.js';
import { type ProviderClient, ProviderUnreachable } from './provider.js';
import type { OidcRepository } from './repository.js';
import type { OidcSettings } from './settings.js';

/** What the oidc module reads and writes of the accounts and sessions modules. */
export type OidcAccounts = Pick<
  AccountsService,
  'credentials' | 'userOf' | 'joinByDomain' | 'addressVouchedFor' | 'emailProved' | 'acceptInvitationOfAccount'
>;
export type OidcSessions = Pick<SessionsService, 'openFor' | 'endSessions' | 'openProviderLobby'>;

export interface OidcDeps {
  settings: OidcSettings | null;
  provider: ProviderClient | null;
  repo: OidcRepository;
  accounts: OidcAccounts;
  sessions: OidcSessions;
  clock: Clock;
  write: Write<never>;
  secretKey: Buffer;
  logger: Logger;
}

/** How old the last look at the provider may be before the next one. */
const PROBE_EVERY_MS = 30_000;
const PROBE_TIMEOUT_MS = 2_000;
/** After the provider could not be reached for a check, the next try waits this long (the session goes on meanwhile). */
export const RETRY_AFTER_OUTAGE_MS = 60_000;

/**
 * What the parts of the oidc service share: the dependencies, the subkeys (refresh tokens at
 * rest, the state cookie), whether the provider answers as last seen, and the sessions whose
 * check waits after an outage.
 */
export function createOidcContext(deps: OidcDeps) {
  const { provider, clock, logger } = deps;
  const tokenKey = subkey(deps.secretKey, 'oidc-tokens');
  /** The provider as last seen: reachable or not, and when. */
  const seen = { ok: false, at: Number.NEGATIVE_INFINITY, discovering: null as Promise<void> | null };
  const issuer = deps.settings?.issuer ?? '';
  /** Sessions whose check waits after an outage, until when. */
  const retryAt = new Map<string, number>();

  /** Discovery, at most one at a time; an outage marks the provider unreachable, a misfit throws. */
  function discover(): Promise<void> {
    if (provider === null) return Promise.resolve();
    seen.discovering ??= (async () => {
      try {
        await provider.discover();
        seen.ok = true;
      } catch (error) {
        seen.ok = false;
        if (!(error instanceof ProviderUnreachable)) throw error;
        logger.warn('identity provider unreachable', { issuer, reason: error.message });
      } finally {
        seen.at = clock.now();
        seen.discovering = null;
      }
    })();
    return seen.discovering;
  }

  return {
    ...deps,
    issuer,
    name: deps.settings?.name ?? '',
    tokenKey,
    stateKey: subkey(deps.secretKey, 'oidc-state'),
    seen,
    retryAt,
    discover,
    /** A refresh token sealed to its session (AES-256-GCM, the session's hash bound), or null. */
    sealRefresh: (hash: string, token: string | null) => (token === null ? null : seal(tokenKey, `refresh ${hash}`, token)),

    /** Whether the provider answers now (looked at again when the last look is 30 s old); never throws. */
    async available(): Promise<boolean> {
      if (provider === null) return false;
      if (clock.now() - seen.at < PROBE_EVERY_MS) return seen.ok && provider.discovered();
      try {
        if (!provider.discovered()) await discover();
        else {
          const ok = await provider.probe(PROBE_TIMEOUT_MS);
          if (ok !== seen.ok) (ok ? logger.info : logger.warn)(`identity provider ${ok ? 'answers again' : 'unreachable'}`, { issuer });
          seen.ok = ok;
          seen.at = clock.now();
        }
      } catch (error) {
        logger.error('identity provider discovery failed', { issuer, reason: (error as Error).message });
        seen.ok = false;
        seen.at = clock.now();
      }
      return seen.ok && provider.discovered();
    },

    /** Ends a session the provider no longer holds (a write of its own). */
    endSession(hash: string, why: string): void {
      deps.write(() => deps.sessions.endSessions([hash]));
      retryAt.delete(hash);
      logger.info('session ended with the identity provider', { reason: why });
    },
  };
}

export type OidcContext = ReturnType<typeof createOidcContext>;
