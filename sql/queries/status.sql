-- One line per fact an analyst checks after loading: what is in the warehouse.
SELECT 'FSI registry snapshots (chess)' AS what, count(*)::BIGINT AS how_many FROM registry_load
UNION ALL SELECT 'FSI registered players (latest snapshot)', count(*)
    FROM registry_snapshot WHERE as_of = (SELECT max(as_of) FROM registry_load)
UNION ALL SELECT 'FID registry snapshots (draughts)', count(*) FROM fid_registry_load
UNION ALL SELECT 'FID registered players (latest snapshot)', count(*)
    FROM fid_registry_snapshot WHERE as_of = (SELECT max(as_of) FROM fid_registry_load)
UNION ALL SELECT 'official list revisions', count(*) FROM list_revision WHERE scenario = 'official'
UNION ALL SELECT 'what-if scenario list revisions', count(*) FROM list_revision
    WHERE scenario <> 'official'
UNION ALL SELECT 'tournaments accepted', count(*) FROM tournament WHERE status = 'accepted'
UNION ALL SELECT 'tournaments quarantined', count(*) FROM tournament WHERE status = 'quarantined'
UNION ALL SELECT 'tournament versions kept', count(*) FROM tournament_version
UNION ALL SELECT 'played games (latest versions)', coalesce(sum(played_games), 0)::BIGINT
    FROM tournament WHERE status = 'accepted'
UNION ALL SELECT 'players waiting for a merge (provisional ids)', count(DISTINCT provisional_id)
    FROM unmatched_player
UNION ALL SELECT 'rejections', count(*) FROM rejection
UNION ALL SELECT 'flow runs', count(*) FROM run
