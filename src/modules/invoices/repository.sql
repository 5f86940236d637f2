-- The SQL of the invoices module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

insert into "invoices" ("id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "created_by", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "created_by", "created_at", "updated_at";


select "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "created_by", "created_at", "updated_at" from "invoices" where "invoices"."id" = ?;
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

update "invoices" set "issuer" = ?, "recipient" = ?, "lines" = ?, "extras" = ?, "einvoice_fills" = ?, "updated_at" = ? where "invoices"."id" = ? returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "created_by", "created_at", "updated_at";
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

update "invoices" set "status" = ?, "updated_at" = ? where "invoices"."id" = ? returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "created_by", "created_at", "updated_at";
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)
