-- A computed list checked against the list its federation published (graduatoria reconcile):
-- one row per reconciliation, with its summary, and one per player who differs, with the cause
-- found and its evidence. A reconciliation is kept whole and never replaced: reconciling again
-- (a corrected file, a new revision) adds another, under its own run.
-- (Numbered 016: 015 is another change's. Migrations are applied by name, each once, whatever
-- the gaps, so the two may land in either order.)

CREATE TABLE IF NOT EXISTS list_reconciliation (
    run_id            VARCHAR PRIMARY KEY,
    system            VARCHAR NOT NULL,
    scenario          VARCHAR NOT NULL,
    list_date         DATE NOT NULL,
    revision          INTEGER NOT NULL,        -- the computed revision compared
    file_name         VARCHAR NOT NULL,        -- the published list (import-list CSV)
    file_sha256       VARCHAR NOT NULL,
    published_players INTEGER NOT NULL,
    computed_players  INTEGER NOT NULL,
    on_both           INTEGER NOT NULL,
    agree_exactly     INTEGER NOT NULL,        -- on both lists, the same rating
    within_one        INTEGER NOT NULL,        -- on both, one point apart
    beyond_one        INTEGER NOT NULL,        -- on both, more than one point apart
    only_computed     INTEGER NOT NULL,
    only_published    INTEGER NOT NULL,
    differing         INTEGER NOT NULL,        -- players with a cause (rating, games, K, category)
    reconciled_at     TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS list_reconciliation_player (
    run_id               VARCHAR NOT NULL,
    player_id            VARCHAR NOT NULL,
    name                 VARCHAR,
    cause                VARCHAR NOT NULL,     -- flows/reconcile.py, CAUSES
    evidence             VARCHAR NOT NULL,
    published_rating     INTEGER,
    computed_rating      INTEGER,
    difference           INTEGER,              -- published minus computed
    published_games      INTEGER,              -- games to date, as the federation counts them
    computed_total_games INTEGER,              -- games to date, as this list counts them
    computed_games       INTEGER,              -- of which in the list's period
    published_k          INTEGER,
    computed_k           INTEGER,
    published_category   VARCHAR,
    computed_category    VARCHAR,
    rating_basis         VARCHAR,              -- where the computed rating comes from
    PRIMARY KEY (run_id, player_id)
);
