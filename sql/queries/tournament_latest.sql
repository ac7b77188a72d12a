-- The latest version of one tournament: its number, state and system
SELECT version, status, system
FROM tournament
WHERE tournament_id = $tournament_id
