SELECT player_id, name, rating, category
FROM list_entry
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision
