-- The official list of a reference system (Elo Italia) in force on a day: the latest list date
-- on or before it, latest revision; its own ratings only (not FIDE-rated players' FIDE).
WITH in_force AS (
    SELECT list_date, revision
    FROM list_revision_current
    WHERE system = $system AND list_date <= $day
    ORDER BY list_date DESC
    LIMIT 1
)
SELECT e.player_id, e.rating AS elo_italia
FROM list_entry e
JOIN in_force USING (list_date, revision)
WHERE e.system = $system AND e.scenario = 'official' AND e.rating_type = $system
