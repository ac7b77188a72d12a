-- The draughts tournaments quarantined in their latest version, with the archived files that
-- delivered it: its listing (tournaments.csv) and its games file (none when it was missing)
SELECT t.tournament_id, t.delivery, l.file_name AS listing_name, l.content AS listing_content,
       g.file_name AS games_name, g.content AS games_content
FROM tournament t
JOIN raw_file l ON l.sha256 = t.manifest_sha256
LEFT JOIN raw_file g ON g.sha256 = t.file_sha256
WHERE t.status = 'quarantined' AND t.system LIKE 'rubele_%'
ORDER BY t.tournament_id
