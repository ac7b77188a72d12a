-- Where the rounds of each accepted tournament of a system received up to a day lie in the
-- game table (its rows are only ever appended: a tournament's rows keep their row ids), and
-- how many there are. A replay reads a year's rounds by the range of row ids its tournaments
-- span (period_games.sql) instead of scanning every game of the history for each read, and
-- checks that it read as many as are counted here.
SELECT t.received_on, min(g.rowid) AS first_row, max(g.rowid) AS last_row, count(*) AS rows
FROM tournament_game g
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
GROUP BY t.tournament_id, t.version, t.received_on
