-- The SQL of the events module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

insert into "events" ("seq", "workspace_id", "entity", "entity_id", "operation", "event", "actor_user_id", "actor_token_id", "origin_id", "payload", "created_at") values (null, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "seq";
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_event (event_seq=?)

select "seq", "workspace_id", "entity", "entity_id", "operation", "event", "actor_user_id", "actor_token_id", "origin_id", "payload", "created_at" from "events" where "events"."seq" = ?;
--   SEARCH events USING INTEGER PRIMARY KEY (rowid=?)

select "seq" from "events" where "events"."workspace_id" = ? order by "events"."seq" desc limit ?;
--   SEARCH events USING COVERING INDEX events_ws_seq (workspace_id=?)

select "seq" from (select "seq", "entity" from "events" where "events"."workspace_id" = ? order by "events"."seq" desc limit ?) "recent" where "recent"."entity" in (?, ?, ?, ?) order by "recent"."seq" desc limit ?;
--   CO-ROUTINE recent
--     SEARCH events USING INDEX events_ws_seq (workspace_id=?)
--   SCAN recent

select "seq", "workspace_id", "entity", "entity_id", "operation", "event", "actor_user_id", "actor_token_id", "origin_id", "payload", "created_at" from "events" where ("events"."workspace_id" = ? and "events"."seq" > ?) order by "events"."seq" asc limit ?;
--   SEARCH events USING INDEX events_ws_seq (workspace_id=? AND seq>?)

select min(seq) as seq from events;
--   SEARCH events

select seq, created_at as createdAt from events where seq >= ? order by seq limit 1;
--   SEARCH events USING INTEGER PRIMARY KEY (rowid>?)

select max(seq) as seq from events;
--   SEARCH events

select e.seq from events e where e.seq > ? and e.seq <= ? and exists (select 1 from events n where n.workspace_id = e.workspace_id and n.seq > e.seq) order by e.seq limit ?;
--   SEARCH e USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)
--   SEARCH n EXISTS USING COVERING INDEX events_ws_seq (workspace_id=? AND seq>?)

delete from events where seq in (select value from json_each(?));
--   SEARCH events USING INTEGER PRIMARY KEY (rowid=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--   SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_event (event_seq=?)
