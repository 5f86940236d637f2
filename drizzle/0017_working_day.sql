CREATE TABLE `entry_tombstones` (
	`entry_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`author_id` text NOT NULL,
	`snapshot` text NOT NULL,
	`deleted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `entry_tombstones_deleted` ON `entry_tombstones` (`deleted_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `time_format` text;--> statement-breakpoint
ALTER TABLE `users` ADD `theme` text;