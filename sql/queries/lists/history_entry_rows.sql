-- Where the entries of each accepted tournament of a system received up to a day lie in the
-- entry table (only ever appended to), and how many there are: as history_game_rows.sql does
-- for the rounds. The table is grouped by tournament version before the join (DuckDB would
-- join every row first).
SELECT t.received_on, e.first_row, e.last_row, e.rows
FROM (
    SELECT tournament_id, version, min(rowid) AS first_row, max(rowid) AS last_row,
           count(*) AS rows
    FROM tournament_entry
    GROUP BY tournament_id, version
) e
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
