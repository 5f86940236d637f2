-- The SQL of the mail module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "id" from "mail_messages" where ("mail_messages"."next_attempt_at" is not null and "mail_messages"."next_attempt_at" <= ? and ("mail_messages"."claimed_until" is null or "mail_messages"."claimed_until" <= ?)) order by "mail_messages"."next_attempt_at", "mail_messages"."id" limit ?;
--   SEARCH mail_messages USING INDEX mail_messages_queue (next_attempt_at>? AND next_attempt_at<?)

select count(*) from "mail_messages" where "mail_messages"."next_attempt_at" is not null;
--   SEARCH mail_messages USING COVERING INDEX mail_messages_queue (next_attempt_at>?)

insert into "mail_messages" ("id", "workspace_id", "user_id", "kind", "recipient", "recipient_name", "subject", "message_id", "sealed", "status", "attempts", "error", "detail", "next_attempt_at", "claimed_until", "expires_at", "sent_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?, null, ?, null, ?, ?);


select "at" from "mail_budget_uses" where ("mail_budget_uses"."key" = ? and "mail_budget_uses"."at" > ?) order by "mail_budget_uses"."at" desc limit ?;
--   SEARCH mail_budget_uses USING COVERING INDEX mail_budget_uses_key (key=? AND at>?)

insert into "mail_budget_uses" ("key", "at") values (?, ?);


update "mail_messages" set "claimed_until" = ? where ("mail_messages"."id" = ? and "mail_messages"."next_attempt_at" is not null and ("mail_messages"."claimed_until" is null or "mail_messages"."claimed_until" <= ?));
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id=?)

select "id", "workspace_id", "user_id", "kind", "recipient", "recipient_name", "subject", "message_id", "sealed", "status", "attempts", "error", "detail", "next_attempt_at", "claimed_until", "expires_at", "sent_at", "created_at", "updated_at" from "mail_messages" where "mail_messages"."id" = ?;
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id=?)

update "mail_messages" set "status" = ?, "attempts" = ?, "error" = ?, "detail" = ?, "next_attempt_at" = ?, "claimed_until" = ?, "sent_at" = ?, "updated_at" = ? where "mail_messages"."id" = ?;
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id=?)

update "mail_messages" set "sealed" = ?, "status" = ?, "attempts" = ?, "error" = ?, "detail" = ?, "next_attempt_at" = ?, "claimed_until" = ?, "sent_at" = ?, "updated_at" = ? where "mail_messages"."id" = ?;
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id=?)

select "id", "workspace_id", "kind", "recipient", "subject", "message_id", "status", "attempts", "error", "detail", "next_attempt_at", "sent_at", "created_at", "updated_at" from "mail_messages" order by "mail_messages"."id" desc limit ?;
--   SCAN mail_messages USING INDEX sqlite_autoindex_mail_messages_1

select "id", "workspace_id", "kind", "recipient", "subject", "message_id", "status", "attempts", "error", "detail", "next_attempt_at", "sent_at", "created_at", "updated_at" from "mail_messages" where "mail_messages"."workspace_id" = ? order by "mail_messages"."id" desc limit ?;
--   SEARCH mail_messages USING INDEX mail_messages_workspace (workspace_id=?)

update "mail_messages" set "status" = ?, "next_attempt_at" = ?, "claimed_until" = ?, "updated_at" = ? where ("mail_messages"."id" = ? and "mail_messages"."status" = ? and "mail_messages"."sealed" is not null);
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id=?)

update "mail_messages" set "claimed_until" = ? where "mail_messages"."id" = ?;
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id=?)

update "mail_messages" set "claimed_until" = ? where ("mail_messages"."next_attempt_at" is not null and "mail_messages"."claimed_until" is not null);
--   SEARCH mail_messages USING INDEX mail_messages_queue (next_attempt_at>?)

delete from "mail_messages" where ("mail_messages"."id" < ? and "mail_messages"."next_attempt_at" is null);
--   SEARCH mail_messages USING INDEX sqlite_autoindex_mail_messages_1 (id<?)

delete from "mail_budget_uses" where "mail_budget_uses"."at" < ?;
--   SCAN mail_budget_uses

update "mail_messages" set "sealed" = ?, "status" = ?, "error" = ?, "detail" = ?, "next_attempt_at" = ?, "claimed_until" = ?, "updated_at" = ? where ("mail_messages"."user_id" = ? and "mail_messages"."next_attempt_at" is not null);
--   SEARCH mail_messages USING INDEX mail_messages_user (user_id=?)
