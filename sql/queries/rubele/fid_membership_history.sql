-- FID memberships as listed by each snapshot (the latest load of each as-of date).
SELECT l.as_of, m.player_id, m.year
FROM fid_registry_membership m
JOIN (
    SELECT as_of, max(load_id) AS load_id FROM fid_registry_load WHERE as_of <= $day
    GROUP BY as_of
) l USING (load_id)
