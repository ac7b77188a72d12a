-- Tournaments of a system that no list rates, with their reason: quarantined ones with the
-- reason their ingest stored, else (versions ingested before it stored one) their first
-- rejection (fragments/first_rejection.sql); withdrawn ones with the analyst's.
SELECT t.tournament_id, t.file_name, t.received_on,
       CASE WHEN t.status = 'withdrawn' THEN
           (SELECT 'withdrawn: ' || w.reason FROM tournament_withdrawal w
            WHERE w.tournament_id = t.tournament_id AND w.version = t.version)
       ELSE
           coalesce(t.quarantine_reason,
                    -- include queries/fragments/first_rejection.sql
                    )
       END AS reason
FROM tournament t
WHERE t.status IN ('quarantined', 'withdrawn') AND t.system = $system AND t.received_on <= $up_to
ORDER BY t.tournament_id
