-- Exact money: an entry's amount is kept as whole cents (amount_cents), computed exactly on the
-- rate's decimal and rounded half away from zero (src/kernel/money.ts; tt_amount_cents is the
-- same function, registered on every connection). The old REAL amounts came from binary
-- floating point (rate 1.005 for an hour gave 1.00, not 1.01): every completed entry that is
-- not on an invoice is computed again; an invoiced entry keeps the amount its invoice shows.
DROP INDEX `entries_report`;--> statement-breakpoint
DROP TRIGGER entries_totals_insert;--> statement-breakpoint
DROP TRIGGER entries_totals_delete;--> statement-breakpoint
DROP TRIGGER entries_totals_update;--> statement-breakpoint
ALTER TABLE `entries` ADD `amount_cents` integer;--> statement-breakpoint
UPDATE `entries` SET `amount_cents` = CASE
  WHEN `invoice_id` IS NOT NULL THEN CAST(round(`amount` * 100) AS INTEGER)
  ELSE tt_amount_cents(`billable`, `hourly_rate`, `duration_sec`) END
WHERE `end_at` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `entries` DROP COLUMN `amount`;--> statement-breakpoint
CREATE INDEX `entries_report` ON `entries` (`workspace_id`,`start_at`,`project_id`,`task_id`,`author_id`,`billable`,`duration_sec`,`amount_cents`,`id`,`end_at`,`tag_list`,`description`) WHERE "entries"."end_at" IS NOT NULL;--> statement-breakpoint
-- project_totals: the same sums as before, over the amounts as they are now.
DELETE FROM `project_totals`;--> statement-breakpoint
INSERT INTO `project_totals` (`project_id`, `tracked_sec`, `billable_sec`, `amount_cents`, `entry_count`)
SELECT `project_id`, sum(`duration_sec`), sum(CASE WHEN `billable` THEN `duration_sec` ELSE 0 END), sum(ifnull(`amount_cents`, 0)), count(*)
FROM `entries` WHERE `project_id` IS NOT NULL AND `duration_sec` IS NOT NULL GROUP BY `project_id`;--> statement-breakpoint
CREATE TRIGGER entries_totals_insert AFTER INSERT ON entries
WHEN NEW.project_id IS NOT NULL AND NEW.duration_sec IS NOT NULL
BEGIN
  INSERT INTO project_totals (project_id, tracked_sec, billable_sec, amount_cents, entry_count)
  VALUES (NEW.project_id, NEW.duration_sec, CASE WHEN NEW.billable THEN NEW.duration_sec ELSE 0 END, ifnull(NEW.amount_cents, 0), 1)
  ON CONFLICT (project_id) DO UPDATE SET
    tracked_sec = tracked_sec + excluded.tracked_sec,
    billable_sec = billable_sec + excluded.billable_sec,
    amount_cents = amount_cents + excluded.amount_cents,
    entry_count = entry_count + 1;
END;--> statement-breakpoint
CREATE TRIGGER entries_totals_delete AFTER DELETE ON entries
WHEN OLD.project_id IS NOT NULL AND OLD.duration_sec IS NOT NULL
BEGIN
  UPDATE project_totals SET
    tracked_sec = tracked_sec - OLD.duration_sec,
    billable_sec = billable_sec - CASE WHEN OLD.billable THEN OLD.duration_sec ELSE 0 END,
    amount_cents = amount_cents - ifnull(OLD.amount_cents, 0),
    entry_count = entry_count - 1
  WHERE project_id = OLD.project_id;
END;--> statement-breakpoint
CREATE TRIGGER entries_totals_update AFTER UPDATE OF project_id, duration_sec, billable, amount_cents ON entries
BEGIN
  UPDATE project_totals SET
    tracked_sec = tracked_sec - OLD.duration_sec,
    billable_sec = billable_sec - CASE WHEN OLD.billable THEN OLD.duration_sec ELSE 0 END,
    amount_cents = amount_cents - ifnull(OLD.amount_cents, 0),
    entry_count = entry_count - 1
  WHERE project_id = OLD.project_id AND OLD.project_id IS NOT NULL AND OLD.duration_sec IS NOT NULL;
  INSERT INTO project_totals (project_id, tracked_sec, billable_sec, amount_cents, entry_count)
  SELECT NEW.project_id, NEW.duration_sec, CASE WHEN NEW.billable THEN NEW.duration_sec ELSE 0 END, ifnull(NEW.amount_cents, 0), 1
  WHERE NEW.project_id IS NOT NULL AND NEW.duration_sec IS NOT NULL
  ON CONFLICT (project_id) DO UPDATE SET
    tracked_sec = tracked_sec + excluded.tracked_sec,
    billable_sec = billable_sec + excluded.billable_sec,
    amount_cents = amount_cents + excluded.amount_cents,
    entry_count = entry_count + 1;
END;
