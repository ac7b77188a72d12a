-- Every tournament id already used, by chess or draughts (they share one list of ids): its
-- latest version, every version key seen, which game its versions are of, and the file of its
-- latest version.
SELECT tournament_id,
       max(version) AS latest_version,
       list(version_key) AS version_keys,
       CASE WHEN bool_or(system LIKE 'rubele_%') THEN 'draughts'
            WHEN bool_or(system IN ('elo_italia', 'elo_rapid')) THEN 'chess' END AS game,
       arg_max(file_sha256, version) AS latest_file_sha256
FROM tournament_version
GROUP BY tournament_id
