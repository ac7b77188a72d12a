-- Draughts (FID Elo-Rubele): tournaments share the tournament tables with chess (system
-- rubele_italiana / rubele_internazionale, validity 100 or 50 %, the file's points scale); the
-- FID registry is kept apart from the FSI one (other ids, a category per variant, the entry
-- capital of a foreign player), as dated snapshots like it.

ALTER TABLE tournament_version ADD COLUMN IF NOT EXISTS validity INTEGER;
ALTER TABLE tournament_version ADD COLUMN IF NOT EXISTS points_scale VARCHAR;

CREATE SEQUENCE IF NOT EXISTS fid_registry_load_seq START 1;

CREATE TABLE IF NOT EXISTS fid_registry_load (
    load_id            INTEGER PRIMARY KEY,
    as_of              DATE NOT NULL,
    players_sha256     VARCHAR NOT NULL,
    memberships_sha256 VARCHAR NOT NULL,
    players            INTEGER NOT NULL,
    memberships        INTEGER NOT NULL,
    run_id             VARCHAR NOT NULL,
    loaded_at          TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS fid_registry_player (
    load_id                 INTEGER NOT NULL,
    player_id               VARCHAR NOT NULL,
    name                    VARCHAR NOT NULL,
    sex                     VARCHAR NOT NULL,
    birth_date              DATE,
    country                 VARCHAR NOT NULL,
    category_italiana       VARCHAR,
    category_internazionale VARCHAR,
    capital_italiana        INTEGER,          -- entry capital given to a foreign player
    capital_internazionale  INTEGER,
    PRIMARY KEY (load_id, player_id)
);

CREATE TABLE IF NOT EXISTS fid_registry_membership (
    load_id   INTEGER NOT NULL,
    player_id VARCHAR NOT NULL,
    year      INTEGER NOT NULL,
    PRIMARY KEY (load_id, player_id, year)
);
