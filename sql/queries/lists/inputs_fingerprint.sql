-- What a list of `system` at a date is computed from, as one hash: every tournament version
-- received up to its cut-off, every analyst merge, every registry load up to the list date.
-- A later ingest, merge or registry load that a list would read changes its fingerprint, and so
-- does a new revision of a reference list it takes entry ratings from ($reference_system: the
-- Elo Italia lists for Elo Rapid; NULL when none).
SELECT sha256(concat_ws('#',
    (SELECT coalesce(string_agg(tournament_id || ':' || version || ':' || version_key || ':'
                                || status, ',' ORDER BY tournament_id, version), '')
     FROM tournament_version WHERE system = $system AND received_on <= $up_to),
    (SELECT coalesce(string_agg(provisional_id || '>' || player_id, ','
                                ORDER BY provisional_id), '')
     FROM player_merge),
    (SELECT coalesce(string_agg(load_id::VARCHAR, ',' ORDER BY load_id), '')
     FROM registry_load WHERE as_of <= $list_date),
    (SELECT coalesce(string_agg(list_date || ':' || revision, ',' ORDER BY list_date), '')
     FROM list_revision_current WHERE system = $reference_system AND list_date < $list_date)
)) AS fingerprint
