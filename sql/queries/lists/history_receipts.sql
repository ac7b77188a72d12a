-- Every day a tournament of a system was received on, up to a date, with the rounds its
-- accepted tournaments' players hold (how a replay groups list dates into reads of a similar
-- size: flows/elo/history.py).
SELECT received_on,
       sum(CASE WHEN status = 'accepted' THEN coalesce(players, 0) * coalesce(rounds, 1) ELSE 0 END)::BIGINT AS rounds
FROM tournament
WHERE system = $system AND received_on <= $up_to
  AND status IN ('accepted', 'quarantined', 'withdrawn')
GROUP BY received_on
ORDER BY received_on
