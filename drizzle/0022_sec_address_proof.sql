ALTER TABLE `users` ADD `email_proved_at` integer;--> statement-breakpoint
ALTER TABLE `setup_links` ADD `mailed` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- An account bound to the identity provider had its address verified there when it was bound.
UPDATE `users` SET `email_proved_at` = (SELECT min(`created_at`) FROM `oidc_identities` WHERE `oidc_identities`.`user_id` = `users`.`id`) WHERE `email_proved_at` IS NULL;
