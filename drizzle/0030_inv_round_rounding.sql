ALTER TABLE `clients` ADD `rounding` text;--> statement-breakpoint
ALTER TABLE `invoice_settings` ADD `rounding` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `rounding` text;