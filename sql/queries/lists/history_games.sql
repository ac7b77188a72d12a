-- Games played over the board in the same tournaments, both sides' view, by seat: the
-- tournament's integer code (history_keys) and both start numbers. A history holds millions of
-- them; the engine's keys of both sides are read from the entries at those seats by
-- transforms.elo_period.key_seated_games (a gather by seat, not two joins of millions of
-- rows). The games meet their tournament's code once, on its id and version.
WITH tournaments AS MATERIALIZED (
    SELECT DISTINCT tournament_id, version, tournament_code, received_on
    FROM history_keys($system, $up_to)
)
SELECT t.tournament_id, g.score, t.received_on, t.tournament_code, g.start_number, g.opponent
FROM tournament_game g
JOIN tournaments t USING (tournament_id, version)
WHERE g.played
