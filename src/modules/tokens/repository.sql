-- The SQL of the tokens module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

SELECT id, workspace_id, user_id, secret_hash, scopes, minted_can_view_others_time, minted_can_view_others_money, rate_limit_per_min, expires_at, last_used_at, revoked_at FROM api_tokens WHERE prefix = ?;
--   SEARCH api_tokens USING INDEX api_tokens_prefix_unique (prefix=?)

update "api_tokens" set "last_used_at" = ? where ("api_tokens"."id" = ? and ("api_tokens"."last_used_at" IS NULL OR "api_tokens"."last_used_at" <= ?));
--   SEARCH api_tokens USING INDEX sqlite_autoindex_api_tokens_1 (id=?)

insert into "api_tokens" ("id", "workspace_id", "user_id", "name", "prefix", "secret_hash", "scopes", "minted_can_view_others_time", "minted_can_view_others_money", "rate_limit_per_min", "expires_at", "last_used_at", "revoked_at", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?);


select "id", "workspace_id", "user_id", "name", "prefix", "secret_hash", "scopes", "minted_can_view_others_time", "minted_can_view_others_money", "rate_limit_per_min", "expires_at", "last_used_at", "revoked_at", "created_at" from "api_tokens" where "api_tokens"."workspace_id" = ? order by "api_tokens"."created_at", "api_tokens"."id";
--   SEARCH api_tokens USING INDEX api_tokens_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id", "workspace_id", "user_id", "name", "prefix", "secret_hash", "scopes", "minted_can_view_others_time", "minted_can_view_others_money", "rate_limit_per_min", "expires_at", "last_used_at", "revoked_at", "created_at" from "api_tokens" where ("api_tokens"."workspace_id" = ? and "api_tokens"."user_id" = ?) order by "api_tokens"."created_at", "api_tokens"."id";
--   SEARCH api_tokens USING INDEX api_tokens_user (user_id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id", "workspace_id", "user_id", "name", "prefix", "secret_hash", "scopes", "minted_can_view_others_time", "minted_can_view_others_money", "rate_limit_per_min", "expires_at", "last_used_at", "revoked_at", "created_at" from "api_tokens" where "api_tokens"."id" = ?;
--   SEARCH api_tokens USING INDEX sqlite_autoindex_api_tokens_1 (id=?)

update "api_tokens" set "revoked_at" = ? where ("api_tokens"."id" = ? and "api_tokens"."revoked_at" is null);
--   SEARCH api_tokens USING INDEX sqlite_autoindex_api_tokens_1 (id=?)

update "api_tokens" set "revoked_at" = ? where ("api_tokens"."user_id" = ? and "api_tokens"."revoked_at" is null);
--   SEARCH api_tokens USING INDEX api_tokens_user (user_id=?)

update "api_tokens" set "revoked_at" = ? where ("api_tokens"."workspace_id" = ? and "api_tokens"."user_id" = ? and "api_tokens"."revoked_at" is null);
--   SEARCH api_tokens USING INDEX api_tokens_user (user_id=?)

delete from "api_tokens" where "api_tokens"."user_id" = ?;
--   SEARCH api_tokens USING COVERING INDEX api_tokens_user (user_id=?)
