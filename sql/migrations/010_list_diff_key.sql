-- A list's differences are kept against each revision it was compared with: a scenario's list
-- left as it was is compared again with the official revision that replaced the one it was
-- first compared with (its key lacked the revision compared with, and the second comparison
-- failed on it).

CREATE TABLE list_diff_keyed (
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
    PRIMARY KEY (system, scenario, list_date, revision, against_scenario, against_revision,
                 player_id)
);
INSERT INTO list_diff_keyed SELECT * FROM list_diff;
DROP TABLE list_diff;
ALTER TABLE list_diff_keyed RENAME TO list_diff;
