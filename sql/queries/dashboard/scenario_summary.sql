-- A what-if scenario against the official lists in force, list date by list date: players
-- compared, how many moved (up, down), the largest and the mean absolute difference.
WITH scenario AS (
    SELECT *
    FROM rating_list_revisions
    WHERE system = $system AND scenario = $scenario
    QUALIFY revision = max(revision) OVER (PARTITION BY list_date)
)
SELECT s.list_date, count(*) AS players,
       count(*) FILTER (WHERE s.rating <> o.rating) AS moved,
       count(*) FILTER (WHERE s.rating > o.rating) AS up,
       count(*) FILTER (WHERE s.rating < o.rating) AS down,
       max(abs(s.rating - o.rating)) AS largest,
       CAST(avg(abs(s.rating - o.rating)) AS DECIMAL(18, 2)) AS mean_absolute
FROM scenario s
JOIN rating_list o USING (system, list_date, player_id)
GROUP BY s.list_date
ORDER BY s.list_date
