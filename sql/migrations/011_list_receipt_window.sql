-- Each list revision keeps the receipt window it rates: tournaments received after
-- received_after up to received_up_to (an imported list: the federation's list stands for
-- everything received up to its cut-off, received_after is empty). The first list of a system
-- says which tournaments no list will ever rate (view unrated_tournament). Revisions written
-- before stay empty until a flow of their system fills them from its calendar.
ALTER TABLE list_revision ADD COLUMN IF NOT EXISTS received_after DATE;
ALTER TABLE list_revision ADD COLUMN IF NOT EXISTS received_up_to DATE;
