-- Games played over the board in the same tournaments, both sides' view, by the engine's
-- integer keys (the entry of the side, both players' codes): a history holds millions of
-- them, and the player ids are on the entries. Every step is materialized and joins integers
-- (a seat: tournament code, start number): the games meet their tournament's code once, on
-- its id; the planner, left to itself, would join the two sides' keys to each other first.
WITH k AS MATERIALIZED (FROM history_keys($system, $up_to)),
tournaments AS MATERIALIZED (
    SELECT DISTINCT tournament_id, version, tournament_code, received_on FROM k
),
sided AS MATERIALIZED (
    SELECT t.tournament_id, t.tournament_code, g.start_number, g.opponent, g.score, t.received_on
    FROM tournament_game g
    JOIN tournaments t USING (tournament_id, version)
    WHERE g.played
),
own AS MATERIALIZED (
    SELECT s.tournament_id, s.tournament_code, s.opponent, s.score, s.received_on, ka.entry_key,
           ka.player_code
    FROM sided s
    JOIN k ka ON ka.tournament_code = s.tournament_code AND ka.start_number = s.start_number
)
SELECT o.tournament_id, o.score, o.received_on, o.entry_key, o.player_code,
       kb.player_code AS opponent_code
FROM own o
JOIN k kb ON kb.tournament_code = o.tournament_code AND kb.start_number = o.opponent
