-- Which list is in force before a list date (see previous_list.sql, which reads its rows): its
-- date, revision and scenario, even for a list of nobody.
WITH current_revisions AS (
    SELECT system, scenario, list_date, max(revision) AS revision
    FROM list_revision
    WHERE system = $system AND scenario IN ($scenario, 'official') AND list_date < $list_date
    GROUP BY ALL
)
SELECT list_date, revision, scenario
FROM current_revisions
-- its own lists first, however old: a gap in them is refused, not filled with official ones
ORDER BY (scenario = $scenario) DESC, list_date DESC
LIMIT 1
