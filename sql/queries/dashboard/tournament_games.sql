-- The games of a tournament's latest version, round by round, with both players' names.
SELECT g.round, g.start_number, p.player_id, p.name, g.color, g.opponent,
       o.player_id AS opponent_id, o.name AS opponent_name, g.result_code, g.score, g.kind,
       g.played
FROM tournament_game g
JOIN tournament t USING (tournament_id, version)
LEFT JOIN tournament_player p
       ON p.tournament_id = g.tournament_id AND p.start_number = g.start_number
LEFT JOIN tournament_player o
       ON o.tournament_id = g.tournament_id AND o.start_number = g.opponent
WHERE g.tournament_id = $tournament_id
ORDER BY g.round, g.start_number
