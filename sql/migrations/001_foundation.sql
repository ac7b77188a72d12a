-- Foundation: runs, archive of raw inputs, tournaments (versioned), registry snapshots,
-- rejections and player matching. No foreign keys: DuckDB freezes a parent table for ALTER.

CREATE TABLE IF NOT EXISTS run_record (
    run_id          VARCHAR PRIMARY KEY,
    flow            VARCHAR NOT NULL,
    parameters      JSON,
    rulebook_hash   VARCHAR,
    code_version    VARCHAR,
    input_checksums JSON,
    started_at      TIMESTAMP NOT NULL,
    ended_at        TIMESTAMP,
    status          VARCHAR NOT NULL,
    counts          JSON,
    report          VARCHAR
);

-- Every raw input (TRF, manifest, registry CSV, imported list) by content hash.
CREATE TABLE IF NOT EXISTS raw_file (
    sha256       VARCHAR PRIMARY KEY,
    file_name    VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,
    size_bytes   BIGINT NOT NULL,
    content      BLOB NOT NULL,
    first_run_id VARCHAR NOT NULL,
    archived_at  TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS tournament_version (
    tournament_id   VARCHAR NOT NULL,
    version         INTEGER NOT NULL,
    version_key     VARCHAR NOT NULL,
    status          VARCHAR NOT NULL,          -- accepted | quarantined
    system          VARCHAR,
    file_name       VARCHAR NOT NULL,
    file_sha256     VARCHAR,
    manifest_sha256 VARCHAR NOT NULL,
    manifest_line   INTEGER NOT NULL,
    received_on     DATE,
    start_date      DATE,
    end_date        DATE,
    time_control    VARCHAR,
    name            VARCHAR,
    city            VARCHAR,
    federation      VARCHAR,
    rounds          INTEGER,
    players         INTEGER,
    played_games    INTEGER,
    format          VARCHAR,
    encoding        VARCHAR,
    is_team         BOOLEAN,
    run_id          VARCHAR NOT NULL,
    ingested_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (tournament_id, version)
);

CREATE TABLE IF NOT EXISTS tournament_entry (
    tournament_id   VARCHAR NOT NULL,
    version         INTEGER NOT NULL,
    start_number    INTEGER NOT NULL,
    name            VARCHAR,
    sex             VARCHAR,
    title           VARCHAR,
    birth_date      DATE,
    birth_year      INTEGER,
    federation      VARCHAR,
    fide_id         BIGINT,
    national_id     VARCHAR,
    rating_in_file  INTEGER,
    national_rating INTEGER,
    arbiter_rating  INTEGER,
    points          DOUBLE,
    rank            INTEGER,
    player_id       VARCHAR NOT NULL,
    match_method    VARCHAR NOT NULL,          -- national_id | fide_id | name_birth | provisional
    PRIMARY KEY (tournament_id, version, start_number)
);

-- One row per player per round (both sides' view); `played` is false for byes and forfeits.
CREATE TABLE IF NOT EXISTS tournament_game (
    tournament_id VARCHAR NOT NULL,
    version       INTEGER NOT NULL,
    start_number  INTEGER NOT NULL,
    round         INTEGER NOT NULL,
    opponent      INTEGER,
    color         VARCHAR,
    result_code   VARCHAR NOT NULL,
    score         DOUBLE NOT NULL,
    kind          VARCHAR NOT NULL,
    played        BOOLEAN NOT NULL,
    PRIMARY KEY (tournament_id, version, start_number, round)
);

-- Every problem found in an input: errors (the rejections) and warnings (reported only).
CREATE TABLE IF NOT EXISTS input_problem (
    problem_id    VARCHAR PRIMARY KEY,         -- hash of what was found: re-runs add nothing
    severity      VARCHAR NOT NULL,            -- error | warning
    run_id        VARCHAR NOT NULL,            -- the run that first saw it
    source        VARCHAR NOT NULL,            -- manifest | trf | registry | list
    file_name     VARCHAR NOT NULL,
    file_sha256   VARCHAR,
    line_no       INTEGER,
    field         VARCHAR,
    value         VARCHAR,
    reason        VARCHAR NOT NULL,
    tournament_id VARCHAR,
    recorded_at   TIMESTAMP NOT NULL
);

CREATE SEQUENCE IF NOT EXISTS registry_load_seq START 1;

CREATE TABLE IF NOT EXISTS registry_load (
    load_id            INTEGER PRIMARY KEY,
    as_of              DATE NOT NULL,
    players_sha256     VARCHAR NOT NULL,
    memberships_sha256 VARCHAR NOT NULL,
    players            INTEGER NOT NULL,
    memberships        INTEGER NOT NULL,
    run_id             VARCHAR NOT NULL,
    loaded_at          TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS registry_player (
    load_id       INTEGER NOT NULL,
    player_id     VARCHAR NOT NULL,
    name          VARCHAR NOT NULL,
    sex           VARCHAR NOT NULL,
    birth_date    DATE,
    country       VARCHAR NOT NULL,
    fide_id       BIGINT,
    fide_standard INTEGER,
    fide_rapid    INTEGER,
    category      VARCHAR NOT NULL,
    k_override    INTEGER,
    last_fide_tournament DATE,             -- last FIDE-rated tournament abroad (activity)
    PRIMARY KEY (load_id, player_id)
);

CREATE TABLE IF NOT EXISTS registry_membership (
    load_id   INTEGER NOT NULL,
    player_id VARCHAR NOT NULL,
    year      INTEGER NOT NULL,
    PRIMARY KEY (load_id, player_id, year)
);

-- Unmatched tournament players, each with a provisional id for the analyst to merge.
CREATE TABLE IF NOT EXISTS player_match (
    provisional_id VARCHAR NOT NULL,
    tournament_id  VARCHAR NOT NULL,
    version        INTEGER NOT NULL,
    start_number   INTEGER NOT NULL,
    name           VARCHAR,
    birth_date     DATE,
    birth_year     INTEGER,
    federation     VARCHAR,
    fide_id        BIGINT,
    national_id    VARCHAR,
    run_id         VARCHAR NOT NULL,
    PRIMARY KEY (tournament_id, version, start_number)
);

CREATE TABLE IF NOT EXISTS player_merge (
    provisional_id VARCHAR PRIMARY KEY,
    player_id      VARCHAR NOT NULL,
    note           VARCHAR,
    run_id         VARCHAR NOT NULL,
    recorded_at    TIMESTAMP NOT NULL
);
