-- The accepted tournaments of a system received up to a day (latest versions), with what a
-- replay's reads take from them (period_entries.sql, period_games.sql join these, found once
-- per replay, flows/elo/history.py).
SELECT tournament_id, version, start_date, end_date, received_on, file_name,
       coalesce(is_team, false) AS is_team
FROM tournament
WHERE status = 'accepted' AND system = $system AND received_on <= $up_to
