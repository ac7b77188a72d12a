-- Games played over the board in the same tournaments, both sides' view, by the engine's
-- integer keys (the entry of the side, both players' codes): a history holds millions of
-- them, and the player ids are on the entries. The side's keys are joined before the
-- opponent's (materialized steps): the planner, misjudging the keys' size, would join the
-- two sides' keys to each other first.
WITH k AS MATERIALIZED (FROM history_keys($system, $up_to)),
sided AS MATERIALIZED (
    SELECT g.tournament_id, g.version, g.opponent, g.score, t.received_on,
           ka.entry_key, ka.player_code
    FROM tournament_game g
    JOIN tournament t USING (tournament_id, version)
    JOIN k ka
      ON ka.tournament_id = g.tournament_id AND ka.version = g.version
     AND ka.start_number = g.start_number
    WHERE g.played AND t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
)
SELECT s.tournament_id, s.score, s.received_on, s.entry_key, s.player_code,
       kb.player_code AS opponent_code
FROM sided s
JOIN k kb
  ON kb.tournament_id = s.tournament_id AND kb.version = s.version
 AND kb.start_number = s.opponent
