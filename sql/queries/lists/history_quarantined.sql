-- Quarantined tournaments of a system with their first reason, one found in the files of
-- their latest version (its TRF file or its manifest), not one an earlier version was
-- corrected of.
SELECT t.tournament_id, t.file_name, t.received_on,
       (SELECT min(reason) FROM rejection r
        WHERE r.tournament_id = t.tournament_id
          AND r.file_sha256 IN (t.file_sha256, t.manifest_sha256)) AS reason
FROM tournament t
WHERE t.status = 'quarantined' AND t.system = $system AND t.received_on <= $up_to
ORDER BY t.tournament_id
