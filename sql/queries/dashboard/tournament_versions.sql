-- Every version of a tournament as delivered: its status, the file and delivery, the reason it
-- was quarantined (set at ingest for draughts; FSI gives it as rejections) or withdrawn.
SELECT v.version, v.status, v.system, v.received_on, v.start_date, v.end_date, v.name,
       v.city, v.rounds, v.players, v.played_games, v.delivery, v.file_name, v.file_sha256,
       v.format, v.encoding, v.validity, v.quarantine_reason, w.reason AS withdrawal_reason,
       w.withdrawn_at, v.run_id, v.ingested_at
FROM tournament_version v
LEFT JOIN tournament_withdrawal w USING (tournament_id, version)
WHERE v.tournament_id = $tournament_id
ORDER BY v.version DESC
