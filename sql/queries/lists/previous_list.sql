-- The list in force before a list date: the latest list date before it, latest revision.
WITH current_revisions AS (
    SELECT system, scenario, list_date, max(revision) AS revision
    FROM list_revision
    WHERE system = $system AND scenario = $scenario AND list_date < $list_date
    GROUP BY ALL
),
latest AS (
    SELECT * FROM current_revisions ORDER BY list_date DESC LIMIT 1
)
SELECT e.list_date, e.revision, e.player_id, e.rating, e.rating_type, e.total_games,
       e.category
FROM list_entry e
JOIN latest USING (system, scenario, list_date, revision)
