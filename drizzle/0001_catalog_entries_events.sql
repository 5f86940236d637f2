CREATE TABLE `clients` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`legal_name` text,
	`address_lines` text,
	`postal_code` text,
	`city` text,
	`country` text,
	`tax_id` text,
	`email` text,
	`reference` text,
	`vat_id` text,
	`electronic_address` text,
	`electronic_address_scheme` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clients_name` ON `clients` (`workspace_id`,`name_key`);--> statement-breakpoint
CREATE TABLE `project_totals` (
	`project_id` text PRIMARY KEY NOT NULL,
	`tracked_sec` integer DEFAULT 0 NOT NULL,
	`billable_sec` integer DEFAULT 0 NOT NULL,
	`amount_cents` integer DEFAULT 0 NOT NULL,
	`entry_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`client_id` text,
	`client_key` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`color` text NOT NULL,
	`billable` integer NOT NULL,
	`hourly_rate` real,
	`estimate_sec` integer,
	`budget_amount` real,
	`archived` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_name` ON `projects` (`workspace_id`,`client_key`,`name_key`);--> statement-breakpoint
CREATE INDEX `projects_client` ON `projects` (`client_id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_name` ON `tags` (`workspace_id`,`name_key`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`estimate_sec` integer,
	`hourly_rate` real,
	`archived` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_name` ON `tasks` (`project_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `tasks_workspace` ON `tasks` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `entries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`author_id` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`project_id` text,
	`task_id` text,
	`billable` integer NOT NULL,
	`start_at` integer NOT NULL,
	`end_at` integer,
	`duration_sec` integer,
	`hourly_rate` real,
	`amount` real,
	`source` text NOT NULL,
	`time_zone` text,
	`runaway_detected_at` integer,
	`runaway_elapsed_sec` integer,
	`runaway_limit_sec` integer,
	`runaway_action` text,
	`runaway_resolved_at` integer,
	`invoice_id` text,
	`import_id` text,
	`origin_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `entries_ws_start` ON `entries` (`workspace_id`,`start_at`,`id`);--> statement-breakpoint
CREATE INDEX `entries_ws_author_start` ON `entries` (`workspace_id`,`author_id`,`start_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `entries_running` ON `entries` (`workspace_id`,`author_id`) WHERE "entries"."end_at" IS NULL;--> statement-breakpoint
CREATE INDEX `entries_ws_duration` ON `entries` (`workspace_id`,`duration_sec`);--> statement-breakpoint
CREATE INDEX `entries_project` ON `entries` (`project_id`);--> statement-breakpoint
CREATE INDEX `entries_task` ON `entries` (`task_id`);--> statement-breakpoint
CREATE TABLE `entry_tags` (
	`entry_id` text NOT NULL,
	`tag_id` text NOT NULL,
	PRIMARY KEY(`entry_id`, `tag_id`),
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `entry_tags_tag` ON `entry_tags` (`tag_id`,`entry_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`entity` text NOT NULL,
	`entity_id` text NOT NULL,
	`operation` text NOT NULL,
	`event` text,
	`actor_user_id` text,
	`actor_token_id` text,
	`origin_id` text,
	`payload` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_ws_seq` ON `events` (`workspace_id`,`seq`);