-- What the public view game_calculation needs beyond what a list stores to show its variations
-- game by game: the engines' expected score of one game at every rating (capital) difference,
-- per system, rulebook and era, as the engines compute it (written with the first list of that
-- rulebook and era: a few thousand rows, once). Nothing is stored per game: the view reads the
-- games of the tournament versions the variations rated (docs/WAREHOUSE.md, game_calculation).

CREATE TABLE IF NOT EXISTS expected_score_rule (
    system            VARCHAR NOT NULL,
    rulebook_hash     VARCHAR NOT NULL,
    era_from          DATE NOT NULL,
    family            VARCHAR NOT NULL,        -- elo | rubele
    method            VARCHAR NOT NULL,        -- table | average_opponent | logistic | gauss | banded
    difference_cap    INTEGER NOT NULL,        -- 0: none
    difference_limit  INTEGER NOT NULL,        -- expected_score holds -limit..limit; beyond, the end
    units_per_point   BIGINT NOT NULL,         -- 10^9 (FSI), 10^12 (draughts: pico-points)
    points_per_win    INTEGER NOT NULL,        -- draughts: 2 on the FID's 2 / 1 / 0 scale
    counted_for_loser VARCHAR[],               -- draughts: game kinds that count for their loser
    unrated_opponents VARCHAR,                 -- draughts: dropped | entry_capital
    PRIMARY KEY (system, rulebook_hash, era_from)
);

CREATE TABLE IF NOT EXISTS expected_score (
    system         VARCHAR NOT NULL,
    rulebook_hash  VARCHAR NOT NULL,
    era_from       DATE NOT NULL,
    difference     INTEGER NOT NULL,           -- own rating (capital) - the opponent's
    expected_units BIGINT NOT NULL,            -- one game's We (PA(n)) in units_per_point
    PRIMARY KEY (system, rulebook_hash, era_from, difference)
);
