-- New tournament versions, all of an ingest's at once: the rows of _incoming_versions, each
-- stamped with the time of the transaction.
INSERT INTO tournament_version (
    tournament_id, version, version_key, status, system, file_name, file_sha256,
    manifest_sha256, manifest_line, received_on, start_date, end_date, time_control, name, city,
    federation, rounds, players, played_games, format, encoding, is_team, run_id, ingested_at,
    delivery, quarantine_reason
)
SELECT tournament_id, version, version_key, status, system, file_name, file_sha256,
       manifest_sha256, manifest_line, received_on, start_date, end_date, time_control, name,
       city, federation, rounds, players, played_games, format, encoding, is_team, run_id,
       current_timestamp, delivery, quarantine_reason
FROM _incoming_versions
