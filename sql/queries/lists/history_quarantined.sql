-- Quarantined tournaments of a system with their first reason.
SELECT t.tournament_id, t.file_name, t.received_on,
       (SELECT min(reason) FROM rejection r WHERE r.tournament_id = t.tournament_id) AS reason
FROM tournament t
WHERE t.status = 'quarantined' AND t.system = $system AND t.received_on <= $up_to
ORDER BY t.tournament_id
