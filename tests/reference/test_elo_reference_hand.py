"""Hand-worked cases of the Elo reference (``tests/reference/elo_italia.py``) for the rulebook
values of issue 30: the K schedule and ``k_rule``, the rounding modes, the tournament order,
the expected-score methods, winner protection, FIDE re-entry ratings and arbiter entry.

Every number is worked out in the comments from RULES.md §1 and the table of §1.6 (PD of the
band containing |D|); none is read back from the code. The eras are the shipped ones, changed
with ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from fractions import Fraction
from typing import Any

import pytest

from tests.reference.elo_italia import (
    ReferenceResult,
    logistic_expected,
    near_rounding_edge,
    reference_period,
    round_mode,
)
from tests.reference.random_periods import (
    K_LADDER,
    K_REGISTRY_SECOND,
    ORDERS,
    PLAYER_SCHEMA,
    elo_italia_rulebook,
    elo_rapid_rulebook,
)
from transforms.elo.rulebook import EloEra

Row = dict[str, Any]
BOOK = elo_italia_rulebook()
ERA_1990 = BOOK.era_at(date(1990, 1, 1))  # FIDE minimum 1801: re-entry 1800
ERA_2009 = BOOK.era_at(date(2009, 7, 1))  # cap 400, groups of 4 from K 20, FIDE minimum 1200
RAPID = elo_rapid_rulebook().era_at(date(2009, 7, 1))  # FIDE holders stay, no arbiter entry
DAY = date(2010, 3, 1)


def player(pid: str, **values: Any) -> Row:
    """A player on the previous list's terms: 100 counted games unless told."""
    row: Row = dict.fromkeys(PLAYER_SCHEMA)
    row.update(player_id=pid, on_list_as_fide=False, total_games=100)
    row.update(values)
    return row


def entry(
    tid: str, pid: str, points: float, end: date | None = DAY, start: date | None = DAY
) -> Row:
    return {
        "tournament_id": tid,
        "player_id": pid,
        "points": points,
        "start_date": start,
        "end_date": end,
    }


def game(tid: str, pid: str, opponent: str, score: float) -> list[Row]:
    """Both sides' view of one game; ``score`` is ``pid``'s."""
    return [
        {"tournament_id": tid, "player_id": pid, "opponent_id": opponent, "score": score},
        {"tournament_id": tid, "player_id": opponent, "opponent_id": pid, "score": 1 - score},
    ]


def ratings(result: ReferenceResult) -> dict[str, Row]:
    return {row["player_id"]: row for row in result.ratings}


def variations(result: ReferenceResult) -> dict[tuple[str, str], Row]:
    return {(row["tournament_id"], row["player_id"]): row for row in result.variations}


def era(base: EloEra, **changes: Any) -> EloEra:
    return dataclasses.replace(base, **changes)


# --------------------------------------------------------------------------- 1. K schedule


def test_k_ladder_by_rating_bands() -> None:
    """[rating >= 2200: 10, rating >= 1800: 20, always 25]: the first line that holds."""
    players = [
        player("a", list_rating=2200),  # line 0: 2200 >= 2200 -> K 10
        player("b", list_rating=2199),  # line 1: 2199 >= 1800 -> K 20
        player("c", list_rating=1800),  # line 1: 1800 >= 1800 -> K 20
        player("d", list_rating=1799),  # line 2: always -> K 25
        player("e", list_rating=1500, k_override=40),  # no registry line: K 25, line 2
    ]
    # d (1799) beats c (1800): D = -1, |D| in 0-3, PD 0.50, We(d) = 1 - 0.50 = 0.50
    # V(d) = 25 x (1 - 0.50) = +12.50; V(c) = 20 x (0 - 0.50) = -10.00
    result = reference_period(
        players,
        [entry("T", "d", 1), entry("T", "c", 0)],
        game("T", "d", "c", 1),
        era(ERA_2009, k=K_LADDER),
    )
    got = {pid: (row["k"], row["k_rule"]) for pid, row in ratings(result).items()}
    assert got == {"a": (10, 0), "b": (20, 1), "c": (20, 1), "d": (25, 2), "e": (25, 2)}
    assert variations(result)["T", "d"]["raw_hundredths"] == 1250
    assert variations(result)["T", "c"]["raw_hundredths"] == -1000
    # d: 1799 + 12.50 rounded (13) = 1812; c: 1800 - 10 = 1790
    assert ratings(result)["d"]["rating"] == 1812
    assert ratings(result)["c"]["rating"] == 1790


def test_k_schedule_with_the_registry_line_second() -> None:
    """[games < 30: 30, registry, rating < 1600: 40, always 15]."""
    players = [
        player("newcomer", list_rating=1700, total_games=5, k_override=12),  # line 0: 30
        player("veteran", list_rating=1700, total_games=30, k_override=12),  # line 1: 12
        player("unknown_games", list_rating=1700, total_games=None),  # null = 0 < 30: line 0
        player("low", list_rating=1599, total_games=30),  # line 2: 1599 < 1600 -> 40
        player("edge", list_rating=1600, total_games=30),  # 1600 is not < 1600: line 3, 15
        player("fide", fide_start=1500, total_games=100),  # the FIDE rating is frozen: 40
    ]
    result = reference_period(players, [], [], era(ERA_2009, k=K_REGISTRY_SECOND))
    got = {pid: (row["k"], row["k_rule"]) for pid, row in ratings(result).items()}
    assert got == {
        "newcomer": (30, 0),
        "veteran": (12, 1),
        "unknown_games": (30, 0),
        "low": (40, 2),
        "edge": (15, 3),
        "fide": (40, 2),
    }


# --------------------------------------------------------------------------- 2. rounding


def rounding_period() -> tuple[list[Row], list[Row], list[Row]]:
    players = [
        # W beats L, both 1500 and K 25 (the registry): D = 0, We = 0.50, V = +-12.50
        player("W", list_rating=1500, k_override=25),
        player("L", list_rating=1500, k_override=25),
        # W2 beats L2, both 1500 and K 27: V = +-13.50
        player("W2", list_rating=1500, k_override=27),
        player("L2", list_rating=1500, k_override=27),
        # N (K 25, so in groups of 4) carries 12.50 into his 5th tournament
        player("N", list_rating=1500, k_override=25),
        player("E", list_rating=1500, k_override=10),
        player("F", list_rating=1502, k_override=10),
    ]
    entries = [entry("T1", "W", 1), entry("T1", "L", 0), entry("T2", "W2", 1), entry("T2", "L2", 0)]
    games = game("T1", "W", "L", 1) + game("T2", "W2", "L2", 1)
    # G1: N beats E (D = 0): +12.50. G2-G4: draws with E (D = 0): 0. G5: N loses to F.
    for number, n_score in ((1, 1.0), (2, 0.5), (3, 0.5), (4, 0.5)):
        day = date(2010, 3, number)
        tid = f"G{number}"
        entries += [entry(tid, "N", n_score, day, day), entry(tid, "E", 1 - n_score, day, day)]
        games += game(tid, "N", "E", n_score)
    day5 = date(2010, 3, 5)
    entries += [entry("G5", "N", 0, day5, day5), entry("G5", "F", 1, day5, day5)]
    games += game("G5", "N", "F", 0)
    return players, entries, games


@pytest.mark.parametrize(
    ("mode", "win", "loss", "win2", "loss2", "n_own", "n_g5", "n_rating"),
    [
        # 12.5 -> 13, -12.5 -> -13, 13.5 -> 14, -13.5 -> -14. N's 5th tournament: own 1500 + 13
        # = 1513, D = 1513 - 1502 = 11 (band 11-17, 0.52), V = 25 x (0 - 0.52) = -13.00; his
        # sum 12.50 - 13.00 = -0.50 -> -1: 1499
        ("half_away_from_zero", 13, -13, 14, -14, 1513, -1300, 1499),
        # 12.5 -> 12 (even), -12.5 -> -12, 13.5 -> 14, -13.5 -> -14. N: own 1500 + 12 = 1512,
        # D = 10 (band 4-10, 0.51), V = 25 x (0 - 0.51) = -12.75; sum -0.25 -> 0: 1500
        ("half_even", 12, -12, 14, -14, 1512, -1275, 1500),
        # 12.5 -> 12, -12.5 -> -12, 13.5 -> 13, -13.5 -> -13; N as with half_even: 1512,
        # -12.75, sum -0.25 -> 0
        ("toward_zero", 12, -12, 13, -13, 1512, -1275, 1500),
    ],
)
def test_rounding_modes(
    mode: str, win: int, loss: int, win2: int, loss2: int, n_own: int, n_g5: int, n_rating: int
) -> None:
    result = reference_period(*rounding_period(), era(ERA_2009, rounding=mode))
    got = ratings(result)
    changes = tuple(got[pid]["period_change"] for pid in ("W", "L", "W2", "L2"))
    assert changes == (win, loss, win2, loss2)
    assert (got["W"]["variation_hundredths"], got["L2"]["variation_hundredths"]) == (1250, -1350)
    assert got["W"]["rating"] == 1500 + win
    g5 = variations(result)["G5", "N"]
    assert (g5["wave"], g5["own_rating"], g5["raw_hundredths"]) == (1, n_own, n_g5)
    assert got["N"]["variation_hundredths"] == 1250 + n_g5
    assert got["N"]["rating"] == n_rating


def test_round_mode_by_hand() -> None:
    cases = {
        "half_away_from_zero": {"12.5": 13, "-12.5": -13, "12.49": 12, "-0.5": -1, "13.5": 14},
        "half_even": {"12.5": 12, "-12.5": -12, "13.5": 14, "-13.5": -14, "12.51": 13},
        "toward_zero": {"12.9": 12, "-12.9": -12, "0.99": 0, "-0.99": 0, "13": 13},
    }
    for mode, values in cases.items():
        for text, rounded in values.items():
            assert round_mode(Fraction(text), mode) == rounded, (mode, text)


# --------------------------------------------------------------------------- 3. tournament order

# Five tournaments of one newcomer, chosen so that each order puts a different one fifth:
#   id  start  end          by end,start,id: T5 (end 02-05), T4 (02-15), T2 (03-01),
#   T1  02-10  -            then the missing ends by start: T3 (02-01), T1 (02-10) -> T1 5th
#   T2  -      03-01        by end,id: T5, T4, T2, then T1, T3 by id -> T3 5th
#   T3  02-01  -            by start,end,id: T3 (02-01), T5 (02-03), T1 (02-10), then the
#   T4  -      02-15        missing starts by end: T4 (02-15), T2 (03-01) -> T2 5th
#   T5  02-03  02-05        by start,id: T3, T5, T1, then T2, T4 by id -> T4 5th
#                           by id: T1 ... T5 -> T5 5th
ORDER_DATES = {
    "T1": (date(2010, 2, 10), None),
    "T2": (None, date(2010, 3, 1)),
    "T3": (date(2010, 2, 1), None),
    "T4": (None, date(2010, 2, 15)),
    "T5": (date(2010, 2, 3), date(2010, 2, 5)),
}


@pytest.mark.parametrize(
    ("order", "fifth"),
    [(ORDERS[0], "T1"), (ORDERS[2], "T3"), (ORDERS[1], "T2"), (ORDERS[3], "T4"), (ORDERS[4], "T5")],
)
def test_tournament_order_and_missing_dates(order: tuple[str, ...], fifth: str) -> None:
    # N: newcomer NC, 0 games: 1440, K 30 (games < 30), in groups. L: 1440, K 15.
    players = [player("N", category="NC", total_games=0), player("L", list_rating=1440)]
    entries, games = [], []
    for tid, (start, end) in ORDER_DATES.items():  # N beats L in each
        entries += [entry(tid, "N", 1, end, start), entry(tid, "L", 0, end, start)]
        games += game(tid, "N", "L", 1)
    result = reference_period(players, entries, games, era(ERA_2009, tournament_order=order))
    got = variations(result)
    # the first four: own 1440, D = 0, V = 30 x (1 - 0.50) = +15.00 each
    # the fifth: own 1440 + 60 = 1500, D = 60 (band 54-61, 0.58), V = 30 x 0.42 = +12.60
    assert {tid for tid in ORDER_DATES if got[tid, "N"]["wave"] == 1} == {fifth}
    assert got[fifth, "N"]["sequence"] == 5
    assert (got[fifth, "N"]["own_rating"], got[fifth, "N"]["raw_hundredths"]) == (1500, 1260)
    for tid in set(ORDER_DATES) - {fifth}:
        assert (got[tid, "N"]["own_rating"], got[tid, "N"]["raw_hundredths"]) == (1440, 1500)
    # 4 x 15.00 + 12.60 = 72.60 -> 73: 1513
    assert ratings(result)["N"]["rating"] == 1513


# --------------------------------------------------------------------------- 4. expected methods


def test_average_opponent_rounds_the_average_halves_up() -> None:
    average = era(ERA_2009, expected_method="average_opponent")
    players = [
        player("P", list_rating=1504),  # K 15
        player("O1", list_rating=1500),
        player("O2", list_rating=1501),
    ]
    entries = [entry("T", "P", 1.5), entry("T", "O1", 0.5), entry("T", "O2", 0)]
    games = game("T", "P", "O1", 0.5) + game("T", "P", "O2", 1)
    # average of 1500 and 1501 = 1500.5 -> 1501 (halves up); D = 1504 - 1501 = 3 (band 0-3,
    # 0.50); We = 2 x 0.50 = 1.00; V = 15 x (1.5 - 1.00) = +7.50
    got = variations(reference_period(players, entries, games, average))["T", "P"]
    assert (got["expected"], got["raw_hundredths"], got["capped_games"]) == (1.0, 750, 0)
    # game by game (the table): D = 4 (0.51) and D = 3 (0.50): We = 1.01, V = 15 x 0.49 = 7.35
    table = variations(reference_period(players, entries, games, ERA_2009))["T", "P"]
    assert (table["expected"], table["raw_hundredths"]) == (1.01, 735)


def test_average_opponent_and_the_cap() -> None:
    average = era(ERA_2009, expected_method="average_opponent")  # cap 400
    players = [
        player("Q", list_rating=2400),  # K 10 (2400 or more)
        player("S", list_rating=2500),  # K 10
        player("R1", list_rating=1950),  # K 15
        player("R2", list_rating=2050),
    ]
    entries = [
        *(entry("T", pid, points) for pid, points in (("Q", 2), ("R1", 0), ("R2", 0))),
        *(entry("U", pid, points) for pid, points in (("S", 2), ("R1", 0), ("R2", 0))),
    ]
    games = (
        game("T", "Q", "R1", 1)
        + game("T", "Q", "R2", 1)
        + game("U", "S", "R1", 1)
        + game("U", "S", "R2", 1)
    )
    got = variations(reference_period(players, entries, games, average))
    # Q: average 2000, D = 400, not above the cap: capped 0; band 392-411, 0.92; We = 1.84;
    # V = 10 x (2 - 1.84) = +1.60
    assert (got["T", "Q"]["expected"], got["T", "Q"]["raw_hundredths"]) == (1.84, 160)
    assert got["T", "Q"]["capped_games"] == 0
    # S: average 2000, D = 500 > 400: both games capped; D read as 400: We 1.84, V +1.60
    assert (got["U", "S"]["capped_games"], got["U", "S"]["raw_hundredths"]) == (2, 160)
    # R1 in T: one opponent, 2400: D = -450, capped, read as -400: We = 1 - 0.92 = 0.08;
    # V = 15 x (0 - 0.08) = -1.20
    assert (got["T", "R1"]["capped_games"], got["T", "R1"]["raw_hundredths"]) == (1, -120)
    # the table, game by game: Q: D = 450 (capped, 0.92) and D = 350 (band 345-357, 0.89):
    # We = 1.81, one capped game, V = 10 x 0.19 = +1.90
    table = variations(reference_period(players, entries, games, ERA_2009))["T", "Q"]
    assert (table["expected"], table["capped_games"], table["raw_hundredths"]) == (1.81, 1, 190)


def test_logistic_expected_scores() -> None:
    logistic = era(ERA_2009, expected_method="logistic")  # cap 400
    players = [
        player("A", list_rating=1600, total_games=10),  # K 30 (fewer than 30 games)
        player("B", list_rating=1400),  # K 15
        player("C", list_rating=2100),  # K 15
        player("D", list_rating=1600),  # K 15
    ]
    entries = [entry("T", "A", 1), entry("T", "B", 0), entry("U", "C", 0), entry("U", "D", 1)]
    games = game("T", "A", "B", 1) + game("U", "D", "C", 1)
    result = reference_period(players, entries, games, logistic)
    got = variations(result)
    # A - B: D = 200; 10^(-200/400) = 0.316227766016838; We(A) = 1 / 1.316227766016838
    # = 0.759746926647958; V(A) = 30 x 0.240253073352042 = 7.20759220056 -> 720.76 -> 721
    assert got["T", "A"]["expected"] == pytest.approx(0.759746926647958, abs=1e-12)
    assert got["T", "A"]["raw_hundredths"] == 721
    # B: We = 1 / (1 + 10^0.5) = 1 / 4.16227766016838 = 0.240253073352042;
    # V(B) = 15 x -0.240253073352042 = -3.60379610028 -> -360.38 -> -360
    assert got["T", "B"]["raw_hundredths"] == -360
    # C - D: D = 500, read as 400: We(C) = 1 / (1 + 10^-1) = 1 / 1.1 = 0.909090...;
    # C loses: V = 15 x -0.909090... = -13.6363... -> -1364; one capped game each
    assert got["U", "C"]["expected"] == pytest.approx(10 / 11, abs=1e-12)
    assert (got["U", "C"]["raw_hundredths"], got["U", "C"]["capped_games"]) == (-1364, 1)
    # D: We = 1 / (1 + 10) = 0.090909...; V = 15 x 0.909090... = +13.6363... -> 1364
    assert (got["U", "D"]["raw_hundredths"], got["U", "D"]["capped_games"]) == (1364, 1)
    rated = ratings(result)
    # the unrounded sums: A 7.2076 -> 7, B -3.6038 -> -4, C -13.636 -> -14, D +14
    assert [rated[pid]["rating"] for pid in "ABCD"] == [1607, 1396, 2086, 1614]
    assert [rated[pid]["variation_hundredths"] for pid in "ABCD"] == [721, -360, -1364, 1364]
    # the table would give A: D = 200 (band 198-206, 0.76), V = 30 x 0.24 = 7.20
    table = variations(reference_period(players, entries, games, ERA_2009))
    assert table["T", "A"]["raw_hundredths"] == 720
    assert logistic_expected(0) == 0.5


def test_logistic_sum_takes_the_rounding_mode() -> None:
    """D = 0 gives We = 0.5 exactly: K 25 x 0.5 = 12.5, a half for the rounding mode."""
    players = [player("E", list_rating=1500, k_override=25), player("F", list_rating=1500)]
    entries = [entry("T", "E", 1), entry("T", "F", 0)]
    games = game("T", "E", "F", 1)
    for mode, rating in (("half_away_from_zero", 1513), ("half_even", 1512)):
        result = reference_period(
            players, entries, games, era(ERA_2009, expected_method="logistic", rounding=mode)
        )
        assert ratings(result)["E"]["rating"] == rating
        assert ratings(result)["E"]["variation_hundredths"] == 1250
        assert not result.loose_ratings  # exact: no float error to allow for


def test_logistic_sums_at_a_rounding_edge_are_left_loose() -> None:
    """G (1460, K 20) wins against 1440 and draws with 1480: We = We(20) + We(-20), which is
    1 mathematically but a float sum of two floats; V = 20 x (1.5 - 1) = 10 up to a few ulps.
    toward_zero jumps at 10, so the period change (and the rating) is 9 or 10 depending on the
    floats: the reference says so; half away from zero is far from its edge at 10.5."""
    players = [
        player("G", list_rating=1460, k_override=20),
        player("H", list_rating=1440),
        player("I", list_rating=1480),
    ]
    entries = [entry("T", "G", 1.5), entry("T", "H", 0), entry("T", "I", 0.5)]
    games = game("T", "G", "H", 1) + game("T", "G", "I", 0.5)
    toward = reference_period(
        players, entries, games, era(ERA_2009, expected_method="logistic", rounding="toward_zero")
    )
    assert toward.loose_ratings["G"] >= {"period_change", "rating"}
    away = reference_period(players, entries, games, era(ERA_2009, expected_method="logistic"))
    assert "G" not in away.loose_ratings
    assert ratings(away)["G"]["period_change"] == 10
    assert near_rounding_edge(Fraction(10), "toward_zero", Fraction(1, 10**6))
    assert not near_rounding_edge(Fraction(0), "toward_zero", Fraction(1, 10**6))


# --------------------------------------------------------------------------- 5. winner protection


def test_winner_protection_off() -> None:
    players = [
        player("A", list_rating=1600),  # K 15
        player("B", list_rating=1500),
        player("P1", list_rating=1800),
        player("P2", list_rating=1500),
        player("P3", list_rating=1500),
    ]
    entries = [
        entry("T", "A", 0.5),
        entry("T", "B", 0.5),
        entry("U", "P1", 1.5),
        entry("U", "P2", 0.5),
        entry("U", "P3", 0),
    ]
    games = game("T", "A", "B", 0.5) + game("U", "P1", "P2", 0.5) + game("U", "P1", "P3", 1)
    # A draws B, both first: D = 100 (0.64); V(A) = 15 x (0.5 - 0.64) = -2.10, V(B) = +2.10
    # P1, sole first: D = 300 twice (band 291-302, 0.85): V = 15 x (1.5 - 1.70) = -3.00
    on = reference_period(players, entries, games, ERA_2009)
    off = reference_period(players, entries, games, era(ERA_2009, winner_protection=False))
    for result, a_applied, p1_applied, a_rating, p1_rating in (
        (on, 0, 0, 1600, 1800),  # protected: 0
        (off, -210, -300, 1598, 1797),  # -2.10 -> -2; -3.00 -> -3
    ):
        got = variations(result)
        assert (got["T", "A"]["raw_hundredths"], got["T", "A"]["applied_hundredths"]) == (
            -210,
            a_applied,
        )
        assert (got["U", "P1"]["raw_hundredths"], got["U", "P1"]["applied_hundredths"]) == (
            -300,
            p1_applied,
        )
        assert got["T", "A"]["is_winner"] and got["U", "P1"]["is_winner"]
        assert (ratings(result)["A"]["rating"], ratings(result)["P1"]["rating"]) == (
            a_rating,
            p1_rating,
        )
        assert ratings(result)["B"]["rating"] == 1502  # +2.10 -> 2 either way


# --------------------------------------------------------------------------- 6. FIDE re-entry


def reentry_players() -> list[Row]:
    return [
        # delisted before the period, not on the previous list: his re-entry rating wins over
        # the arbiter's, the entry rating and the category
        player(
            "delisted",
            fide_reentry_rating=1199,
            arbiter_rating=1500,
            category="1N",
            entry_rating=1700,
            entry_basis="fide_standard",
            total_games=None,
        ),
        # delisted under an older minimum (1801): he carries the value he re-entered at
        player("delisted_old", fide_reentry_rating=1800),
        # on the previous list as FIDE-rated: the era's minimum - 1 comes first
        player("on_list_too", on_list_as_fide=True, fide_reentry_rating=1500),
        player("listed", list_rating=1650, fide_reentry_rating=1199),  # the list rating first
        player("fide_again", fide_start=1850, fide_close=1860, fide_reentry_rating=1199),
        player("L", list_rating=1400),  # K 15
    ]


def test_fide_reentry_rating_precedence_and_result() -> None:
    entries = [entry("T", "delisted", 1), entry("T", "L", 0)]
    games = game("T", "delisted", "L", 1)
    result = reference_period(reentry_players(), entries, games, ERA_2009)
    got = ratings(result)
    assert {pid: (row["frozen_rating"], row["rating_basis"]) for pid, row in got.items()} == {
        "delisted": (1199, "fide_reentry"),
        "delisted_old": (1800, "fide_reentry"),
        "on_list_too": (1199, "fide_reentry"),  # 2009: minimum 1200
        "listed": (1650, "list"),
        "fide_again": (1850, "fide"),
        "L": (1400, "list"),
    }
    # delisted (1199, 0 games: K 30) beats L (1400): D = -201 (band 198-206, 0.76), We 0.24,
    # V = 30 x 0.76 = +22.80 -> +23: 1222. L: We 0.76, V = 15 x -0.76 = -11.40 -> -11: 1389
    assert (got["delisted"]["k"], got["delisted"]["variation_hundredths"]) == (30, 2280)
    assert (got["delisted"]["rating"], got["delisted"]["rating_type"]) == (1222, "elo_italia")
    assert got["L"]["rating"] == 1389
    # he re-enters whether or not he plays: the idle one keeps his re-entry value
    assert (got["delisted_old"]["rating"], got["delisted_old"]["games"]) == (1800, 0)
    assert got["delisted_old"]["rating_type"] == "elo_italia"
    assert (got["fide_again"]["rating"], got["fide_again"]["rating_type"]) == (1860, "fide")
    # 1990: minimum 1801, the previous list's re-entry is 1800; the carried values stay
    old = ratings(reference_period(reentry_players(), [], [], ERA_1990))
    assert old["on_list_too"]["frozen_rating"] == 1800
    assert old["delisted"]["frozen_rating"] == 1199


def test_fide_reentry_rating_is_ignored_where_fide_holders_stay() -> None:
    """Elo Rapid: no FIDE re-entry, no arbiter entry: the entry rating, else 1440."""
    got = ratings(reference_period(reentry_players(), [], [], RAPID))
    assert (got["delisted"]["frozen_rating"], got["delisted"]["rating_basis"]) == (
        1700,
        "fide_standard",
    )
    assert (got["delisted_old"]["frozen_rating"], got["delisted_old"]["rating_basis"]) == (
        1440,
        "entry",
    )
    assert got["fide_again"]["frozen_rating"] == 1440  # his FIDE rating does not count here


# --------------------------------------------------------------------------- 7. arbiter entry


def arbiter_players() -> list[Row]:
    return [
        player("foreign", arbiter_rating=1650),  # no category: the unregistered NC, 1440
        player("reassigned", list_rating=1700, arbiter_rating=1750),
        player("foreign_entry", arbiter_rating=1650, entry_rating=1800, entry_basis="elo_italia"),
        player("X", list_rating=1500),
    ]


def test_arbiter_ratings_without_arbiter_entry() -> None:
    entries = [entry("T", "foreign", 1), entry("T", "X", 0)]
    games = game("T", "foreign", "X", 1)
    cases = [
        # the shipped 2009 era: arbiter entry, re-assignment of listed players
        (
            ERA_2009,
            {
                "foreign": (1650, "arbiter"),
                "reassigned": (1750, "arbiter_reassignment"),
                "foreign_entry": (1650, "arbiter"),
            },
            # D = 1650 - 1500 = 150 (band 146-153, 0.70): V = 15 x 0.30 = +4.50
            450,
        ),
        # arbiter ratings ignored entirely, even where arbiters raise listed players
        (
            era(ERA_2009, arbiter_entry=False),
            {
                "foreign": (1440, "entry"),
                "reassigned": (1700, "list"),
                "foreign_entry": (1800, "elo_italia"),
            },
            # D = 1440 - 1500 = -60 (band 54-61, 0.58), We 0.42: V = 15 x 0.58 = +8.70
            870,
        ),
        # Elo Rapid as shipped: the same
        (
            RAPID,
            {
                "foreign": (1440, "entry"),
                "reassigned": (1700, "list"),
                "foreign_entry": (1800, "elo_italia"),
            },
            870,
        ),
        # Elo Rapid with arbiter entry: the newcomer takes it, the listed player is not raised
        (
            era(RAPID, arbiter_entry=True),
            {
                "foreign": (1650, "arbiter"),
                "reassigned": (1700, "list"),
                "foreign_entry": (1650, "arbiter"),
            },
            450,
        ),
    ]
    for current, expected, raw in cases:
        result = reference_period(arbiter_players(), entries, games, current)
        got = {
            pid: (row["frozen_rating"], row["rating_basis"])
            for pid, row in ratings(result).items()
            if pid != "X"
        }
        assert got == expected, current.system
        assert variations(result)["T", "foreign"]["raw_hundredths"] == raw
