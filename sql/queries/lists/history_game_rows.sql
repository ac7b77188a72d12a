-- Where the rounds of each accepted tournament of a system received up to a day lie in the
-- game table (its rows are only ever appended: a tournament's rows keep their row ids), and
-- how many there are. A replay reads a year's rounds by the range of row ids its tournaments
-- span (period_games.sql) instead of scanning every game of the history for each read, and
-- checks that it read as many as are counted here. The table is grouped by tournament version
-- before the join: joining its millions of rows first took about 0.2 s more of the
-- replay's start at national scale (0.27 s against 0.08 s).
SELECT t.received_on, g.first_row, g.last_row, g.rows
FROM (
    SELECT tournament_id, version, min(rowid) AS first_row, max(rowid) AS last_row,
           count(*) AS rows
    FROM tournament_game
    GROUP BY tournament_id, version
) g
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
