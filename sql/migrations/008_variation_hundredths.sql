-- An FSI variation in the engine's exact hundredths beside its decimal value: the doubles of a
-- player's tournaments can sum to just under a half (-13.4999...) and round differently from
-- the list (-14), so a dashboard rebuilding a change sums these. NULL for the draughts lists
-- (their applied_variation is a whole number of capital points) and for revisions written
-- before this column.

ALTER TABLE list_variation ADD COLUMN IF NOT EXISTS raw_hundredths BIGINT;
ALTER TABLE list_variation ADD COLUMN IF NOT EXISTS applied_hundredths BIGINT;
