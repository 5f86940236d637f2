-- Keeps project_totals equal to the sums over each project's completed entries
-- (duration_sec is null while a timer runs), so progress needs no scan of the entries.
CREATE TRIGGER entries_totals_insert AFTER INSERT ON entries
WHEN NEW.project_id IS NOT NULL AND NEW.duration_sec IS NOT NULL
BEGIN
  INSERT INTO project_totals (project_id, tracked_sec, billable_sec, amount_cents, entry_count)
  VALUES (NEW.project_id, NEW.duration_sec, CASE WHEN NEW.billable THEN NEW.duration_sec ELSE 0 END,
          CAST(round(ifnull(NEW.amount, 0) * 100) AS INTEGER), 1)
  ON CONFLICT (project_id) DO UPDATE SET
    tracked_sec = tracked_sec + excluded.tracked_sec,
    billable_sec = billable_sec + excluded.billable_sec,
    amount_cents = amount_cents + excluded.amount_cents,
    entry_count = entry_count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER entries_totals_delete AFTER DELETE ON entries
WHEN OLD.project_id IS NOT NULL AND OLD.duration_sec IS NOT NULL
BEGIN
  UPDATE project_totals SET
    tracked_sec = tracked_sec - OLD.duration_sec,
    billable_sec = billable_sec - CASE WHEN OLD.billable THEN OLD.duration_sec ELSE 0 END,
    amount_cents = amount_cents - CAST(round(ifnull(OLD.amount, 0) * 100) AS INTEGER),
    entry_count = entry_count - 1
  WHERE project_id = OLD.project_id;
END;
--> statement-breakpoint
CREATE TRIGGER entries_totals_update AFTER UPDATE OF project_id, duration_sec, billable, amount ON entries
BEGIN
  UPDATE project_totals SET
    tracked_sec = tracked_sec - OLD.duration_sec,
    billable_sec = billable_sec - CASE WHEN OLD.billable THEN OLD.duration_sec ELSE 0 END,
    amount_cents = amount_cents - CAST(round(ifnull(OLD.amount, 0) * 100) AS INTEGER),
    entry_count = entry_count - 1
  WHERE project_id = OLD.project_id AND OLD.project_id IS NOT NULL AND OLD.duration_sec IS NOT NULL;
  INSERT INTO project_totals (project_id, tracked_sec, billable_sec, amount_cents, entry_count)
  SELECT NEW.project_id, NEW.duration_sec, CASE WHEN NEW.billable THEN NEW.duration_sec ELSE 0 END,
         CAST(round(ifnull(NEW.amount, 0) * 100) AS INTEGER), 1
  WHERE NEW.project_id IS NOT NULL AND NEW.duration_sec IS NOT NULL
  ON CONFLICT (project_id) DO UPDATE SET
    tracked_sec = tracked_sec + excluded.tracked_sec,
    billable_sec = billable_sec + excluded.billable_sec,
    amount_cents = amount_cents + excluded.amount_cents,
    entry_count = entry_count + 1;
END;
