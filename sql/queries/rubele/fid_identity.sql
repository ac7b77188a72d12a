-- Each FID player's latest name: the games files name players by id only.
SELECT player_id, name
FROM fid_registry_snapshot
QUALIFY as_of = max(as_of) OVER (PARTITION BY player_id)
