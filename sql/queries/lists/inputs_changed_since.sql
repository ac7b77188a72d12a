-- What a stale list's inputs gained since it was written ($written_at), to name in the status:
-- the tournaments of its system with a version ingested since, received up to its cut-off
-- ($up_to), and the merges recorded since.
SELECT
    (SELECT list(DISTINCT tournament_id ORDER BY tournament_id)
     FROM tournament_version
     WHERE system = $system AND ingested_at > $written_at AND received_on <= $up_to)
        AS tournaments,
    (SELECT count(*) FROM player_merge WHERE recorded_at > $written_at) AS merges
