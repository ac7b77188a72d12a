-- One list revision (any system, scenario, list date and revision), one row per player, with
-- the player's position in each national ranking of that same revision (NULL: not in it).
-- The `ranking` view holds the revisions in force only; a superseded or what-if revision's
-- rankings are in list_ranking, written with it.
WITH positions AS (
    SELECT player_id,
           max(position) FILTER (WHERE ranking = 'overall') AS overall_position,
           max(position) FILTER (WHERE ranking = 'women') AS women_position,
           max(position) FILTER (WHERE ranking = 'youth') AS youth_position
    FROM list_ranking
    WHERE system = $system AND scenario = $scenario AND list_date = $list_date
      AND revision = $revision
    GROUP BY player_id
)
SELECT e.player_id, e.name, e.sex, e.birth_date, e.rating, e.previous_rating,
       e.rating - e.previous_rating AS change, e.games, e.total_games, e.k, e.category,
       e.previous_category, e.is_active, e.is_member, e.in_ranking, e.rating_basis,
       e.letter, e.letter_provisional, e.note,
       p.overall_position, p.women_position, p.youth_position
FROM rating_list_revisions e
LEFT JOIN positions p USING (player_id)
WHERE e.system = $system AND e.scenario = $scenario AND e.list_date = $list_date
  AND e.revision = $revision
ORDER BY e.rating DESC NULLS LAST, e.name, e.player_id
