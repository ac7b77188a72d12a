-- An FSI variation in the engine's exact hundredths beside its decimal value: the doubles of a
-- player's tournaments can sum to just under a half (-13.4999...) and round differently from
-- the list (-14), so a dashboard rebuilding a change sums these. NULL for the draughts lists
-- (their applied_variation is a whole number of capital points).

ALTER TABLE list_variation ADD COLUMN IF NOT EXISTS raw_hundredths BIGINT;
ALTER TABLE list_variation ADD COLUMN IF NOT EXISTS applied_hundredths BIGINT;

-- The FSI revisions written before: their decimals are hundredths over 100, so rounding them
-- back gives the hundredths exactly.
UPDATE list_variation
SET raw_hundredths = round(raw_variation * 100)::BIGINT,
    applied_hundredths = round(applied_variation * 100)::BIGINT
WHERE system IN ('elo_italia', 'elo_rapid') AND raw_hundredths IS NULL;
