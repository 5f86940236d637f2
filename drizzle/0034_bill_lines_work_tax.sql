ALTER TABLE `projects` ADD `tax_category` text;--> statement-breakpoint
ALTER TABLE `projects` ADD `tax_rate` real;--> statement-breakpoint
ALTER TABLE `tasks` ADD `tax_category` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `tax_rate` real;