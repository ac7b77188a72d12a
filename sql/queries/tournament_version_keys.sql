SELECT tournament_id, max(version) AS latest_version, list(version_key) AS version_keys
FROM tournament_version
GROUP BY tournament_id
