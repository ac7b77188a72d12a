-- The tournament versions a player's variations rated: name, dates, validity (draughts).
WITH wanted AS (
    SELECT unnest($tournament_ids::VARCHAR[]) AS tournament_id,
           unnest($versions::INTEGER[]) AS version
)
SELECT t.tournament_id, t.version AS tournament_version, t.name, t.start_date, t.end_date,
       t.received_on, t.validity
FROM tournament_version t
JOIN wanted USING (tournament_id, version)
