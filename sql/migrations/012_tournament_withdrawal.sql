-- A tournament the analyst withdrew (a mistaken delivery): the version in state 'withdrawn'
-- that took it out of the lists, with the reason given. The versions before stay archived.
CREATE TABLE IF NOT EXISTS tournament_withdrawal (
    tournament_id VARCHAR NOT NULL,
    version       INTEGER NOT NULL,
    reason        VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    withdrawn_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tournament_id, version)
);
