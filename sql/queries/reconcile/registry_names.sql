-- The players of the registry in force on a list date (the FSI one for chess, the FID one for
-- draughts): a player only the published list holds is named from it, or shown to be in none.
SELECT player_id, name
FROM registry_at($list_date)
WHERE $system NOT LIKE 'rubele%'
UNION ALL
SELECT player_id, name
FROM fid_registry_snapshot
WHERE $system LIKE 'rubele%'
  AND as_of = (SELECT max(as_of) FROM fid_registry_load WHERE as_of <= $list_date)
