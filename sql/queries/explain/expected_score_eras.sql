-- The eras of a system's rulebook whose expected scores by difference the warehouse holds.
SELECT era_from
FROM expected_score_rule
WHERE system = $system AND rulebook_hash = $rulebook_hash
