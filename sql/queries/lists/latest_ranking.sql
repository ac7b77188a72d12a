-- The top of the latest official overall ranking of a system, with each player's category.
SELECT k.position, k.player_id, k.name, k.rating, l.category
FROM ranking k
JOIN rating_list l USING (system, list_date, player_id)
WHERE k.system = $system AND k.ranking = $ranking
  AND k.list_date = (SELECT max(list_date) FROM ranking WHERE system = $system)
ORDER BY k.position, k.player_id
LIMIT $top
