-- Accepted tournaments of a draughts system received in a list's window (latest versions).
SELECT tournament_id, version AS tournament_version, name, start_date, end_date, validity,
       received_on, file_name
FROM tournament
WHERE status = 'accepted' AND system = $system
  AND received_on > $after AND received_on <= $up_to
