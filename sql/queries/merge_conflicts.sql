-- Proposed merges (_proposed_merges: provisional_id, player_id) that would give one person two
-- entries in the same tournament: his own entry, another id already merged into him, or
-- another id of the same proposal plays there too. One row per provisional id refused.
WITH entries AS (
    SELECT p.tournament_id, p.version, p.start_number, p.ingested_player_id,
           coalesce(m.player_id, p.player_id) AS person
    FROM tournament_player p
    LEFT JOIN _proposed_merges m ON m.provisional_id = p.ingested_player_id
)
SELECT a.ingested_player_id AS provisional_id,
       array_to_string(list_sort(list_distinct(list(a.tournament_id))), ', ') AS tournaments
FROM entries a
JOIN entries b
  ON b.tournament_id = a.tournament_id AND b.version = a.version
 AND b.start_number <> a.start_number AND b.person = a.person
WHERE a.ingested_player_id IN (SELECT provisional_id FROM _proposed_merges)
GROUP BY a.ingested_player_id
ORDER BY a.ingested_player_id
