-- Every tournament id already used, by chess or draughts (they share one list of ids): its
-- latest version, every version key seen, which game wrote it (a draughts ingest stores the
-- format 'draughts-csv'), and the file of its latest version when that version is accepted
-- (the file's games are then rated under this id), and the receipt date and quarantine of its
-- latest version; and every (delivery, version key) pair, a version ingested before deliveries
-- were recorded counting for any delivery ('*').
SELECT tournament_id,
       max(version) AS latest_version,
       list(version_key) AS version_keys,
       list(coalesce(delivery, '*') || '|' || version_key) AS delivered_keys,
       CASE WHEN bool_or(format = 'draughts-csv') THEN 'draughts' ELSE 'chess' END AS game,
       CASE WHEN arg_max(status, version) = 'accepted'
            THEN arg_max(file_sha256, version) END AS rated_file_sha256,
       arg_max(received_on, version) AS received_on,
       arg_max(status, version) = 'quarantined' AS latest_quarantined,
       arg_max(version_key, version) AS latest_key
FROM tournament_version
GROUP BY tournament_id
