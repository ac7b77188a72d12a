-- One revision of one list, a row per player, as `graduatoria export` writes it: the columns of
-- rating_list_revisions a reader of a published list needs, with the player's federation (the
-- country of the registry in force on the list date: the FSI registry for the chess lists, the
-- FID one for the draughts lists; empty for a player neither holds).
-- Ordered by rating, highest first, then player id: the order of a published list, and one
-- order for every run (the id breaks every tie), so that exporting twice gives the same bytes.
WITH fsi AS (
    SELECT player_id, country
    FROM registry_at($list_date)
),
fid AS (
    SELECT player_id, country
    FROM fid_registry_snapshot
    WHERE as_of = (SELECT max(as_of) FROM fid_registry_load WHERE as_of <= $list_date)
)
SELECT l.system, l.list_date, l.revision, l.scenario, l.player_id, l.name,
       CASE WHEN l.system LIKE 'rubele%' THEN fid.country ELSE fsi.country END AS federation,
       l.sex, l.birth_date, l.rating, l.rating_type, l.previous_rating, l.period_change,
       l.frozen_rating, l.rating_basis, l.games, l.total_games, l.k, l.category,
       l.previous_category, l.letter, l.letter_provisional, l.letter_held, l.last_played,
       l.is_active, l.is_member, l.in_ranking, l.note
FROM rating_list_revisions l
LEFT JOIN fsi ON fsi.player_id = l.player_id
LEFT JOIN fid ON fid.player_id = l.player_id
WHERE l.system = $system AND l.scenario = $scenario AND l.list_date = $list_date
  AND l.revision = $revision
ORDER BY l.rating DESC NULLS LAST, l.player_id
