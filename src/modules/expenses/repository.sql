-- The SQL of the expenses module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where "expenses"."workspace_id" = ? order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_workspace_day (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."workspace_id" = ? and "expenses"."project_id" in (?, ?) and "expenses"."day" >= ? and "expenses"."day" <= ? and "expenses"."billable" = ? and "expenses"."invoice_id" is null) order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_workspace_day (workspace_id=? AND day>? AND day<?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

update "expenses" set "invoice_id" = ? where "expenses"."invoice_id" = ?;
--   SEARCH expenses USING INDEX expenses_invoice (invoice_id=?)

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."workspace_id" = ? and "expenses"."project_id" in (?, ?, ?) and "expenses"."day" >= ? and "expenses"."day" <= ? and "expenses"."billable" = ? and "expenses"."invoice_id" is null) order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_workspace_day (workspace_id=? AND day>? AND day<?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

insert into "expenses" ("id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at";
--   SEARCH expense_receipts USING COVERING INDEX sqlite_autoindex_expense_receipts_1 (expense_id=?)

insert into "expense_receipts" ("expense_id", "workspace_id", "file_name", "media_type", "size", "bytes", "created_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("expense_receipts"."expense_id") do update set "expense_id" = ?, "workspace_id" = ?, "file_name" = ?, "media_type" = ?, "size" = ?, "bytes" = ?, "created_at" = ?;


select "expense_id", "workspace_id", "file_name", "media_type", "size", "created_at" from "expense_receipts" where "expense_receipts"."expense_id" in (?);
--   SEARCH expense_receipts USING INDEX sqlite_autoindex_expense_receipts_1 (expense_id=?)

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."workspace_id" = ? and "expenses"."day" >= ? and "expenses"."day" <= ?) order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_workspace_day (workspace_id=? AND day>? AND day<?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."workspace_id" = ? and "expenses"."day" >= ? and "expenses"."day" <= ? and "expenses"."project_id" = ?) order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_project_day (project_id=? AND day>? AND day<?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."workspace_id" = ? and "expenses"."author_id" = ?) order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_workspace_day (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."id" = ? and "expenses"."workspace_id" = ?);
--   SEARCH expenses USING INDEX sqlite_autoindex_expenses_1 (id=?)

update "expenses" set "amount_cents" = ?, "updated_at" = ? where "expenses"."id" = ? returning "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at";
--   SEARCH expenses USING INDEX sqlite_autoindex_expenses_1 (id=?)

select "expense_id", "workspace_id", "file_name", "media_type", "size", "bytes", "created_at" from "expense_receipts" where "expense_receipts"."expense_id" = ?;
--   SEARCH expense_receipts USING INDEX sqlite_autoindex_expense_receipts_1 (expense_id=?)

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where ("expenses"."workspace_id" = ? and "expenses"."project_id" in (?) and "expenses"."day" >= ? and "expenses"."day" <= ? and "expenses"."billable" = ? and "expenses"."invoice_id" is null) order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_project_day (project_id=? AND day>? AND day<?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

update "expenses" set "invoice_id" = ? where ("expenses"."id" in (?) and +"expenses"."invoice_id" IS NULL);
--   SEARCH expenses USING INDEX sqlite_autoindex_expenses_1 (id=?)

select "id", "workspace_id", "author_id", "day", "description", "amount_cents", "currency", "tax_category", "tax_rate", "project_id", "billable", "invoice_id", "created_at", "updated_at" from "expenses" where "expenses"."invoice_id" = ? order by "expenses"."day" asc, "expenses"."id" asc;
--   SEARCH expenses USING INDEX expenses_invoice (invoice_id=?)
--   USE TEMP B-TREE FOR ORDER BY

update "expenses" set "invoice_id" = ? where ("expenses"."invoice_id" = ? and "expenses"."id" in (?));
--   SEARCH expenses USING INDEX sqlite_autoindex_expenses_1 (id=?)

delete from "expense_receipts" where "expense_receipts"."expense_id" = ?;
--   SEARCH expense_receipts USING INDEX sqlite_autoindex_expense_receipts_1 (expense_id=?)

delete from "expenses" where "expenses"."id" = ?;
--   SEARCH expenses USING INDEX sqlite_autoindex_expenses_1 (id=?)
--   SEARCH expense_receipts USING COVERING INDEX sqlite_autoindex_expense_receipts_1 (expense_id=?)
