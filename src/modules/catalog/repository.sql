-- The SQL of the catalog module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at" from "clients" where ("clients"."workspace_id" = ? and "clients"."id" = ?);
--   SEARCH clients USING INDEX sqlite_autoindex_clients_1 (id=?)

select "id", "workspace_id", "client_id", "client_key", "name", "name_key", "color", "billable", "hourly_rate", "estimate_sec", "budget_amount", "tax_category", "tax_rate", "archived", "created_at", "updated_at" from "projects" where ("projects"."workspace_id" = ? and "projects"."id" = ?);
--   SEARCH projects USING INDEX sqlite_autoindex_projects_1 (id=?)

select "id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at" from "tasks" where ("tasks"."workspace_id" = ? and "tasks"."id" = ?);
--   SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 (id=?)

select "id", "workspace_id", "name", "name_key", "created_at", "updated_at" from "tags" where ("tags"."workspace_id" = ? and "tags"."id" = ?);
--   SEARCH tags USING INDEX sqlite_autoindex_tags_1 (id=?)

select "projects"."id", "projects"."workspace_id", "projects"."client_id", "projects"."name", "projects"."color", "projects"."billable", "projects"."hourly_rate", "projects"."estimate_sec", "projects"."budget_amount", "projects"."tax_category", "projects"."tax_rate", "projects"."archived", "projects"."created_at", "projects"."updated_at", "project_totals"."tracked_sec", "project_totals"."billable_sec", "project_totals"."amount_cents" from "projects" left join "project_totals" on "project_totals"."project_id" = "projects"."id" where ("projects"."workspace_id" = ? and "projects"."id" = ?);
--   SEARCH projects USING INDEX sqlite_autoindex_projects_1 (id=?)
--   SEARCH project_totals USING INDEX sqlite_autoindex_project_totals_1 (project_id=?) LEFT-JOIN

select "projects"."id", "projects"."workspace_id", "projects"."client_id", "projects"."name", "projects"."color", "projects"."billable", "projects"."hourly_rate", "projects"."estimate_sec", "projects"."budget_amount", "projects"."tax_category", "projects"."tax_rate", "projects"."archived", "projects"."created_at", "projects"."updated_at", "project_totals"."tracked_sec", "project_totals"."billable_sec", "project_totals"."amount_cents" from "projects" left join "project_totals" on "project_totals"."project_id" = "projects"."id" where "projects"."workspace_id" = ? order by "projects"."name_key" asc, "projects"."id" asc;
--   SEARCH projects USING INDEX projects_name (workspace_id=?)
--   SEARCH project_totals USING INDEX sqlite_autoindex_project_totals_1 (project_id=?) LEFT-JOIN
--   USE TEMP B-TREE FOR ORDER BY

select "id", "workspace_id", "name", "name_key", "created_at", "updated_at" from "tags" where "tags"."workspace_id" = ? order by "tags"."name_key" asc, "tags"."id" asc;
--   SEARCH tags USING INDEX tags_name (workspace_id=?)

select "id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at" from "clients" where ("clients"."workspace_id" = ? and "clients"."name_key" = ?);
--   SEARCH clients USING INDEX clients_name (workspace_id=? AND name_key=?)

select "id", "workspace_id", "client_id", "client_key", "name", "name_key", "color", "billable", "hourly_rate", "estimate_sec", "budget_amount", "tax_category", "tax_rate", "archived", "created_at", "updated_at" from "projects" where ("projects"."workspace_id" = ? and "projects"."client_key" = ? and "projects"."name_key" = ?);
--   SEARCH projects USING INDEX projects_name (workspace_id=? AND client_key=? AND name_key=?)

select "id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at" from "tasks" where ("tasks"."project_id" = ? and "tasks"."name_key" = ?);
--   SEARCH tasks USING INDEX tasks_name (project_id=? AND name_key=?)

select "id", "workspace_id", "name", "name_key", "created_at", "updated_at" from "tags" where ("tags"."workspace_id" = ? and "tags"."name_key" = ?);
--   SEARCH tags USING INDEX tags_name (workspace_id=? AND name_key=?)

select "id" from "tasks" where "tasks"."project_id" = ? limit ?;
--   SEARCH tasks USING INDEX tasks_name (project_id=?)

select "id" from "projects" where "projects"."client_id" = ? limit ?;
--   SEARCH projects USING INDEX projects_client (client_id=?)

select "projects"."id", "projects"."name", "projects"."color", "projects"."client_id", "clients"."name" from "projects" left join "clients" on "clients"."id" = "projects"."client_id" where ("projects"."workspace_id" = ? and "projects"."id" in (select value from json_each(?)));
--   SEARCH projects USING INDEX projects_name (workspace_id=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER
--   SEARCH clients USING INDEX sqlite_autoindex_clients_1 (id=?) LEFT-JOIN

select "id", "name" from "tasks" where ("tasks"."workspace_id" = ? and "tasks"."id" in (select value from json_each(?)));
--   SEARCH tasks USING INDEX tasks_workspace (workspace_id=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select "id", "name" from "clients" where ("clients"."workspace_id" = ? and "clients"."id" in (select value from json_each(?)));
--   SEARCH clients USING INDEX clients_name (workspace_id=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

select "id", "name" from "tags" where ("tags"."workspace_id" = ? and "tags"."id" in (select value from json_each(?)));
--   SEARCH tags USING INDEX tags_name (workspace_id=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:
--     CREATE BLOOM FILTER

insert into "clients" ("id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at") values (?, ?, ?, ?, ?, null, null, null, ?, null, null, null, null, null, null, null, null, null, null, null, null, ?, ?) returning "id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at";
--   SCAN invoices
--   SEARCH projects USING COVERING INDEX projects_client (client_id=?)

update "clients" set "legal_name" = ?, "updated_at" = ? where "clients"."id" = ? returning "id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at";
--   SEARCH clients USING INDEX sqlite_autoindex_clients_1 (id=?)

insert into "projects" ("id", "workspace_id", "client_id", "client_key", "name", "name_key", "color", "billable", "hourly_rate", "estimate_sec", "budget_amount", "tax_category", "tax_rate", "archived", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?, ?, ?);


insert into "tasks" ("id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, null, null, ?, ?, ?) returning "id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at";
--   SEARCH entries USING COVERING INDEX entries_task (task_id=?)

insert into "tags" ("id", "workspace_id", "name", "name_key", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?) returning "id", "workspace_id", "name", "name_key", "created_at", "updated_at";
--   SEARCH entry_tags USING COVERING INDEX entry_tags_tag (tag_id=?)

update "tags" set "name" = ?, "name_key" = ?, "updated_at" = ? where "tags"."id" = ? returning "id", "workspace_id", "name", "name_key", "created_at", "updated_at";
--   SEARCH tags USING INDEX sqlite_autoindex_tags_1 (id=?)

update "projects" set "color" = ?, "updated_at" = ? where "projects"."id" = ?;
--   SEARCH projects USING INDEX sqlite_autoindex_projects_1 (id=?)

update "tasks" set "estimate_sec" = ?, "updated_at" = ? where "tasks"."id" = ? returning "id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at";
--   SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 (id=?)

select "id" from "tags" where ("tags"."workspace_id" = ? and "tags"."id" in (?));
--   SEARCH tags USING INDEX sqlite_autoindex_tags_1 (id=?)

select "id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at" from "clients" where "clients"."workspace_id" = ? order by "clients"."name_key" asc, "clients"."id" asc;
--   SEARCH clients USING INDEX clients_name (workspace_id=?)

select "id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at" from "tasks" where "tasks"."workspace_id" = ? order by "tasks"."name_key" asc, "tasks"."id" asc;
--   SEARCH tasks USING INDEX tasks_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR ORDER BY

select "id" from "projects" where ("projects"."workspace_id" = ? and "projects"."client_id" in (?));
--   SEARCH projects USING INDEX projects_client (client_id=?)

select "id", "client_id" from "projects" where "projects"."workspace_id" = ?;
--   SEARCH projects USING INDEX projects_name (workspace_id=?)

delete from "tags" where "tags"."id" = ?;
--   SEARCH tags USING INDEX sqlite_autoindex_tags_1 (id=?)
--   SEARCH entry_tags USING COVERING INDEX entry_tags_tag (tag_id=?)

delete from "tasks" where "tasks"."id" = ?;
--   SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 (id=?)
--   SEARCH entries USING COVERING INDEX entries_task (task_id=?)

delete from "tasks" where "tasks"."project_id" = ?;
--   SEARCH tasks USING COVERING INDEX tasks_name (project_id=?)
--   SEARCH entries USING COVERING INDEX entries_task (task_id=?)

delete from "project_totals" where "project_totals"."project_id" = ?;
--   SEARCH project_totals USING INDEX sqlite_autoindex_project_totals_1 (project_id=?)

delete from "projects" where "projects"."id" = ?;
--   SEARCH projects USING INDEX sqlite_autoindex_projects_1 (id=?)
--   SEARCH expenses USING COVERING INDEX expenses_project_day (project_id=?)
--   SEARCH entries USING COVERING INDEX entries_project (project_id=?)
--   SEARCH tasks USING COVERING INDEX tasks_name (project_id=?)
--   SEARCH project_totals USING COVERING INDEX sqlite_autoindex_project_totals_1 (project_id=?)

update "projects" set "tax_category" = ?, "tax_rate" = ?, "updated_at" = ? where "projects"."id" = ?;
--   SEARCH projects USING INDEX sqlite_autoindex_projects_1 (id=?)

update "tasks" set "tax_category" = ?, "tax_rate" = ?, "updated_at" = ? where "tasks"."id" = ? returning "id", "workspace_id", "project_id", "name", "name_key", "estimate_sec", "hourly_rate", "tax_category", "tax_rate", "archived", "created_at", "updated_at";
--   SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 (id=?)

select "id", "tax_category", "tax_rate" from "projects" where ("projects"."workspace_id" = ? and "projects"."tax_category" is not null);
--   SEARCH projects USING INDEX projects_name (workspace_id=?)

select "id", "tax_category", "tax_rate" from "tasks" where ("tasks"."workspace_id" = ? and "tasks"."tax_category" is not null);
--   SEARCH tasks USING INDEX tasks_workspace (workspace_id=?)

insert into "clients" ("id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at") values (?, ?, ?, ?, ?, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, ?, ?) returning "id", "workspace_id", "name", "name_key", "archived", "legal_name", "address_lines", "postal_code", "city", "country", "tax_id", "email", "reference", "vat_id", "electronic_address", "electronic_address_scheme", "tax_category", "exemption_reason", "exemption_reason_code", "rounding", "language", "created_at", "updated_at";
--   SCAN invoices
--   SEARCH projects USING COVERING INDEX projects_client (client_id=?)

delete from "clients" where "clients"."id" = ?;
--   SEARCH clients USING INDEX sqlite_autoindex_clients_1 (id=?)
--   SCAN invoices
--   SEARCH projects USING COVERING INDEX projects_client (client_id=?)
