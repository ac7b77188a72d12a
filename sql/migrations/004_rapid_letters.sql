-- Elo Rapid letters (RULES.md §2): the letter reached, whether it is still provisional (shown
-- as Dx) and at how many list dates the rating qualified for it since it was reached.
-- Null for lists without letters (Elo Italia, and Elo Rapid before 2006-01-01).

ALTER TABLE list_entry ADD COLUMN IF NOT EXISTS letter VARCHAR;
ALTER TABLE list_entry ADD COLUMN IF NOT EXISTS letter_provisional BOOLEAN;
ALTER TABLE list_entry ADD COLUMN IF NOT EXISTS letter_held INTEGER;
