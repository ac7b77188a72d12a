-- Every provisional player merged into a registry player (graduatoria merge-player).
SELECT provisional_id, player_id FROM player_merge
