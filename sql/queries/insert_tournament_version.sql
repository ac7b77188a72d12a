INSERT INTO tournament_version (
    tournament_id, version, version_key, status, system, file_name, file_sha256,
    manifest_sha256, manifest_line, received_on, start_date, end_date, time_control, name, city,
    federation, rounds, players, played_games, format, encoding, is_team, run_id, ingested_at,
    delivery
) VALUES (
    $tournament_id, $version, $version_key, $status, $system, $file_name, $file_sha256,
    $manifest_sha256, $manifest_line, $received_on, $start_date, $end_date, $time_control, $name,
    $city, $federation, $rounds, $players, $played_games, $format, $encoding, $is_team, $run_id,
    current_timestamp, $delivery
)
