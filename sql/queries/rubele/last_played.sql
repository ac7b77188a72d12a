-- Each player's last valid tournament of a draughts system before a list's window (activity).
SELECT p.player_id, max(coalesce(t.end_date, t.received_on)) AS played_on
FROM tournament_player p
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $after
GROUP BY ALL
