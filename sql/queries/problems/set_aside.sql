-- Tournaments accepted when ingested that a list in force set aside (a validity its era does
-- not know, a non-member's tournament in Elo Rapid, ...): no list rates them, and the list
-- says why. Every filter is optional, as in recorded.sql.
SELECT x.system, x.list_date, x.tournament_id, t.delivery, x.reason
FROM excluded_tournament x
JOIN tournament t USING (tournament_id)
WHERE t.status = 'accepted'
  AND ($tournament IS NULL OR x.tournament_id = $tournament)
  AND ($system IS NULL OR x.system = $system)
  AND ($delivery IS NULL OR t.delivery = $delivery)
ORDER BY x.system, x.list_date, x.tournament_id
