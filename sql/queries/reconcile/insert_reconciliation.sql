INSERT INTO list_reconciliation (run_id, system, scenario, list_date, revision, file_name,
    file_sha256, published_players, computed_players, on_both, agree_exactly, within_one,
    beyond_one, only_computed, only_published, differing, reconciled_at)
VALUES ($run_id, $system, $scenario, $list_date, $revision, $file_name, $file_sha256,
    $published_players, $computed_players, $on_both, $agree_exactly, $within_one, $beyond_one,
    $only_computed, $only_published, $differing, $reconciled_at)
