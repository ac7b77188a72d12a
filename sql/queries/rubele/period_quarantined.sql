-- Quarantined tournaments of a draughts system received in a list's window (latest versions),
-- with their first reason: the list names them as not applied. The reason is one found in the
-- files of that version (its games file or its listing), not one an earlier version was
-- corrected of.
SELECT t.tournament_id, t.file_name, t.received_on,
       coalesce((SELECT min(reason) FROM rejection r
                 WHERE r.tournament_id = t.tournament_id
                   AND r.file_sha256 IN (t.file_sha256, t.manifest_sha256)),
                'quarantined at ingest') AS reason
FROM tournament t
WHERE t.status = 'quarantined' AND t.system = $system
  AND t.received_on > $after AND t.received_on <= $up_to
ORDER BY t.tournament_id
