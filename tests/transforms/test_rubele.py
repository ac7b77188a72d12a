"""FID Elo-Rubele (RULES.md §3): the regulation's hand-checked cases and the engine's order of
tournaments. Expected numbers are worked out in the comments."""

from __future__ import annotations

import math
from datetime import date

import polars as pl
import pytest

from transforms.rubele import (
    CAPITAL_COLUMNS,
    ENTRY_COLUMNS,
    GAME_COLUMNS,
    TOURNAMENT_COLUMNS,
    RubeleInputError,
    apply_tournaments,
    capital_after,
)
from transforms.rubele_rulebook import parse_rubele_rulebook
from transforms.rulebook import RulebookError, default_rulebook_path

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
    assert capital_after(initial, difference, rulebook.era_at(BEFORE_Q), validity) == without_q
    assert capital_after(initial, difference, rulebook.era_at(WITH_Q), validity) == with_q


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
