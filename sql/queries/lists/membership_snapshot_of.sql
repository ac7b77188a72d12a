-- The memberships one registry snapshot lists (its as-of date's latest load).
SELECT l.as_of, m.player_id, m.year
FROM registry_membership m
JOIN (
    SELECT as_of, max(load_id) AS load_id FROM registry_load WHERE as_of = $as_of GROUP BY as_of
) l USING (load_id)
