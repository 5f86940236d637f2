import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { oidcIdentities, oidcSessions } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type OidcSessionRow = typeof oidcSessions.$inferSelect;

const p = (name: string) => sql.placeholder(name);

/** Every SQL statement of the oidc module, over its own tables: oidc_identities and oidc_sessions. */
export function createOidcRepository(db: Db) {
  const statements = preparedOnFirstUse(db, {
    // Every page request of a signed-in person looks here (is the session the provider's, and due a check?).
    session: () =>
      db
        .select()
        .from(oidcSessions)
        .where(eq(oidcSessions.sessionHash, p('hash')))
        .prepare(),
  });
  const hashes = (rows: Array<{ sessionHash: string }>) => rows.map((r) => r.sessionHash);
  return {
    /** The account bound to the provider's user. */
    identity: (issuer: string, subject: string): { userId: string } | undefined =>
      db
        .select({ userId: oidcIdentities.userId })
        .from(oidcIdentities)
        .where(and(eq(oidcIdentities.issuer, issuer), eq(oidcIdentities.subject, subject)))
        .get(),
    /** The provider's user an account is bound to. */
    identityOfUser: (userId: string, issuer: string): { subject: string } | undefined =>
      db
        .select({ subject: oidcIdentities.subject })
        .from(oidcIdentities)
        .where(and(eq(oidcIdentities.userId, userId), eq(oidcIdentities.issuer, issuer)))
        .get(),
    insertIdentity: (values: typeof oidcIdentities.$inferInsert): void => {
      db.insert(oidcIdentities).values(values).run();
    },
    touchIdentity: (issuer: string, subject: string, now: number): void => {
      db.update(oidcIdentities)
        .set({ lastSignInAt: now })
        .where(and(eq(oidcIdentities.issuer, issuer), eq(oidcIdentities.subject, subject)))
        .run();
    },

    session: (hash: string): OidcSessionRow | undefined => statements.session.get({ hash }),
    insertSession: (values: typeof oidcSessions.$inferInsert): void => {
      db.insert(oidcSessions).values(values).run();
    },
    /** The provider confirmed the session: when, and its new refresh token and session id when it gave them. */
    markChecked: (hash: string, values: { checkedAt: number; refreshToken?: string | null; sid?: string | null }): void => {
      db.update(oidcSessions).set(values).where(eq(oidcSessions.sessionHash, hash)).run();
    },
    /** The sessions of one provider session (a logout token's `sid`). */
    sessionsOfSid: (issuer: string, sid: string): string[] =>
      hashes(
        db
          .select({ sessionHash: oidcSessions.sessionHash })
          .from(oidcSessions)
          .where(and(eq(oidcSessions.issuer, issuer), eq(oidcSessions.sid, sid)))
          .all(),
      ),
    /** The sessions of one provider user (a logout token's `sub`). */
    sessionsOfSubject: (issuer: string, subject: string): string[] =>
      hashes(
        db
          .select({ sessionHash: oidcSessions.sessionHash })
          .from(oidcSessions)
          .where(and(eq(oidcSessions.issuer, issuer), eq(oidcSessions.subject, subject)))
          .all(),
      ),
  };
}

export type OidcRepository = ReturnType<typeof createOidcRepository>;
