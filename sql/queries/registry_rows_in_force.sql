-- The rows of the registry snapshot in force on the date given (the latest load on or before it),
-- with that snapshot's date.
-- {load_table} and {player_table} name the registry's tables (FSI or FID); the flow fills them.
WITH in_force AS (
    SELECT load_id, as_of
    FROM {load_table}
    WHERE as_of <= ?
    ORDER BY as_of DESC, load_id DESC
    LIMIT 1
)
SELECT p.* EXCLUDE (load_id), f.as_of
FROM {player_table} AS p
JOIN in_force AS f USING (load_id)
