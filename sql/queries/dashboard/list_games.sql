-- The games one list revision (any system, scenario, list date and revision) counted: one row
-- per game and player it counted for. A game counted for both its players has two rows with
-- the same (tournament_id, tournament_version, round, game), so counting those once counts
-- games, not player-games (a list's `games` column is per player: its sum counts most games
-- twice). Rows per player add up to the player's `games` on that revision.
--
-- Which side of a game counts is the rule the view game_calculation applies to the revisions
-- in force (sql/views.sql), here for any revision:
-- - FSI (variations with hundredths): a game played over the board, except for a FIDE-rated
--   player (rating_basis 'fide'), whose games count only for his opponent (RULES.md §1.3);
-- - draughts: a game played over the board, or a loss the era counts for its loser
--   (counted_for_loser), against a player rated in that tournament (with a variation), or
--   against one not rated where the era counts him at his entry capital (RULES.md §3).
-- A list written before expected_score_rule existed has no row there: its era is read with the
-- defaults (no loss counted for its loser, games against players not rated dropped).
WITH revision AS (
    SELECT system, scenario, list_date, revision, era_from, rulebook_hash
    FROM list_revision
    WHERE system = $system AND scenario = $scenario AND list_date = $list_date
      AND revision = $revision
),
rated AS (
    SELECT v.tournament_id, v.tournament_version, v.player_id,
           v.raw_hundredths IS NOT NULL AS is_fsi,
           coalesce(v.era_from, r.era_from) AS era_from, r.rulebook_hash
    FROM list_variation v
    JOIN revision r USING (system, scenario, list_date, revision)
),
-- the seats and games of the tournament versions the revision rated only: a national warehouse
-- holds millions of them, a list a few thousand (0.12 s a list at national scale, not 1.2 s)
versions AS (
    SELECT DISTINCT tournament_id, tournament_version AS version FROM rated
),
games AS (
    SELECT g.* FROM tournament_game g SEMI JOIN versions USING (tournament_id, version)
),
seat AS (
    SELECT e.tournament_id, e.version, e.start_number,
           coalesce(m.player_id, e.player_id) AS player_id
    FROM tournament_entry e
    SEMI JOIN versions USING (tournament_id, version)
    LEFT JOIN player_merge m ON m.provisional_id = e.player_id
),
sides AS (
    SELECT a.tournament_id, a.tournament_version, g.round,
           least(g.start_number, g.opponent) AS game, a.player_id, a.is_fsi, g.kind,
           g.played, g.score AS points, o.player_id AS opponent_id,
           ov.player_id IS NOT NULL AS opponent_rated, x.counted_for_loser,
           x.unrated_opponents
    FROM rated a
    JOIN seat s
      ON s.tournament_id = a.tournament_id AND s.version = a.tournament_version
     AND s.player_id = a.player_id
    JOIN games g
      ON g.tournament_id = s.tournament_id AND g.version = s.version
     AND g.start_number = s.start_number
    LEFT JOIN seat o
      ON o.tournament_id = g.tournament_id AND o.version = g.version
     AND o.start_number = g.opponent
    LEFT JOIN rated ov
      ON ov.tournament_id = a.tournament_id AND ov.player_id = o.player_id
    LEFT JOIN expected_score_rule x
      ON x.system = $system AND x.rulebook_hash = a.rulebook_hash AND x.era_from = a.era_from
)
SELECT s.tournament_id, s.tournament_version, s.round, s.game, s.player_id
FROM sides s
LEFT JOIN list_entry me
       ON s.is_fsi AND me.system = $system AND me.scenario = $scenario
      AND me.list_date = $list_date AND me.revision = $revision AND me.player_id = s.player_id
WHERE CASE
          WHEN s.is_fsi THEN s.played AND coalesce(me.rating_basis <> 'fide', true)
          ELSE s.opponent_id IS NOT NULL
               AND (s.opponent_rated OR coalesce(s.unrated_opponents = 'entry_capital', false))
               AND (s.kind = 'played'
                    OR (coalesce(list_contains(s.counted_for_loser, s.kind), false)
                        AND s.points = 0))
      END
ORDER BY s.tournament_id, s.round, s.game, s.player_id
