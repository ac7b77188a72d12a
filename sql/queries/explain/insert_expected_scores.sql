-- Expected scores by difference, from the registered frame `incoming_scores`.
INSERT OR IGNORE INTO expected_score (system, rulebook_hash, era_from, difference, expected_units)
SELECT system, rulebook_hash, era_from, difference, expected_units
FROM incoming_scores
