-- Tournaments of a draughts system received in a list's window (latest versions) that no list
-- applies, with their reason: the list names them as not applied. A quarantined one's is the
-- one its latest check stored, else its first rejection (fragments/first_rejection.sql); a
-- withdrawn one's is the analyst's.
SELECT t.tournament_id, t.file_name, t.received_on,
       CASE WHEN t.status = 'withdrawn' THEN
           (SELECT 'withdrawn: ' || w.reason FROM tournament_withdrawal w
            WHERE w.tournament_id = t.tournament_id AND w.version = t.version)
       ELSE
           coalesce(t.quarantine_reason,
                    -- include queries/fragments/first_rejection.sql
                    , 'quarantined at ingest')
       END AS reason
FROM tournament t
WHERE t.status IN ('quarantined', 'withdrawn') AND t.system = $system
  AND t.received_on > $after AND t.received_on <= $up_to
ORDER BY t.tournament_id
