CREATE TABLE `invoice_numbers` (
	`workspace_id` text NOT NULL,
	`number` text NOT NULL,
	`invoice_id` text NOT NULL,
	`kind` text NOT NULL,
	`issue_date` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoice_numbers_number` ON `invoice_numbers` (`workspace_id`,`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoice_numbers_document` ON `invoice_numbers` (`invoice_id`,`kind`);--> statement-breakpoint
CREATE INDEX `invoice_numbers_date` ON `invoice_numbers` (`workspace_id`,`issue_date`);--> statement-breakpoint
CREATE TABLE `invoice_settings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`number_pattern` text NOT NULL,
	`tax_category` text NOT NULL,
	`tax_rate` real,
	`exemption_reason` text,
	`exemption_reason_code` text,
	`language` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
DROP INDEX `entries_project`;--> statement-breakpoint
CREATE INDEX `entries_invoice` ON `entries` (`invoice_id`) WHERE "entries"."invoice_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `entries_project` ON `entries` (`project_id`,`start_at`);--> statement-breakpoint
ALTER TABLE `clients` ADD `tax_category` text;--> statement-breakpoint
ALTER TABLE `clients` ADD `exemption_reason` text;--> statement-breakpoint
ALTER TABLE `clients` ADD `exemption_reason_code` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `number` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `issue_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `due_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `paid_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `credit_note_number` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `credit_note_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `note` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `language` text DEFAULT 'en' NOT NULL;