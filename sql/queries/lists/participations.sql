-- Every participation in a rated tournament of the system known at the list (for activity).
SELECT DISTINCT p.player_id,
       coalesce(t.end_date, t.start_date, t.received_on) AS played_on
FROM tournament_player p
JOIN tournament t USING (tournament_id, version)
WHERE t.status = 'accepted' AND t.system = $system AND t.received_on <= $up_to
