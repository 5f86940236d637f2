import { unseal } from '../../kernel/seal.js';
import { sha256 } from '../../kernel/secrets.js';
import { type OidcContext, RETRY_AFTER_OUTAGE_MS } from './context.js';
import { type ProviderClient, ProviderRefused, ProviderUnreachable } from './provider.js';

/** A session's sign-in at the provider is confirmed again when it is this old (a refresh, or a silent check). */
export const OIDC_CHECK_MS = 15 * 60_000;
/** Logout tokens remembered at once, at most (the oldest is forgotten first). */
const REMEMBERED_LOGOUTS = 10_000;

/**
 * The sessions opened through the provider, after the sign-in (part of the oidc service): their
 * checks every 15 minutes, the provider's sign-out, and its back-channel logout.
 */
export function createProviderSessions(ctx: OidcContext) {
  const { repo, sessions, clock, write, logger, issuer } = ctx;
  /** Refreshes in flight, one per session (two requests of one browser share it: a rotated refresh token is used once). */
  const refreshing = new Map<string, Promise<'current' | 'ended'>>();
  /** Logout tokens seen (their jti) until they expire: one is acted on once. */
  const seenLogouts = new Map<string, number>();

  async function refresh(hash: string, token: string, subject: string): Promise<'current' | 'ended'> {
    try {
      const renewed = await (ctx.provider as ProviderClient).refresh(token, subject);
      write(() =>
        repo.markChecked(hash, {
          checkedAt: clock.now(),
          ...(renewed.refreshToken !== null ? { refreshToken: ctx.sealRefresh(hash, renewed.refreshToken) } : {}),
        }),
      );
      ctx.retryAt.delete(hash);
      return 'current';
    } catch (error) {
      if (error instanceof ProviderUnreachable) {
        ctx.retryAt.set(hash, clock.now() + RETRY_AFTER_OUTAGE_MS);
        logger.warn('identity provider unreachable: the session goes on until it answers', { reason: error.message });
        return 'current';
      }
      if (!(error instanceof ProviderRefused)) throw error;
      ctx.endSession(hash, `refresh refused: ${error.reason}`);
      return 'ended';
    }
  }

  return {
    /**
     * Before a page of a signed-in person: a session opened through the provider whose last
     * confirmation is 15 minutes old is confirmed again, by a refresh (a refused one ends it) or,
     * without a refresh token, by a silent check the page starts (`silent-check`). While the
     * provider does not answer the session goes on, and the check is tried again a minute later.
     */
    async recheck(sessionSecret: string): Promise<'current' | 'ended' | 'silent-check'> {
      if (ctx.provider === null) return 'current';
      const hash = sha256(sessionSecret);
      const row = repo.session(hash);
      const now = clock.now();
      if (row === undefined || now - row.checkedAt < OIDC_CHECK_MS || now < (ctx.retryAt.get(hash) ?? 0)) return 'current';
      const token = row.refreshToken === null ? null : unseal(ctx.tokenKey, `refresh ${hash}`, row.refreshToken);
      if (token === null) {
        if (await ctx.available()) return 'silent-check';
        ctx.retryAt.set(hash, now + RETRY_AFTER_OUTAGE_MS);
        return 'current';
      }
      let running = refreshing.get(hash);
      if (running === undefined) {
        running = refresh(hash, token, row.subject).finally(() => refreshing.delete(hash));
        refreshing.set(hash, running);
      }
      return running;
    },

    /** Whether a session was opened through the provider. */
    isProviderSession: (sessionSecret: string): boolean => ctx.provider !== null && repo.session(sha256(sessionSecret)) !== undefined,

    /** Where signing out of a session opened through the provider continues: the provider's sign-out, when it offers one. */
    signOutUrl(sessionSecret: string): string | null {
      const { provider } = ctx;
      if (provider === null || !provider.discovered() || repo.session(sha256(sessionSecret)) === undefined) return null;
      return provider.endSessionUrl();
    },

    /**
     * A back-channel logout: the provider's signed logout token, checked as the specification
     * says (ProviderRefused otherwise, nothing ended); its sessions here end in one write. A token
     * is acted on once (its jti is remembered until it expires).
     */
    async backchannelLogout(logoutToken: string): Promise<{ ended: number }> {
      const { provider } = ctx;
      if (provider === null) throw new ProviderRefused('sign-in through an identity provider is not set up');
      if (!provider.discovered()) await ctx.discover();
      const subject = await provider.verifyLogoutToken(logoutToken);
      const now = clock.now();
      for (const [jti, until] of seenLogouts) if (until < now) seenLogouts.delete(jti);
      if (seenLogouts.has(subject.jti)) throw new ProviderRefused('the logout token was used already (jti)');
      if (seenLogouts.size >= REMEMBERED_LOGOUTS) seenLogouts.delete(seenLogouts.keys().next().value as string);
      seenLogouts.set(subject.jti, subject.expiresAt);
      const ended = write(() => {
        const hashes =
          subject.sid !== null
            ? repo.sessionsOfSid(issuer, subject.sid).filter((h) => subject.sub === null || repo.session(h)?.subject === subject.sub)
            : repo.sessionsOfSubject(issuer, subject.sub as string);
        sessions.endSessions(hashes);
        return hashes.length;
      });
      logger.info('back-channel logout from the identity provider', { sessions: ended, by: subject.sid !== null ? 'sid' : 'sub' });
      return { ended };
    },
  };
}
