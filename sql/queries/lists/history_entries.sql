-- Entries of every accepted tournament of a system received up to a date (latest versions,
-- analyst merges applied), with the engine's integer keys. Points: the file's column, else the
-- sum of the round scores. The rounds not played (forfeits; byes, absences, unpaired rounds)
-- are counted for the variation notes: they count for nobody (RULES.md §1.3).
SELECT p.tournament_id, p.version AS tournament_version, p.player_id, p.start_number, p.name,
       coalesce(p.points::DOUBLE, s.score_sum) AS points, t.start_date, t.end_date, t.received_on, t.file_name,
       coalesce(t.is_team, false) AS is_team,
       p.arbiter_rating, p.rating_in_file, p.fide_id, p.match_method, k.entry_key, k.player_code,
       k.tournament_code, coalesce(u.forfeit_games, 0)::INTEGER AS forfeit_games,
       coalesce(u.unplayed_games, 0)::INTEGER - coalesce(u.forfeit_games, 0)::INTEGER AS bye_games
FROM tournament_player p
JOIN tournament t USING (tournament_id, version)
JOIN history_keys($system, $up_to) k USING (tournament_id, version, start_number)
LEFT JOIN (
    -- only for the entries whose file gives no points (summing every game costs a second)
    SELECT g.tournament_id, g.version, g.start_number, sum(g.score) AS score_sum
    FROM tournament_game g
    SEMI JOIN tournament_entry e
      ON e.tournament_id = g.tournament_id AND e.version = g.version
     AND e.start_number = g.start_number AND e.points IS NULL
    GROUP BY ALL
) s USING (tournament_id, version, start_number)
LEFT JOIN (
    SELECT g.tournament_id, g.version, g.start_number, count(*) AS unplayed_games,
           count(*) FILTER (WHERE g.kind = 'forfeit') AS forfeit_games
    FROM tournament_game g
    WHERE NOT g.played
    GROUP BY ALL
) u USING (tournament_id, version, start_number)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
