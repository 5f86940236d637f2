-- A member's suggestions chosen from the index alone (issue 60): with the description and the
-- count beside the start, the ~900 rows of a member's 90 days are filtered and ordered without
-- reading each from the table; only the few shown are.
DROP INDEX `entry_suggestions_recent`;--> statement-breakpoint
CREATE INDEX `entry_suggestions_recent` ON `entry_suggestions` (`workspace_id`,`author_id`,`last_start`,`description`,`uses`);