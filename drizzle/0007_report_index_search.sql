-- Reports read from one covering index without a join or a row lookup, and the search index
-- answers patterns of every length.
--
-- entries.tag_list: the entry's tag ids as a sorted JSON array (NULL without tags), a copy of
-- entry_tags kept by the triggers below in the transaction of every tag change. Reports group
-- and filter by tag from entries_report (json_each) instead of joining entry_tags per entry, and
-- a search in a report checks the description there too.
DROP INDEX `entries_report`;--> statement-breakpoint
ALTER TABLE `entries` ADD `tag_list` text;--> statement-breakpoint
UPDATE `entries` SET `tag_list` = (
  SELECT json_group_array(`tag_id`) FROM (SELECT `tag_id` FROM `entry_tags` WHERE `entry_id` = `entries`.`id` ORDER BY `tag_id`)
) WHERE `id` IN (SELECT `entry_id` FROM `entry_tags`);--> statement-breakpoint
CREATE INDEX `entries_report` ON `entries` (`workspace_id`,`start_at`,`project_id`,`task_id`,`author_id`,`billable`,`duration_sec`,`amount`,`id`,`end_at`,`tag_list`,`description`) WHERE "entries"."end_at" IS NOT NULL;--> statement-breakpoint
CREATE TRIGGER entry_tags_list_insert AFTER INSERT ON entry_tags BEGIN
  UPDATE entries SET tag_list = (
    SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM entry_tags WHERE entry_id = NEW.entry_id ORDER BY tag_id)
  ) WHERE id = NEW.entry_id;
END;--> statement-breakpoint
CREATE TRIGGER entry_tags_list_delete AFTER DELETE ON entry_tags BEGIN
  UPDATE entries SET tag_list = (
    SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_group_array(tag_id) END
    FROM (SELECT tag_id FROM entry_tags WHERE entry_id = OLD.entry_id ORDER BY tag_id)
  ) WHERE id = OLD.entry_id;
END;--> statement-breakpoint
-- The search index now holds each description as the search compares it: folded by tt_fold
-- (NFC, then lower case as JavaScript does; a function every connection of the server
-- registers) and followed by two U+0001, so that every substring of one or two characters is
-- the start of an indexed trigram (found by a range of the index's terms, entries_fts_terms).
-- Case-sensitive trigrams of the folded text: the index and the exact check agree on every
-- character. Contentless: the index keeps no copy of the text.
--
-- Writes do not update the index themselves (a commit that flushes an FTS5 segment costs about
-- 300 µs, more than the rest of the write): they queue the entry's rowid in entries_fts_pending,
-- and the server indexes the queue in batches within a second. A search reads the queued
-- entries as candidates too, so it never misses a write.
DROP TRIGGER entries_fts_insert;--> statement-breakpoint
DROP TRIGGER entries_fts_delete;--> statement-breakpoint
DROP TRIGGER entries_fts_update;--> statement-breakpoint
DROP TABLE entries_fts;--> statement-breakpoint
CREATE VIRTUAL TABLE entries_fts USING fts5(folded, content='', contentless_delete=1, tokenize='trigram case_sensitive 1');--> statement-breakpoint
INSERT INTO entries_fts(rowid, folded) SELECT rowid, tt_fold(description) || char(1, 1) FROM entries;--> statement-breakpoint
CREATE TABLE entries_fts_pending (entry_rowid INTEGER PRIMARY KEY);--> statement-breakpoint
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
  INSERT OR IGNORE INTO entries_fts_pending (entry_rowid) VALUES (NEW.rowid);
END;--> statement-breakpoint
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
  INSERT OR IGNORE INTO entries_fts_pending (entry_rowid) VALUES (OLD.rowid);
END;--> statement-breakpoint
CREATE TRIGGER entries_fts_update AFTER UPDATE OF description ON entries BEGIN
  INSERT OR IGNORE INTO entries_fts_pending (entry_rowid) VALUES (NEW.rowid);
END;--> statement-breakpoint
-- One row per indexed trigram occurrence (term, doc = the entry's rowid): a range of terms
-- finds the entries containing a one- or two-character pattern.
CREATE VIRTUAL TABLE entries_fts_terms USING fts5vocab(entries_fts, 'instance');
