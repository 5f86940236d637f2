CREATE TABLE `import_created` (
	`import_id` text NOT NULL,
	`kind` text NOT NULL,
	`id` text NOT NULL,
	PRIMARY KEY(`import_id`, `kind`, `id`)
);
--> statement-breakpoint
CREATE TABLE `import_fingerprints` (
	`workspace_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`import_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `fingerprint`)
);
--> statement-breakpoint
CREATE INDEX `import_fingerprints_import` ON `import_fingerprints` (`import_id`);--> statement-breakpoint
CREATE TABLE `imports` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`format` text NOT NULL,
	`file_name` text NOT NULL,
	`actor_user_id` text,
	`state` text NOT NULL,
	`webhooks` integer NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	`imported` integer DEFAULT 0 NOT NULL,
	`duplicates` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	`failure` text,
	`pid` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`actor_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `imports_workspace` ON `imports` (`workspace_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `imports_running` ON `imports` (`state`);--> statement-breakpoint
CREATE INDEX `entries_import` ON `entries` (`import_id`) WHERE "entries"."import_id" IS NOT NULL;