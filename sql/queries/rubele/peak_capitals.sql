-- The highest capital each player of a draughts system held before a list date: on the lists
-- before it and after each tournament they applied (own_rating + applied_variation), entry
-- capitals too (rescaling.upward = "first" rescales a threshold only the first time a capital
-- passes it, RULES.md §3 Art. 10). The lists are the chain the list follows: a scenario's own,
-- and the official ones before its first (as previous_list.sql reads), latest revisions.
WITH current_revisions AS (
    SELECT system, scenario, list_date, max(revision) AS revision
    FROM list_revision
    WHERE system = $system AND scenario IN ($scenario, 'official') AND list_date < $list_date
    GROUP BY ALL
),
chain AS (
    SELECT system, scenario, list_date, revision
    FROM current_revisions
    WHERE scenario = $scenario
       OR list_date < coalesce(
           (SELECT min(list_date) FROM current_revisions WHERE scenario = $scenario),
           $list_date)
),
held AS (
    SELECT e.player_id, e.rating AS capital
    FROM list_entry e
    JOIN chain USING (system, scenario, list_date, revision)
    UNION ALL
    SELECT v.player_id, greatest(v.own_rating, v.own_rating + v.applied_variation) AS capital
    FROM list_variation v
    JOIN chain USING (system, scenario, list_date, revision)
)
SELECT player_id, max(capital)::INTEGER AS peak
FROM held
WHERE capital IS NOT NULL
GROUP BY player_id
