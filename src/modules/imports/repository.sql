-- The SQL of the imports module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by `npm run sql` (scripts/sql.ts); `npm test` fails when it is stale. Review it with the code.

select "fingerprint" from "import_fingerprints" where ("import_fingerprints"."workspace_id" = ? and "import_fingerprints"."fingerprint" IN (SELECT value FROM json_each(?)));
--   SEARCH import_fingerprints USING COVERING INDEX sqlite_autoindex_import_fingerprints_1 (workspace_id=? AND fingerprint=?)
--   LIST SUBQUERY 1
--     SCAN json_each VIRTUAL TABLE INDEX 1:

insert into "import_fingerprints" ("workspace_id", "fingerprint", "import_id") values (?, ?, ?) on conflict do nothing;


select "id", "workspace_id", "format", "file_name", "actor_user_id", "state", "webhooks", "rows", "imported", "duplicates", "refused", "failure", "pid", "heartbeat_at", "started_at", "finished_at" from "imports" where "imports"."id" = ?;
--   SEARCH imports USING INDEX sqlite_autoindex_imports_1 (id=?)

select "id", "workspace_id", "format", "file_name", "actor_user_id", "state", "webhooks", "rows", "imported", "duplicates", "refused", "failure", "pid", "heartbeat_at", "started_at", "finished_at" from "imports" where "imports"."state" = ?;
--   SEARCH imports USING INDEX imports_running (state=?)

PRAGMA cache_size;


PRAGMA cache_size = -65536;


PRAGMA cache_size = -16000;


insert into "imports" ("id", "workspace_id", "format", "file_name", "actor_user_id", "state", "webhooks", "rows", "imported", "duplicates", "refused", "failure", "pid", "heartbeat_at", "started_at", "finished_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?, ?, ?, null);


PRAGMA synchronous;


PRAGMA temp_store;


PRAGMA wal_autocheckpoint;


PRAGMA synchronous = 1;


PRAGMA wal_autocheckpoint = 10000;


PRAGMA temp_store = 2;


insert into "import_created" ("import_id", "kind", "id") values (?, ?, ?) on conflict do nothing;


update "imports" set "imported" = ?, "duplicates" = ?, "heartbeat_at" = ? where "imports"."id" = ?;
--   SEARCH imports USING INDEX sqlite_autoindex_imports_1 (id=?)

PRAGMA synchronous = 2;


PRAGMA temp_store = 0;


PRAGMA wal_autocheckpoint = 1000;


update "imports" set "state" = ?, "imported" = ?, "duplicates" = ?, "heartbeat_at" = ?, "finished_at" = ? where "imports"."id" = ?;
--   SEARCH imports USING INDEX sqlite_autoindex_imports_1 (id=?)

select "id", "workspace_id", "format", "file_name", "actor_user_id", "state", "webhooks", "rows", "imported", "duplicates", "refused", "failure", "pid", "heartbeat_at", "started_at", "finished_at" from "imports" where "imports"."workspace_id" = ? order by "imports"."started_at" desc, "imports"."id" desc limit ?;
--   SEARCH imports USING INDEX imports_workspace (workspace_id=?)
--   USE TEMP B-TREE FOR LAST TERM OF ORDER BY

select "kind", "id" from "import_created" where "import_created"."import_id" = ?;
--   SEARCH import_created USING COVERING INDEX sqlite_autoindex_import_created_1 (import_id=?)

DELETE FROM "import_fingerprints" WHERE rowid IN (SELECT rowid FROM "import_fingerprints" WHERE "import_fingerprints"."import_id" = ? LIMIT ?);
--   SEARCH import_fingerprints USING INTEGER PRIMARY KEY (rowid=?)
--   LIST SUBQUERY 1
--     SEARCH import_fingerprints USING COVERING INDEX import_fingerprints_import (import_id=?)

update "imports" set "state" = ?, "finished_at" = ? where "imports"."id" = ?;
--   SEARCH imports USING INDEX sqlite_autoindex_imports_1 (id=?)
