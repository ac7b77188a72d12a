-- One player's row of a list revision, as stored.
SELECT player_id, name, rating, rating_type, previous_rating, frozen_rating, rating_basis,
       games, total_games, k, period_change, category, previous_category, note
FROM list_entry
WHERE system = $system AND scenario = 'official' AND list_date = $list_date
  AND revision = $revision AND player_id = $player_id
