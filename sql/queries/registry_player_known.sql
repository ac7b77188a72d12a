-- Whether any registry snapshot lists this player.
SELECT count(*) FROM registry_snapshot WHERE player_id = $player_id
