-- The official lists (revision in force) whose variations rate a tournament
SELECT DISTINCT v.system, v.list_date
FROM list_variation v
JOIN list_revision_current c USING (system, scenario, list_date, revision)
WHERE v.tournament_id = $tournament_id
ORDER BY v.system, v.list_date
