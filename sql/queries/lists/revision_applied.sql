-- Which of $tournaments a list revision applied (it has variations of them).
SELECT DISTINCT tournament_id
FROM list_variation
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision AND list_contains($tournaments, tournament_id)
