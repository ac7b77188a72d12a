-- The latest runs, newest first: what ran, how it ended, how long it took, its counts and
-- its report.
SELECT run_id, flow, status, started_at, ended_at,
       CAST(epoch_ms(ended_at) - epoch_ms(started_at) AS DOUBLE) / 1000 AS seconds,
       CAST(parameters AS VARCHAR) AS parameters, CAST(counts AS VARCHAR) AS counts, report
FROM run
ORDER BY started_at DESC
LIMIT $limit
