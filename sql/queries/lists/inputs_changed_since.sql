-- What a stale list's inputs gained since it was written ($written_at), to name in the status:
-- the tournaments of its system with a version ingested since, received up to its cut-off
-- ($up_to), those the list knew before (a version of the system within its cut-off), apart
-- those whose latest version is quarantined or withdrawn (a replay takes them out of the
-- list), and
-- those new to it, those moved to another system; the merges recorded since of players in those tournaments (a merge changes only
-- the lists that read its player); the registry snapshots loaded since, dated up to the list
-- date (the system's registry: FID for draughts, FSI for chess); the lists of other systems
-- it reads ($read_systems) with a revision written since.
-- A version received after the cut-off counts too when the list knew the tournament: it
-- moves the tournament out of the list.
WITH changed AS (
    -- every version of the tournaments the system had a version of: a new version in
    -- another system moves the tournament out of this one's lists
    SELECT tournament_id,
           bool_or(system = $system AND ingested_at <= $written_at AND received_on <= $up_to)
               AS known_before,
           arg_max(status, version) AS latest_status,
           arg_max(system, version) AS latest_system
    FROM tournament_version
    WHERE tournament_id IN (SELECT tournament_id FROM tournament_version WHERE system = $system)
    GROUP BY tournament_id
    HAVING bool_or(ingested_at > $written_at)
       AND bool_or(system = $system AND received_on <= $up_to)
)
SELECT
    (SELECT list(tournament_id ORDER BY tournament_id)
            FILTER (WHERE known_before AND latest_status NOT IN ('quarantined', 'withdrawn')
                    AND latest_system IS NOT DISTINCT FROM $system)
     FROM changed) AS tournaments,
    (SELECT list(tournament_id ORDER BY tournament_id)
            FILTER (WHERE known_before AND latest_status = 'withdrawn'
                    AND latest_system IS NOT DISTINCT FROM $system)
     FROM changed) AS withdrawn,
    (SELECT list(tournament_id ORDER BY tournament_id)
            FILTER (WHERE known_before AND latest_status = 'quarantined'
                    AND latest_system IS NOT DISTINCT FROM $system)
     FROM changed) AS quarantined_now,
    (SELECT list(tournament_id || ' to ' || coalesce(latest_system, 'no system')
                 ORDER BY tournament_id)
            FILTER (WHERE known_before AND latest_system IS DISTINCT FROM $system)
     FROM changed) AS moved,
    (SELECT list(tournament_id ORDER BY tournament_id) FILTER (WHERE NOT known_before)
     FROM changed) AS new_tournaments,
    (SELECT count(*)
     FROM player_merge m
     WHERE m.recorded_at > $written_at
       AND EXISTS (SELECT 1
                   FROM tournament_entry e
                   JOIN tournament t USING (tournament_id, version)
                   WHERE e.player_id = m.provisional_id AND t.system = $system
                     AND t.received_on <= $up_to)) AS merges,
    (SELECT list(DISTINCT as_of ORDER BY as_of)
     FROM (SELECT as_of, loaded_at FROM registry_load WHERE $system NOT LIKE 'rubele_%'
           UNION ALL
           SELECT as_of, loaded_at FROM fid_registry_load WHERE $system LIKE 'rubele_%')
     WHERE loaded_at > $written_at AND as_of <= $list_date) AS snapshots,
    -- the official lists of other systems the list reads (Elo Rapid's newcomers enter with
    -- their Elo Italia rating) that have a revision written since, dated before its list date
    (SELECT list(DISTINCT r.system || ' of ' || strftime(r.list_date, '%Y-%m-%d'))
     FROM list_revision r
     WHERE r.scenario = 'official' AND list_contains($read_systems, r.system)
       -- the lists before its own, as its fingerprint reads them (lists/inputs_fingerprint.sql)
       AND r.created_at > $written_at AND r.list_date < $list_date) AS read_lists
