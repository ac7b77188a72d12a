-- Entries of the accepted tournaments of a system received after one day and up to another
-- (latest versions, analyst merges applied): a replay reads its history a few list dates at a
-- time (flows/elo/history.py). The points a file does not give and the rounds not played
-- are counted from the games read beside them (transforms/elo/lists.py, entries_with_rounds).
SELECT p.tournament_id, p.version AS tournament_version, p.player_id, p.start_number, p.name,
       p.points::DOUBLE AS points, t.start_date, t.end_date, t.received_on, t.file_name,
       coalesce(t.is_team, false) AS is_team,
       p.arbiter_rating, p.rating_in_file, p.fide_id, p.match_method
FROM tournament_player p
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system
  AND t.received_on > $after AND t.received_on <= $up_to
