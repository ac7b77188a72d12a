-- Tournaments of a system that no list rates, with their reason: quarantined ones with the
-- reason their ingest stored, else (versions ingested before it stored one) their first
-- rejection in the order of the input (its manifest row, then its TRF file line by line; a
-- line-less one, of the whole file, first), one found in the files of their latest version,
-- not one an earlier version was corrected of, with how many more they have (as
-- problems/tournaments.sql); withdrawn ones with the analyst's.
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
                       AND r.file_sha256 IN (t.file_sha256, t.manifest_sha256)))
       END AS reason
FROM tournament t
WHERE t.status IN ('quarantined', 'withdrawn') AND t.system = $system AND t.received_on <= $up_to
ORDER BY t.tournament_id
