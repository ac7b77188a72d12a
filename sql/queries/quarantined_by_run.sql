-- The tournament versions a run quarantined, in the order it wrote them, with the reason it
-- stored, and the official lists (their current revisions) that rate an earlier version of the
-- tournament: the next replay of those lists takes it out of them until a version that can be
-- rated is delivered.
SELECT v.tournament_id, v.system, v.quarantine_reason AS reason,
       (SELECT list_sort(list(DISTINCT x.list_date))
        FROM list_variation x
        JOIN list_revision_current c USING (system, scenario, list_date, revision)
        WHERE x.tournament_id = v.tournament_id) AS rated_in
FROM tournament_version v
WHERE v.run_id = $run_id AND v.status = 'quarantined'
ORDER BY v.delivery, v.manifest_line, v.tournament_id
