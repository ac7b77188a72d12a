-- The as-of dates of the registry snapshots up to a day that list memberships.
SELECT DISTINCT l.as_of
FROM registry_membership m
JOIN (
    SELECT as_of, max(load_id) AS load_id FROM registry_load WHERE as_of <= $day GROUP BY as_of
) l USING (load_id)
ORDER BY l.as_of
