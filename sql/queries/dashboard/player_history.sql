-- A player on every official list revision ever written, of every system (superseded
-- revisions too: where a list was recalculated, the player's old rating shows beside the one
-- in force). In force: the list's latest revision (not the player's latest: a merge can take
-- a player off a list's new revision).
WITH latest AS (
    SELECT system, list_date, max(revision) AS revision
    FROM list_revision
    WHERE scenario = 'official'
    GROUP BY ALL
)
SELECT e.system, e.list_date, e.revision, e.revision = l.revision AS in_force,
       e.rating, e.previous_rating, e.period_change, e.games, e.total_games, e.k, e.category,
       e.previous_category, e.is_active, e.is_member, e.rating_basis, e.letter,
       e.letter_provisional, e.letter_held, e.note, e.source, e.created_at
FROM rating_list_revisions e
JOIN latest l USING (system, list_date)
WHERE e.player_id = $player_id AND e.scenario = 'official'
ORDER BY e.system, e.list_date, e.revision
