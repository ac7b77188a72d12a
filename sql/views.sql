-- Views are recreated on every open: they hold no data, so replacing them is always safe.
--
-- Every number a person reads here is exact: an integer or a DECIMAL, never a binary double
-- (whose 5.1 may read 5.1000000000000005, and whose sums may round the other way). The tables
-- keep the engines' doubles (and, for the FSI variations, their exact hundredths); the views
-- give each value at the scale its rule gives it (docs/WAREHOUSE.md, "Exact numbers"):
-- scores and points in halves, DECIMAL(18, 1); variations in hundredths, DECIMAL(18, 2) (FSI:
-- from the stored integer hundredths); expected points to the engines' units, DECIMAL(18, 12).

-- report: the run's report as it printed it (for a recalculation, its list-by-list differences)
CREATE OR REPLACE VIEW run AS
SELECT run_id, flow, parameters, rulebook_hash, code_version, input_checksums,
       started_at, ended_at, status, counts, report
FROM run_record;

CREATE OR REPLACE VIEW rejection AS
SELECT problem_id AS rejection_id, run_id, source, file_name, file_sha256, line_no, field, value,
       reason, tournament_id, recorded_at
FROM input_problem
WHERE severity = 'error';

CREATE OR REPLACE VIEW input_warning AS
SELECT problem_id AS warning_id, run_id, source, file_name, file_sha256, line_no, field, value,
       reason, tournament_id, recorded_at
FROM input_problem
WHERE severity = 'warning';

-- The latest version of each tournament.
CREATE OR REPLACE VIEW tournament AS
SELECT *
FROM tournament_version
QUALIFY version = max(version) OVER (PARTITION BY tournament_id);

-- Entries of the latest version of each tournament, with analyst merges applied. Points as
-- the file gives them: halves (a TRF writes them with one decimal; a draughts file's results
-- are 1 / ½ / 0 or 2 / 1 / 0).
CREATE OR REPLACE VIEW tournament_player AS
SELECT e.tournament_id, e.version, e.start_number, e.name, e.sex, e.birth_date, e.federation,
       e.fide_id, e.national_id, e.rating_in_file, e.arbiter_rating,
       CAST(e.points AS DECIMAL(18, 1)) AS points, e.rank,
       coalesce(m.player_id, e.player_id) AS player_id,
       e.player_id AS ingested_player_id,
       CASE WHEN m.player_id IS NULL THEN e.match_method ELSE 'merge' END AS match_method
FROM tournament_entry e
JOIN tournament t USING (tournament_id, version)
LEFT JOIN player_merge m ON m.provisional_id = e.player_id;

-- Provisional players still waiting for the analyst.
CREATE OR REPLACE VIEW unmatched_player AS
SELECT pm.*
FROM player_match pm
JOIN tournament t USING (tournament_id, version)
WHERE pm.provisional_id NOT IN (SELECT provisional_id FROM player_merge);

-- The registry as loaded for each as-of date (a later load of the same date replaces it).
CREATE OR REPLACE VIEW registry_snapshot AS
SELECT l.as_of, p.*
FROM registry_player p
JOIN registry_load l USING (load_id)
QUALIFY l.load_id = max(l.load_id) OVER (PARTITION BY l.as_of);

-- The registry as it stood on day d: the latest snapshot on or before d.
CREATE OR REPLACE MACRO registry_at(d) AS TABLE
SELECT * EXCLUDE (load_id)
FROM registry_snapshot
WHERE as_of = (SELECT max(as_of) FROM registry_load WHERE as_of <= d);

CREATE OR REPLACE MACRO membership_at(d) AS TABLE
SELECT m.player_id, m.year
FROM registry_membership m
WHERE m.load_id = (
    SELECT max(load_id) FROM registry_load
    WHERE as_of = (SELECT max(as_of) FROM registry_load WHERE as_of <= d)
);

-- The FID (draughts) registry, as dated snapshots like the FSI one.
CREATE OR REPLACE VIEW fid_registry_snapshot AS
SELECT l.as_of, p.*
FROM fid_registry_player p
JOIN fid_registry_load l USING (load_id)
QUALIFY l.load_id = max(l.load_id) OVER (PARTITION BY l.as_of);

-- The revision in force of each official list (the latest one written).
CREATE OR REPLACE VIEW list_revision_current AS
SELECT *
FROM list_revision
WHERE scenario = 'official'
QUALIFY revision = max(revision) OVER (PARTITION BY system, list_date);

-- Public: every revision ever written, official and what-if scenarios.
CREATE OR REPLACE VIEW rating_list_revisions AS
SELECT e.system, e.list_date, e.revision, e.scenario, e.player_id, e.name, e.rating,
       e.rating_type, e.previous_rating, e.games, e.total_games, e.k, e.category, e.is_active,
       e.is_member, e.in_ranking, e.period_change, e.frozen_rating, e.rating_basis,
       e.previous_category, e.last_played, e.sex, e.birth_date, e.note,
       e.letter, e.letter_provisional, e.letter_held,
       r.source, r.run_id, r.rulebook_hash, r.created_at
FROM list_entry e
JOIN list_revision r USING (system, scenario, list_date, revision);

-- Public: one row per system, list date and player, latest official revision.
CREATE OR REPLACE VIEW rating_list AS
SELECT l.*
FROM rating_list_revisions l
JOIN list_revision_current c USING (system, scenario, list_date, revision);

-- Public: the Elo Rapid letter of every player at every list date (latest official revisions):
-- the label as published (D, or Dx while provisional), the letter held before, and whether it
-- changed at that list (reached, or became definitive).
CREATE OR REPLACE VIEW letter_history AS
SELECT system, list_date, player_id, name, rating, letter, letter_provisional, letter_held,
       category AS label, previous_category AS previous_label,
       category IS DISTINCT FROM previous_category AS changed
FROM rating_list
WHERE letter IS NOT NULL;

-- Public: the tournaments a list did not rate, and why (latest official revisions).
CREATE OR REPLACE VIEW excluded_tournament AS
SELECT x.system, x.list_date, x.revision, x.tournament_id, x.reason
FROM list_exclusion x
JOIN list_revision_current c USING (system, scenario, list_date, revision);

-- Public: per system, list date, tournament and player, latest official revision, every
-- stored column, with exact decimals in place of the engines' doubles:
-- - score: points in halves (W is 1, ½ or 0 per game), DECIMAL(18, 1);
-- - expected: FSI, in the engine's fixed-point unit, a billionth of a point (whole hundredths
--   with the FIDE table; transforms/elo/period.py, POINT); draughts, PA in the engine's whole
--   pico-points (transforms/rubele/capitals.py, PA_UNITS): DECIMAL(18, 12) for both;
-- - raw_variation, applied_variation: FSI, the stored integer hundredths over 100 (never the
--   double, which can be off by its last bit); draughts, V to the hundredth (the engine keeps V
--   unrounded; the notes show capitals to the hundredth too) and CF - CI, a whole number of
--   capital points: DECIMAL(18, 2) for both. A sum of applied_variation gives a player's
--   change exactly (FSI: the sum rounded, then added; as it is, draughts), but for an FSI era whose
--   expected.method is "logistic": the engine gives its variations to the hundredth only.
-- Rows with hundredths are the FSI ones (migration 008 gave them to those written before).
-- variation_revisions: the same for every revision ever written, official and what-if
-- scenarios (its scenario column tells them apart), as rating_list_revisions is to rating_list.
CREATE OR REPLACE VIEW variation_revisions AS
SELECT v.* REPLACE (
    CAST(v.score AS DECIMAL(18, 1)) AS score,
    CAST(CASE WHEN v.raw_hundredths IS NULL THEN CAST(v.expected AS DECIMAL(18, 12))
              ELSE CAST(v.expected AS DECIMAL(18, 9)) END AS DECIMAL(18, 12)) AS expected,
    coalesce(CAST(v.raw_hundredths * 0.01 AS DECIMAL(18, 2)),
             CAST(v.raw_variation AS DECIMAL(18, 2))) AS raw_variation,
    coalesce(CAST(v.applied_hundredths * 0.01 AS DECIMAL(18, 2)),
             CAST(v.applied_variation AS DECIMAL(18, 2))) AS applied_variation
)
FROM list_variation v;

CREATE OR REPLACE VIEW variation AS
SELECT v.*
FROM variation_revisions v
JOIN list_revision_current c USING (system, scenario, list_date, revision);

-- Public: national rankings of every revision ever written, official and what-if scenarios;
-- ranking: those of the latest official revision.
CREATE OR REPLACE VIEW ranking_revisions AS
SELECT k.system, k.list_date, k.revision, k.scenario, k.ranking, k.position, k.player_id,
       k.rating, e.name
FROM list_ranking k
JOIN list_entry e USING (system, scenario, list_date, revision, player_id);

CREATE OR REPLACE VIEW ranking AS
SELECT k.system, k.list_date, k.revision, k.ranking, k.position, k.player_id, k.rating, k.name
FROM ranking_revisions k
JOIN list_revision_current c USING (system, scenario, list_date, revision);

-- Public: accepted tournaments (latest version) that no list of their system will rate,
-- because they were received before the system's first official list takes tournaments: up to
-- the cut-off of a first list imported as the federation published it (the federation's list
-- stands for them), or before the window of a first list computed here.
CREATE OR REPLACE VIEW unrated_tournament AS
WITH first_list AS (
    SELECT system, list_date, source, received_after, received_up_to
    FROM list_revision_current
    QUALIFY list_date = min(list_date) OVER (PARTITION BY system)
)
SELECT t.system, t.tournament_id, t.version, t.received_on, t.start_date, t.end_date,
       t.delivery, t.run_id, f.list_date AS first_list_date,
       CASE WHEN f.source = 'imported' THEN
           'received on ' || t.received_on || ', by the cut-off (' || f.received_up_to
           || ') of the ' || t.system || ' list of ' || f.list_date
           || ', imported as the federation published it: no list computed here rates it '
           || '(its players'' participations count for the activity of the lists after it)'
       ELSE
           'received on ' || t.received_on || ', before the window of the first '
           || t.system || ' list (' || f.list_date || ': received after '
           || f.received_after || '): no list rates it'
       END AS reason
FROM tournament t
JOIN first_list f USING (system)
WHERE t.status = 'accepted'
  AND ((f.source = 'imported' AND t.received_on <= f.received_up_to)
       OR (f.source <> 'imported' AND t.received_on <= f.received_after));

-- Public: each reconciliation of a computed list with the list its federation published
-- (graduatoria reconcile): the revision compared, the file, and how far they agree. Ratings are
-- compared for the players on both lists: agree_exactly, within_one (one point apart),
-- beyond_one; differing counts the players of the view below.
CREATE OR REPLACE VIEW reconciliation_summary AS
SELECT run_id, system, scenario, list_date, revision, file_name, file_sha256,
       published_players, computed_players, on_both, agree_exactly, within_one, beyond_one,
       only_computed, only_published, differing, reconciled_at
FROM list_reconciliation;

-- Public: every player a reconciliation found differing (rating, games to date, K or
-- category), with the cause found and its evidence; difference is published minus computed.
CREATE OR REPLACE VIEW reconciliation AS
SELECT r.run_id, r.system, r.scenario, r.list_date, r.revision, r.file_name, r.reconciled_at,
       p.player_id, p.name, p.cause, p.evidence, p.published_rating, p.computed_rating,
       p.difference, p.published_games, p.computed_total_games, p.computed_games,
       p.published_k, p.computed_k, p.published_category, p.computed_category, p.rating_basis
FROM list_reconciliation_player p
JOIN list_reconciliation r USING (run_id);

-- Public: game by game, how each variation of the latest official revisions was calculated
-- (graduatoria explain prints the same rows for one player, checked against the list). One row
-- per round the player had in the tournament version the variation rated, counted or not:
-- - FSI: W, the own rating the tournament was valued at (frozen, or frozen + earlier groups)
--   and the opponent's frozen rating (the list's frozen_rating: a FIDE rating for a FIDE-rated
--   player), D (own minus the opponent; with expected.method "average_opponent", minus the
--   opponents' average, average_opponent), D as the cap lets it through, We, W - We, K and
--   K x (W - We): summed over the counted games of a variation, raw_variation before rounding
--   (applied_variation is after winner protection, in the variation view);
-- - draughts: PO(n), CI and the opponent's capital before the tournament, d, PA(n), PO - PA, S
--   and S x (PO - PA) (on the era's points scale, as the variation view gives score and
--   expected): summed, S x D before the validity factor.
-- Nothing is stored per game: these are the games as delivered, the list's rows and variations,
-- and the expected score of one game at each difference as the engines compute it
-- (expected_score, written once per rulebook and era by the lists). Lists written before it
-- existed show their games without expected scores until a run writes them again; a draughts
-- game against a player not rated whom the era counts at his entry capital shows no PA (explain
-- gives it). Exact decimals (docs/WAREHOUSE.md, "Exact numbers").
CREATE OR REPLACE VIEW game_calculation AS
WITH seat AS (
    SELECT e.tournament_id, e.version, e.start_number,
           coalesce(m.player_id, e.player_id) AS player_id
    FROM tournament_entry e
    LEFT JOIN player_merge m ON m.provisional_id = e.player_id
),
rounds AS (
    SELECT v.system, v.scenario, v.list_date, v.revision, v.tournament_id, v.tournament_version,
           v.player_id, v.sequence, v.wave, v.own_rating, v.k,
           v.raw_hundredths IS NOT NULL AS is_fsi,
           coalesce(v.era_from, c.era_from) AS era_from, c.rulebook_hash,
           g.round, o.player_id AS opponent_id, g.kind, g.played, g.score AS points
    FROM list_variation v
    JOIN list_revision_current c USING (system, scenario, list_date, revision)
    JOIN seat s
      ON s.tournament_id = v.tournament_id AND s.version = v.tournament_version
     AND s.player_id = v.player_id
    JOIN tournament_game g
      ON g.tournament_id = s.tournament_id AND g.version = s.version
     AND g.start_number = s.start_number
    LEFT JOIN seat o
      ON o.tournament_id = g.tournament_id AND o.version = g.version
     AND o.start_number = g.opponent
),
valued AS (
    SELECT r.*, x.method, x.difference_cap, x.difference_limit, x.units_per_point,
           coalesce(x.points_per_win, 1) AS points_per_win, x.unrated_opponents,
           CASE WHEN r.is_fsi THEN oe.frozen_rating ELSE ov.own_rating END AS opponent_rating,
           coalesce(oe.rating_basis = 'fide', false) AS opponent_fide,
           CASE
               -- FSI: a FIDE-rated player's games count only for his opponent (RULES.md §1.3)
               WHEN r.is_fsi THEN r.played AND coalesce(me.rating_basis <> 'fide', true)
               -- draughts: over the board, or a loss the era counts for its loser, against a
               -- player rated in that tournament (RULES.md §3)
               ELSE r.opponent_id IS NOT NULL AND ov.player_id IS NOT NULL
                    AND (r.kind = 'played'
                         OR (list_contains(x.counted_for_loser, r.kind) AND r.points = 0))
           END AS counted,
           NOT r.is_fsi AND r.kind = 'played' AND ov.player_id IS NULL AS against_unrated
    FROM rounds r
    LEFT JOIN expected_score_rule x USING (system, rulebook_hash, era_from)
    LEFT JOIN list_entry me
      ON r.is_fsi AND me.system = r.system AND me.scenario = r.scenario
     AND me.list_date = r.list_date AND me.revision = r.revision AND me.player_id = r.player_id
    LEFT JOIN list_entry oe
      ON r.is_fsi AND oe.system = r.system AND oe.scenario = r.scenario
     AND oe.list_date = r.list_date AND oe.revision = r.revision
     AND oe.player_id = r.opponent_id
    LEFT JOIN list_variation ov
      ON NOT r.is_fsi AND ov.system = r.system AND ov.scenario = r.scenario
     AND ov.list_date = r.list_date AND ov.revision = r.revision
     AND ov.tournament_id = r.tournament_id AND ov.player_id = r.opponent_id
),
averaged AS (
    -- expected.method "average_opponent": the opponents' average over the counted games,
    -- rounded to a whole number with halves up, as the engine takes it
    SELECT *,
           CASE WHEN counted AND method = 'average_opponent' THEN
               (2 * sum(opponent_rating) FILTER (WHERE counted) OVER entry
                + count(*) FILTER (WHERE counted) OVER entry)
               // (2 * count(*) FILTER (WHERE counted) OVER entry)
           END AS average_opponent
    FROM valued
    WINDOW entry AS (PARTITION BY system, scenario, list_date, revision, tournament_id,
                     player_id)
),
differenced AS (
    SELECT *,
           CASE WHEN counted THEN own_rating - coalesce(average_opponent, opponent_rating)
           END AS difference
    FROM averaged
),
expected AS (
    SELECT d.*,
           CAST(CASE WHEN d.units_per_point = 1000000000
                     THEN s.expected_units * d.points_per_win * 0.000000001
                     ELSE s.expected_units * d.points_per_win * 0.000000000001
                END AS DECIMAL(18, 12)) AS expected
    FROM differenced d
    LEFT JOIN expected_score s
      ON d.counted AND s.system = d.system AND s.rulebook_hash = d.rulebook_hash
     AND s.era_from = d.era_from
     AND s.difference = greatest(-d.difference_limit, least(d.difference_limit, d.difference))
)
SELECT system, list_date, revision, tournament_id, tournament_version, player_id, sequence,
       wave, round, opponent_id, kind, counted,
       CASE
           WHEN counted THEN NULL
           WHEN is_fsi AND played AND opponent_fide THEN 'both players FIDE-rated: FIDE rates it'
           WHEN is_fsi AND played THEN 'he is FIDE-rated: the game counts only for his opponent'
           WHEN against_unrated AND unrated_opponents = 'entry_capital'
               THEN 'against a player not rated in this era: counted at his entry capital '
                    || '(graduatoria explain shows it)'
           WHEN against_unrated THEN 'against a player not rated in this era: dropped'
           WHEN kind = 'forfeit' THEN 'forfeit: counts for nobody'
           WHEN kind = 'bye' THEN 'bye or absence: counts for nobody'
           WHEN kind = 'unpaired' THEN 'not paired'
           WHEN kind = 'unrated' THEN 'played, but marked not rated in the file: counts for nobody'
           WHEN kind = 'withdrawn' THEN 'opponent withdrew: counts for nobody'
           ELSE kind || ': counts for nobody'
       END AS left_out,
       CAST(points * points_per_win AS DECIMAL(18, 1)) AS score,
       own_rating,
       opponent_rating,
       average_opponent,
       difference,
       CASE WHEN difference_cap > 0
            THEN greatest(-difference_cap, least(difference_cap, difference))
            ELSE difference END AS capped_difference,
       CASE WHEN counted THEN expected END AS expected,
       CASE WHEN counted
            THEN CAST(CAST(points * points_per_win AS DECIMAL(18, 1)) - expected
                      AS DECIMAL(18, 12))
       END AS score_minus_expected,
       k,
       CASE WHEN counted
            THEN CAST(k * (CAST(points * points_per_win AS DECIMAL(18, 1)) - expected)
                      AS DECIMAL(18, 12))
       END AS variation
FROM expected;
