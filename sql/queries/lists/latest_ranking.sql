-- The top of the latest official overall ranking of a system.
SELECT position, player_id, name, rating
FROM ranking
WHERE system = $system AND ranking = $ranking
  AND list_date = (SELECT max(list_date) FROM ranking WHERE system = $system)
ORDER BY position, player_id
LIMIT $top
