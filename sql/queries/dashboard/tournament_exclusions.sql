-- The lists in force that did not rate a tournament of their period, and why.
SELECT system, list_date, revision, reason
FROM excluded_tournament
WHERE tournament_id = $tournament_id
ORDER BY list_date
