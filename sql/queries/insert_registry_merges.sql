-- Merges found by matching provisional players against a newly loaded registry snapshot; an
-- analyst's own decision for the same id is never overwritten.
INSERT INTO player_merge (provisional_id, player_id, note, run_id, recorded_at)
SELECT provisional_id, player_id, note, $run_id, current_timestamp
FROM _incoming_merges
ON CONFLICT (provisional_id) DO NOTHING
