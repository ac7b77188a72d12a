-- Tournaments not rated for a reason of their own (latest versions): quarantined ones with
-- their first reason, withdrawn ones with the analyst's; filters as in recorded.sql. The first
-- reason is the one its latest check stored (draughts), else its first rejection in the order
-- of the input (its manifest row, then its file line by line; a line-less one, of the whole
-- file, first), with how many more it has: as lists/history_quarantined.sql.
SELECT t.status, t.tournament_id, t.system, t.delivery, t.received_on,
       CASE WHEN t.status = 'withdrawn' THEN
           (SELECT w.reason FROM tournament_withdrawal w
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
WHERE t.status IN ('quarantined', 'withdrawn')
  AND ($tournament IS NULL OR t.tournament_id = $tournament)
  AND ($system IS NULL OR t.system = $system)
  AND ($delivery IS NULL OR t.delivery = $delivery)
ORDER BY t.status, t.system, t.received_on, t.tournament_id
