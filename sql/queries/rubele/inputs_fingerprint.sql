-- What a draughts list is computed from, as one hash: every tournament version of its system
-- received up to its cut-off and every FID registry load up to the list date.
SELECT sha256(concat_ws('#',
    (SELECT coalesce(string_agg(tournament_id || ':' || version || ':' || version_key || ':'
                                || status, ',' ORDER BY tournament_id, version), '')
     FROM tournament_version WHERE system = $system AND received_on <= $up_to),
    (SELECT coalesce(string_agg(load_id::VARCHAR, ',' ORDER BY load_id), '')
     FROM fid_registry_load WHERE as_of <= $list_date)
)) AS fingerprint
