-- The SQL of the approvals module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "workspace_id", "approval", "locked_before", "lock_zone", "locked_before_at", "updated_at" from "approval_settings" where "approval_settings"."workspace_id" = ?;
--   SEARCH approval_settings USING INDEX sqlite_autoindex_approval_settings_1 (workspace_id=?)

select "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at" from "approval_periods" where ("approval_periods"."workspace_id" = ? and "approval_periods"."user_id" = ? and "approval_periods"."from_at" <= ? and "approval_periods"."to_at" > ? and "approval_periods"."state" in (?, ?)) order by "approval_periods"."from_at" desc limit ?;
--   SEARCH approval_periods USING INDEX approval_periods_member_from (workspace_id=? AND user_id=? AND from_at<?)

select "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at" from "approval_periods" where "approval_periods"."workspace_id" = ? order by "approval_periods"."from_at" asc, "approval_periods"."user_id" asc;
--   SEARCH approval_periods USING INDEX approval_periods_state (workspace_id=?)
--   USE TEMP B-TREE FOR ORDER BY

insert into "approval_settings" ("workspace_id", "approval", "locked_before", "lock_zone", "locked_before_at", "updated_at") values (?, ?, ?, ?, ?, ?) on conflict ("approval_settings"."workspace_id") do update set "workspace_id" = ?, "approval" = ?, "locked_before" = ?, "lock_zone" = ?, "locked_before_at" = ?, "updated_at" = ?;


select "user_id" from "approvers" where "approvers"."workspace_id" = ? order by "approvers"."user_id";
--   SEARCH approvers USING COVERING INDEX sqlite_autoindex_approvers_1 (workspace_id=?)

insert into "approvers" ("workspace_id", "user_id", "created_at") values (?, ?, ?) on conflict do nothing;


select "user_id" from "approvers" where ("approvers"."workspace_id" = ? and "approvers"."user_id" = ?);
--   SEARCH approvers USING COVERING INDEX sqlite_autoindex_approvers_1 (workspace_id=? AND user_id=?)

select "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at" from "approval_periods" where ("approval_periods"."workspace_id" = ? and "approval_periods"."user_id" = ? and "approval_periods"."kind" = ? and "approval_periods"."start_day" = ?);
--   SEARCH approval_periods USING INDEX approval_periods_member_period (workspace_id=? AND user_id=? AND kind=? AND start_day=?)

insert into "approval_periods" ("id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);


select "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at" from "approval_periods" where "approval_periods"."id" = ?;
--   SEARCH approval_periods USING INDEX sqlite_autoindex_approval_periods_1 (id=?)

insert into "approval_audit" ("id", "workspace_id", "period_id", "action", "by_user_id", "by_name", "note", "at") values (null, ?, ?, ?, ?, null, ?, ?);


select "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at" from "approval_periods" where ("approval_periods"."workspace_id" = ? and "approval_periods"."state" in (?)) order by "approval_periods"."from_at" asc, "approval_periods"."user_id" asc;
--   SEARCH approval_periods USING INDEX approval_periods_state (workspace_id=? AND state=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at" from "approval_periods" where ("approval_periods"."id" = ? and "approval_periods"."workspace_id" = ?);
--   SEARCH approval_periods USING INDEX sqlite_autoindex_approval_periods_1 (id=?)

update "approval_periods" set "state" = ?, "note" = ?, "decided_by" = ?, "decided_at" = ?, "updated_at" = ? where "approval_periods"."id" = ? returning "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at";
--   SEARCH approval_periods USING INDEX sqlite_autoindex_approval_periods_1 (id=?)

select "user_id", "from_at", "to_at" from "approval_periods" where ("approval_periods"."workspace_id" = ? and "approval_periods"."state" = ? and "approval_periods"."from_at" < ? and "approval_periods"."to_at" > ?);
--   SEARCH approval_periods USING INDEX approval_periods_state (workspace_id=? AND state=?)

select "id", "workspace_id", "period_id", "action", "by_user_id", "by_name", "note", "at" from "approval_audit" where "approval_audit"."period_id" = ? order by "approval_audit"."id" asc;
--   SEARCH approval_audit USING INDEX approval_audit_period (period_id=?)

update "approval_periods" set "state" = ?, "note" = ?, "decided_by" = ?, "decided_at" = ?, "submitted_at" = ?, "updated_at" = ? where "approval_periods"."id" = ? returning "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at";
--   SEARCH approval_periods USING INDEX sqlite_autoindex_approval_periods_1 (id=?)

update "approval_periods" set "time_zone" = ?, "from_at" = ?, "to_at" = ?, "state" = ?, "note" = ?, "decided_by" = ?, "decided_at" = ?, "submitted_at" = ?, "updated_at" = ? where "approval_periods"."id" = ? returning "id", "workspace_id", "user_id", "kind", "start_day", "time_zone", "from_at", "to_at", "state", "note", "decided_by", "decided_at", "submitted_at", "updated_at";
--   SEARCH approval_periods USING INDEX sqlite_autoindex_approval_periods_1 (id=?)

delete from "approvers" where ("approvers"."workspace_id" = ? and "approvers"."user_id" = ?);
--   SEARCH approvers USING INDEX sqlite_autoindex_approvers_1 (workspace_id=? AND user_id=?)

delete from "approvers" where "approvers"."user_id" = ?;
--   SEARCH approvers USING COVERING INDEX approvers_user (user_id=?)
