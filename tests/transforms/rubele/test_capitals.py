"""FID Elo-Rubele (RULES.md §3): the regulation's hand-checked cases and the engine's order of
tournaments. Expected numbers are worked out in the comments."""

from __future__ import annotations

import math
import re
from datetime import date

import polars as pl
import pytest

from tests.reference.random_rubele import edited_rulebook, era_change
from transforms.lists.eras import RulebookError, default_rulebook_path
from transforms.rubele.capitals import (
    CAPITAL_COLUMNS,
    ENTRY_COLUMNS,
    GAME_COLUMNS,
    KIND_COLUMN,
    TOURNAMENT_COLUMNS,
    RubeleInputError,
    apply_tournaments,
    before_start,
    capital_after,
    counted_games,
    unknown_validities,
)
from transforms.rubele.rulebook import parse_rubele_rulebook

ITALIANA = parse_rubele_rulebook(default_rulebook_path("rubele_italiana").read_bytes())
INTERNAZIONALE = parse_rubele_rulebook(default_rulebook_path("rubele_internazionale").read_bytes())
BEFORE_Q, WITH_Q = date(2021, 6, 1), date(2022, 6, 1)


# RULES.md §3, "Hand-checked cases" (D given directly, 1-point scale)
@pytest.mark.parametrize(
    ("rulebook", "initial", "difference", "validity", "without_q", "with_q"),
    [
        # S 150 below 3000: V = 120, 3070 crosses 3000: 3000 + 70 x 100/150 = 3046.67
        (ITALIANA, 2950, 0.8, 100, 3047, 3057),
        # S 240 below 2000: V = 240, 2190 crosses 2000: 2000 + 190 x 160/240 = 2126.67
        (INTERNAZIONALE, 1950, 1.0, 100, 2127, 2142),
        # V = -150: 410, raised to the minimum 500 (also with Q: 420 -> 500)
        (ITALIANA, 560, -1.0, 100, 500, 500),
        # S 100, 50 %: V = 150 / 2 = 75; Q is not halved
        (ITALIANA, 3500, 1.5, 50, 3575, 3585),
        # V = 1500: 4499 crosses 3000 -> 3999.33, then 3900 -> 3900 + 99.33 x 50/100 = 3949.67
        (ITALIANA, 2999, 10.0, 100, 3950, 3960),
        # no rescaling downward: 3050 - 100 = 2950
        (ITALIANA, 3050, -1.0, 100, 2950, 2960),
        # S 80 above 3000: V = -40
        (INTERNAZIONALE, 3100, -0.5, 100, 3060, 3075),
        # 3900 is in the middle band (S 100): 3950 crosses 3900: 3900 + 50 x 50/100 = 3925
        (ITALIANA, 3900, 0.5, 100, 3925, 3935),
    ],
)
def test_the_hand_checked_cases_of_the_regulation(
    rulebook, initial, difference, validity, without_q, with_q
) -> None:
    # under the default, the first-time rescaling (Art. 10), and under "every": each player has
    # held no more than CI, so none has passed a threshold yet (3900 has not passed 3900)
    assert rulebook.era_at(BEFORE_Q).rescale_upward == "first"
    assert rulebook.era_at(WITH_Q).rescale_upward == "first"
    for book in (rulebook, EVERY_BY_VARIANT[rulebook.variant]):
        for day, expected in ((BEFORE_Q, without_q), (WITH_Q, with_q)):
            era = book.era_at(day)
            assert capital_after(initial, difference, era, validity) == expected
            assert capital_after(initial, difference, era, validity, reached=initial) == expected


def test_a_capital_equal_to_the_threshold_has_not_passed_it() -> None:
    # RULES.md §3, CI 3900, D +0.5: 3900 is in the middle band (S 100), 3950 crosses 3900 for
    # the first time: 3900 + 50 x 50/100 = 3925, even for a player who held exactly 3900
    # before (a Maestro by 3900): he reached it, never passed it
    era = ITALIANA.era_at(BEFORE_Q)
    assert capital_after(3900, 0.5, era, reached=3900) == 3925
    # one who held 3901 had passed it: 3950, not rescaled
    assert capital_after(3900, 0.5, era, reached=3901) == 3950


def test_no_minimum_before_1994_01_16() -> None:
    # 560 - 150 = 410 stays 410 in the base era
    assert capital_after(560, -1.0, ITALIANA.era_at(date(1990, 1, 1))) == 410
    assert capital_after(560, -1.0, ITALIANA.era_at(date(1994, 1, 16))) == 500


def _frames(tournaments, entries, games, capitals):
    return (
        pl.DataFrame(capitals, schema=CAPITAL_COLUMNS, orient="row"),
        pl.DataFrame(tournaments, schema=TOURNAMENT_COLUMNS, orient="row"),
        pl.DataFrame(entries, schema=ENTRY_COLUMNS, orient="row"),
        pl.DataFrame(games, schema=GAME_COLUMNS, orient="row"),
    )


def test_a_tournament_of_two_debutants() -> None:
    # both enter at 1500 (dama italiana, other categories), A wins the only game:
    # PA = Phi(0) = 0.5 each; A: D = +0.5, S 150 -> +75 = 1575; B: -75 = 1425
    capitals, tournaments, entries, games = _frames(
        [("T1", date(2019, 3, 2), date(2019, 3, 2), 100)],
        [("T1", "A"), ("T1", "B")],
        [("T1", "A", "B", 1.0), ("T1", "B", "A", 0.0)],
        [("A", 1500), ("B", 1500)],
    )
    result = apply_tournaments(capitals, tournaments, entries, games, ITALIANA)
    assert result.capitals.sort("player_id").rows() == [("A", 1575, 1, 1), ("B", 1425, 1, 1)]
    assert result.variations.sort("player_id").select("expected", "variation").rows() == [
        (0.5, 75.0),
        (0.5, -75.0),
    ]


def test_overlapping_tournaments_are_applied_by_end_date_then_id() -> None:
    # P plays LONG (1-10 Mar) and SHORT (5-8 Mar): SHORT ends first, so it is applied first.
    # SHORT: P 1500 beats Q 1500: P 1575. LONG: P (now 1575) draws R 1575:
    # d = 0: PA 0.5, D 0: P stays 1575, R stays 1575.
    # Then two tournaments ending the same day: "A1" before "B1" by id.
    capitals, tournaments, entries, games = _frames(
        [
            ("LONG", date(2019, 3, 1), date(2019, 3, 10), 100),
            ("SHORT", date(2019, 3, 5), date(2019, 3, 8), 100),
            ("B1", date(2019, 4, 1), date(2019, 4, 1), 100),
            ("A1", date(2019, 4, 1), date(2019, 4, 1), 100),
        ],
        [
            ("LONG", "P"),
            ("LONG", "R"),
            ("SHORT", "P"),
            ("SHORT", "Q"),
            ("A1", "P"),
            ("A1", "Q"),
            ("B1", "P"),
            ("B1", "R"),
        ],
        [
            ("SHORT", "P", "Q", 1.0),
            ("SHORT", "Q", "P", 0.0),
            ("LONG", "P", "R", 0.5),
            ("LONG", "R", "P", 0.5),
            ("A1", "P", "Q", 0.5),
            ("A1", "Q", "P", 0.5),
            ("B1", "P", "R", 0.5),
            ("B1", "R", "P", 0.5),
        ],
        [("P", 1500), ("Q", 1500), ("R", 1575)],
    )
    result = apply_tournaments(capitals, tournaments, entries, games, ITALIANA)
    of_p = result.variations.filter(pl.col("player_id") == "P").sort("sequence")
    # A1: P 1575 draws Q 1425: d = 150, PA = Phi(150 / 1414.21) = 0.5422..., V = 150 x D
    pa = 0.5 * (1 + math.erf(150 / 1414.21 / math.sqrt(2)))
    after_a1 = math.floor(1575 + 150 * (0.5 - pa) + 0.5)  # 1575 - 6.3 -> 1569
    assert after_a1 == 1569
    assert of_p.select("tournament_id", "sequence", "initial").rows() == [
        ("SHORT", 1, 1500),
        ("LONG", 2, 1575),
        ("A1", 3, 1575),
        ("B1", 4, after_a1),
    ]
    assert of_p.row(2, named=True)["expected"] == pytest.approx(pa, abs=1e-9)
    waves = of_p.get_column("wave").to_list()
    assert waves == sorted(waves) and len(set(waves)) == 4


def test_a_participant_without_counted_game_keeps_his_capital_and_gets_no_q() -> None:
    capitals, tournaments, entries, games = _frames(
        [("T1", date(2022, 3, 2), date(2022, 3, 2), 100)],
        [("T1", "A"), ("T1", "B"), ("T1", "C")],
        [("T1", "A", "B", 0.5), ("T1", "B", "A", 0.5)],  # C only had forfeits and byes
        [("A", 1500), ("B", 1500), ("C", 1300)],
    )
    result = apply_tournaments(capitals, tournaments, entries, games, ITALIANA)
    # A and B: D = 0, V = 0, Q = 10 (2022); C: nothing
    assert result.capitals.sort("player_id").rows() == [
        ("A", 1510, 1, 1),
        ("B", 1510, 1, 1),
        ("C", 1300, 0, 0),
    ]


def test_inputs_that_contradict_each_other_are_refused() -> None:
    capitals, tournaments, entries, games = _frames(
        [("T1", date(2019, 3, 2), date(2019, 3, 2), 100)],
        [("T1", "A"), ("T1", "B")],
        [("T1", "A", "B", 1.0), ("T1", "B", "A", 0.0)],
        [("A", 1500)],
    )
    with pytest.raises(RubeleInputError, match="'B' has no capital"):
        apply_tournaments(capitals, tournaments, entries, games, ITALIANA)
    odd = tournaments.with_columns(pl.lit(70, dtype=pl.Int32).alias("validity"))
    with pytest.raises(RubeleInputError, match="validity 70 %"):
        apply_tournaments(
            pl.concat(
                [capitals, pl.DataFrame([("B", 1500)], schema=CAPITAL_COLUMNS, orient="row")]
            ),
            odd,
            entries,
            games,
            ITALIANA,
        )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("s = [150, 100, 50]", "s = [150, 100]"), "bands.s must be"),
        (("high = 3900", "high = 2000"), "bands.high must be above"),
        (('mode = "gauss"', 'mode = "normal"'), "expected.mode must be one of"),
        (('mode = "gauss"', 'mode = "banded"'), None),
        (("gauss_scale = 1414.21", "gauss_scale = 0"), "expected.gauss_scale"),
        (('rounding = "half_up"', 'rounding = "down"'), "capital.rounding"),
        (("gauss_scale = 1414.21", "gauss_scale = 1414.21\n  gaus_scale = 1000"), "gaus_scale"),
        (('table = "example_banded"', 'table = "no_such_table"'), "expected.table"),
    ],
)
def test_rubele_rulebooks_are_checked(change, message) -> None:
    text = default_rulebook_path("rubele_italiana").read_text(encoding="utf-8")
    assert change[0] in text
    changed = text.replace(change[0], change[1], 1).encode()
    if message is None:  # the example banded table is a valid conversion table
        era = parse_rubele_rulebook(changed).era_at(BEFORE_Q)
        assert (era.expected(0), era.expected(150), era.expected(-150)) == (0.5, 0.53, 0.47)
        return
    with pytest.raises(RulebookError, match=message):
        parse_rubele_rulebook(changed, "rubele_italiana.toml")


# --------------------------------------------------------------------------- rulebook settings
# Each non-default setting of RULES.md §3's [DEFAULT]s, by hand, next to the default. Rulebooks
# are the shipped ones with one line changed (through the parser and its checks).


def _edited(variant: str, *edits: tuple[str, str]):
    return edited_rulebook(variant, list(edits))


EVERY = _edited("italiana", ('upward = "first"', 'upward = "every"'))
EVERY_BY_VARIANT = {
    "italiana": EVERY,
    "internazionale": _edited("internazionale", ('upward = "first"', 'upward = "every"')),
}
FID_SCALE = _edited("italiana", ('scale = "one"', 'scale = "fid"'))
HALF_DOWN = _edited("italiana", ('rounding = "half_up"', 'rounding = "half_down"'))
DOWNWARD = _edited("italiana", ("downward = false", "downward = true"))
AFTER = _edited(
    "italiana", ('factor_stage = "before_rescaling"', 'factor_stage = "after_rescaling"')
)
Q_FACTOR_IT = _edited("italiana", ("factor_on_q = false", "factor_on_q = true"))
Q_FACTOR_INT = _edited("internazionale", ("factor_on_q = false", "factor_on_q = true"))
CAP_400 = _edited("italiana", ("difference_cap = 0 ", "difference_cap = 400 "))
FORFEIT_LOSSES = _edited("italiana", ("counted_for_loser = []", 'counted_for_loser = ["forfeit"]'))
BOTH_LOSSES = _edited(
    "italiana", ("counted_for_loser = []", 'counted_for_loser = ["forfeit", "withdrawn"]')
)
BY_START = _edited(
    "italiana",
    (
        'by = ["end_date", "start_date", "tournament_id"]',
        'by = ["start_date", "end_date", "tournament_id"]',
    ),
)
SEVENTY_FIVE = _edited(
    "italiana",
    ('factors = { "100" = 1.0, "50" = 0.5 }', 'factors = { "100" = 1.0, "75" = 0.75, "50" = 0.5 }'),
)


def test_the_shipped_rulebooks_keep_every_default() -> None:
    for rulebook in (ITALIANA, INTERNAZIONALE):
        assert rulebook.tournament_order == ("end_date", "start_date", "tournament_id")
        assert rulebook.country == "ITA"
        for era in rulebook.eras:
            assert (era.rescale_upward, era.rescale_downward) == ("first", False)
            assert (era.points_scale, era.points_per_win, era.rounding) == ("one", 1, "half_up")
            assert era.unrated_opponents == "dropped"
            assert (era.validity_factor_stage, era.validity_factor_on_q) == (
                "before_rescaling",
                False,
            )
            assert (era.difference_cap, era.counted_for_loser) == (0, ())


@pytest.mark.parametrize(
    ("initial", "difference", "reached", "every", "first"),
    [
        # S 150: 2950 + 120 = 3070. every: 3000 + 70 x 100/150 = 3046.67 -> 3047; first, 3001
        # held before (above 3000): no rescaling, 3070; 3000 held (a CM at his threshold) or
        # 2999: 3000 never passed, rescaled as every
        (2950, 0.8, 3001, 3047, 3070),
        (2950, 0.8, 3000, 3047, 3047),
        (2950, 0.8, 2999, 3047, 3047),
        # S 100: 3850 + 100 = 3950. every: 3900 + 50 x 50/100 = 3925; first: 3925 with 3900
        # held, 3950 with 3901
        (3850, 1.0, 3900, 3925, 3925),
        (3850, 1.0, 3901, 3925, 3950),
        # S 150, V 1500: 4499. every: 3999.33, then 3950 (the regulation's case); first with
        # 3500 held (3000 passed, 3900 not): 3000 is crossed as it is, S stays 150 for 3900:
        # 3900 + 599 x 50/150 = 4099.67 -> 4100
        (2999, 10.0, 3500, 3950, 4100),
        # both passed: 4499
        (2999, 10.0, 4000, 3950, 4499),
    ],
)
def test_first_rescales_only_a_threshold_never_passed(
    initial, difference, reached, every, first
) -> None:
    assert capital_after(initial, difference, EVERY.era_at(BEFORE_Q), reached=reached) == every
    assert capital_after(initial, difference, ITALIANA.era_at(BEFORE_Q), reached=reached) == first


def _two_tournament_history():
    # 2021, no Q, S 150 below 3000 / 100 from 3000; equal capitals: PA 0.5 a game.
    # T1: Y (3040) beats X (3040): X -50 -> 2990, Y +50 -> 3090; V (2990) beats U (2990):
    #   V +75 -> 3065, crossing 3000 for the first time: 3000 + 65 x 100/150 = 3043.33 -> 3043
    #   under both settings; U -75 -> 2915.
    # T2: X (2990, had 3040) beats Z (2990): +75 -> 3065, over 3000 again:
    #   every: 3043 (as V); first: not rescaled, 3065. Z -75 -> 2915.
    return _frames(
        [
            ("T1", date(2021, 3, 1), date(2021, 3, 1), 100),
            ("T2", date(2021, 4, 1), date(2021, 4, 1), 100),
        ],
        [("T1", "X"), ("T1", "Y"), ("T1", "V"), ("T1", "U"), ("T2", "X"), ("T2", "Z")],
        [
            ("T1", "Y", "X", 1.0),
            ("T1", "X", "Y", 0.0),
            ("T1", "V", "U", 1.0),
            ("T1", "U", "V", 0.0),
            ("T2", "X", "Z", 1.0),
            ("T2", "Z", "X", 0.0),
        ],
        [("X", 3040), ("Y", 3040), ("V", 2990), ("U", 2990), ("Z", 2990)],
    )


def test_a_player_back_over_3000_is_rescaled_every_time_or_only_the_first() -> None:
    every = apply_tournaments(*_two_tournament_history(), EVERY)
    first = apply_tournaments(*_two_tournament_history(), ITALIANA)
    capitals = {"X": 3043, "Y": 3090, "V": 3043, "U": 2915, "Z": 2915}
    assert dict(every.capitals.select("player_id", "capital").rows()) == capitals
    assert dict(first.capitals.select("player_id", "capital").rows()) == capitals | {"X": 3065}
    columns = ["reached", "crossings", "recrossed", "rescaled", "final"]
    x_in_t2 = (pl.col("player_id") == "X") & (pl.col("tournament_id") == "T2")
    assert every.variations.filter(x_in_t2).select(columns).row(0) == pytest.approx(
        (3040, 1, 0, 3000 + 65 * 100 / 150, 3043)
    )
    assert first.variations.filter(x_in_t2).select(columns).row(0) == (3040, 0, 1, 3065.0, 3065)


def _above_below_and_back():
    # 2021 (no Q), italiana; equal capitals in every game: PA 0.5.
    # T1: A (2990) beats B (2990): V +75 -> 3065, over 3000 for the first time:
    #   3000 + 65 x 100/150 = 3043.33 -> 3043 (both settings); B 2915.
    # T2: A (3043, S 100) loses to C (3043): V -50 -> 2993 (no downward rescaling); C 3093.
    # T3: A (2993) beats D (2993): V +75 -> 3068, over 3000 again.
    #   every: 3000 + 68 x 100/150 = 3045.33 -> 3045; first: A held 3043 > 3000, 3068.
    #   D 2918.
    return _frames(
        [
            ("T1", date(2021, 3, 1), date(2021, 3, 1), 100),
            ("T2", date(2021, 4, 1), date(2021, 4, 1), 100),
            ("T3", date(2021, 5, 1), date(2021, 5, 1), 100),
        ],
        [("T1", "A"), ("T1", "B"), ("T2", "A"), ("T2", "C"), ("T3", "A"), ("T3", "D")],
        [
            ("T1", "A", "B", 1.0),
            ("T1", "B", "A", 0.0),
            ("T2", "A", "C", 0.0),
            ("T2", "C", "A", 1.0),
            ("T3", "A", "D", 1.0),
            ("T3", "D", "A", 0.0),
        ],
        [("A", 2990), ("B", 2990), ("C", 3043), ("D", 2993)],
    )


def test_above_the_threshold_below_it_and_back_over_it() -> None:
    first = apply_tournaments(*_above_below_and_back(), ITALIANA)  # the default
    every = apply_tournaments(*_above_below_and_back(), EVERY)
    of_a = pl.col("player_id") == "A"
    assert first.variations.filter(of_a).select("initial", "final").rows() == [
        (2990, 3043),
        (3043, 2993),
        (2993, 3068),
    ]
    assert every.variations.filter(of_a).select("initial", "final").rows() == [
        (2990, 3043),
        (3043, 2993),
        (2993, 3045),
    ]
    # T3 under first: crossed again, not rescaled, the 3043 he held said so
    t3 = first.variations.filter(of_a & (pl.col("tournament_id") == "T3")).row(0, named=True)
    assert (t3["reached"], t3["crossings"], t3["recrossed"]) == (3043, 0, 1)
    others = {"B": 2915, "C": 3093, "D": 2918}
    for result in (first, every):
        capitals = dict(result.capitals.select("player_id", "capital").rows())
        assert {player: capitals[player] for player in others} == others


def test_back_over_a_threshold_only_held_exactly_is_the_first_time() -> None:
    # 2021 (no Q). T1: P (3000, S 100: 3000 is the middle band) loses to Q (3000): V -50 ->
    # 2950; Q 3050. T2: P (2950) beats R (2950): V +75 -> 3025 over 3000. P had held 3000,
    # never more: he passes it for the first time: 3000 + 25 x 100/150 = 3016.67 -> 3017
    # under both settings; R 2875.
    frames = _frames(
        [
            ("T1", date(2021, 3, 1), date(2021, 3, 1), 100),
            ("T2", date(2021, 4, 1), date(2021, 4, 1), 100),
        ],
        [("T1", "P"), ("T1", "Q"), ("T2", "P"), ("T2", "R")],
        [
            ("T1", "P", "Q", 0.0),
            ("T1", "Q", "P", 1.0),
            ("T2", "P", "R", 1.0),
            ("T2", "R", "P", 0.0),
        ],
        [("P", 3000), ("Q", 3000), ("R", 2950)],
    )
    for rulebook in (ITALIANA, EVERY):
        result = apply_tournaments(*frames, rulebook)
        assert dict(result.capitals.select("player_id", "capital").rows()) == {
            "P": 3017,
            "Q": 3050,
            "R": 2875,
        }


def test_a_reached_capital_from_before_the_run_counts_for_first() -> None:
    # Z (2990) is known to have held 3001 (above 3000): beating X in T2 he would reach 3065,
    # not rescaled under "first"; X, now the loser, stays at 2990 - 75 = 2915 either way.
    # Known to have held 3000 exactly (a CM at his threshold), or nothing: rescaled, 3043.
    capitals, tournaments, entries, games = _two_tournament_history()
    swapped = games.with_columns(
        pl.when(pl.col("tournament_id") == "T2")
        .then(1.0 - pl.col("points"))
        .otherwise(pl.col("points"))
        .alias("points")
    )
    for held, z_final in ((3001, 3065), (3000, 3043), (None, 3043)):
        known = capitals.with_columns(
            pl.when(pl.col("player_id") == "Z").then(held).otherwise(None).alias("reached")
        )
        result = apply_tournaments(known, tournaments, entries, swapped, ITALIANA)
        assert dict(result.capitals.select("player_id", "capital").rows())["Z"] == z_final
    unknown = apply_tournaments(capitals, tournaments, entries, swapped, ITALIANA)
    assert dict(unknown.capitals.select("player_id", "capital").rows())["Z"] == 3043


@pytest.mark.parametrize(
    ("initial", "difference", "default", "downward"),
    [
        # S 100: 3050 - 100 = 2950, below 3000: 3000 - 50 x 150/100 = 2925
        (3050, -1.0, 2950, 2925),
        # S 50, V -1000: 2950; below 3900: 3900 - 950 x 100/50 = 2000; below 3000:
        # 3000 - 1000 x 150/100 = 1500
        (3950, -20.0, 2950, 1500),
        # not crossing: 3500 - 100 = 3400 either way; upward crossings as before
        (3500, -1.0, 3400, 3400),
        (2950, 0.8, 3047, 3047),
    ],
)
def test_downward_rescaling(initial, difference, default, downward) -> None:
    assert capital_after(initial, difference, ITALIANA.era_at(BEFORE_Q)) == default
    assert capital_after(initial, difference, DOWNWARD.era_at(BEFORE_Q)) == downward


def test_the_validity_factor_before_or_after_the_rescaling() -> None:
    # 50 %: before (default): V = 150 x 0.8 x 0.5 = 60, 3010 -> 3000 + 10 x 100/150 = 3007;
    # after: 3070 -> 3046.67, then 2950 + 96.67 x 0.5 = 2998.33 -> 2998
    assert capital_after(2950, 0.8, ITALIANA.era_at(BEFORE_Q), 50) == 3007
    assert capital_after(2950, 0.8, AFTER.era_at(BEFORE_Q), 50) == 2998
    # at 100 % the stage changes nothing: 3047
    assert capital_after(2950, 0.8, AFTER.era_at(BEFORE_Q), 100) == 3047


def test_q_times_the_validity_factor() -> None:
    # 50 %: 3500 + 75 = 3575, + Q 10 (default) = 3585, + Q 10 x 0.5 = 3580
    assert capital_after(3500, 1.5, ITALIANA.era_at(WITH_Q), 50) == 3585
    assert capital_after(3500, 1.5, Q_FACTOR_IT.era_at(WITH_Q), 50) == 3580
    # internazionale: 2000 + Q 15 = 2015; + 15 x 0.5 = 2007.5, halves up: 2008
    assert capital_after(2000, 0.0, INTERNAZIONALE.era_at(WITH_Q), 50) == 2015
    assert capital_after(2000, 0.0, Q_FACTOR_INT.era_at(WITH_Q), 50) == 2008
    assert capital_after(2000, 0.0, Q_FACTOR_INT.era_at(WITH_Q), 100) == 2015


def test_a_cap_on_the_capital_difference() -> None:
    # A 3000 beats B 1000 (2021, no Q): d = 2000. No cap: PA(A) = Phi(2000 / 1414.21) = 0.92135,
    # A: 3000 + 100 x 0.07865 = 3007.9 -> 3008; B: 1000 - 150 x 0.07865 = 988.2 -> 988.
    # Cap 400: PA(A) = Phi(400 / 1414.21) = 0.61135: A + 100 x 0.38865 = 3038.9 -> 3039;
    # B - 150 x 0.38865 = 941.7 -> 942
    frames = _frames(
        [("T", date(2021, 3, 1), date(2021, 3, 1), 100)],
        [("T", "A"), ("T", "B")],
        [("T", "A", "B", 1.0), ("T", "B", "A", 0.0)],
        [("A", 3000), ("B", 1000)],
    )
    plain = apply_tournaments(*frames, ITALIANA)
    assert plain.capitals.get_column("capital").to_list() == [3008, 988]
    capped = apply_tournaments(*frames, CAP_400)
    assert capped.capitals.get_column("capital").to_list() == [3039, 942]
    assert capped.variations.sort("player_id").get_column("expected").to_list() == pytest.approx(
        [0.6113515677, 0.3886484323]
    )


def _games_with_kinds():
    # 2021, everyone at 1500: A and B draw over the board; A wins against C by forfeit; C
    # withdraws against B (B's row, B wins)
    capitals, tournaments, entries, _ = _frames(
        [("T", date(2021, 3, 1), date(2021, 3, 1), 100)],
        [("T", "A"), ("T", "B"), ("T", "C")],
        [],
        [("A", 1500), ("B", 1500), ("C", 1500)],
    )
    games = pl.DataFrame(
        [
            ("T", "A", "B", 0.5, "played"),
            ("T", "B", "A", 0.5, "played"),
            ("T", "A", "C", 1.0, "forfeit"),
            ("T", "C", "A", 0.0, "forfeit"),
            ("T", "B", "C", 1.0, "withdrawn"),
            ("T", "C", "B", 0.0, "withdrawn"),
        ],
        schema=GAME_COLUMNS | {KIND_COLUMN: pl.Utf8},
        orient="row",
    )
    return capitals, tournaments, entries, games


@pytest.mark.parametrize(
    ("rulebook", "c_games", "c_capital"),
    [
        # default: only the draw counts; C has no counted game and keeps 1500
        (ITALIANA, 0, 1500),
        # C's forfeit loss counts: PA 0.5, D -0.5, V -75: 1425
        (FORFEIT_LOSSES, 1, 1425),
        # and his withdrawal: PA 1.0, D -1, V -150: 1350
        (BOTH_LOSSES, 2, 1350),
    ],
)
def test_games_not_played_count_for_their_loser_when_the_rulebook_says_so(
    rulebook, c_games, c_capital
) -> None:
    result = apply_tournaments(*_games_with_kinds(), rulebook)
    # the winners' sides never count: A and B keep their one drawn game, D 0
    assert result.capitals.sort("player_id").rows() == [
        ("A", 1500, 1, 1),
        ("B", 1500, 1, 1),
        ("C", c_capital, int(c_games > 0), c_games),
    ]


def test_counted_games_picks_the_rows_of_the_rule() -> None:
    _, tournaments, _, games = _games_with_kinds()
    assert counted_games(games, tournaments, ITALIANA).height == 2
    counted = counted_games(games, tournaments, BOTH_LOSSES)
    assert counted.columns == list(GAME_COLUMNS)
    assert counted.select("player_id", "opponent_id").rows() == [
        ("A", "B"),
        ("B", "A"),
        ("C", "A"),
        ("C", "B"),
    ]


def test_the_order_of_tournaments_is_the_rulebooks() -> None:
    # P plays LONG (1-10 Mar) and SHORT (5-8 Mar), beating R in LONG and Q in SHORT; all 1500.
    # By end date (default): SHORT first: P 1575, Q 1425; then LONG: P (1575) beats R (1500):
    #   P's PA = Phi(75 / 1414.21) = 0.52115, D +0.47885, V +71.83 -> 1646.8 -> 1647; R's PA
    #   0.47885, D -0.47885, V -71.83 -> 1428.2 -> 1428.
    # By start date: LONG first: R 1425, then SHORT: Q 1428; P 1647 too.
    frames = _frames(
        [
            ("LONG", date(2021, 3, 1), date(2021, 3, 10), 100),
            ("SHORT", date(2021, 3, 5), date(2021, 3, 8), 100),
        ],
        [("LONG", "P"), ("LONG", "R"), ("SHORT", "P"), ("SHORT", "Q")],
        [
            ("LONG", "P", "R", 1.0),
            ("LONG", "R", "P", 0.0),
            ("SHORT", "P", "Q", 1.0),
            ("SHORT", "Q", "P", 0.0),
        ],
        [("P", 1500), ("Q", 1500), ("R", 1500)],
    )
    by_end = apply_tournaments(*frames, ITALIANA)
    by_start = apply_tournaments(*frames, BY_START)
    assert by_end.capitals.select("capital").to_series().to_list() == [1647, 1425, 1428]
    assert by_start.capitals.select("capital").to_series().to_list() == [1647, 1428, 1425]
    of_p = pl.col("player_id") == "P"
    assert by_end.variations.filter(of_p).select("tournament_id", "initial").rows() == [
        ("SHORT", 1500),
        ("LONG", 1575),
    ]
    assert by_start.variations.filter(of_p).select("tournament_id", "initial").rows() == [
        ("LONG", 1500),
        ("SHORT", 1575),
    ]


def test_on_the_fid_points_scale_po_and_pa_double_and_so_does_v() -> None:
    # 50 %, S 100: 1 / ½ / 0: D 1.5, V = 100 x 1.5 x 0.5 = 75 -> 3575; 2 / 1 / 0: PO and PA
    # doubled, D 3.0, V 150 -> 3650
    assert capital_after(3500, 1.5, ITALIANA.era_at(BEFORE_Q), 50) == 3575
    assert capital_after(3500, 1.5, FID_SCALE.era_at(BEFORE_Q), 50) == 3650
    # with a crossing: D 1.6, V 240: 3190 -> 3000 + 190 x 100/150 = 3126.67 -> 3127
    assert capital_after(2950, 0.8, FID_SCALE.era_at(BEFORE_Q)) == 3127
    # two debutants at 1500 (2021): A beats B. PO 1, PA 0.5 (D 0.5, V 75: 1575 / 1425); on
    # 2 / 1 / 0, PO 2, PA 1 (D 1, V 150): 1650 / 1350
    frames = _frames(
        [("T1", date(2021, 3, 2), date(2021, 3, 2), 100)],
        [("T1", "A"), ("T1", "B")],
        [("T1", "A", "B", 1.0), ("T1", "B", "A", 0.0)],
        [("A", 1500), ("B", 1500)],
    )
    one = apply_tournaments(*frames, ITALIANA)
    fid = apply_tournaments(*frames, FID_SCALE)
    assert one.capitals.get_column("capital").to_list() == [1575, 1425]
    assert fid.capitals.get_column("capital").to_list() == [1650, 1350]
    assert fid.variations.get_column("variation").to_list() == [150.0, -150.0]


def test_the_rounding_of_an_exact_half() -> None:
    # 1950 (base era, S 150) + 150 x 0.01 = 1951.5: halves up 1952, halves down 1951;
    # - 1.5: 1948.5 -> 1949 or 1948; 2950 + 120 = 3070 -> 3046.67 -> 3047 either way
    base = date(1990, 1, 1)
    for difference, up, down in ((0.01, 1952, 1951), (-0.01, 1949, 1948)):
        assert capital_after(1950, difference, ITALIANA.era_at(base)) == up
        assert capital_after(1950, difference, HALF_DOWN.era_at(base)) == down
    assert capital_after(2950, 0.8, HALF_DOWN.era_at(base)) == 3047


def test_a_tournament_before_the_variant_is_rated_is_refused() -> None:
    # dama italiana from 1987 (the first era's 1987-01-01), dama internazionale from 1981
    assert (ITALIANA.rated_from, INTERNAZIONALE.rated_from) == (date(1987, 1, 1), date(1981, 1, 1))
    frames = _frames(
        [
            ("OLD", date(1986, 12, 28), date(1986, 12, 31), 100),
            ("NEW", date(1987, 1, 1), date(1987, 1, 1), 100),
        ],
        [("OLD", "A"), ("OLD", "B"), ("NEW", "A"), ("NEW", "B")],
        [("NEW", "A", "B", 0.5), ("NEW", "B", "A", 0.5)],
        [("A", 2000), ("B", 2000)],
    )
    assert before_start(frames[1], ITALIANA).rows() == [
        (
            "OLD",
            "ends on 1986-12-31, before dama italiana is rated (from 1987-01-01, the "
            "rulebook's first era)",
        )
    ]
    with pytest.raises(RubeleInputError, match="'OLD' ends on 1986-12-31, before dama italiana"):
        apply_tournaments(*frames, ITALIANA)
    # dama internazionale was rated then: both tournaments are applied
    assert before_start(frames[1], INTERNAZIONALE).height == 0
    assert apply_tournaments(*frames, INTERNAZIONALE).variations.height == 4


def test_a_validity_the_era_knows_and_one_it_does_not() -> None:
    # 75 %, added to the rulebook: V = 100 x 1.5 x 0.75 = 112.5, 3612.5 -> 3613
    assert capital_after(3500, 1.5, SEVENTY_FIVE.era_at(BEFORE_Q), 75) == 3613
    tournaments = pl.DataFrame(
        [
            ("T1", None, date(2021, 3, 1), 100),
            ("T2", None, date(2021, 3, 1), 75),
            ("T3", None, date(1960, 3, 1), 50),  # before the first era: the first era's
        ],
        schema=TOURNAMENT_COLUMNS,
        orient="row",
    )
    assert unknown_validities(tournaments, SEVENTY_FIVE).height == 0
    assert unknown_validities(tournaments, ITALIANA).rows() == [
        (
            "T2",
            "validity 75 % is not a validity of the rulebook's era from 1994-01-16 (in force on "
            "the end date 2021-03-01): it knows 100 %, 50 %",
        )
    ]


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([('upward = "first"', 'upward = "sometimes"')], "rescaling.upward must be one of"),
        ([("downward = false", 'downward = "no"')], "rescaling.downward must be true or false"),
        ([("difference_cap = 0 ", "difference_cap = -1 ")], "expected.difference_cap must be"),
        (
            [('factor_stage = "before_rescaling"', 'factor_stage = "later"')],
            "validity.factor_stage must be one of",
        ),
        ([("factor_on_q = false", "factor_on_q = 1")], "validity.factor_on_q must be true or"),
        (
            [("counted_for_loser = []", 'counted_for_loser = ["bye"]')],
            "games.counted_for_loser must list distinct names among",
        ),
        (
            [('factors = { "100" = 1.0, "50" = 0.5 }', 'factors = { "100" = 1.0, "0" = 0.5 }')],
            "validity.factors.0 is not valid",
        ),
        (
            [
                (
                    'by = ["end_date", "start_date", "tournament_id"]',
                    'by = ["end_date", "start_date"]',
                )
            ],
            "order.by must end with tournament_id",
        ),
        (
            [
                (
                    'by = ["end_date", "start_date", "tournament_id"]',
                    'by = ["end_date", "end_date", "tournament_id"]',
                )
            ],
            "order.by must list distinct names",
        ),
        (
            [era_change("italiana", "2022-01-01", '  [eras.order]\n  by = ["tournament_id"]\n')],
            "era 2022-01-01: order.by must be the same in every era",
        ),
        ([('scale = "one"', 'scale = "two"')], "points.scale must be one of"),
        ([('rounding = "half_up"', 'rounding = "half_even"')], "capital.rounding must be one of"),
        (
            [('categories = ["M", "CM", "N"]', 'categories = ["M", "GM"]')],
            "rated.categories must list distinct names among",
        ),
        (
            [('categories = ["M", "CM", "N"]', "categories = []")],
            "rated.categories must list distinct names among",
        ),
        (
            [('unrated_opponents = "dropped"', 'unrated_opponents = "kept"')],
            "rated.unrated_opponents must be one of",
        ),
        (
            [("  other = 1500\n", '  other = 1500\n  italiana_category = { "M" = 2000 }\n')],
            "debutants.italiana_category is a rule of dama internazionale only",
        ),
        ([('country = "ITA"', 'country = "Italia"')], "federation.country must be a three-"),
        (
            [era_change("italiana", "2022-01-01", '  [eras.federation]\n  country = "SMR"\n')],
            "era 2022-01-01: federation.country must be the same in every era",
        ),
    ],
)
def test_the_new_rubele_keys_are_checked(edits, message) -> None:
    with pytest.raises(RulebookError, match=re.escape(message)):
        edited_rulebook("italiana", edits)
