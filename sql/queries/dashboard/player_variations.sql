-- A player's tournaments, period by period (lists in force): the variation each gave, with the
-- engine's note and the tournament's name and dates.
SELECT v.system, v.list_date, v.tournament_id, t.name AS tournament, t.end_date, v.games,
       v.score, v.expected, v.k, v.own_rating, v.raw_variation, v.applied_variation, v.note
FROM variation v
LEFT JOIN tournament t USING (tournament_id)
WHERE v.player_id = $player_id
ORDER BY v.system, v.list_date, t.end_date, v.tournament_id
