-- Each snapshot's FIDE standard rating of each player up to a day: the ratings a player lost
-- (transforms/elo/lists.py, fide_losses) are read off it.
SELECT as_of, player_id, fide_standard
FROM registry_snapshot
WHERE as_of <= $day
