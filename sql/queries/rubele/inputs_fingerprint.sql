-- What the draughts lists of `system` at some dates are computed from, one hash per list date:
-- every version of the tournaments of its system first received up to its cut-off and every
-- FID registry load up to the list date. $list_dates and $cutoffs are parallel lists (the
-- stale lists of a system, or a replay's dates, are read at once); each hash is the one a list
-- of that date has been written with since the draughts lists began (the same text, hashed
-- the same way), so the lists written before read as current.
WITH dates AS (
    SELECT DISTINCT unnest($list_dates::DATE[]) AS list_date, unnest($cutoffs::DATE[]) AS up_to
),
-- from a tournament's first receipt, every version, in every system it was delivered for:
-- one received later, or for another system, moves it out of the lists that applied it
versions AS MATERIALIZED (
    SELECT tournament_id, version,
           tournament_id || ':' || version || ':' || version_key || ':' || status AS described,
           min(received_on) OVER (PARTITION BY tournament_id) AS first_received
    FROM tournament_version
    QUALIFY bool_or(system = $system) OVER (PARTITION BY tournament_id)
),
received AS (
    SELECT d.list_date,
           coalesce(string_agg(v.described, ',' ORDER BY v.tournament_id, v.version), '')
               AS summary
    FROM dates d
    LEFT JOIN versions v ON v.first_received <= d.up_to
    GROUP BY d.list_date
),
loads AS (
    SELECT d.list_date,
           coalesce(string_agg(l.load_id::VARCHAR, ',' ORDER BY l.load_id), '') AS summary
    FROM dates d
    LEFT JOIN fid_registry_load l ON l.as_of <= d.list_date
    GROUP BY d.list_date
)
SELECT d.list_date, sha256(concat_ws('#', r.summary, l.summary)) AS fingerprint
FROM dates d
JOIN received r USING (list_date)
JOIN loads l USING (list_date)
ORDER BY d.list_date
