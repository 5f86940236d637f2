CREATE TABLE `webhook_pings` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`status` text NOT NULL,
	`response_code` integer,
	`error` text,
	`error_detail` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_pings_webhook` ON `webhook_pings` (`webhook_id`,`created_at`);