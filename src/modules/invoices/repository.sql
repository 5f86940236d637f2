-- The SQL of the invoices module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "workspace_id", "number_pattern", "tax_category", "tax_rate", "exemption_reason", "exemption_reason_code", "language", "rounding", "early_payment", "reminders", "updated_at" from "invoice_settings" where "invoice_settings"."workspace_id" = ?;
--   SEARCH invoice_settings USING INDEX sqlite_autoindex_invoice_settings_1 (workspace_id=?)

select "workspace_id", "number", "invoice_id", "kind", "issue_date", "created_at" from "invoice_numbers" where "invoice_numbers"."workspace_id" = ? order by "invoice_numbers"."issue_date", "invoice_numbers"."created_at";
--   SEARCH invoice_numbers USING INDEX invoice_numbers_date (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at" from "invoices" where "invoices"."workspace_id" = ? order by "invoices"."created_at" desc, "invoices"."id" desc;
--   SEARCH invoices USING INDEX invoices_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

insert into "invoice_settings" ("workspace_id", "number_pattern", "tax_category", "tax_rate", "exemption_reason", "exemption_reason_code", "language", "rounding", "early_payment", "reminders", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("invoice_settings"."workspace_id") do update set "number_pattern" = ?, "tax_category" = ?, "tax_rate" = ?, "exemption_reason" = ?, "exemption_reason_code" = ?, "language" = ?, "rounding" = ?, "early_payment" = ?, "reminders" = ?, "updated_at" = ?;


insert into "invoices" ("id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, null, null, null, null, null, null, ?, ?, ?, ?, ?, null, ?, ?, ?) returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at";
--   SEARCH invoice_reminders USING COVERING INDEX invoice_reminders_level (invoice_id=?)
--   SEARCH invoice_payments USING COVERING INDEX invoice_payments_invoice (invoice_id=?)
--   SEARCH invoice_sends USING COVERING INDEX invoice_sends_invoice (invoice_id=?)
--   SEARCH invoice_numbers USING COVERING INDEX invoice_numbers_document (invoice_id=?)

select "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at" from "invoices" where "invoices"."id" = ?;
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

update "invoices" set "issuer" = ?, "recipient" = ?, "lines" = ?, "extras" = ?, "einvoice_fills" = ?, "updated_at" = ? where "invoices"."id" = ? returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at";
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

select "number", "issue_date" from "invoice_numbers" where "invoice_numbers"."workspace_id" = ? order by "invoice_numbers"."issue_date" desc limit ?;
--   SEARCH invoice_numbers USING INDEX invoice_numbers_date (workspace_id=?)

select count(*) from "invoice_numbers" where ("invoice_numbers"."workspace_id" = ? and "invoice_numbers"."issue_date" >= ? and "invoice_numbers"."issue_date" < ?);
--   SEARCH invoice_numbers USING COVERING INDEX invoice_numbers_date (workspace_id=? AND issue_date>? AND issue_date<?)

insert into "invoice_numbers" ("workspace_id", "number", "invoice_id", "kind", "issue_date", "created_at") values (?, ?, ?, ?, ?, ?);


update "invoices" set "status" = ?, "lines" = ?, "extras" = ?, "number" = ?, "issue_date" = ?, "due_date" = ?, "updated_at" = ? where "invoices"."id" = ? returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at";
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

update "invoices" set "status" = ?, "credit_note_number" = ?, "credit_note_date" = ?, "updated_at" = ? where "invoices"."id" = ? returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at";
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

insert into "invoice_payments" ("id", "workspace_id", "invoice_id", "paid_on", "amount_cents", "discount_cents", "note", "recorded_by", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?);


update "invoices" set "status" = ?, "paid_date" = ?, "paid_cents" = ?, "updated_at" = ? where "invoices"."id" = ? returning "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at";
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

select "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at" from "invoices" where ("invoices"."workspace_id" = ? and "invoices"."status" = ? and "invoices"."client_id" = ?) order by "invoices"."created_at" desc, "invoices"."id" desc;
--   SEARCH invoices USING INDEX invoices_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

update "invoices" set "first_handed_out_at" = coalesce("invoices"."first_handed_out_at", ?), "last_handed_out_at" = ? where "invoices"."id" = ?;
--   SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)

insert into "invoice_sends" ("id", "workspace_id", "invoice_id", "document", "recipient", "files", "mail_id", "sent_by", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?);


select "id", "workspace_id", "invoice_id", "document", "recipient", "files", "mail_id", "sent_by", "created_at" from "invoice_sends" where "invoice_sends"."invoice_id" = ? order by "invoice_sends"."created_at" asc, rowid;
--   SEARCH invoice_sends USING INDEX invoice_sends_invoice (invoice_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "invoices"."id", "invoices"."workspace_id", "invoices"."client_id", "invoices"."status", "invoices"."currency", "invoices"."from_day", "invoices"."to_day", "invoices"."time_zone", "invoices"."issuer", "invoices"."recipient", "invoices"."lines", "invoices"."total_cents", "invoices"."extras", "invoices"."einvoice_fills", "invoices"."first_handed_out_at", "invoices"."last_handed_out_at", "invoices"."number", "invoices"."issue_date", "invoices"."due_date", "invoices"."paid_date", "invoices"."credit_note_number", "invoices"."credit_note_date", "invoices"."note", "invoices"."language", "invoices"."rounding", "invoices"."paid_cents", "invoices"."discount_cents", "invoices"."reminder_skip", "invoices"."created_by", "invoices"."created_at", "invoices"."updated_at", "invoice_settings"."reminders" from "invoices" inner join "invoice_settings" on "invoice_settings"."workspace_id" = "invoices"."workspace_id" where ("invoices"."status" = ? and "invoices"."due_date" < ? and "invoice_settings"."reminders" is not null) order by "invoices"."due_date" asc, "invoices"."id" asc;
--   SEARCH invoices USING INDEX invoices_status_due (status=? AND due_date<?)
--   SEARCH invoice_settings USING INDEX sqlite_autoindex_invoice_settings_1 (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "id", "workspace_id", "invoice_id", "level", "days_overdue", "amount_due_cents", "recipient", "files", "mail_id", "created_at" from "invoice_reminders" where "invoice_reminders"."invoice_id" = ? order by "invoice_reminders"."level" asc;
--   SEARCH invoice_reminders USING INDEX invoice_reminders_level (invoice_id=?)

select "id", "workspace_id", "client_id", "status", "currency", "from_day", "to_day", "time_zone", "issuer", "recipient", "lines", "total_cents", "extras", "einvoice_fills", "first_handed_out_at", "last_handed_out_at", "number", "issue_date", "due_date", "paid_date", "credit_note_number", "credit_note_date", "note", "language", "rounding", "paid_cents", "discount_cents", "reminder_skip", "created_by", "created_at", "updated_at" from "invoices" where ("invoices"."workspace_id" = ? and "invoices"."status" = ? and "invoices"."due_date" < ?) order by "invoices"."due_date" asc, "invoices"."id" asc;
--   SEARCH invoices USING INDEX invoices_workspace_status_due (workspace_id=? AND status=? AND due_date<?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY
