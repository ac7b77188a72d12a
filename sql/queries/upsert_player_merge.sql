-- The analyst may correct an earlier merge: the latest decision wins.
INSERT INTO player_merge (provisional_id, player_id, note, run_id, recorded_at)
VALUES (?, ?, ?, ?, current_timestamp)
ON CONFLICT (provisional_id) DO UPDATE
SET player_id = excluded.player_id, note = excluded.note, run_id = excluded.run_id,
    recorded_at = excluded.recorded_at
