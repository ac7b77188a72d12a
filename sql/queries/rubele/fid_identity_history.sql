-- Every FID registry snapshot's players, by as-of date: an ingest checks a tournament's players
-- against the snapshot the list that applies it will read, and names them from it.
SELECT as_of, player_id, name
FROM fid_registry_snapshot
