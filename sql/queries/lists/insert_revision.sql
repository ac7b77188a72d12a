INSERT INTO list_revision (
    system, scenario, list_date, revision, source, run_id, rulebook_hash, era_from,
    previous_list_date, previous_revision, content_hash, players, tournaments, created_at, report,
    inputs_hash, received_after, received_up_to
) VALUES (
    $system, $scenario, $list_date, $revision, $source, $run_id, $rulebook_hash, $era_from,
    $previous_list_date, $previous_revision, $content_hash, $players, $tournaments,
    current_timestamp, $report, $inputs_hash, $received_after, $received_up_to
)
