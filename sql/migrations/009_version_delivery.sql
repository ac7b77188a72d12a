-- The delivery folder a tournament version came in (its name, as the inbox shows it): an inbox
-- is read again whole, so a delivery read before adds nothing, while a new delivery of an
-- earlier version's file brings that version back (a correction undone). NULL for the versions
-- ingested before: any delivery of their key counts as read before, as it did.

ALTER TABLE tournament_version ADD COLUMN IF NOT EXISTS delivery VARCHAR;
