-- Tournaments not rated for a reason of their own (latest versions): quarantined ones with
-- their first reason, withdrawn ones with the analyst's; filters as in recorded.sql. The first
-- reason is the one its latest check stored, else its first rejection
-- (fragments/first_rejection.sql).
SELECT t.status, t.tournament_id, t.system, t.delivery, t.received_on,
       CASE WHEN t.status = 'withdrawn' THEN
           (SELECT w.reason FROM tournament_withdrawal w
            WHERE w.tournament_id = t.tournament_id AND w.version = t.version)
       ELSE
           coalesce(t.quarantine_reason,
                    -- include queries/fragments/first_rejection.sql
                    , 'quarantined at ingest')
       END AS reason
FROM tournament t
WHERE t.status IN ('quarantined', 'withdrawn')
  AND ($tournament IS NULL OR t.tournament_id = $tournament)
  AND ($system IS NULL OR t.system = $system)
  AND ($delivery IS NULL OR t.delivery = $delivery)
ORDER BY t.status, t.system, t.received_on, t.tournament_id
