SELECT ranking, position, player_id, rating
FROM list_ranking
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision
