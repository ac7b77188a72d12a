-- Tournaments of a draughts system received in a list's window (latest versions) that no list
-- applies, with their reason: the list names them as not applied. A quarantined one's is the
-- one its latest check stored, else its first rejection found in the files of that version
-- (its listing row, then its games file line by line), not one an earlier version was
-- corrected of, with how many more it has (as problems/tournaments.sql); a withdrawn one's is
-- the analyst's.
SELECT t.tournament_id, t.file_name, t.received_on,
       CASE WHEN t.status = 'withdrawn' THEN
           (SELECT 'withdrawn: ' || w.reason FROM tournament_withdrawal w
            WHERE w.tournament_id = t.tournament_id AND w.version = t.version)
       ELSE
           coalesce(t.quarantine_reason,
                    (SELECT first(r.reason ORDER BY r.file_sha256 IS DISTINCT FROM
                                  t.manifest_sha256, r.line_no NULLS FIRST, r.field NULLS FIRST,
                                  r.reason)
                            || CASE count(*) WHEN 1 THEN ''
                               WHEN 2 THEN '; and 1 more rejection'
                               ELSE '; and ' || (count(*) - 1) || ' more rejections' END
                     FROM rejection r
                     WHERE r.tournament_id = t.tournament_id
                       AND r.file_sha256 IN (t.file_sha256, t.manifest_sha256)),
                    'quarantined at ingest')
       END AS reason
FROM tournament t
WHERE t.status IN ('quarantined', 'withdrawn') AND t.system = $system
  AND t.received_on > $after AND t.received_on <= $up_to
ORDER BY t.tournament_id
