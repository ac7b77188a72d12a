-- What the lists of `system` at some dates are computed from, one hash per list date: every
-- version of the tournaments first received up to its cut-off, every analyst merge of a player
-- in those tournaments, every registry load up to the list date. A later ingest, merge or
-- registry load that a list would read changes its fingerprint, and so does a new revision of a reference list it takes entry ratings from
-- (the Elo Italia lists for Elo Rapid; NULL when none).
-- $list_dates, $cutoffs and $reference_systems are parallel lists (a replay asks for all its
-- dates at once). The
-- tournament versions enter as a count and a sum of per-version hashes: a running figure, so
-- a replay of many dates costs one pass, not one string of every version per date.
WITH dates AS (
    SELECT unnest($list_dates::DATE[]) AS list_date, unnest($cutoffs::DATE[]) AS up_to,
           unnest($reference_systems::VARCHAR[]) AS reference_system
),
-- a tournament counts from its first receipt, with every version, in every system it was
-- delivered for: a version received later, or for another system, moves the tournament out of
-- the lists that rated it before
versions AS MATERIALIZED (
    SELECT min(received_on) OVER (PARTITION BY tournament_id) AS first_received,
           md5_number_upper(tournament_id || ':' || version || ':' || version_key || ':' || status)
               AS upper_hash,
           md5_number_lower(tournament_id || ':' || version || ':' || version_key || ':' || status)
               AS lower_hash
    FROM tournament_version
    QUALIFY bool_or(system = $system) OVER (PARTITION BY tournament_id)
),
received AS (
    SELECT d.list_date,
           count(v.first_received) || ':' || coalesce(sum(v.upper_hash), 0) || ':'
               || coalesce(sum(v.lower_hash), 0) AS summary
    FROM dates d
    LEFT JOIN versions v ON v.first_received <= d.up_to
    GROUP BY d.list_date
),
-- an analyst merge changes the lists that read an entry of its provisional id: from the first
-- receipt of a tournament of the system where that id plays
merged AS MATERIALIZED (
    SELECT m.provisional_id, m.player_id, min(t.received_on) AS first_received
    FROM player_merge m
    JOIN tournament_entry e ON e.player_id = m.provisional_id
    JOIN tournament_version t USING (tournament_id, version)
    WHERE t.system = $system
    GROUP BY ALL
),
merges AS (
    SELECT d.list_date,
           coalesce(string_agg(m.provisional_id || '>' || m.player_id, ','
                               ORDER BY m.provisional_id), '') AS summary
    FROM dates d
    LEFT JOIN merged m ON m.first_received <= d.up_to
    GROUP BY d.list_date
)
SELECT d.list_date, sha256(concat_ws('#',
    r.summary,
    m.summary,
    (SELECT coalesce(string_agg(load_id::VARCHAR, ',' ORDER BY load_id), '')
     FROM registry_load WHERE as_of <= d.list_date),
    (SELECT coalesce(string_agg(list_date || ':' || revision, ',' ORDER BY list_date), '')
     FROM list_revision_current c
     WHERE c.system = d.reference_system AND c.list_date < d.list_date)
)) AS fingerprint
FROM dates d
JOIN received r USING (list_date)
JOIN merges m USING (list_date)
ORDER BY d.list_date
