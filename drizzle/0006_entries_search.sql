-- Substring search of entry descriptions (GET /entries?search=…) through a trigram index: a
-- pattern of 3 or more characters finds its candidates without reading every entry of the
-- range. External content: the text stays in entries; the index is keyed by entries' rowid and
-- kept in step by triggers, in the transaction of every write. (Rowids of entries survive the
-- online backup API; should a VACUUM ever renumber them, INSERT INTO entries_fts(entries_fts)
-- VALUES('rebuild') rebuilds the index.)
CREATE VIRTUAL TABLE entries_fts USING fts5(description, content='entries', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
  INSERT INTO entries_fts(rowid, description) VALUES (NEW.rowid, NEW.description);
END;
--> statement-breakpoint
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, description) VALUES ('delete', OLD.rowid, OLD.description);
END;
--> statement-breakpoint
CREATE TRIGGER entries_fts_update AFTER UPDATE OF description ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, description) VALUES ('delete', OLD.rowid, OLD.description);
  INSERT INTO entries_fts(rowid, description) VALUES (NEW.rowid, NEW.description);
END;
--> statement-breakpoint
INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
