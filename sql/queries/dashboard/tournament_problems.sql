-- The rejections and warnings recorded for a tournament (any version), newest first.
SELECT 'rejection' AS kind, recorded_at, source, file_name, line_no, field, value, reason, run_id
FROM rejection
WHERE tournament_id = $tournament_id
UNION ALL
SELECT 'warning', recorded_at, source, file_name, line_no, field, value, reason, run_id
FROM input_warning
WHERE tournament_id = $tournament_id
ORDER BY recorded_at DESC, kind, file_name, line_no NULLS FIRST
