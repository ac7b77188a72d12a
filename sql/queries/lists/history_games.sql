-- Games played over the board in the tournaments of a history read, both sides' view, by
-- seat: the tournament's integer code and both start numbers. A history holds millions of
-- them; the engine's keys of both sides are read from the entries at those seats by
-- transforms.elo_period.key_seated_games (a gather by seat, not two joins of millions of
-- rows). `history_tournaments` (tournament_id, version, tournament_code, received_on) is
-- registered by flows.elo.periods.load_history from the entries it has just read
-- (history_entries.sql), so the keys (history_keys) are computed once per read. In order of
-- receipt: each list date's games are then one run of rows (transforms.elo_list.split_history).
SELECT t.tournament_id, g.score, t.received_on, t.tournament_code, g.start_number, g.opponent
FROM tournament_game g
JOIN history_tournaments t USING (tournament_id, version)
WHERE g.played
ORDER BY t.received_on
