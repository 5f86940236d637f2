-- The SQL of the accounts module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "members"."workspace_id", "members"."user_id", "members"."can_view_others_time", "members"."can_view_others_money", "members"."is_owner", "members"."hourly_rate", "workspaces"."hourly_rate", "workspaces"."currency", "workspaces"."rate_limit_per_min", "workspaces"."name", "users"."name", "users"."email" from "members" inner join "users" on ("users"."id" = "members"."user_id" and "users"."deleted_at" is null) inner join "workspaces" on "workspaces"."id" = "members"."workspace_id" where ("members"."workspace_id" = ? and "members"."user_id" = ?);
--   SEARCH members USING INDEX sqlite_autoindex_members_1 (workspace_id=? AND user_id=?)
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)

select "id", "name", "currency", "hourly_rate", "runaway_limit_sec", "runaway_action", "rate_limit_per_min", "business_profile", "created_at", "updated_at" from "workspaces" where "workspaces"."id" = ?;
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)

select "id", "name", "email", "created_at", "deleted_at", "password_hash", "password_set_at", "time_zone", "week_start", "break_glass", "time_format", "theme", "language", "email_proved_at" from "users" where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

SELECT m.can_view_others_time, m.can_view_others_money, m.is_owner, w.currency, w.rate_limit_per_min FROM members m JOIN workspaces w ON w.id = m.workspace_id WHERE m.workspace_id = ? AND m.user_id = ?;
--   SEARCH m USING INDEX sqlite_autoindex_members_1 (workspace_id=? AND user_id=?)
--   SEARCH w USING INDEX sqlite_autoindex_workspaces_1 (id=?)

select "id" from "workspaces" limit ?;
--   SCAN workspaces USING COVERING INDEX sqlite_autoindex_workspaces_1

insert into "workspaces" ("id", "name", "currency", "hourly_rate", "runaway_limit_sec", "runaway_action", "rate_limit_per_min", "business_profile", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, null, null, ?, ?);


select "id", "name", "password_hash", "break_glass" from "users" where (lower("users"."email") = lower(?) and "users"."deleted_at" is null);
--   SEARCH users USING INDEX users_email_live (<expr>=?)

insert into "users" ("id", "name", "email", "created_at", "deleted_at", "password_hash", "password_set_at", "time_zone", "week_start", "break_glass", "time_format", "theme", "language", "email_proved_at") values (?, ?, ?, ?, null, null, null, null, null, ?, null, null, null, null);


insert into "members" ("workspace_id", "user_id", "can_view_others_time", "can_view_others_money", "hourly_rate", "is_owner", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing;


update "members" set "hourly_rate" = ?, "updated_at" = ? where ("members"."workspace_id" = ? and "members"."user_id" = ?);
--   SEARCH members USING INDEX sqlite_autoindex_members_1 (workspace_id=? AND user_id=?)

update "workspaces" set "hourly_rate" = ?, "runaway_limit_sec" = ?, "updated_at" = ? where "workspaces"."id" = ?;
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)

select "members"."workspace_id", "members"."user_id", "users"."name", "users"."email", "members"."can_view_others_time", "members"."can_view_others_money", "members"."hourly_rate", "members"."is_owner", "users"."password_hash" is not null, "members"."created_at", "members"."updated_at" from "members" inner join "users" on ("users"."id" = "members"."user_id" and "users"."deleted_at" is null) where "members"."workspace_id" = ? order by "members"."created_at" asc, "members"."user_id" asc;
--   SEARCH members USING INDEX sqlite_autoindex_members_1 (workspace_id=?)
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "members"."workspace_id", "members"."user_id", "users"."name", "users"."email", "members"."can_view_others_time", "members"."can_view_others_money", "members"."hourly_rate", "members"."is_owner", "users"."password_hash" is not null, "members"."created_at", "members"."updated_at" from "members" inner join "users" on ("users"."id" = "members"."user_id" and "users"."deleted_at" is null) where ("members"."workspace_id" = ? and "members"."user_id" = ?);
--   SEARCH members USING INDEX sqlite_autoindex_members_1 (workspace_id=? AND user_id=?)
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

select "members"."workspace_id", "workspaces"."name", "members"."can_view_others_time", "members"."can_view_others_money", "members"."hourly_rate", "members"."is_owner" from "members" inner join "workspaces" on "workspaces"."id" = "members"."workspace_id" where "members"."user_id" = ? order by "members"."created_at" asc, "members"."workspace_id" asc;
--   SEARCH members USING INDEX members_user (user_id=?)
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id", "name", "email", "created_at", "deleted_at", "password_hash", "password_set_at", "time_zone", "week_start", "break_glass", "time_format", "theme", "language", "email_proved_at" from "users" where "users"."deleted_at" is null order by "users"."created_at" asc, "users"."id" asc;
--   SCAN users USING INDEX users_email_live
--   USE TEMP B-TREE FOR ORDER BY

select "id", "name", "currency", "hourly_rate", "runaway_limit_sec", "runaway_action", "rate_limit_per_min", "business_profile", "created_at", "updated_at" from "workspaces" order by "workspaces"."created_at" asc, "workspaces"."id" asc;
--   SCAN workspaces
--   USE TEMP B-TREE FOR ORDER BY

select "id", "name", "password_hash", "break_glass" from "users" where (lower("users"."email") = lower(?) and "users"."deleted_at" is null and "users"."id" <> ?);
--   SEARCH users USING INDEX users_email_live (<expr>=?)

update "users" set "email" = ?, "email_proved_at" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

delete from "invitations" where ("invitations"."workspace_id" = ? and "invitations"."user_id" = ? and "invitations"."accepted_at" is null);
--   SEARCH invitations USING INDEX invitations_workspace (workspace_id=? AND user_id=?)

insert into "invitations" ("id", "secret_hash", "workspace_id", "user_id", "email", "can_view_others_time", "can_view_others_money", "hourly_rate", "is_owner", "created_by", "created_at", "expires_at", "accepted_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null);


select "id", "secret_hash", "workspace_id", "user_id", "email", "can_view_others_time", "can_view_others_money", "hourly_rate", "is_owner", "created_by", "created_at", "expires_at", "accepted_at" from "invitations" where ("invitations"."workspace_id" = ? and "invitations"."accepted_at" is null and "invitations"."expires_at" > ?) order by "invitations"."created_at" desc, "invitations"."id" asc;
--   SEARCH invitations USING INDEX invitations_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR ORDER BY

delete from "invitations" where "invitations"."accepted_at" is not null or "invitations"."expires_at" <= ?;
--   SCAN invitations

select "id", "name" from "users" where "users"."id" in (?, ?);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "users" set "email_proved_at" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "users" set "password_hash" = ?, "password_set_at" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "workspaces" set "updated_at" = ? where "workspaces"."id" = ?;
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)

delete from "workspace_join_domains" where "workspace_join_domains"."workspace_id" = ?;
--   SEARCH workspace_join_domains USING COVERING INDEX workspace_join_domains_workspace (workspace_id=?)

insert into "workspace_join_domains" ("domain", "workspace_id") values (?, ?);


select "domain" from "workspace_join_domains" where "workspace_join_domains"."workspace_id" = ? order by "workspace_join_domains"."domain" asc;
--   SEARCH workspace_join_domains USING COVERING INDEX workspace_join_domains_workspace (workspace_id=?)

select "workspace_id" from "workspace_join_domains" where "workspace_join_domains"."domain" = ?;
--   SEARCH workspace_join_domains USING COVERING INDEX sqlite_autoindex_workspace_join_domains_1 (domain=?)

update "users" set "break_glass" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

select "workspace_id" from "members" where ("members"."user_id" = ? and not exists (select 1 from "members" o where o.workspace_id = "members"."workspace_id" and o.user_id = ? and o.is_owner = 1)) limit ?;
--   SEARCH members USING INDEX members_user (user_id=?)
--   CORRELATED SCALAR SUBQUERY 1
--     SEARCH o USING INDEX sqlite_autoindex_members_1 (workspace_id=? AND user_id=?)

update "users" set "time_zone" = ?, "week_start" = ?, "language" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "users" set "name" = ?, "email" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "users" set "password_hash" = ?, "password_set_at" = ?, "email_proved_at" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

select "id", "name", "email" from "users" where "users"."id" in (?, ?);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "workspaces" set "business_profile" = ?, "updated_at" = ? where "workspaces"."id" = ?;
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)

select "id", "name" from "users" where "users"."id" in (?);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

update "workspaces" set "hourly_rate" = ?, "updated_at" = ? where "workspaces"."id" = ?;
--   SEARCH workspaces USING INDEX sqlite_autoindex_workspaces_1 (id=?)

select "id", "secret_hash", "workspace_id", "user_id", "email", "can_view_others_time", "can_view_others_money", "hourly_rate", "is_owner", "created_by", "created_at", "expires_at", "accepted_at" from "invitations" where ("invitations"."user_id" = ? and "invitations"."accepted_at" is null and "invitations"."expires_at" > ?) order by "invitations"."created_at" desc, "invitations"."id" asc;
--   SEARCH invitations USING INDEX invitations_user (user_id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id", "secret_hash", "workspace_id", "user_id", "email", "can_view_others_time", "can_view_others_money", "hourly_rate", "is_owner", "created_by", "created_at", "expires_at", "accepted_at" from "invitations" where "invitations"."id" = ?;
--   SEARCH invitations USING INDEX sqlite_autoindex_invitations_1 (id=?)

update "invitations" set "accepted_at" = ? where ("invitations"."id" = ? and "invitations"."accepted_at" is null);
--   SEARCH invitations USING INDEX sqlite_autoindex_invitations_1 (id=?)

delete from "members" where ("members"."workspace_id" = ? and "members"."user_id" = ?);
--   SEARCH members USING INDEX sqlite_autoindex_members_1 (workspace_id=? AND user_id=?)

delete from "invitations" where ("invitations"."workspace_id" = ? and "invitations"."created_by" = ? and "invitations"."accepted_at" is null);
--   SEARCH invitations USING INDEX invitations_workspace (workspace_id=?)

update "users" set "deleted_at" = ? where ("users"."id" = ? and "users"."deleted_at" is null);
--   SEARCH users USING INDEX sqlite_autoindex_users_1 (id=?)

delete from "members" where "members"."user_id" = ?;
--   SEARCH members USING COVERING INDEX members_user (user_id=?)

delete from "invitations" where ("invitations"."created_by" = ? and "invitations"."accepted_at" is null);
--   SCAN invitations
