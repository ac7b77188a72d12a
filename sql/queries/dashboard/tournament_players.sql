-- The entries of a tournament's latest version, with the merged player ids.
SELECT start_number, player_id, name, sex, birth_date, federation, fide_id, rating_in_file,
       arbiter_rating, points, rank, match_method
FROM tournament_player
WHERE tournament_id = $tournament_id
ORDER BY rank NULLS LAST, start_number
