-- Rating lists as revisions: a list date of a system can be written many times (recalculation,
-- corrected inputs); every revision is kept. `scenario` separates what-if recalculations from
-- the official lists ('official').
-- The row tables of a revision carry no primary key: rows are written once per revision, under
-- the writer lock, by one statement each, and an index would cost more than the whole
-- computation of a national recalculation. Their keys are documented on each table.

CREATE TABLE IF NOT EXISTS list_revision (
    system             VARCHAR NOT NULL,
    scenario           VARCHAR NOT NULL,
    list_date          DATE NOT NULL,
    revision           INTEGER NOT NULL,
    source             VARCHAR NOT NULL,       -- computed | imported
    run_id             VARCHAR NOT NULL,
    rulebook_hash      VARCHAR,
    era_from           DATE,
    previous_list_date DATE,
    previous_revision  INTEGER,
    content_hash       VARCHAR NOT NULL,       -- equal content: no new revision
    players            INTEGER NOT NULL,
    tournaments        INTEGER NOT NULL,
    created_at         TIMESTAMP NOT NULL,
    report             VARCHAR,
    PRIMARY KEY (system, scenario, list_date, revision)
);

CREATE TABLE IF NOT EXISTS list_entry (
    system          VARCHAR NOT NULL,
    scenario        VARCHAR NOT NULL,
    list_date       DATE NOT NULL,
    revision        INTEGER NOT NULL,
    player_id       VARCHAR NOT NULL,
    name            VARCHAR,
    sex             VARCHAR,
    birth_date      DATE,
    rating          INTEGER,
    rating_type     VARCHAR NOT NULL,          -- elo_italia | fide
    previous_rating INTEGER,
    frozen_rating   INTEGER,
    rating_basis    VARCHAR,
    games           INTEGER NOT NULL,          -- counted in the period
    total_games     INTEGER NOT NULL,          -- counted up to this list
    k               INTEGER,
    period_change   INTEGER,
    category        VARCHAR,
    previous_category VARCHAR,
    last_played     DATE,
    is_active       BOOLEAN NOT NULL,
    is_member       BOOLEAN NOT NULL,
    in_ranking      BOOLEAN NOT NULL,
    note            VARCHAR
    -- key: (system, scenario, list_date, revision, player_id)
);

CREATE TABLE IF NOT EXISTS list_variation (
    system             VARCHAR NOT NULL,
    scenario           VARCHAR NOT NULL,
    list_date          DATE NOT NULL,
    revision           INTEGER NOT NULL,
    tournament_id      VARCHAR NOT NULL,
    tournament_version INTEGER NOT NULL,
    player_id          VARCHAR NOT NULL,
    sequence           INTEGER,
    wave               INTEGER,
    own_rating         INTEGER,
    games              INTEGER NOT NULL,
    score              DOUBLE NOT NULL,
    expected           DOUBLE NOT NULL,
    k                  INTEGER,
    raw_variation      DOUBLE NOT NULL,
    applied_variation  DOUBLE NOT NULL,
    note               VARCHAR
    -- key: (system, scenario, list_date, revision, tournament_id, player_id)
);

CREATE TABLE IF NOT EXISTS list_ranking (
    system    VARCHAR NOT NULL,
    scenario  VARCHAR NOT NULL,
    list_date DATE NOT NULL,
    revision  INTEGER NOT NULL,
    ranking   VARCHAR NOT NULL,                -- overall | women | youth
    position  INTEGER NOT NULL,
    player_id VARCHAR NOT NULL,
    rating    INTEGER NOT NULL
    -- key: (system, scenario, list_date, revision, ranking, player_id)
);
