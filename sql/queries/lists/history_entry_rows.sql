-- Where the entries of each accepted tournament of a system received up to a day lie in the
-- entry table (only ever appended to), and how many there are: as history_game_rows.sql does
-- for the rounds.
SELECT t.received_on, min(e.rowid) AS first_row, max(e.rowid) AS last_row, count(*) AS rows
FROM tournament_entry e
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
GROUP BY t.tournament_id, t.version, t.received_on
