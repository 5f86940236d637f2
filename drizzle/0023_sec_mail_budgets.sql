CREATE TABLE `mail_budget_uses` (
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_budget_uses_key` ON `mail_budget_uses` (`key`,`at`);