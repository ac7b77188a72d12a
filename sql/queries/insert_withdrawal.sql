INSERT INTO tournament_withdrawal (tournament_id, version, reason, run_id, withdrawn_at)
VALUES ($tournament_id, $version, $reason, $run_id, current_timestamp)
