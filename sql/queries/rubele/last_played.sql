-- Each player's last valid tournament of a draughts system before a list's window (activity):
-- a tournament an official list set aside (a validity its era does not know) is not one.
SELECT p.player_id, max(coalesce(t.end_date, t.received_on)) AS played_on
FROM tournament_player p
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $after
  AND NOT EXISTS (
      SELECT 1 FROM excluded_tournament x
      WHERE x.system = $system AND x.tournament_id = t.tournament_id
  )
GROUP BY ALL
