ALTER TABLE `users` ADD `time_zone` text;--> statement-breakpoint
ALTER TABLE `users` ADD `week_start` text;