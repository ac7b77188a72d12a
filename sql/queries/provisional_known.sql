-- Whether an unmatched player with this provisional id was ever entered.
SELECT count(*) FROM player_match WHERE provisional_id = $provisional_id
