-- Each snapshot's FIDE standard rating of each player up to a day: the ratings a player lost
-- (transforms/elo/lists.py, fide_losses) are read off it. Only the players whose snapshots
-- both give and lack a rating can have lost one: the others (nine in ten at national scale)
-- are left out here, and a replay's start no longer sorts half a million rows for nothing.
SELECT as_of, player_id, fide_standard
FROM registry_snapshot
WHERE as_of <= $day
  AND player_id IN (
    SELECT player_id
    FROM registry_snapshot
    WHERE as_of <= $day
    GROUP BY player_id
    HAVING count(fide_standard) BETWEEN 1 AND count(*) - 1
  )
