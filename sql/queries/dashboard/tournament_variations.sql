-- What each list in force gave the tournament's players, with the engine's notes.
SELECT v.system, v.list_date, v.player_id, e.name, v.games, v.score, v.expected, v.k,
       v.own_rating, v.raw_variation, v.applied_variation, v.note
FROM variation v
LEFT JOIN rating_list e USING (system, list_date, player_id)
WHERE v.tournament_id = $tournament_id
ORDER BY v.list_date, v.applied_variation DESC, v.player_id
