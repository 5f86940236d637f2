-- The SQL of the entries module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."id" = ? and "entries"."workspace_id" = ?);
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)

select "tag_id" from "entry_tags" where "entry_tags"."entry_id" = ? order by "entry_tags"."tag_id";
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."author_id" = ? and "entries"."end_at" is null);
--   SEARCH entries USING INDEX entries_running (workspace_id=? AND author_id=?)

select "project_id", "start_at", "billable", "hourly_rate" from "entries" where ("entries"."workspace_id" = ? and "entries"."end_at" is null);
--   SEARCH entries USING INDEX entries_ws_duration (workspace_id=?)

insert into "entries" ("id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, null, null, null, null, ?, ?, ?, ?, ?) returning "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at";
--   SEARCH timer_stop_links USING COVERING INDEX timer_stop_links_entry (entry_id=?)
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

select max("duration_sec") from "entries" where "entries"."workspace_id" = ?;
--   SEARCH entries USING COVERING INDEX entries_ws_duration (workspace_id=?)

SELECT s.description, s.project_id, s.task_id, s.billable, s.tag_list, s.uses, s.last_start FROM (SELECT rowid AS id, uses, last_start, description FROM entry_suggestions INDEXED BY entry_suggestions_recent WHERE workspace_id = ? AND author_id = ? AND last_start >= ? AND instr(CASE WHEN length(description) = length(CAST(description AS blob)) THEN lower(description) ELSE tt_fold(description) END, ?) > 0 ORDER BY uses DESC, last_start DESC, description, rowid LIMIT ?) AS chosen CROSS JOIN entry_suggestions AS s ON s.rowid = chosen.id ORDER BY chosen.uses DESC, chosen.last_start DESC, chosen.description, chosen.id;
--   CO-ROUTINE chosen
--     SEARCH entry_suggestions USING COVERING INDEX entry_suggestions_recent (workspace_id=? AND author_id=? AND last_start>?)
--     USE TEMP B-TREE FOR ORDER BY
--   SCAN chosen
--   SEARCH s USING INTEGER PRIMARY KEY (rowid=?)

insert into "entries" ("id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, null, null, null, null, ?, ?, ?, ?, ?);
--   SEARCH timer_stop_links USING COVERING INDEX timer_stop_links_entry (entry_id=?)
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

insert into "entries" ("id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, null, null, null, ?, ?, ?, ?, ?, ?);
--   SEARCH timer_stop_links USING COVERING INDEX timer_stop_links_entry (entry_id=?)
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

insert into "entry_tags" ("entry_id", "tag_id") values (?, ?);


select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where "entries"."import_id" = ? limit ?;
--   SEARCH entries USING INDEX entries_import (import_id=?)

select "entries".rowid, "id", "author_id", "start_at" from "entries" where ("entries"."import_id" = ? and "entries".rowid > ?) order by "entries".rowid limit ?;
--   SEARCH entries USING INDEX entries_import (import_id=? AND rowid>?)

update "entries" set "runaway_detected_at" = ?, "runaway_elapsed_sec" = ?, "runaway_limit_sec" = ?, "runaway_action" = ?, "runaway_resolved_at" = ? where "entries"."id" = ?;
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)

select "id" from "entries" where ("entries"."import_id" = ? and "entries"."invoice_id" is not null) limit ?;
--   SEARCH entries USING INDEX entries_import (import_id=?)

SELECT rowid, id, author_id, description, project_id, task_id, billable, start_at, end_at, hourly_rate, time_zone, tag_list, invoice_id, runaway_detected_at, runaway_elapsed_sec, runaway_limit_sec, runaway_action, runaway_resolved_at FROM entries NOT INDEXED WHERE rowid > ? AND workspace_id = ? AND end_at IS NOT NULL AND start_at >= ? AND start_at < ? ORDER BY rowid LIMIT ?;
--   SEARCH entries USING INTEGER PRIMARY KEY (rowid>?)

delete from "entry_tags" where "entry_tags"."entry_id" = ?;
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

update "entries" set "description" = ?, "project_id" = ?, "task_id" = ?, "billable" = ?, "start_at" = ?, "end_at" = ?, "duration_sec" = ?, "hourly_rate" = ?, "amount_cents" = ?, "time_zone" = ?, "runaway_resolved_at" = ?, "updated_at" = ? where "entries"."id" = ? returning "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at";
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)

delete from "entries" where "entries"."id" = ?;
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)
--   SEARCH timer_stop_links USING COVERING INDEX timer_stop_links_entry (entry_id=?)
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

insert into "entry_tombstones" ("entry_id", "workspace_id", "author_id", "snapshot", "deleted_at") values (?, ?, ?, ?, ?) on conflict ("entry_tombstones"."entry_id") do update set "entry_id" = ?, "workspace_id" = ?, "author_id" = ?, "snapshot" = ?, "deleted_at" = ?;


delete from "entry_tombstones" where ("entry_tombstones"."entry_id" = ? and "entry_tombstones"."workspace_id" = ? and "entry_tombstones"."deleted_at" >= ?) returning "entry_id", "workspace_id", "author_id", "snapshot", "deleted_at";
--   SEARCH entry_tombstones USING INDEX sqlite_autoindex_entry_tombstones_1 (entry_id=?)

insert into "entries" ("id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at";
--   SEARCH timer_stop_links USING COVERING INDEX timer_stop_links_entry (entry_id=?)
--   SEARCH entry_tags USING COVERING INDEX sqlite_autoindex_entry_tags_1 (entry_id=?)

delete from "entry_tombstones" where "entry_tombstones"."deleted_at" < ?;
--   SEARCH entry_tombstones USING INDEX entry_tombstones_deleted (deleted_at<?)

select entry_rowid as rowid from entries_fts_pending order by entry_rowid limit 1 offset ?;
--   SCAN entries_fts_pending

delete from entries_fts where rowid in (select entry_rowid from entries_fts_pending where entry_rowid <= ?);
--   SCAN entries_fts VIRTUAL TABLE INDEX 0:=
--   LIST SUBQUERY 1
--     SEARCH entries_fts_pending USING INTEGER PRIMARY KEY (rowid<?)

insert into entries_fts (rowid, folded) select e.rowid, tt_fold(e.description) || char(1, 1) from entries_fts_pending p cross join entries e on e.rowid = p.entry_rowid where p.entry_rowid <= ?;
--   SEARCH p USING INTEGER PRIMARY KEY (rowid<?)
--   SEARCH e USING INTEGER PRIMARY KEY (rowid=?)

delete from entries_fts_pending where entry_rowid <= ?;
--   SEARCH entries_fts_pending USING INTEGER PRIMARY KEY (rowid<?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."start_at" < ? and "entries"."end_at" is not null and "entries"."end_at" > ? and "entries"."start_at" > ?) order by "entries"."start_at" desc, "entries"."id" desc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."end_at" is null);
--   SEARCH entries USING INDEX entries_ws_duration (workspace_id=?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and ("entries"."start_at" < ? or ("entries"."start_at" = ? and "entries"."id" < ?)) and "entries"."start_at" < ? and "entries"."end_at" is not null and "entries"."end_at" > ? and "entries"."start_at" > ?) order by "entries"."start_at" desc, "entries"."id" desc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)

select "entry_id" from "entry_tags" where "entry_tags"."tag_id" in (?) limit ?;
--   SEARCH entry_tags USING COVERING INDEX entry_tags_tag (tag_id=?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."project_id" in (?) and "entries"."project_id" in (?, ?) and "entries"."id" in (select value from json_each(?)) and "entries"."billable" = ? and "entries"."start_at" < ? and "entries"."end_at" is not null and "entries"."end_at" > ? and "entries"."start_at" > ?) order by "entries"."start_at" desc, "entries"."id" desc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."project_id" in (?) and "entries"."project_id" in (?, ?) and "entries"."id" in (select value from json_each(?)) and "entries"."billable" = ? and "entries"."end_at" is null);
--   SEARCH entries USING INDEX entries_project (project_id=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select entry_rowid as id from entries_fts_pending limit ?;
--   SCAN entries_fts_pending

select count(*) as n from (select rowid from entries_fts where entries_fts match ? limit ?);
--   CO-ROUTINE (subquery-1)
--     SCAN entries_fts VIRTUAL TABLE INDEX 0:M1
--   SCAN (subquery-1)

select rowid as id from entries_fts where entries_fts match ?;
--   SCAN entries_fts VIRTUAL TABLE INDEX 0:M1

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries".rowid in (select value from json_each(?)) and (case when length("entries"."description") = length(cast("entries"."description" as blob)) then instr(lower("entries"."description"), ?) > 0 else instr(tt_fold("entries"."description"), ?) > 0 end) and "entries"."start_at" < ? and "entries"."end_at" is not null and "entries"."end_at" > ? and "entries"."start_at" > ?) order by "entries"."start_at" desc, "entries"."id" desc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries".rowid in (select value from json_each(?)) and (case when length("entries"."description") = length(cast("entries"."description" as blob)) then instr(lower("entries"."description"), ?) > 0 else instr(tt_fold("entries"."description"), ?) > 0 end) and "entries"."end_at" is null);
--   SEARCH entries USING INDEX entries_ws_duration (workspace_id=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select distinct doc as id from entries_fts_terms where term >= ? and term < ? limit ?;
--   SCAN entries_fts_terms VIRTUAL TABLE INDEX 1539:
--   USE TEMP B-TREE FOR DISTINCT

select "entries"."project_id" as k1, null as k2, total("entries"."duration_sec") as seconds, total(case when "entries"."billable" then "entries"."duration_sec" else 0 end) as billableSeconds, total(coalesce("entries"."amount_cents", 0)) as cents, count(*) as count , "entries"."tag_list" as tl from "entries" indexed by entries_report where ("entries"."workspace_id" = ? and "entries"."end_at" is not null and "entries"."start_at" >= ? and "entries"."start_at" < ?) group by 1, tl;
--   SEARCH entries USING COVERING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

select "entries"."project_id" as k1, "entries"."author_id" as k2, total("entries"."duration_sec") as seconds, total(case when "entries"."billable" then "entries"."duration_sec" else 0 end) as billableSeconds, total(coalesce("entries"."amount_cents", 0)) as cents, count(*) as count from "entries" indexed by entries_report where ("entries"."workspace_id" = ? and "entries"."end_at" is not null and "entries"."start_at" >= ? and "entries"."start_at" < ?) group by 1, 2;
--   SEARCH entries USING COVERING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

select (("entries"."start_at" + case when "entries"."start_at" >= 1792890000000 then 3600000 else 7200000 end + 3456000000000) / 86400000 - 40000) as k1, null as k2, total("entries"."duration_sec") as seconds, total(case when "entries"."billable" then "entries"."duration_sec" else 0 end) as billableSeconds, total(coalesce("entries"."amount_cents", 0)) as cents, count(*) as count from "entries" indexed by entries_report where ("entries"."workspace_id" = ? and "entries"."end_at" is not null and "entries"."start_at" >= ? and "entries"."start_at" < ?) group by 1;
--   SEARCH entries USING COVERING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

select "entries"."task_id" as k1, null as k2, total("entries"."duration_sec") as seconds, total(case when "entries"."billable" then "entries"."duration_sec" else 0 end) as billableSeconds, total(coalesce("entries"."amount_cents", 0)) as cents, count(*) as count from "entries" indexed by entries_ws_author_start where ("entries"."workspace_id" = ? and "entries"."author_id" in (?) and "entries"."end_at" is not null and "entries"."start_at" >= ? and "entries"."start_at" < ?) group by 1;
--   SEARCH entries USING INDEX entries_ws_author_start (workspace_id=? AND author_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."end_at" is not null and "entries"."start_at" > ? and "entries"."start_at" < ?) order by "entries"."start_at" asc, "entries"."id" asc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)

select "entries"."author_id" as k1, (("entries"."start_at" + 0 + 3456000000000) / 86400000 - 40000) as k2, total("entries"."duration_sec") as seconds, total(case when "entries"."billable" then "entries"."duration_sec" else 0 end) as billableSeconds, total(coalesce("entries"."amount_cents", 0)) as cents, count(*) as count from "entries" indexed by entries_report where ("entries"."workspace_id" = ? and "entries"."end_at" is not null and "entries"."start_at" >= ? and "entries"."start_at" < ?) group by 1, 2;
--   SEARCH entries USING COVERING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

select "start_at", "end_at", "duration_sec", "author_id", "project_id", "project_id", "task_id", "tag_list", "description", "billable", "hourly_rate", "amount_cents", "id" from "entries" where ("entries"."workspace_id" = ? and "entries"."end_at" is not null and ("entries"."start_at", "entries"."id") > (?, ?) and "entries"."start_at" > ? and "entries"."start_at" < ?) order by "entries"."start_at" asc, "entries"."id" asc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND (start_at,id)>(?,?) AND start_at<?)

select "start_at", "end_at", "duration_sec", "author_id", "project_id", "project_id", "task_id", "tag_list", "description", "billable", "hourly_rate", "amount_cents", "id" from "entries" where ("entries"."workspace_id" = ? and "entries".rowid in (select value from json_each(?)) and (case when length("entries"."description") = length(cast("entries"."description" as blob)) then instr(lower("entries"."description"), ?) > 0 else instr(tt_fold("entries"."description"), ?) > 0 end) and "entries"."end_at" is not null and ("entries"."start_at", "entries"."id") > (?, ?) and "entries"."start_at" > ? and "entries"."start_at" < ?) order by "entries"."start_at" asc, "entries"."id" asc limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND (start_at,id)>(?,?) AND start_at<?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select "id" from "entries" where ("entries"."workspace_id" = ? and "entries"."end_at" is null and "entries"."runaway_detected_at" is null and "entries"."duration_sec" is null and +"entries"."start_at" <= ?);
--   SEARCH entries USING INDEX entries_ws_duration (workspace_id=? AND duration_sec=?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where "entries"."id" = ?;
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)

update "entries" set "runaway_detected_at" = ?, "runaway_elapsed_sec" = ?, "runaway_limit_sec" = ?, "runaway_action" = ?, "runaway_resolved_at" = ?, "updated_at" = ? where "entries"."id" = ? returning "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at";
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)

insert into "timer_stop_links" ("secret_hash", "entry_id", "created_at", "expires_at", "used_at") values (?, ?, ?, ?, null);


update "entries" set "end_at" = ?, "duration_sec" = ?, "amount_cents" = ?, "runaway_resolved_at" = ?, "updated_at" = ? where "entries"."id" = ? returning "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at";
--   SEARCH entries USING INDEX sqlite_autoindex_entries_1 (id=?)

select "secret_hash", "entry_id", "created_at", "expires_at", "used_at" from "timer_stop_links" where "timer_stop_links"."secret_hash" = ?;
--   SEARCH timer_stop_links USING INDEX sqlite_autoindex_timer_stop_links_1 (secret_hash=?)

delete from "timer_stop_links" where "timer_stop_links"."expires_at" < ?;
--   SCAN timer_stop_links

PRAGMA defer_foreign_keys = ON;


select "entry_id" from "entry_tags" where "entry_tags"."tag_id" = ? limit ?;
--   SEARCH entry_tags USING COVERING INDEX entry_tags_tag (tag_id=?)

select "id" from "entries" where "entries"."task_id" = ? limit ?;
--   SEARCH entries USING INDEX entries_task (task_id=?)

select "id" from "entries" where "entries"."project_id" = ? limit ?;
--   SEARCH entries USING INDEX entries_project (project_id=?)

select count(*) from (select 1 from "entries" where ("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?)) limit ?) "capped";
--   CO-ROUTINE capped
--     SEARCH entries USING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
--   SCAN capped

select "id", "start_at", "time_zone", "description", "project_id", "task_id", "author_id", "hourly_rate", "duration_sec", "amount_cents" from "entries" where ("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?)) order by "entries"."start_at", "entries"."id";
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)

select "project_id", "task_id", "author_id", "hourly_rate", sum("duration_sec"), count(*) from "entries" where ("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?)) group by "entries"."project_id", "entries"."task_id", "entries"."author_id", "entries"."hourly_rate";
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

update "entries" set "invoice_id" = ? where ("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?));
--   SEARCH entries USING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)

update "entries" set "invoice_id" = ? where "entries"."invoice_id" = ?;
--   SEARCH entries USING INDEX entries_invoice (invoice_id=?)

select "project_id", "task_id", "author_id", "hourly_rate", sum("duration_sec"), count(*) from "entries" where ("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?, ?)) group by "entries"."project_id", "entries"."task_id", "entries"."author_id", "entries"."hourly_rate";
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)
--   USE TEMP B-TREE FOR GROUP BY

select "id", "start_at", "project_id" from "entries" where (("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?, ?)) and "entries"."hourly_rate" is null) order by "entries"."start_at", "entries"."id" limit ?;
--   SEARCH entries USING INDEX entries_ws_start (workspace_id=? AND start_at>? AND start_at<?)

select "id", "workspace_id", "author_id", "description", "project_id", "task_id", "billable", "start_at", "end_at", "duration_sec", "hourly_rate", "amount_cents", "source", "time_zone", "runaway_detected_at", "runaway_elapsed_sec", "runaway_limit_sec", "runaway_action", "runaway_resolved_at", "invoice_id", "import_id", "origin_id", "tag_list", "created_at", "updated_at" from "entries" where ("entries"."workspace_id" = ? and "entries"."author_id" in (?) and "entries"."end_at" is not null and "entries"."start_at" > ? and "entries"."start_at" < ?) order by "entries"."start_at" asc, "entries"."id" asc limit ?;
--   SEARCH entries USING INDEX entries_ws_author_start (workspace_id=? AND author_id=? AND start_at>? AND start_at<?)

select count(*), coalesce(sum("duration_sec"), 0) from "entries" where (("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?, ?)) and not exists (select 1 from json_each(?) as span where span.value ->> 0 = "entries"."author_id" and "entries"."start_at" >= span.value ->> 1 and "entries"."start_at" < span.value ->> 2));
--   SEARCH entries USING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
--   CORRELATED SCALAR SUBQUERY 1
--     SCAN span VIRTUAL TABLE INDEX 1:

select "project_id", "task_id", "author_id", "hourly_rate", sum("duration_sec"), count(*) from "entries" where ("entries"."workspace_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."billable" = ? and "entries"."end_at" is not null and "entries"."invoice_id" is null and "entries"."project_id" in (?, ?, ?) and exists (select 1 from json_each(?) as span where span.value ->> 0 = "entries"."author_id" and "entries"."start_at" >= span.value ->> 1 and "entries"."start_at" < span.value ->> 2)) group by "entries"."project_id", "entries"."task_id", "entries"."author_id", "entries"."hourly_rate";
--   SEARCH entries USING INDEX entries_project (project_id=? AND start_at>? AND start_at<?)
--   SCAN span EXISTS VIRTUAL TABLE INDEX 1:
--   USE TEMP B-TREE FOR GROUP BY

select count(*), coalesce(sum("duration_sec"), 0), coalesce(sum(case when "billable" then "duration_sec" else 0 end), 0), sum("amount_cents") from "entries" where ("entries"."workspace_id" = ? and "entries"."author_id" = ? and "entries"."start_at" >= ? and "entries"."start_at" < ? and "entries"."end_at" is not null);
--   SEARCH entries USING COVERING INDEX entries_report (workspace_id=? AND start_at>? AND start_at<?)
