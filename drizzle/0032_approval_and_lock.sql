CREATE TABLE `approval_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`period_id` text NOT NULL,
	`action` text NOT NULL,
	`by_user_id` text,
	`by_name` text,
	`note` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`period_id`) REFERENCES `approval_periods`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `approval_audit_period` ON `approval_audit` (`period_id`,`id`);--> statement-breakpoint
CREATE INDEX `approval_audit_workspace` ON `approval_audit` (`workspace_id`,`id`);--> statement-breakpoint
CREATE TABLE `approval_periods` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`start_day` text NOT NULL,
	`time_zone` text NOT NULL,
	`from_at` integer NOT NULL,
	`to_at` integer NOT NULL,
	`state` text NOT NULL,
	`note` text,
	`decided_by` text,
	`decided_at` integer,
	`submitted_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `approval_periods_member_period` ON `approval_periods` (`workspace_id`,`user_id`,`kind`,`start_day`);--> statement-breakpoint
CREATE INDEX `approval_periods_member_from` ON `approval_periods` (`workspace_id`,`user_id`,`from_at`);--> statement-breakpoint
CREATE INDEX `approval_periods_state` ON `approval_periods` (`workspace_id`,`state`);--> statement-breakpoint
CREATE TABLE `approval_settings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`approval` text DEFAULT 'off' NOT NULL,
	`locked_before` text,
	`lock_zone` text,
	`locked_before_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `approvers` (
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `user_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `approvers_user` ON `approvers` (`user_id`);