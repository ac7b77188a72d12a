-- The revision in force of every list of a system and scenario, oldest first, with the list
-- (date and revision) it was computed from, and when it was written.
SELECT list_date, revision, inputs_hash, rulebook_hash, source, content_hash,
       previous_list_date, previous_revision, created_at
FROM list_revision
WHERE system = $system AND scenario = $scenario
QUALIFY revision = max(revision) OVER (PARTITION BY list_date)
ORDER BY list_date
