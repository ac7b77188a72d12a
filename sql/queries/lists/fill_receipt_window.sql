-- A list date's receipt window, on the revisions written without it (an imported list stands
-- for everything received up to its cut-off: no start)
UPDATE list_revision
SET received_after = CASE WHEN source = 'imported' THEN NULL ELSE $after END,
    received_up_to = $up_to
WHERE system = $system AND list_date = $list_date AND received_up_to IS NULL
