-- Recalculation: what each revision was computed from (to tell stale lists), and the
-- differences a new revision makes against the one it supersedes (or a scenario's base).

ALTER TABLE list_revision ADD COLUMN IF NOT EXISTS inputs_hash VARCHAR;

CREATE TABLE IF NOT EXISTS list_diff (
    system           VARCHAR NOT NULL,
    scenario         VARCHAR NOT NULL,
    list_date        DATE NOT NULL,
    revision         INTEGER NOT NULL,
    against_scenario VARCHAR NOT NULL,
    against_revision INTEGER NOT NULL,
    player_id        VARCHAR NOT NULL,
    name             VARCHAR,
    old_rating       INTEGER,
    new_rating       INTEGER,
    difference       INTEGER,
    old_category     VARCHAR,
    new_category     VARCHAR,
    old_position     INTEGER,
    new_position     INTEGER,
    run_id           VARCHAR NOT NULL,
    PRIMARY KEY (system, scenario, list_date, revision, player_id)
);
