-- Tournaments no list will rate (those whose latest version a run wrote, when $run_id is given)
SELECT system, tournament_id, version, received_on, delivery, first_list_date, reason
FROM unrated_tournament
WHERE $run_id IS NULL OR run_id = $run_id
ORDER BY system, received_on, tournament_id
