-- A new version of a tournament in state 'withdrawn': the facts of the version it withdraws
-- (its files stay archived), rated by no list
INSERT INTO tournament_version
SELECT * REPLACE (
    $version + 1 AS version,
    'withdrawn:' || $run_id AS version_key,
    'withdrawn' AS status,
    $run_id AS run_id,
    current_timestamp AS ingested_at
)
FROM tournament_version
WHERE tournament_id = $tournament_id AND version = $version
