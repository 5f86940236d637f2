ALTER TABLE `invoices` ADD `first_handed_out_at` integer;--> statement-breakpoint
ALTER TABLE `invoices` ADD `last_handed_out_at` integer;