-- Tournaments of a system that no list rates, with their reason: quarantined ones with their
-- first reason, one found in the files of their latest version (its TRF file or its
-- manifest), not one an earlier version was corrected of; withdrawn ones with the analyst's.
SELECT t.tournament_id, t.file_name, t.received_on,
       CASE WHEN t.status = 'withdrawn' THEN
           (SELECT 'withdrawn: ' || w.reason FROM tournament_withdrawal w
            WHERE w.tournament_id = t.tournament_id AND w.version = t.version)
       ELSE
           (SELECT min(reason) FROM rejection r
            WHERE r.tournament_id = t.tournament_id
              AND r.file_sha256 IN (t.file_sha256, t.manifest_sha256))
       END AS reason
FROM tournament t
WHERE t.status IN ('quarantined', 'withdrawn') AND t.system = $system AND t.received_on <= $up_to
ORDER BY t.tournament_id
