-- The names a list revision gives some players (opponents named in an explanation).
SELECT player_id, name
FROM list_entry
WHERE system = $system AND scenario = 'official' AND list_date = $list_date
  AND revision = $revision AND player_id IN (SELECT unnest($player_ids::VARCHAR[]))
