-- Games with an opponent in those tournaments, both sides' view, on the 1 / ½ / 0 scale, with
-- their kind (played / forfeit / withdrawn): which of them count is the era's rule
-- (games.counted_for_loser; by default only games played over the board, RULES.md §3).
SELECT g.tournament_id, a.player_id, b.player_id AS opponent_id, g.score AS points, g.kind
FROM tournament_game g
JOIN tournament t USING (tournament_id, version)
JOIN tournament_player a
  ON a.tournament_id = g.tournament_id AND a.version = g.version
 AND a.start_number = g.start_number
JOIN tournament_player b
  ON b.tournament_id = g.tournament_id AND b.version = g.version
 AND b.start_number = g.opponent
WHERE t.status = 'accepted' AND t.system = $system
  AND t.received_on > $after AND t.received_on <= $up_to
