-- What a draughts list is computed from, as one hash: every version of the tournaments of its
-- system first received up to its cut-off and every FID registry load up to the list date.
SELECT sha256(concat_ws('#',
    -- from a tournament's first receipt, every version, in every system it was delivered for:
    -- one received later, or for another system, moves it out of the lists that applied it
    (SELECT coalesce(string_agg(tournament_id || ':' || version || ':' || version_key || ':'
                                || status, ',' ORDER BY tournament_id, version), '')
     FROM (
         SELECT * FROM tournament_version
         QUALIFY bool_or(system = $system) OVER (PARTITION BY tournament_id)
             AND min(received_on) OVER (PARTITION BY tournament_id) <= $up_to
     )),
    (SELECT coalesce(string_agg(load_id::VARCHAR, ',' ORDER BY load_id), '')
     FROM fid_registry_load WHERE as_of <= $list_date)
)) AS fingerprint
