CREATE TABLE `invoice_reminders` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`level` integer NOT NULL,
	`days_overdue` integer NOT NULL,
	`amount_due_cents` integer NOT NULL,
	`recipient` text NOT NULL,
	`files` text NOT NULL,
	`mail_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoice_reminders_level` ON `invoice_reminders` (`invoice_id`,`level`);--> statement-breakpoint
ALTER TABLE `invoice_settings` ADD `reminders` text;