-- Every list revision the warehouse holds, official and what-if, for the dashboard's pickers:
-- which one is in force (the latest of its system, scenario and list date), what it was
-- computed from, when and by which run.
SELECT system, scenario, list_date, revision, source, players, tournaments, era_from,
       previous_list_date, previous_revision, run_id, created_at,
       revision = max(revision) OVER (PARTITION BY system, scenario, list_date) AS in_force
FROM list_revision
ORDER BY system, scenario, list_date DESC, revision DESC
