-- Rules of expected_score, from the registered frame `incoming_rules` (a row already there,
-- written by another list of the same rulebook and era, is the same: it is kept).
INSERT OR IGNORE INTO expected_score_rule
    (system, rulebook_hash, era_from, family, method, difference_cap, difference_limit,
     units_per_point, points_per_win, counted_for_loser, unrated_opponents)
SELECT system, rulebook_hash, era_from, family, method, difference_cap, difference_limit,
       units_per_point, points_per_win, counted_for_loser, unrated_opponents
FROM incoming_rules
