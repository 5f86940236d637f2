CREATE TABLE `lobby_sessions` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `lobby_sessions_user` ON `lobby_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `invitations_user` ON `invitations` (`user_id`);