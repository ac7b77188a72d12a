-- The era a variation was computed under, where it is not the list's own: a draughts list
-- applies each tournament under the era in force on its end date (RULES.md §4), so one list
-- may hold several eras. NULL for the FSI lists, whose every variation is of the list's era
-- (list_revision.era_from).

ALTER TABLE list_variation ADD COLUMN IF NOT EXISTS era_from DATE;
