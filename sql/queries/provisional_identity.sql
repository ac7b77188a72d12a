-- How one provisional player was entered in his tournaments: a row per name and birth given
SELECT DISTINCT name, birth_date, birth_year
FROM player_match
WHERE provisional_id = $provisional_id
