"""``game_details``: a period explained game by game, on small periods worked out by hand.

Every number below is computed in the comments from the FIDE table (RULES.md §1.6), the rule it
shows and the era's values (the real era of 2015-01-01: cap 400, K 30 under 30 games and 15
otherwise, winner protection, groups of 4 for K >= 20, halves away from zero); the function is
asked to agree, and its game rows to add up to the engine's variations and change. Units: a
point is POINT (10^9) units, so We 0.29 is 290_000_000.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import polars as pl
import pytest

from transforms.elo.period import (
    LOGISTIC_SATURATION,
    POINT,
    expected_by_difference,
    game_details,
)
from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import default_rulebook_path

ERA = parse_rulebook(default_rulebook_path("elo_italia").read_bytes()).era_at(date(2015, 1, 1))
PLAYER_SCHEMA = {
    "player_id": pl.Utf8,
    "list_rating": pl.Int32,
    "on_list_as_fide": pl.Boolean,
    "total_games": pl.Int32,
    "fide_start": pl.Int32,
    "fide_close": pl.Int32,
    "category": pl.Utf8,
    "k_override": pl.Int32,
    "arbiter_rating": pl.Int32,
}
HUNDREDTH = POINT // 100


def player(
    player_id: str,
    list_rating: int | None = None,
    *,
    total_games: int = 100,
    fide: int | None = None,
    category: str | None = None,
) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "list_rating": list_rating,
        "on_list_as_fide": False,
        "total_games": total_games,
        "fide_start": fide,
        "fide_close": fide,
        "category": category,
        "k_override": None,
        "arbiter_rating": None,
    }


def period(
    players: list[dict[str, Any]],
    tournaments: list[tuple[str, list[tuple[str, str, float]]]],
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Frames of a period: tournaments (id, games as (a, b, score of a)) ending a day apart
    in the order given; points are the sums of the games."""
    entries, games = [], []
    for day, (tournament, played) in enumerate(tournaments):
        points: dict[str, float] = {}
        for a, b, score in played:
            games += [
                {"tournament_id": tournament, "player_id": a, "opponent_id": b, "score": score},
                {"tournament_id": tournament, "player_id": b, "opponent_id": a, "score": 1 - score},
            ]
            points[a] = points.get(a, 0.0) + score
            points[b] = points.get(b, 0.0) + 1 - score
        end = date(2014, 11, 2) + timedelta(days=day)
        entries += [
            {
                "tournament_id": tournament,
                "player_id": pid,
                "points": total,
                "start_date": end,
                "end_date": end,
            }
            for pid, total in points.items()
        ]
    return (
        pl.DataFrame(players, schema=PLAYER_SCHEMA),
        pl.DataFrame(entries),
        pl.DataFrame(games),
    )


def rows(frame: pl.DataFrame, *columns: str) -> list[tuple]:
    return frame.select(columns).rows()


def test_a_round_robin_game_by_game() -> None:
    # N: NC newcomer at 1440, no games before: K 30. S: 1600, K 15. A: 1500, K 15.
    # N beats S: D = 1440 - 1600 = -160, |D| 154-162: PD 0.71, N lower: We 0.29;
    #   W - We = +0.71; K x = +21.30.
    # N draws A: D = -60, |D| 54-61: PD 0.58, We 0.42; W - We = +0.08; x 30 = +2.40.
    # N: V = 21.30 + 2.40 = +23.70 -> +24 -> 1464.
    # A draws N: D = +60, We 0.58: -0.08 x 15 = -1.20; A beats S: D = 1500 - 1600 = -100,
    #   |D| 99-106: PD 0.64, We 0.36: +0.64 x 15 = +9.60. A: V = +8.40 -> +8 -> 1508.
    # S: vs N, D = +160, We 0.71, W 0: -0.71 x 15 = -10.65; vs A, We 0.64: -9.60;
    #   V = -20.25 -> -20 (halves away from zero: .25 rounds toward) -> 1580.
    players, entries, games = period(
        [player("N", category="NC", total_games=0), player("S", 1600), player("A", 1500)],
        [("T", [("N", "S", 1.0), ("N", "A", 0.5), ("A", "S", 1.0)])],
    )
    details = game_details(players, entries, games, ERA, ["N", "A", "S"])
    assert sorted(
        rows(
            details.games,
            "player_id",
            "opponent_id",
            "own_rating",
            "opponent_rating",
            "difference",
            "expected_units",
            "k",
            "variation_units",
        )
    ) == [
        ("A", "N", 1500, 1440, 60, 58 * HUNDREDTH, 15, -120 * HUNDREDTH),
        ("A", "S", 1500, 1600, -100, 36 * HUNDREDTH, 15, 960 * HUNDREDTH),
        ("N", "A", 1440, 1500, -60, 42 * HUNDREDTH, 30, 240 * HUNDREDTH),
        ("N", "S", 1440, 1600, -160, 29 * HUNDREDTH, 30, 2130 * HUNDREDTH),
        ("S", "A", 1600, 1500, 100, 64 * HUNDREDTH, 15, -960 * HUNDREDTH),
        ("S", "N", 1600, 1440, 160, 71 * HUNDREDTH, 15, -1065 * HUNDREDTH),
    ]
    assert details.games.get_column("counted").all()
    assert sorted(
        rows(details.variations, "player_id", "raw_hundredths", "applied_hundredths")
    ) == [
        ("A", 840, 840),
        ("N", 2370, 2370),
        ("S", -2025, -2025),
    ]
    assert sorted(
        rows(details.ratings, "player_id", "variation_units", "period_change", "rating")
    ) == [
        ("A", 840 * HUNDREDTH, 8, 1508),
        ("N", 2370 * HUNDREDTH, 24, 1464),
        ("S", -2025 * HUNDREDTH, -20, 1580),
    ]


def test_only_the_players_asked_for() -> None:
    players, entries, games = period(
        [player("N", category="NC", total_games=0), player("S", 1600), player("A", 1500)],
        [("T", [("N", "S", 1.0), ("N", "A", 0.5), ("A", "S", 1.0)])],
    )
    details = game_details(players, entries, games, ERA, ["A"])
    assert set(details.games.get_column("player_id")) == {"A"}
    assert details.variations.height == details.ratings.height == 1
    with pytest.raises(ValueError, match="'Z' is not among the period's players"):
        game_details(players, entries, games, ERA, ["Z"])


def test_winner_protection_keeps_the_games_raw() -> None:
    # W 2000 and L 1700 (both K 15) draw: both first, ties included.
    # W: D = +300, |D| 291-302: PD 0.85; W - We = 0.5 - 0.85 = -0.35; x 15 = -5.25: the game
    #   gives -5.25, the tournament's V is protected to 0 (RULES.md §1.4): change 0.
    # L: D = -300, We 0.15: +0.35 x 15 = +5.25 -> +5 -> 1705.
    players, entries, games = period(
        [player("W", 2000), player("L", 1700)], [("T", [("W", "L", 0.5)])]
    )
    details = game_details(players, entries, games, ERA, ["W", "L"])
    assert sorted(rows(details.games, "player_id", "variation_units")) == [
        ("L", 525 * HUNDREDTH),
        ("W", -525 * HUNDREDTH),
    ]
    assert sorted(
        rows(details.variations, "player_id", "is_winner", "raw_units", "applied_units")
    ) == [("L", True, 525 * HUNDREDTH, 525 * HUNDREDTH), ("W", True, -525 * HUNDREDTH, 0)]
    assert sorted(rows(details.ratings, "player_id", "period_change")) == [("L", 5), ("W", 0)]


def test_the_fifth_tournament_is_valued_at_the_own_rating_of_the_first_four() -> None:
    # G: NC newcomer at 1440, K 30 (>= 20: his tournaments go in groups of 4). O: 1500, K 15.
    # G beats O in T1..T5 (ending a day apart). T1-T4: D = 1440 - 1500 = -60, We 0.42,
    #   +0.58 x 30 = +17.40 each; group 1 sums +69.60 -> rounded +70.
    # T5: own rating 1440 + 70 = 1510 (O keeps his frozen 1500): D = +10, |D| 4-10: PD 0.51,
    #   We 0.51; +0.49 x 30 = +14.70. Period sum 69.60 + 14.70 = +84.30 -> +84 -> 1524.
    # O (K 15, no groups): D = +60 in every game, We 0.58: -0.58 x 15 = -8.70 five times,
    #   -43.50 -> -44 (the half away from zero) -> 1456.
    tournaments = [(f"T{n}", [("G", "O", 1.0)]) for n in range(1, 6)]
    players, entries, games = period(
        [player("G", category="NC", total_games=0), player("O", 1500)], tournaments
    )
    details = game_details(players, entries, games, ERA, ["G", "O"])
    g_games = details.games.filter(pl.col("player_id") == "G").sort("tournament_id")
    assert rows(g_games, "own_rating", "difference", "expected_units") == [
        *[(1440, -60, 42 * HUNDREDTH)] * 4,
        (1510, 10, 51 * HUNDREDTH),
    ]
    g_entries = details.variations.filter(pl.col("player_id") == "G").sort("sequence")
    assert rows(g_entries, "sequence", "wave", "own_rating", "applied_hundredths") == [
        (1, 0, 1440, 1740),
        (2, 0, 1440, 1740),
        (3, 0, 1440, 1740),
        (4, 0, 1440, 1740),
        (5, 1, 1510, 1470),
    ]
    assert sorted(rows(details.ratings, "player_id", "variation_units", "rating")) == [
        ("G", 8430 * HUNDREDTH, 1524),
        ("O", -4350 * HUNDREDTH, 1456),
    ]


def test_a_fide_rated_players_games_count_for_his_opponent_only() -> None:
    # F holds FIDE 2100 (plays with it, is rated by FIDE); P 1500, K 15, no FIDE rating.
    # P draws F: D = 1500 - 2100 = -600, capped at 400: PD 0.92, We 0.08; +0.42 x 15 = +6.30
    #   -> +6 -> 1506. F's side does not count: no D, no We, no variation (RULES.md §1.3).
    players, entries, games = period(
        [player("F", fide=2100), player("P", 1500)], [("T", [("F", "P", 0.5)])]
    )
    details = game_details(players, entries, games, ERA, ["F", "P"])
    assert sorted(
        rows(
            details.games,
            "player_id",
            "counted",
            "opponent_is_fide",
            "opponent_rating",
            "difference",
            "capped_difference",
            "capped",
            "expected_units",
            "variation_units",
        )
    ) == [
        ("F", False, False, 1500, None, None, None, None, None),
        ("P", True, True, 2100, -600, -400, True, 8 * HUNDREDTH, 630 * HUNDREDTH),
    ]
    assert sorted(rows(details.ratings, "player_id", "games", "rating", "rating_type")) == [
        ("F", 0, 2100, "fide"),
        ("P", 1, 1506, "elo_italia"),
    ]


def test_the_average_opponent_method_values_each_game_at_the_average() -> None:
    # expected.method "average_opponent": P (1500, K 15) loses to X (1600), beats Y (1401).
    # Average (1600 + 1401) / 2 = 1500.5 -> 1501 (halves up); D = 1500 - 1501 = -1, |D| 0-3:
    #   PD 0.50. Each game's We is 0.50 (the entry's 1.00 over 2 games): the loss gives
    #   -0.50 x 15 = -7.50, the win +7.50; V = 0, change 0.
    era = replace(ERA, expected_method="average_opponent")
    players, entries, games = period(
        [player("P", 1500), player("X", 1600), player("Y", 1401)],
        [("T", [("P", "X", 0.0), ("P", "Y", 1.0)])],
    )
    details = game_details(players, entries, games, era, ["P"])
    assert sorted(
        rows(
            details.games,
            "opponent_id",
            "average_opponent",
            "difference",
            "expected_units",
            "variation_units",
        )
    ) == [
        ("X", 1501, -1, 50 * HUNDREDTH, -750 * HUNDREDTH),
        ("Y", 1501, -1, 50 * HUNDREDTH, 750 * HUNDREDTH),
    ]
    assert rows(details.ratings, "period_change", "rating") == [(0, 1500)]


def test_the_logistic_method_adds_up_to_the_billionth() -> None:
    # expected.method "logistic": P (1500) beats Q (1400): We = 1 / (1 + 10^(-100/400))
    #   = 0.640065...; in units round(0.6400649998 x 10^9) = 640_065_000 (to the unit);
    #   W - We = 0.359935; x 15 = 5.399025 -> +5 -> 1505. Whatever the digits, the game's
    #   share is the entry's V (checked inside game_details) and rounds to the change.
    era = replace(ERA, expected_method="logistic")
    players, entries, games = period(
        [player("P", 1500), player("Q", 1400)], [("T", [("P", "Q", 1.0)])]
    )
    details = game_details(players, entries, games, era, ["P"])
    expected = details.games.item(0, "expected_units")
    assert expected == round(POINT / (1 + 10 ** (-100 / 400)))
    assert details.games.item(0, "variation_units") == (POINT - expected) * 15
    assert rows(details.ratings, "period_change") == [(5,)]


def test_expected_scores_by_difference_read_as_the_engine_reads_them() -> None:
    # The table the game_calculation view reads: D 0 -> 0.50, -160 -> 0.29, +160 -> 0.71,
    # +450 (capped at 400: |D| 392-411) -> 0.92; from the limit on, the same value.
    limit, table = expected_by_difference(ERA)
    assert limit == LOGISTIC_SATURATION and table.height == 2 * limit + 1
    by_difference = dict(table.rows())
    assert [by_difference[d] for d in (0, -160, 160, 450, -450)] == [
        50 * HUNDREDTH,
        29 * HUNDREDTH,
        71 * HUNDREDTH,
        92 * HUNDREDTH,
        8 * HUNDREDTH,
    ]
    # the logistic curve is a whole point (or nothing) at the limit, in the engine's units
    _, logistic = expected_by_difference(replace(ERA, expected_method="logistic", difference_cap=0))
    ends = dict(logistic.rows())
    assert (ends[-LOGISTIC_SATURATION], ends[LOGISTIC_SATURATION]) == (0, POINT)
