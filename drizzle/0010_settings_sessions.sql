CREATE TABLE `sessions` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `setup_links` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `setup_links_user` ON `setup_links` (`user_id`);--> statement-breakpoint
ALTER TABLE `members` ADD `is_owner` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `password_hash` text;--> statement-breakpoint
ALTER TABLE `users` ADD `password_set_at` integer;--> statement-breakpoint
-- Existing workspaces: the member added first (the bootstrap owner, or whoever the CLI added
-- first) becomes the owner; the CLI grants or takes the role afterwards (member set --owner).
UPDATE `members` SET `is_owner` = 1 WHERE rowid IN (
	SELECT (SELECT m.rowid FROM `members` m WHERE m.`workspace_id` = w.`id` ORDER BY m.`created_at`, m.rowid LIMIT 1)
	FROM `workspaces` w
);
