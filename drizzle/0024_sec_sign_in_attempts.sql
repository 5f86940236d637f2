CREATE TABLE `sign_in_attempts` (
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_attempts_key` ON `sign_in_attempts` (`key`,`at`);