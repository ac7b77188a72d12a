-- The list in force before a list date: the latest list date before it, latest revision.
-- A what-if scenario reads its own lists, and the official ones before its first.
WITH current_revisions AS (
    SELECT system, scenario, list_date, max(revision) AS revision
    FROM list_revision
    WHERE system = $system AND scenario IN ($scenario, 'official') AND list_date < $list_date
    GROUP BY ALL
),
latest AS (
    SELECT * FROM current_revisions
    -- its own lists first, however old: a gap in them is refused, not filled with official ones
    ORDER BY (scenario = $scenario) DESC, list_date DESC
    LIMIT 1
)
SELECT e.list_date, e.revision, e.scenario, e.player_id, e.name, e.rating, e.rating_type,
       e.total_games, e.category, e.last_played, e.letter, e.letter_provisional,
       e.letter_held
FROM list_entry e
JOIN latest USING (system, scenario, list_date, revision)
