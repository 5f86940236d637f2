CREATE TABLE `workspace_join_domains` (
	`domain` text NOT NULL,
	`workspace_id` text NOT NULL,
	PRIMARY KEY(`domain`, `workspace_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `workspace_join_domains_workspace` ON `workspace_join_domains` (`workspace_id`,`domain`);--> statement-breakpoint
CREATE TABLE `oidc_identities` (
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_sign_in_at` integer NOT NULL,
	PRIMARY KEY(`issuer`, `subject`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_identities_user` ON `oidc_identities` (`user_id`,`issuer`);--> statement-breakpoint
CREATE TABLE `oidc_sessions` (
	`session_hash` text PRIMARY KEY NOT NULL,
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`sid` text,
	`refresh_token` text,
	`checked_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session_hash`) REFERENCES `sessions`(`secret_hash`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oidc_sessions_sid` ON `oidc_sessions` (`issuer`,`sid`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_subject` ON `oidc_sessions` (`issuer`,`subject`);--> statement-breakpoint
ALTER TABLE `users` ADD `break_glass` integer DEFAULT false NOT NULL;