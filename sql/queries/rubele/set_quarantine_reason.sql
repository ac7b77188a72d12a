-- The reason a draughts tournament's latest version stays quarantined, after a new check
UPDATE tournament_version SET quarantine_reason = $reason
WHERE tournament_id = $tournament_id AND version = $version
