-- Whether a run is recorded already.
SELECT 1 FROM run_record WHERE run_id = $run_id
