-- Every round of one player in some tournament versions, as delivered: the opponent (analyst
-- merges applied, as the lists read players), the score, and whether it was played over the
-- board (forfeits, byes, absences and unpaired rounds are not, and count for nobody).
WITH wanted AS (
    SELECT unnest($tournament_ids::VARCHAR[]) AS tournament_id,
           unnest($versions::INTEGER[]) AS version
),
seat AS (
    SELECT e.tournament_id, e.version, e.start_number,
           coalesce(m.player_id, e.player_id) AS player_id
    FROM tournament_entry e
    JOIN wanted USING (tournament_id, version)
    LEFT JOIN player_merge m ON m.provisional_id = e.player_id
)
SELECT g.tournament_id, g.round, o.player_id AS opponent_id, g.score, g.kind, g.played,
       g.result_code
FROM seat s
JOIN tournament_game g USING (tournament_id, version, start_number)
LEFT JOIN seat o
  ON o.tournament_id = g.tournament_id AND o.version = g.version
 AND o.start_number = g.opponent
WHERE s.player_id = $player_id
ORDER BY g.tournament_id, g.round
