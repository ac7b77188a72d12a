-- The game-by-game calculation of a player's change at one list (view game_calculation,
-- written by `graduatoria explain`'s module; this query runs only where the view exists).
SELECT *
FROM game_calculation
WHERE player_id = $player_id AND system = $system AND list_date = $list_date
ORDER BY ALL
