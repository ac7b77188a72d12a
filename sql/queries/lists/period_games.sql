-- Every round of the accepted tournaments of a system received after one day and up to
-- another (latest versions: replay_tournament, history_tournaments.sql), by seat (start
-- numbers), played or not: the games over the board count, the rest (forfeits, byes,
-- absences) is counted for the variation notes (RULES.md §1.3). Read beside
-- period_entries.sql, within the range of row ids these tournaments' rounds span
-- (history_rows.sql): the scan skips the rest of the history.
SELECT t.tournament_id, t.received_on, g.start_number, g.opponent, g.score,
       g.played, g.kind = 'forfeit' AS is_forfeit
FROM tournament_game g
JOIN replay_tournament t USING (tournament_id, version)
WHERE t.received_on > $after AND t.received_on <= $up_to
  AND g.rowid BETWEEN $first_row AND $last_row
