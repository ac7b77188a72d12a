-- The scenario's own list in force before a list date (the one a replay from that date builds
-- on): its date, the rulebook it was computed under, and the scenario's first list date.
SELECT list_date, rulebook_hash, min(list_date) OVER () AS first_list_date
FROM list_revision
WHERE system = $system AND scenario = $scenario AND list_date < $list_date
QUALIFY revision = max(revision) OVER (PARTITION BY list_date)
ORDER BY list_date DESC
LIMIT 1
