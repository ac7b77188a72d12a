-- Rejections and warnings recorded by the latest $runs runs that recorded any (each problem is
-- recorded by the first run that saw it), newest run first; every filter is optional: the
-- tournament, its system, and the delivery folder (by name, as the tournament and the file
-- name give it)
WITH recent AS (
    SELECT r.run_id
    FROM run_record r
    WHERE r.run_id IN (SELECT DISTINCT run_id FROM input_problem)
    ORDER BY r.ended_at DESC
    LIMIT $runs
)
SELECT p.severity, r.flow, r.ended_at, p.file_name, p.line_no, p.field, p.value, p.reason,
       p.tournament_id, t.system,
       -- a rejection of a tournament accepted since (delivered again, or a registry loaded
       -- that identifies its players) no longer stands
       p.severity = 'error' AND coalesce(t.status = 'accepted', false) AS resolved
FROM input_problem p
JOIN run_record r USING (run_id)
LEFT JOIN tournament t USING (tournament_id)
WHERE p.run_id IN (SELECT run_id FROM recent)
  AND ($tournament IS NULL OR p.tournament_id = $tournament)
  AND ($system IS NULL OR t.system = $system)
  AND ($delivery IS NULL OR t.delivery = $delivery
       OR p.file_name LIKE '%' || $delivery || '/%' OR p.file_name LIKE $delivery || '/%')
ORDER BY r.ended_at DESC, p.severity, p.file_name, p.line_no NULLS FIRST, p.field
