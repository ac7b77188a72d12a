-- Participants of the accepted draughts tournaments of a list's window.
SELECT p.tournament_id, p.player_id, p.points
FROM tournament_player p
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system
  AND t.received_on > $after AND t.received_on <= $up_to
