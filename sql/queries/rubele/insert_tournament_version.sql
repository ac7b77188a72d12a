INSERT INTO tournament_version (
    tournament_id, version, version_key, status, system, file_name, file_sha256,
    manifest_sha256, manifest_line, received_on, start_date, end_date, name, city, rounds,
    players, played_games, format, encoding, is_team, validity, points_scale, run_id, ingested_at,
    delivery, quarantine_reason
) VALUES (
    $tournament_id, $version, $version_key, $status, $system, $file_name, $file_sha256,
    $manifest_sha256, $manifest_line, $received_on, $start_date, $end_date, $name, $city,
    $rounds, $players, $played_games, 'draughts-csv', 'utf-8', false, $validity, $points_scale,
    $run_id, current_timestamp, $delivery, $quarantine_reason
)
