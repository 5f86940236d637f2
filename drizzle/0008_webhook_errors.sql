-- webhook_deliveries_event: the sync event retention (EVENT_RETENTION_DAYS) deletes old events;
-- each deletion checks for deliveries still referring to the event through this index.
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_seq`);--> statement-breakpoint
-- The delivery log's error becomes a stable code (docs/webhooks.md) with the human text in
-- error_detail. Rows written before keep their text as the detail; the code is read from it.
ALTER TABLE `webhook_deliveries` ADD `error_detail` text;--> statement-breakpoint
UPDATE `webhook_deliveries` SET `error_detail` = `error`, `error` = CASE
  WHEN `error` LIKE 'blocked\_address: %' ESCAPE '\' THEN 'blocked_address'
  WHEN `error` LIKE 'invalid\_url: %' ESCAPE '\' THEN 'invalid_url'
  WHEN `error` LIKE 'scheme\_not\_allowed: %' ESCAPE '\' THEN 'scheme_not_allowed'
  WHEN `error` LIKE 'unresolvable: %' THEN 'unresolvable'
  WHEN `error` LIKE 'HTTP %' THEN 'http_status'
  WHEN `error` LIKE 'timeout after %' THEN 'timeout'
  WHEN `error` LIKE 'redirect (%' THEN 'redirect_not_followed'
  WHEN `error` LIKE 'ECONNREFUSED%' THEN 'connection_refused'
  WHEN `error` LIKE 'ECONNRESET%' OR `error` LIKE 'EPIPE%' THEN 'connection_reset'
  WHEN `error` LIKE 'EHOSTUNREACH%' OR `error` LIKE 'ENETUNREACH%' THEN 'unreachable'
  WHEN `error` LIKE 'withheld by the owner%' THEN 'visibility_withheld'
  WHEN `error` = 'the owner is no longer a member' THEN 'owner_not_member'
  WHEN `error` = 'subscription disabled' THEN 'subscription_disabled'
  ELSE 'network' END
WHERE `error` IS NOT NULL;--> statement-breakpoint
-- Deliveries of a disabled subscription never end by themselves: they end as cancelled, those
-- the sender had already set aside ('subscription disabled') and those still queued.
UPDATE `webhook_deliveries` SET `status` = 'cancelled', `next_attempt_at` = NULL, `claimed_until` = NULL,
  `error` = 'subscription_disabled',
  `error_detail` = 'The subscription was disabled before this delivery was made; it is not retried.'
WHERE `error` = 'subscription_disabled'
   OR (`next_attempt_at` IS NOT NULL AND `webhook_id` IN (SELECT `id` FROM `webhooks` WHERE `enabled` = 0));
