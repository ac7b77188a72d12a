-- Tournaments of a list's period that the list does not rate, with the reason: quarantined at
-- ingest, or set aside when the list was computed (Elo Rapid: a player not a member for the
-- tournament's year). Written with each revision, like its rows.

CREATE TABLE IF NOT EXISTS list_exclusion (
    system        VARCHAR NOT NULL,
    scenario      VARCHAR NOT NULL,
    list_date     DATE NOT NULL,
    revision      INTEGER NOT NULL,
    tournament_id VARCHAR NOT NULL,
    reason        VARCHAR
    -- key: (system, scenario, list_date, revision, tournament_id)
);
