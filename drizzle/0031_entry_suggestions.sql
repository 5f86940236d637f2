-- What typing a description suggests (issue 60): each member's distinct descriptions with their
-- project, task, billable and tags, how many entries have them and the latest start, kept by
-- triggers on entries in the transaction of every write (as tag_list, project_totals and the
-- search queue are), so a suggestion reads a handful of rows instead of every matching entry of
-- 90 days. None is '' in the key; empty descriptions are not kept.
CREATE TABLE `entry_suggestions` (
	`workspace_id` text NOT NULL,
	`author_id` text NOT NULL,
	`description` text NOT NULL,
	`project_id` text NOT NULL,
	`task_id` text NOT NULL,
	`billable` integer NOT NULL,
	`tag_list` text NOT NULL,
	`uses` integer NOT NULL,
	`last_start` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `author_id`, `description`, `project_id`, `task_id`, `billable`, `tag_list`)
);
--> statement-breakpoint
CREATE INDEX `entry_suggestions_recent` ON `entry_suggestions` (`workspace_id`,`author_id`,`last_start`);
--> statement-breakpoint
CREATE TRIGGER entry_suggestions_insert AFTER INSERT ON entries WHEN NEW.description <> '' BEGIN
  INSERT INTO entry_suggestions (workspace_id, author_id, description, project_id, task_id, billable, tag_list, uses, last_start)
  VALUES (NEW.workspace_id, NEW.author_id, NEW.description, ifnull(NEW.project_id, ''), ifnull(NEW.task_id, ''), NEW.billable, ifnull(NEW.tag_list, ''), 1, NEW.start_at)
  ON CONFLICT (workspace_id, author_id, description, project_id, task_id, billable, tag_list)
  DO UPDATE SET uses = uses + 1, last_start = max(last_start, excluded.last_start);
END;
--> statement-breakpoint
CREATE TRIGGER entry_suggestions_delete AFTER DELETE ON entries WHEN OLD.description <> '' BEGIN
  DELETE FROM entry_suggestions WHERE workspace_id = OLD.workspace_id AND author_id = OLD.author_id AND description = OLD.description
    AND project_id = ifnull(OLD.project_id, '') AND task_id = ifnull(OLD.task_id, '') AND billable = OLD.billable
    AND tag_list = ifnull(OLD.tag_list, '') AND uses = 1;
  UPDATE entry_suggestions SET uses = uses - 1, last_start = ifnull((SELECT e.start_at FROM entries e INDEXED BY entries_ws_author_start
       WHERE e.workspace_id = OLD.workspace_id AND e.author_id = OLD.author_id AND e.description = OLD.description
         AND e.project_id IS OLD.project_id AND e.task_id IS OLD.task_id AND e.billable = OLD.billable AND e.tag_list IS OLD.tag_list
       ORDER BY e.start_at DESC LIMIT 1), last_start)
  WHERE workspace_id = OLD.workspace_id AND author_id = OLD.author_id AND description = OLD.description
    AND project_id = ifnull(OLD.project_id, '') AND task_id = ifnull(OLD.task_id, '') AND billable = OLD.billable
    AND tag_list = ifnull(OLD.tag_list, '');
END;
--> statement-breakpoint
-- An edit moves the entry's use from its old key to its new one (tags: each change of tag_list;
-- a new start: the latest start read again).
CREATE TRIGGER entry_suggestions_update AFTER UPDATE OF workspace_id, author_id, description, project_id, task_id, billable, tag_list, start_at ON entries
BEGIN
  DELETE FROM entry_suggestions WHERE OLD.description <> '' AND workspace_id = OLD.workspace_id AND author_id = OLD.author_id AND description = OLD.description
    AND project_id = ifnull(OLD.project_id, '') AND task_id = ifnull(OLD.task_id, '') AND billable = OLD.billable
    AND tag_list = ifnull(OLD.tag_list, '') AND uses = 1;
  UPDATE entry_suggestions SET uses = uses - 1, last_start = ifnull((SELECT e.start_at FROM entries e INDEXED BY entries_ws_author_start
       WHERE e.workspace_id = OLD.workspace_id AND e.author_id = OLD.author_id AND e.description = OLD.description
         AND e.project_id IS OLD.project_id AND e.task_id IS OLD.task_id AND e.billable = OLD.billable AND e.tag_list IS OLD.tag_list
       ORDER BY e.start_at DESC LIMIT 1), last_start)
  WHERE OLD.description <> '' AND workspace_id = OLD.workspace_id AND author_id = OLD.author_id AND description = OLD.description
    AND project_id = ifnull(OLD.project_id, '') AND task_id = ifnull(OLD.task_id, '') AND billable = OLD.billable
    AND tag_list = ifnull(OLD.tag_list, '');
  INSERT INTO entry_suggestions (workspace_id, author_id, description, project_id, task_id, billable, tag_list, uses, last_start)
  SELECT NEW.workspace_id, NEW.author_id, NEW.description, ifnull(NEW.project_id, ''), ifnull(NEW.task_id, ''), NEW.billable, ifnull(NEW.tag_list, ''), 1, NEW.start_at
  WHERE NEW.description <> ''
  ON CONFLICT (workspace_id, author_id, description, project_id, task_id, billable, tag_list)
  DO UPDATE SET uses = uses + 1, last_start = max(last_start, excluded.last_start);
END;
--> statement-breakpoint
INSERT INTO entry_suggestions (workspace_id, author_id, description, project_id, task_id, billable, tag_list, uses, last_start)
SELECT workspace_id, author_id, description, ifnull(project_id, ''), ifnull(task_id, ''), billable, ifnull(tag_list, ''), count(*), max(start_at)
FROM entries WHERE description <> ''
GROUP BY workspace_id, author_id, description, ifnull(project_id, ''), ifnull(task_id, ''), billable, ifnull(tag_list, '');
