CREATE TABLE `timer_stop_links` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`entry_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `timer_stop_links_entry` ON `timer_stop_links` (`entry_id`);--> statement-breakpoint
CREATE TABLE `email_changes` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_changes_user` ON `email_changes` (`user_id`);--> statement-breakpoint
CREATE TABLE `password_resets` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `password_resets_user` ON `password_resets` (`user_id`);--> statement-breakpoint
CREATE TABLE `mail_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text,
	`user_id` text,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`recipient_name` text,
	`subject` text NOT NULL,
	`message_id` text NOT NULL,
	`sealed` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`detail` text,
	`next_attempt_at` integer,
	`claimed_until` integer,
	`expires_at` integer,
	`sent_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `mail_messages_queue` ON `mail_messages` (`next_attempt_at`,`id`) WHERE "mail_messages"."next_attempt_at" is not null;--> statement-breakpoint
CREATE INDEX `mail_messages_workspace` ON `mail_messages` (`workspace_id`,`id`);--> statement-breakpoint
CREATE INDEX `mail_messages_user` ON `mail_messages` (`user_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `language` text;