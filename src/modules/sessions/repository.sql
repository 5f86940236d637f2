-- The SQL of the sessions module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "secret_hash", "user_id", "workspace_id", "csrf_token", "created_at", "last_seen_at" from "sessions" where "sessions"."secret_hash" = ?;
--   SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 (secret_hash=?)

delete from "setup_links" where ("setup_links"."user_id" = ? and "setup_links"."used_at" is null);
--   SEARCH setup_links USING INDEX setup_links_user (user_id=?)

insert into "setup_links" ("secret_hash", "user_id", "workspace_id", "expires_at", "used_at", "created_at", "created_by", "asks_profile", "mailed") values (?, ?, ?, ?, null, ?, ?, ?, ?);


select "secret_hash", "user_id", "workspace_id", "expires_at", "used_at", "created_at", "created_by", "asks_profile", "mailed" from "setup_links" where ("setup_links"."secret_hash" = ? and "setup_links"."used_at" is null);
--   SEARCH setup_links USING INDEX sqlite_autoindex_setup_links_1 (secret_hash=?)

update "setup_links" set "used_at" = ? where "setup_links"."secret_hash" = ?;
--   SEARCH setup_links USING INDEX sqlite_autoindex_setup_links_1 (secret_hash=?)

delete from "sessions" where "sessions"."user_id" = ?;
--   SEARCH sessions USING COVERING INDEX sessions_user (user_id=?)
--   SEARCH oidc_sessions USING COVERING INDEX sqlite_autoindex_oidc_sessions_1 (session_hash=?)

delete from "lobby_sessions" where "lobby_sessions"."user_id" = ?;
--   SEARCH lobby_sessions USING COVERING INDEX lobby_sessions_user (user_id=?)

delete from "password_resets" where ("password_resets"."user_id" = ? and "password_resets"."used_at" is null);
--   SEARCH password_resets USING INDEX password_resets_user (user_id=?)

insert into "sessions" ("secret_hash", "user_id", "workspace_id", "csrf_token", "created_at", "last_seen_at") values (?, ?, ?, ?, ?, ?);


update "sessions" set "workspace_id" = ? where "sessions"."secret_hash" = ?;
--   SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 (secret_hash=?)

delete from "sessions" where "sessions"."secret_hash" = ?;
--   SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 (secret_hash=?)
--   SEARCH oidc_sessions USING COVERING INDEX sqlite_autoindex_oidc_sessions_1 (session_hash=?)

delete from "lobby_sessions" where "lobby_sessions"."secret_hash" = ?;
--   SEARCH lobby_sessions USING INDEX sqlite_autoindex_lobby_sessions_1 (secret_hash=?)

select "at" from "sign_in_attempts" where ("sign_in_attempts"."key" = ? and "sign_in_attempts"."at" > ?) order by "sign_in_attempts"."at" desc limit ?;
--   SEARCH sign_in_attempts USING COVERING INDEX sign_in_attempts_key (key=? AND at>?)

insert into "sign_in_attempts" ("key", "at") values (?, ?), (?, ?), (?, ?);
--   SCAN 3-ROW VALUES CLAUSE

delete from "sign_in_attempts" where rowid = (select rowid from "sign_in_attempts" where "sign_in_attempts"."key" = ? and "sign_in_attempts"."at" = ? limit 1);
--   SEARCH sign_in_attempts USING INTEGER PRIMARY KEY (rowid=?)
--   SCALAR SUBQUERY 1
--     SEARCH sign_in_attempts USING COVERING INDEX sign_in_attempts_key (key=? AND at=?)

delete from "sign_in_attempts" where "sign_in_attempts"."key" = ?;
--   SEARCH sign_in_attempts USING INDEX sign_in_attempts_key (key=?)

delete from "sessions" where ("sessions"."last_seen_at" < ? or "sessions"."created_at" < ?);
--   SCAN sessions
--   SEARCH oidc_sessions USING COVERING INDEX sqlite_autoindex_oidc_sessions_1 (session_hash=?)

delete from "lobby_sessions" where ("lobby_sessions"."last_seen_at" < ? or "lobby_sessions"."created_at" < ?);
--   SCAN lobby_sessions

delete from "setup_links" where ("setup_links"."expires_at" < ? or "setup_links"."used_at" is not null);
--   SCAN setup_links

delete from "password_resets" where "password_resets"."expires_at" < ?;
--   SCAN password_resets

delete from "email_changes" where "email_changes"."expires_at" < ?;
--   SCAN email_changes

delete from "sign_in_attempts" where "sign_in_attempts"."at" < ?;
--   SCAN sign_in_attempts

insert into "password_resets" ("secret_hash", "user_id", "created_at", "expires_at", "used_at", "sent_to") values (?, ?, ?, ?, null, ?);


select "secret_hash", "user_id", "created_at", "expires_at", "used_at", "sent_to" from "password_resets" where "password_resets"."secret_hash" = ?;
--   SEARCH password_resets USING INDEX sqlite_autoindex_password_resets_1 (secret_hash=?)

delete from "email_changes" where ("email_changes"."user_id" = ? and "email_changes"."used_at" is null);
--   SEARCH email_changes USING INDEX email_changes_user (user_id=?)

insert into "email_changes" ("secret_hash", "user_id", "email", "created_at", "expires_at", "used_at") values (?, ?, ?, ?, ?, null);


select "email" from "email_changes" where ("email_changes"."user_id" = ? and "email_changes"."used_at" is null and "email_changes"."expires_at" > ?) order by "email_changes"."created_at" desc limit ?;
--   SEARCH email_changes USING INDEX email_changes_user (user_id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "secret_hash", "user_id", "email", "created_at", "expires_at", "used_at" from "email_changes" where "email_changes"."secret_hash" = ?;
--   SEARCH email_changes USING INDEX sqlite_autoindex_email_changes_1 (secret_hash=?)

insert into "lobby_sessions" ("secret_hash", "user_id", "csrf_token", "created_at", "last_seen_at", "via_provider") values (?, ?, ?, ?, ?, ?);


select "secret_hash", "user_id", "csrf_token", "created_at", "last_seen_at", "via_provider" from "lobby_sessions" where "lobby_sessions"."secret_hash" = ?;
--   SEARCH lobby_sessions USING INDEX sqlite_autoindex_lobby_sessions_1 (secret_hash=?)

delete from "sessions" where ("sessions"."workspace_id" = ? and "sessions"."user_id" = ?);
--   SEARCH sessions USING INDEX sessions_user (user_id=?)
--   SEARCH oidc_sessions USING COVERING INDEX sqlite_autoindex_oidc_sessions_1 (session_hash=?)

delete from "setup_links" where "setup_links"."user_id" = ?;
--   SEARCH setup_links USING COVERING INDEX setup_links_user (user_id=?)
