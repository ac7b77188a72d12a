-- Entries of the accepted tournaments of a system received after one day and up to another
-- (latest versions, found once per replay by history_tournaments.sql and registered as
-- replay_tournament; analyst merges applied, as the view tournament_player gives them), within
-- the range of row ids these tournaments' entries span (history_rows.sql): a replay
-- reads its history a few list dates at a time (flows/elo/history.py). The points a file does
-- not give and the rounds not played are counted from the rounds read beside them
-- (transforms/elo/lists.py, entries_with_rounds).
SELECT e.tournament_id, e.version AS tournament_version,
       coalesce(m.player_id, e.player_id) AS player_id, e.start_number, e.name,
       CAST(e.points AS DECIMAL(18, 1))::DOUBLE AS points, t.start_date, t.end_date,
       t.received_on, t.file_name, t.is_team,
       e.arbiter_rating, e.rating_in_file, e.fide_id,
       CASE WHEN m.player_id IS NULL THEN e.match_method ELSE 'merge' END AS match_method
FROM tournament_entry e
JOIN replay_tournament t USING (tournament_id, version)
LEFT JOIN player_merge m ON m.provisional_id = e.player_id
WHERE t.received_on > $after AND t.received_on <= $up_to
  AND e.rowid BETWEEN $first_row AND $last_row
