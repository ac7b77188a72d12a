-- Every tournament (latest version) for the Tournament page's picker, newest receipt first.
SELECT tournament_id, name, system, status, received_on, start_date, end_date, players,
       played_games, delivery
FROM tournament
ORDER BY received_on DESC NULLS LAST, tournament_id
