-- The SQL of the oidc module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "session_hash", "issuer", "subject", "sid", "refresh_token", "checked_at", "created_at" from "oidc_sessions" where "oidc_sessions"."session_hash" = ?;
--   SEARCH oidc_sessions USING INDEX sqlite_autoindex_oidc_sessions_1 (session_hash=?)

select "user_id" from "oidc_identities" where ("oidc_identities"."issuer" = ? and "oidc_identities"."subject" = ?);
--   SEARCH oidc_identities USING INDEX sqlite_autoindex_oidc_identities_1 (issuer=? AND subject=?)

insert into "oidc_identities" ("issuer", "subject", "user_id", "created_at", "last_sign_in_at") values (?, ?, ?, ?, ?);


insert into "oidc_sessions" ("session_hash", "issuer", "subject", "sid", "refresh_token", "checked_at", "created_at") values (?, ?, ?, ?, ?, ?, ?);


update "oidc_identities" set "last_sign_in_at" = ? where ("oidc_identities"."issuer" = ? and "oidc_identities"."subject" = ?);
--   SEARCH oidc_identities USING INDEX sqlite_autoindex_oidc_identities_1 (issuer=? AND subject=?)

select "subject" from "oidc_identities" where ("oidc_identities"."user_id" = ? and "oidc_identities"."issuer" = ?);
--   SEARCH oidc_identities USING INDEX oidc_identities_user (user_id=? AND issuer=?)

update "oidc_sessions" set "refresh_token" = ?, "checked_at" = ? where "oidc_sessions"."session_hash" = ?;
--   SEARCH oidc_sessions USING INDEX sqlite_autoindex_oidc_sessions_1 (session_hash=?)

select "session_hash" from "oidc_sessions" where ("oidc_sessions"."issuer" = ? and "oidc_sessions"."sid" = ?);
--   SEARCH oidc_sessions USING INDEX oidc_sessions_sid (issuer=? AND sid=?)

select "session_hash" from "oidc_sessions" where ("oidc_sessions"."issuer" = ? and "oidc_sessions"."subject" = ?);
--   SEARCH oidc_sessions USING INDEX oidc_sessions_subject (issuer=? AND subject=?)
