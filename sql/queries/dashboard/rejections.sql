-- Rejections and warnings, newest first, with the run that recorded them and the system of
-- their tournament.
SELECT 'rejection' AS kind, p.recorded_at, r.flow, p.source, p.file_name, p.line_no, p.field,
       p.value, p.reason, p.tournament_id, t.system, p.run_id
FROM rejection p
LEFT JOIN run r USING (run_id)
LEFT JOIN tournament t USING (tournament_id)
UNION ALL
SELECT 'warning', p.recorded_at, r.flow, p.source, p.file_name, p.line_no, p.field, p.value,
       p.reason, p.tournament_id, t.system, p.run_id
FROM input_warning p
LEFT JOIN run r USING (run_id)
LEFT JOIN tournament t USING (tournament_id)
ORDER BY recorded_at DESC, kind, file_name, line_no NULLS FIRST
