-- Games played over the board in the same tournaments, both sides' view, as player ids and
-- as the engine's integer keys (the entry of the side, both players' codes).
WITH k AS (FROM history_keys($system, $up_to))
SELECT g.tournament_id, a.player_id, b.player_id AS opponent_id, g.score, t.received_on,
       ka.entry_key, ka.player_code, kb.player_code AS opponent_code
FROM tournament_game g
JOIN tournament t USING (tournament_id, version)
JOIN tournament_player a
  ON a.tournament_id = g.tournament_id AND a.version = g.version
 AND a.start_number = g.start_number
JOIN tournament_player b
  ON b.tournament_id = g.tournament_id AND b.version = g.version
 AND b.start_number = g.opponent
JOIN k ka
  ON ka.tournament_id = g.tournament_id AND ka.version = g.version
 AND ka.start_number = g.start_number
JOIN k kb
  ON kb.tournament_id = g.tournament_id AND kb.version = g.version
 AND kb.start_number = g.opponent
WHERE g.played AND t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
