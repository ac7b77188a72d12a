-- The problems a run recorded (new ones: a problem seen by an earlier run is not recorded
-- again), errors first, in file and line order.
SELECT severity, file_name, tournament_id, line_no, field, value, reason
FROM input_problem
WHERE run_id = $run_id
ORDER BY severity, file_name, tournament_id, line_no, field
