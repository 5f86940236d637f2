-- The SQL of the webhooks module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "id", "events" from "webhooks" where ("webhooks"."workspace_id" = ? and "webhooks"."enabled" = ?);
--   SEARCH webhooks USING INDEX webhooks_workspace (workspace_id=?)

insert into "webhook_deliveries" ("id", "webhook_id", "event_seq", "event", "status", "attempt", "response_code", "error", "error_detail", "next_attempt_at", "claimed_until", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, null, null, null, ?, null, ?, ?);


select "id" from "webhooks";
--   SCAN webhooks USING COVERING INDEX sqlite_autoindex_webhooks_1

select "next_attempt_at", "event_seq" from "webhook_deliveries" where ("webhook_deliveries"."webhook_id" = ? and "webhook_deliveries"."next_attempt_at" is not null and "webhook_deliveries"."next_attempt_at" <= ? and ("webhook_deliveries"."claimed_until" is null or "webhook_deliveries"."claimed_until" <= ?)) order by "webhook_deliveries"."next_attempt_at", "webhook_deliveries"."event_seq" limit ?;
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_queue (webhook_id=? AND next_attempt_at>? AND next_attempt_at<?)

select "id" from "webhook_deliveries" where ("webhook_deliveries"."webhook_id" = ? and "webhook_deliveries"."next_attempt_at" is not null and "webhook_deliveries"."next_attempt_at" <= ? and ("webhook_deliveries"."claimed_until" is null or "webhook_deliveries"."claimed_until" <= ?)) order by "webhook_deliveries"."next_attempt_at", "webhook_deliveries"."event_seq" limit ?;
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_queue (webhook_id=? AND next_attempt_at>? AND next_attempt_at<?)

update "webhook_deliveries" set "claimed_until" = ? where "webhook_deliveries"."id" = ?;
--   SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 (id=?)

select "webhook_deliveries"."id", "webhook_deliveries"."webhook_id", "webhook_deliveries"."event_seq", "webhook_deliveries"."event", "webhook_deliveries"."status", "webhook_deliveries"."attempt", "webhook_deliveries"."response_code", "webhook_deliveries"."error", "webhook_deliveries"."error_detail", "webhook_deliveries"."next_attempt_at", "webhook_deliveries"."claimed_until", "webhook_deliveries"."created_at", "webhook_deliveries"."updated_at", "webhooks"."id", "webhooks"."workspace_id", "webhooks"."user_id", "webhooks"."url", "webhooks"."events", "webhooks"."secret_ciphertext", "webhooks"."enabled", "webhooks"."consecutive_failures", "webhooks"."disabled_at", "webhooks"."created_at", "webhooks"."updated_at" from "webhook_deliveries" inner join "webhooks" on "webhooks"."id" = "webhook_deliveries"."webhook_id" where "webhook_deliveries"."id" = ?;
--   SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 (id=?)
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)

update "webhook_deliveries" set "status" = ?, "attempt" = ?, "response_code" = ?, "error" = ?, "error_detail" = ?, "next_attempt_at" = ?, "claimed_until" = ?, "updated_at" = ? where "webhook_deliveries"."id" = ?;
--   SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 (id=?)

update "webhook_deliveries" set "status" = ?, "error" = ?, "error_detail" = ?, "next_attempt_at" = ?, "claimed_until" = ?, "updated_at" = ? where ("webhook_deliveries"."webhook_id" = ? and "webhook_deliveries"."next_attempt_at" is not null);
--   SEARCH webhook_deliveries USING INDEX webhook_deliveries_queue (webhook_id=? AND next_attempt_at>?)

update "webhooks" set "consecutive_failures" = ? where "webhooks"."id" = ?;
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)

update "webhooks" set "consecutive_failures" = "webhooks"."consecutive_failures" + 1, "updated_at" = ? where "webhooks"."id" = ? returning "consecutive_failures";
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)

update "webhooks" set "enabled" = ?, "disabled_at" = ? where "webhooks"."id" = ?;
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)

select count(*), coalesce(sum("next_attempt_at" <= ?), 0), min("created_at") from "webhook_deliveries" where "webhook_deliveries"."next_attempt_at" is not null;
--   SCAN webhook_deliveries USING INDEX webhook_deliveries_queue

select "status", count(*) from "webhook_deliveries" where ("webhook_deliveries"."created_at" >= ? and "webhook_deliveries"."created_at" < ? and "webhook_deliveries"."next_attempt_at" is null) group by "webhook_deliveries"."status";
--   SEARCH webhook_deliveries USING INDEX webhook_deliveries_created (created_at>? AND created_at<?)
--   USE TEMP B-TREE FOR GROUP BY

insert into "webhooks" ("id", "workspace_id", "user_id", "url", "events", "secret_ciphertext", "enabled", "consecutive_failures", "disabled_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, null, ?, ?);


delete from "webhook_deliveries" where "webhook_deliveries"."id" in (select "id" from "webhook_deliveries" where "webhook_deliveries"."created_at" < ? order by "webhook_deliveries"."created_at" limit ?);
--   SEARCH webhook_deliveries USING COVERING INDEX sqlite_autoindex_webhook_deliveries_1 (id=?)
--   LIST SUBQUERY 1
--     SEARCH webhook_deliveries USING INDEX webhook_deliveries_created (created_at<?)

select "id", "workspace_id", "user_id", "url", "events", "secret_ciphertext", "enabled", "consecutive_failures", "disabled_at", "created_at", "updated_at" from "webhooks" where "webhooks"."workspace_id" = ? order by "webhooks"."created_at", "webhooks"."id";
--   SEARCH webhooks USING INDEX webhooks_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id", "workspace_id", "user_id", "url", "events", "secret_ciphertext", "enabled", "consecutive_failures", "disabled_at", "created_at", "updated_at" from "webhooks" where "webhooks"."id" = ?;
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)

select "id", "webhook_id", "event_seq", "event", "status", "attempt", "response_code", "error", "error_detail", "next_attempt_at", "claimed_until", "created_at", "updated_at" from "webhook_deliveries" where ("webhook_deliveries"."webhook_id" = ? and "webhook_deliveries"."status" <> ?) order by "webhook_deliveries"."created_at" desc, "webhook_deliveries"."event_seq" desc limit ?;
--   SEARCH webhook_deliveries USING INDEX webhook_deliveries_webhook (webhook_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select count(*) from "webhook_deliveries" where ("webhook_deliveries"."webhook_id" = ? and "webhook_deliveries"."status" = ?);
--   SEARCH webhook_deliveries USING INDEX webhook_deliveries_webhook (webhook_id=?)

select "id", "webhook_id", "status", "response_code", "error", "error_detail", "created_at" from "webhook_pings" where "webhook_pings"."webhook_id" = ? order by "webhook_pings"."created_at" desc;
--   SEARCH webhook_pings USING INDEX webhook_pings_webhook (webhook_id=?)

select "id", "webhook_id", "event_seq", "event", "status", "attempt", "response_code", "error", "error_detail", "next_attempt_at", "claimed_until", "created_at", "updated_at" from "webhook_deliveries" where "webhook_deliveries"."webhook_id" = ? order by "webhook_deliveries"."created_at" desc, "webhook_deliveries"."event_seq" desc limit ?;
--   SEARCH webhook_deliveries USING INDEX webhook_deliveries_webhook (webhook_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

update "webhooks" set "enabled" = ?, "consecutive_failures" = ?, "disabled_at" = ?, "updated_at" = ? where "webhooks"."id" = ?;
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)

update "webhook_deliveries" set "claimed_until" = ? where "webhook_deliveries"."claimed_until" is not null;
--   SCAN webhook_deliveries

select distinct "event_seq" from "webhook_deliveries" where "webhook_deliveries"."event_seq" in (select value from json_each(?));
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_event (event_seq=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:

delete from "webhooks" where "webhooks"."id" = ?;
--   SEARCH webhooks USING INDEX sqlite_autoindex_webhooks_1 (id=?)
--   SEARCH webhook_pings USING COVERING INDEX webhook_pings_webhook (webhook_id=?)
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_webhook (webhook_id=?)

delete from "webhooks" where "webhooks"."user_id" = ?;
--   SEARCH webhooks USING COVERING INDEX webhooks_user (user_id=?)
--   SEARCH webhook_pings USING COVERING INDEX webhook_pings_webhook (webhook_id=?)
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_webhook (webhook_id=?)
