-- A what-if scenario's list (its latest revision) beside the official list in force of the
-- same system and date: every player on either, the difference where on both.
WITH scenario AS (
    SELECT *
    FROM rating_list_revisions
    WHERE system = $system AND scenario = $scenario AND list_date = $list_date
    QUALIFY revision = max(revision) OVER ()
),
official AS (
    SELECT *
    FROM rating_list
    WHERE system = $system AND list_date = $list_date
)
SELECT coalesce(s.player_id, o.player_id) AS player_id, coalesce(s.name, o.name) AS name,
       o.rating AS official_rating, s.rating AS scenario_rating,
       s.rating - o.rating AS difference, o.category AS official_category,
       s.category AS scenario_category, o.k AS official_k, s.k AS scenario_k,
       o.games AS games,
       CASE WHEN o.player_id IS NULL THEN 'scenario only'
            WHEN s.player_id IS NULL THEN 'official only'
            ELSE 'both' END AS presence
FROM scenario s
FULL OUTER JOIN official o USING (player_id)
ORDER BY abs(s.rating - o.rating) DESC NULLS LAST, player_id
