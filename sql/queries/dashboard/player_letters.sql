-- A player's Elo Rapid letters, list by list (view letter_history).
SELECT system, list_date, rating, label, previous_label, letter, letter_provisional,
       letter_held, changed
FROM letter_history
WHERE player_id = $player_id
ORDER BY system, list_date
