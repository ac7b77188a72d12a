"""Elo Italia period engine, one test per rule of RULES.md §1, with numbers computed by hand.

Every expected value is worked out in the comments from the FIDE table (§1.6) and the rule it
tests; the engine is only asked to agree. Eras are the real ones of the rulebook, picked by the
list date of the period (variants are built with dataclasses.replace).

Notation: We = expected score (FIDE table, D = own - opponent), V = K * sum(W - We); hundredths
are exact integers (V = 21.30 is 2130 hundredths).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

import polars as pl
import pytest

from transforms.elo.rulebook import EloEra, parse_rulebook
from transforms.lists.eras import default_rulebook_path

elo_period = pytest.importorskip("transforms.elo.period")
compute_period = elo_period.compute_period

RULEBOOK = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())

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
ENTRY_SCHEMA = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "points": pl.Float64,
    "start_date": pl.Date,
    "end_date": pl.Date,
}
GAME_SCHEMA = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "opponent_id": pl.Utf8,
    "score": pl.Float64,
}


def era(year: int, month: int, day: int) -> EloEra:
    """The real era in force on a list date."""
    return RULEBOOK.era_at(date(year, month, day))


def player(
    player_id: str,
    list_rating: int | None = None,
    *,
    total_games: int = 100,
    on_list_as_fide: bool = False,
    fide_start: int | None = None,
    fide_close: int | None = None,
    category: str | None = None,
    k_override: int | None = None,
    arbiter_rating: int | None = None,
) -> dict[str, Any]:
    """One registry/list row; by default an established player (100 prior games)."""
    return {
        "player_id": player_id,
        "list_rating": list_rating,
        "on_list_as_fide": on_list_as_fide,
        "total_games": total_games,
        "fide_start": fide_start,
        "fide_close": fide_close,
        "category": category,
        "k_override": k_override,
        "arbiter_rating": arbiter_rating,
    }


@dataclass
class Tournament:
    """A tournament: final points of every player (all games, counted or not) and the games
    actually played, as (white-or-black a, b, score of a)."""

    tournament_id: str
    points: dict[str, float]
    games: list[tuple[str, str, float]] = field(default_factory=list)
    start: date = date(2014, 11, 1)
    end: date = date(2014, 11, 2)


@dataclass
class Period:
    players: list[dict[str, Any]]
    tournaments: list[Tournament]
    era: EloEra

    def run(self) -> Result:
        entries = [
            {
                "tournament_id": t.tournament_id,
                "player_id": pid,
                "points": pts,
                "start_date": t.start,
                "end_date": t.end,
            }
            for t in self.tournaments
            for pid, pts in t.points.items()
        ]
        games = []
        for t in self.tournaments:
            for a, b, score in t.games:
                # one row per player per game played: both sides' view
                games.append(
                    {
                        "tournament_id": t.tournament_id,
                        "player_id": a,
                        "opponent_id": b,
                        "score": score,
                    }
                )
                games.append(
                    {
                        "tournament_id": t.tournament_id,
                        "player_id": b,
                        "opponent_id": a,
                        "score": 1.0 - score,
                    }
                )
        # the optional player columns (a re-entry rating) when some row gives them
        optional = {"fide_reentry_rating": pl.Int32}
        schema = {
            **PLAYER_SCHEMA,
            **{
                name: dtype
                for name, dtype in optional.items()
                if any(name in row for row in self.players)
            },
        }
        result = compute_period(
            pl.DataFrame(self.players, schema=schema),
            pl.DataFrame(entries, schema=ENTRY_SCHEMA),
            pl.DataFrame(games, schema=GAME_SCHEMA),
            self.era,
        )
        return Result(result.ratings, result.variations)


@dataclass
class Result:
    ratings: pl.DataFrame
    variations: pl.DataFrame

    def rating(self, player_id: str) -> dict[str, Any]:
        rows = self.ratings.filter(pl.col("player_id") == player_id)
        assert rows.height == 1, f"{player_id}: {rows.height} rating rows"
        return rows.row(0, named=True)

    def variation(self, tournament_id: str, player_id: str) -> dict[str, Any]:
        rows = self.variations.filter(
            (pl.col("tournament_id") == tournament_id) & (pl.col("player_id") == player_id)
        )
        assert rows.height == 1, f"{tournament_id}/{player_id}: {rows.height} variation rows"
        return rows.row(0, named=True)

    def counted_variations(self, player_id: str) -> pl.DataFrame:
        """The player's tournaments with at least one counted game, in sequence order."""
        return self.variations.filter(
            (pl.col("player_id") == player_id) & (pl.col("games") > 0)
        ).sort("sequence")

    def assert_no_variation(self, tournament_id: str, player_id: str) -> None:
        """Nothing counted: either no row, or a row with no games and a zero variation."""
        rows = self.variations.filter(
            (pl.col("tournament_id") == tournament_id) & (pl.col("player_id") == player_id)
        )
        assert rows.height <= 1
        if rows.height:
            row = rows.row(0, named=True)
            assert row["games"] == 0
            assert row["raw_hundredths"] == 0
            assert row["applied_hundredths"] == 0


def check(
    row: dict[str, Any],
    *,
    frozen: int,
    k: int,
    games: int,
    hundredths: int,
    change: int,
    rating: int,
    basis: str | None = None,
) -> None:
    got = {
        "frozen_rating": row["frozen_rating"],
        "k": row["k"],
        "games": row["games"],
        "variation_hundredths": row["variation_hundredths"],
        "period_change": row["period_change"],
        "rating": row["rating"],
    }
    want = {
        "frozen_rating": frozen,
        "k": k,
        "games": games,
        "variation_hundredths": hundredths,
        "period_change": change,
        "rating": rating,
    }
    assert got == want, row["player_id"]
    if basis is not None:
        assert row["rating_basis"] == basis, row["player_id"]


# --------------------------------------------------------------------------- the eras used


def test_the_eras_these_tests_rely_on() -> None:
    # Not a rule: it pins the rulebook values the hand computations below assume.
    assert not era(1998, 4, 1).groups_enabled and era(1998, 7, 1).groups_enabled
    assert era(2005, 1, 1).difference_cap == 0
    assert era(2007, 1, 1).difference_cap == 350
    assert era(2015, 1, 1).difference_cap == 400 and era(2015, 1, 1).groups_enabled
    assert era(2015, 1, 1).group_size == 4 and era(2015, 1, 1).group_min_k == 20
    assert not era(2020, 10, 1).k.everyone_zero and era(2021, 1, 1).k.everyone_zero
    lines = [(rule.condition, rule.threshold, rule.k) for rule in era(2015, 1, 1).k.rules]
    assert lines == [
        ("registry", None, None),
        ("games_below", 30, 30),
        ("rating_at_least", 2400, 10),
        (None, None, 15),
    ]
    assert era(2015, 1, 1).winner_protection and era(2015, 1, 1).expected_method == "table"
    assert era(2015, 1, 1).rounding == "half_away_from_zero"


# --------------------------------------------------------------------------- §1.4 variation


def test_newcomer_beats_a_1600_player() -> None:
    # N: NC newcomer, enters at 1440, 0 prior games -> K = 30.
    # S: 1600 on the list, 40 prior games, below 2400 -> K = 15.
    # N: D = 1440 - 1600 = -160, |D| in 154-162 -> PD 0.71, N is lower: We = 1 - 0.71 = 0.29.
    #    V = 30 * (1 - 0.29) = 30 * 0.71 = 21.30 -> 2130 hundredths -> +21 -> 1440 + 21 = 1461.
    # S: D = +160 -> We = 0.71; V = 15 * (0 - 0.71) = -10.65 -> -1065 -> -11 -> 1589.
    # N has 1 point, S 0: N is first (positive V anyway), S is not.
    period = Period(
        [player("N", category="NC", total_games=0), player("S", 1600, total_games=40)],
        [Tournament("T", {"N": 1.0, "S": 0.0}, [("N", "S", 1.0)])],
        era(2015, 1, 1),
    )
    result = period.run()
    check(
        result.rating("N"),
        frozen=1440,
        k=30,
        games=1,
        hundredths=2130,
        change=21,
        rating=1461,
        basis="entry",
    )
    check(
        result.rating("S"),
        frozen=1600,
        k=15,
        games=1,
        hundredths=-1065,
        change=-11,
        rating=1589,
        basis="list",
    )
    n = result.variation("T", "N")
    assert (n["own_rating"], n["games"], n["score"], n["k"]) == (1440, 1, 1.0, 30)
    assert (n["raw_hundredths"], n["applied_hundredths"], n["is_winner"]) == (2130, 2130, True)
    s = result.variation("T", "S")
    assert (s["own_rating"], s["games"], s["score"], s["k"]) == (1600, 1, 0.0, 15)
    assert (s["raw_hundredths"], s["applied_hundredths"], s["is_winner"]) == (-1065, -1065, False)
    assert n["expected"] == pytest.approx(0.29)  # sum of We, in points
    assert s["expected"] == pytest.approx(0.71)
    # Counted games are added to the player's total for the next period's K.
    assert result.rating("N")["total_games"] == 0 + 1
    assert result.rating("S")["total_games"] == 40 + 1
    assert result.rating("N")["rating_type"] == "elo_italia"


def test_rounding_of_halves_away_from_zero() -> None:
    # X 2600 and Y 2410, both established and >= 2400 -> K = 10.
    # X: D = +190, |D| in 189-197 -> We 0.75; wins: V = 10 * (1 - 0.75) = +2.50 -> 250 -> +3.
    # Y: D = -190 -> We 0.25; loses: V = 10 * (0 - 0.25) = -2.50 -> -250 -> -3 (not -2).
    # Z (NC newcomer 1440, K=30) beats W (1550, K=15) in another tournament:
    # Z: D = -110, |D| in 107-113 -> PD 0.65 -> We 0.35: V = 30 * 0.65 = +19.50 -> 1950 -> +20.
    # W: D = +110 -> We 0.65: V = 15 * (0 - 0.65) = -9.75 -> -975 -> -10.
    period = Period(
        [
            player("X", 2600),
            player("Y", 2410),
            player("Z", category="NC", total_games=0),
            player("W", 1550),
        ],
        [
            Tournament("T1", {"X": 1.0, "Y": 0.0}, [("X", "Y", 1.0)]),
            Tournament("T2", {"Z": 1.0, "W": 0.0}, [("Z", "W", 1.0)]),
        ],
        era(2015, 1, 1),
    )
    result = period.run()
    check(result.rating("X"), frozen=2600, k=10, games=1, hundredths=250, change=3, rating=2603)
    check(result.rating("Y"), frozen=2410, k=10, games=1, hundredths=-250, change=-3, rating=2407)
    check(result.rating("Z"), frozen=1440, k=30, games=1, hundredths=1950, change=20, rating=1460)
    check(result.rating("W"), frozen=1550, k=15, games=1, hundredths=-975, change=-10, rating=1540)


def test_the_period_sum_is_rounded_once() -> None:
    # V is kept unrounded per tournament; the period sum is rounded once.
    # P 1500 (K = 15) beats Q 1510 in T1 and in T2: D = -10, |D| in 4-10 -> PD 0.51, We 0.49.
    # V = 15 * (1 - 0.49) = 7.65 each -> 765 + 765 = 1530 -> 15.30 -> +15.
    # Rounding each tournament first would give 8 + 8 = 16.
    period = Period(
        [player("P", 1500), player("Q", 1510)],
        [
            Tournament("T1", {"P": 1.0, "Q": 0.0}, [("P", "Q", 1.0)], end=date(2014, 11, 2)),
            Tournament("T2", {"P": 1.0, "Q": 0.0}, [("P", "Q", 1.0)], end=date(2014, 11, 9)),
        ],
        era(2015, 1, 1),
    )
    result = period.run()
    assert result.variation("T1", "P")["applied_hundredths"] == 765
    assert result.variation("T2", "P")["applied_hundredths"] == 765
    check(result.rating("P"), frozen=1500, k=15, games=2, hundredths=1530, change=15, rating=1515)
    # Q: D = +10 -> We 0.51; V = 15 * (0 - 0.51) = -7.65 twice -> -1530 -> -15.30 -> -15.
    check(result.rating("Q"), frozen=1510, k=15, games=2, hundredths=-1530, change=-15, rating=1495)


# --------------------------------------------------------------------------- winner protection


def test_winner_protection() -> None:
    # A 2400, 100 games -> K = 10 (>= 2400). B, C, E 2140, established -> K = 15.
    # Every A game is a draw at D = 2400 - 2140 = +260, |D| in 257-267 -> We 0.82:
    #   V(A) = 10 * (0.5 - 0.82) = -3.20 -> -320 hundredths in each tournament.
    # The opponents: D = -260 -> We 0.18: V = 15 * (0.5 - 0.18) = +4.80 -> +480.
    # T1: A sole first on points (1.5: a forfeit win not in games + the draw) -> A gets 0.
    # T2: A and C tied first (1.0 each)                                      -> A gets 0.
    # T3: E first (2.0), A second                                            -> A keeps -320.
    # A: 0 + 0 - 320 = -320 -> -3.20 -> -3 -> 2397 (without protection: -960 -> -10).
    # Only A's variation changes: B, C, E keep +480 each (C is a winner with a positive V).
    period = Period(
        [player("A", 2400), player("B", 2140), player("C", 2140), player("E", 2140)],
        [
            Tournament("T1", {"A": 1.5, "B": 1.0}, [("A", "B", 0.5)], end=date(2014, 10, 5)),
            Tournament("T2", {"A": 1.0, "C": 1.0}, [("A", "C", 0.5)], end=date(2014, 10, 12)),
            Tournament("T3", {"A": 1.0, "E": 2.0}, [("A", "E", 0.5)], end=date(2014, 10, 19)),
        ],
        era(2015, 1, 1),
    )
    result = period.run()
    t1, t2, t3 = (result.variation(t, "A") for t in ("T1", "T2", "T3"))
    assert (t1["raw_hundredths"], t1["applied_hundredths"], t1["is_winner"]) == (-320, 0, True)
    assert (t2["raw_hundredths"], t2["applied_hundredths"], t2["is_winner"]) == (-320, 0, True)
    assert (t3["raw_hundredths"], t3["applied_hundredths"], t3["is_winner"]) == (-320, -320, False)
    check(result.rating("A"), frozen=2400, k=10, games=3, hundredths=-320, change=-3, rating=2397)
    c = result.variation("T2", "C")
    assert (c["raw_hundredths"], c["applied_hundredths"], c["is_winner"]) == (480, 480, True)
    b = result.variation("T1", "B")
    assert (b["raw_hundredths"], b["applied_hundredths"], b["is_winner"]) == (480, 480, False)
    for pid in ("B", "C", "E"):
        check(result.rating(pid), frozen=2140, k=15, games=1, hundredths=480, change=5, rating=2145)


# --------------------------------------------------------------------------- groups of four

# P (K = 30 unless said otherwise) plays O (1500, established, K = 15) once in each of six
# tournaments. The sort is by end date, then start date, then id, so by id it would differ:
#   seq  id   start       end         P's result
#   1    T6   2014-10-01  2014-10-05  win
#   2    T5   2014-10-10  2014-10-20  win
#   3    T4   2014-10-15  2014-10-20  win   (same end as T5, later start)
#   4    T2   2014-11-01  2014-11-02  draw  (tied first: V = 0 for both whatever its sign)
#   5    T3   2014-11-01  2014-11-02  win   (same end and start as T2, larger id)
#   6    T1   2014-12-01  2014-12-03  loss  (O first, P not)
SIX = [
    ("T6", date(2014, 10, 1), date(2014, 10, 5), 1.0),
    ("T5", date(2014, 10, 10), date(2014, 10, 20), 1.0),
    ("T4", date(2014, 10, 15), date(2014, 10, 20), 1.0),
    ("T2", date(2014, 11, 1), date(2014, 11, 2), 0.5),
    ("T3", date(2014, 11, 1), date(2014, 11, 2), 1.0),
    ("T1", date(2014, 12, 1), date(2014, 12, 3), 0.0),
]


def six_tournaments(p: dict[str, Any], the_era: EloEra) -> Period:
    tournaments = [
        Tournament(tid, {"P": score, "O": 1.0 - score}, [("P", "O", score)], start, end)
        for tid, start, end, score in SIX
    ]
    return Period([p, player("O", 1500)], tournaments, the_era)


def test_more_than_four_tournaments_use_the_updated_own_rating() -> None:
    # P 1500 with 10 prior games -> K = 30 (>= 20: groups apply), era 2015 (groups enabled).
    # Wave 0 (seq 1-4), own 1500 vs O 1500: D = 0 -> We 0.50.
    #   win +30*0.5 = 15.00, win 15.00, win 15.00, draw 0 -> 1500+1500+1500+0 = 4500 -> 45.00.
    # Wave 1 (seq 5-6), own = 1500 + round(45.00) = 1545; O keeps 1500.
    #   D = +45, |D| in 40-46 -> We 0.56.
    #   seq 5 (T3) win:  30 * (1 - 0.56) = +13.20 -> 1320.
    #   seq 6 (T1) loss: 30 * (0 - 0.56) = -16.80 -> -1680 (P is not first: kept).
    # Sum 4500 + 1320 - 1680 = 4140 -> 41.40 -> +41 -> 1541.
    # (Sorted by id instead, the waves would hold other tournaments and give +44.)
    result = six_tournaments(player("P", 1500, total_games=10), era(2015, 1, 1)).run()
    rows = result.counted_variations("P")
    assert rows["tournament_id"].to_list() == ["T6", "T5", "T4", "T2", "T3", "T1"]
    assert rows["sequence"].to_list() == [1, 2, 3, 4, 5, 6]
    assert rows["wave"].to_list() == [0, 0, 0, 0, 1, 1]
    assert rows["own_rating"].to_list() == [1500, 1500, 1500, 1500, 1545, 1545]
    assert rows["applied_hundredths"].to_list() == [1500, 1500, 1500, 0, 1320, -1680]
    check(result.rating("P"), frozen=1500, k=30, games=6, hundredths=4140, change=41, rating=1541)
    # O (K = 15) always faces P's frozen 1500: D = 0, We 0.50 in all six tournaments.
    #   loss -7.50, loss -7.50, loss -7.50, draw 0, loss -7.50, win +7.50
    #   -> -750*4 + 0 + 750 = -2250 -> -22.50 -> -23 (half away from zero) -> 1477.
    o_rows = result.variations.filter(pl.col("player_id") == "O")
    assert o_rows["own_rating"].to_list() == [1500] * 6
    check(result.rating("O"), frozen=1500, k=15, games=6, hundredths=-2250, change=-23, rating=1477)


def test_opponents_in_waves_of_their_own_still_face_the_frozen_rating() -> None:
    # The six tournaments again, now P and O both with 10 prior games -> K = 30, both in waves.
    # P: exactly as in the first groups test (O stays 1500 for him): 4140 -> +41 -> 1541.
    # O: wave 0 vs P's frozen 1500 (D = 0, We 0.50): loss, loss, loss, draw
    #      -> -1500 * 3 + 0 = -4500 -> -45.00 -> own 1455 for wave 1.
    #    wave 1 vs P's frozen 1500 (not 1545): D = -45, |D| in 40-46 -> PD 0.56 -> We 0.44.
    #      seq 5 (T3) loss: 30 * (0 - 0.44) = -13.20 -> -1320 (P first, O not).
    #      seq 6 (T1) win:  30 * (1 - 0.44) = +16.80 -> +1680.
    #    Sum -4500 - 1320 + 1680 = -4140 -> -41.40 -> -41 -> 1459.
    # (Had P met O's updated 1455 in wave 1: D = +90 -> We 0.62, P's total would change.)
    period = six_tournaments(player("P", 1500, total_games=10), era(2015, 1, 1))
    period.players[1] = player("O", 1500, total_games=10)
    result = period.run()
    assert result.counted_variations("O")["own_rating"].to_list() == [1500] * 4 + [1455] * 2
    assert result.counted_variations("O")["applied_hundredths"].to_list() == [
        -1500,
        -1500,
        -1500,
        0,
        -1320,
        1680,
    ]
    check(result.rating("O"), frozen=1500, k=30, games=6, hundredths=-4140, change=-41, rating=1459)
    check(result.rating("P"), frozen=1500, k=30, games=6, hundredths=4140, change=41, rating=1541)


def test_the_next_wave_carries_the_variations_after_winner_protection() -> None:
    # P 1500, 10 prior games -> K = 30, five one-game tournaments in this order:
    #   seq 1: P draws L (1300), P first on points (1.5, a forfeit win + the draw):
    #          D = +200, |D| in 198-206 -> We 0.76: 30 * (0.5 - 0.76) = -7.80 -> raw -780,
    #          applied 0 (winner protection).
    #   seq 2-4: P beats O (1500): D = 0, We 0.50: +15.00 each -> 3 * 1500 = 4500.
    #   Wave 1 own rating: 1500 + round((0 + 4500) / 100) = 1545 (with the raw -780 it would
    #   be 1500 + round(37.20) = 1537, in another band).
    #   seq 5: P beats O: D = +45, |D| in 40-46 -> We 0.56: 30 * 0.44 = +13.20 -> 1320
    #          (from 1537 it would be D = 37 -> 0.55 -> +13.50).
    # Sum 0 + 4500 + 1320 = 5820 -> 58.20 -> +58 -> 1558.
    # L (1300, K = 15): D = -200 -> We 0.24: 15 * (0.5 - 0.24) = +3.90 -> 390 -> +4 -> 1304.
    def t(tid: str, day: int, points: dict[str, float], game: tuple[str, str, float]) -> Tournament:
        end = date(2014, 10, 1) + timedelta(days=day)
        return Tournament(tid, points, [game], end, end)

    tournaments = [
        t("G1", 1, {"P": 1.5, "L": 1.0}, ("P", "L", 0.5)),
        *(t(f"G{i}", i, {"P": 1.0, "O": 0.0}, ("P", "O", 1.0)) for i in range(2, 6)),
    ]
    period = Period(
        [player("P", 1500, total_games=10), player("L", 1300), player("O", 1500)],
        tournaments,
        era(2015, 1, 1),
    )
    result = period.run()
    rows = result.counted_variations("P")
    assert rows["tournament_id"].to_list() == ["G1", "G2", "G3", "G4", "G5"]
    assert rows["raw_hundredths"].to_list() == [-780, 1500, 1500, 1500, 1320]
    assert rows["applied_hundredths"].to_list() == [0, 1500, 1500, 1500, 1320]
    assert rows["own_rating"].to_list() == [1500] * 4 + [1545]
    check(result.rating("P"), frozen=1500, k=30, games=5, hundredths=5820, change=58, rating=1558)
    check(result.rating("L"), frozen=1300, k=15, games=1, hundredths=390, change=4, rating=1304)


def test_groups_not_applied_below_k_20() -> None:
    # The same six tournaments, P with 100 prior games -> K = 15 (< 20): every tournament at
    # the frozen 1500, D = 0, We 0.50:
    #   15 * (0.5 + 0.5 + 0.5 + 0 + 0.5 - 0.5) = 15 * 1.5 = 22.50 -> 2250 -> +23 -> 1523.
    result = six_tournaments(player("P", 1500), era(2015, 1, 1)).run()
    rows = result.counted_variations("P")
    assert rows["own_rating"].to_list() == [1500] * 6
    assert rows["applied_hundredths"].to_list() == [750, 750, 750, 0, 750, -750]
    check(result.rating("P"), frozen=1500, k=15, games=6, hundredths=2250, change=23, rating=1523)


def test_groups_threshold_is_k_20_inclusive() -> None:
    # Registry K = 20 (>= 20: groups apply).
    # Wave 0 at D = 0, We 0.50: 20*0.5 * 3 wins + draw 0 = 3000 -> 30.00 -> own 1530.
    # Wave 1: D = +30, |D| in 26-32 -> We 0.54.
    #   seq 5 win  20 * 0.46  = +9.20  -> 920;  seq 6 loss 20 * -0.54 = -10.80 -> -1080.
    # Sum 3000 + 920 - 1080 = 2840 -> 28.40 -> +28 -> 1528.
    result = six_tournaments(player("P", 1500, k_override=20), era(2015, 1, 1)).run()
    rows = result.counted_variations("P")
    assert rows["own_rating"].to_list() == [1500, 1500, 1500, 1500, 1530, 1530]
    check(result.rating("P"), frozen=1500, k=20, games=6, hundredths=2840, change=28, rating=1528)
    # Registry K = 19 (< 20): all at 1500: 19 * 1.5 = 28.50 -> 2850 -> +29 -> 1529.
    result = six_tournaments(player("P", 1500, k_override=19), era(2015, 1, 1)).run()
    assert result.counted_variations("P")["own_rating"].to_list() == [1500] * 6
    check(result.rating("P"), frozen=1500, k=19, games=6, hundredths=2850, change=29, rating=1529)


def test_groups_off_before_1998_06_01_and_when_disabled() -> None:
    # K = 30 but no groups: every tournament at the frozen 1500, D = 0, We 0.50:
    #   30 * 1.5 = 45.00 -> 4500 -> +45 -> 1545.
    # Real era of the 1998-04-01 list (groups from 1998-06-01), then the 2015 era with groups
    # disabled through the rulebook.
    no_groups = replace(era(2015, 1, 1), groups_enabled=False)
    for the_era in (era(1998, 4, 1), no_groups):
        result = six_tournaments(player("P", 1500, total_games=10), the_era).run()
        assert result.counted_variations("P")["own_rating"].to_list() == [1500] * 6
        check(
            result.rating("P"), frozen=1500, k=30, games=6, hundredths=4500, change=45, rating=1545
        )
    # The first era with groups: the 1998-07-01 list. D = 0 in wave 0 as above (+45, own
    # 1545), no cap in 1998; wave 1 as in the 2015 test: +1320 - 1680 -> 4140 -> +41 -> 1541.
    result = six_tournaments(player("P", 1500, total_games=10), era(1998, 7, 1)).run()
    check(result.rating("P"), frozen=1500, k=30, games=6, hundredths=4140, change=41, rating=1541)


def nine_tournaments_after_a_forfeit(the_era: EloEra) -> Period:
    """P (1500, 10 prior games: K = 30) wins every game: F, where his only game was not
    played, then A1-A9 on the following days against O 1500 and Q 1490 (A5: three games)."""

    def t(tid: str, day: int, games: list[tuple[str, str, float]]) -> Tournament:
        opponents = {b: 0.0 for _, b, _ in games}
        end = date(2014, 9, 1) + timedelta(days=day)
        return Tournament(tid, {"P": float(len(games)), **opponents}, games, end, end)

    won_o, won_q = ("P", "O", 1.0), ("P", "Q", 1.0)
    tournaments = [
        Tournament("F", {"P": 1.0, "O": 0.0}, [], date(2014, 9, 1), date(2014, 9, 1)),
        t("A1", 1, [won_o]),
        t("A2", 2, [won_q]),
        t("A3", 3, [won_o]),
        t("A4", 4, [won_o]),
        t("A5", 5, [won_o, won_o, won_o]),
        t("A6", 6, [won_o]),
        t("A7", 7, [won_o]),
        t("A8", 8, [won_o]),
        t("A9", 9, [won_o]),
    ]
    players = [player("P", 1500, total_games=10), player("O", 1500), player("Q", 1490)]
    return Period(players, tournaments, the_era)


def test_third_wave_uses_the_rounded_sum_of_all_earlier_tournaments() -> None:
    # P 1500, 10 prior games -> K = 30. O 1500 and Q 1490, established. P wins every game.
    # 9 tournaments with counted games, plus F: a forfeit-only tournament (no game played),
    # ending first; it takes no place in the sequence.
    # Wave 0 (seq 1-4): 3 wins vs O (D = 0, We 0.50: 30*0.50 = 15.00 each) and 1 win vs Q
    #   (D = +10, |D| in 4-10 -> We 0.51: 30*0.49 = 14.70): 4500 + 1470 = 5970 -> 59.70.
    #   Own rating of wave 1 = 1500 + round(59.70) = 1560.
    # Wave 1 (seq 5-8): 6 wins vs O (seq 5 has three games), D = +60, |D| in 54-61 -> We 0.58:
    #   30 * 0.42 = 12.60 each -> 6 * 1260 = 7560 -> 75.60.
    #   Own rating of wave 2 = 1500 + round(59.70 + 75.60) = 1500 + round(135.30) = 1635.
    #   (Rounding wave by wave would give 1500 + 60 + 76 = 1636.)
    # Wave 2 (seq 9): D = +135, |D| in 130-137 -> We 0.68: 30 * 0.32 = 9.60 -> 960.
    # Sum 5970 + 7560 + 960 = 14490 -> 144.90 -> +145 -> 1645.
    result = nine_tournaments_after_a_forfeit(era(2015, 1, 1)).run()
    rows = result.counted_variations("P")
    assert rows["tournament_id"].to_list() == [f"A{i}" for i in range(1, 10)]
    assert rows["sequence"].to_list() == list(range(1, 10))
    assert rows["wave"].to_list() == [0, 0, 0, 0, 1, 1, 1, 1, 2]
    assert rows["own_rating"].to_list() == [1500] * 4 + [1560] * 4 + [1635]
    assert rows["applied_hundredths"].to_list() == [
        1500,
        1470,
        1500,
        1500,
        3780,
        1260,
        1260,
        1260,
        960,
    ]
    result.assert_no_variation("F", "P")
    check(
        result.rating("P"),
        frozen=1500,
        k=30,
        games=11,  # 4 + 6 + 1 counted games
        hundredths=14490,
        change=145,
        rating=1645,
    )


def test_a_tournament_without_counted_games_takes_a_place_when_the_era_says_so() -> None:
    # As above, with groups.count_tournaments_without_games: F (no game played) is P's
    # tournament 1, with V = 0, so A1-A3 are 2-4, A4-A7 are 5-8 and A8-A9 are 9-10.
    # Wave 0: A1 15.00 + A2 14.70 + A3 15.00 = 4470 -> 44.70; own of wave 1 = 1545.
    # Wave 1: D = +45, |D| in 40-46 -> We 0.56: 30 * 0.44 = 13.20 a game, six games -> 7920.
    #   Own of wave 2 = 1500 + round(44.70 + 79.20) = 1500 + round(123.90) = 1624.
    # Wave 2: D = +124, |D| in 122-129 -> We 0.67: 30 * 0.33 = 9.90 a game -> 990 + 990.
    # Sum 4470 + 7920 + 1980 = 14370 -> 143.70 -> +144 -> 1644 (1645 without the option).
    counting = replace(era(2015, 1, 1), group_counts_tournaments_without_games=True)
    result = nine_tournaments_after_a_forfeit(counting).run()
    rows = result.variations.filter(pl.col("player_id") == "P").sort("sequence")
    assert rows["tournament_id"].to_list() == ["F"] + [f"A{i}" for i in range(1, 10)]
    assert rows["sequence"].to_list() == list(range(1, 11))
    assert rows["wave"].to_list() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]
    assert rows["own_rating"].to_list() == [1500] * 4 + [1545] * 4 + [1624] * 2
    assert rows["games"].to_list() == [0, 1, 1, 1, 1, 3, 1, 1, 1, 1]
    assert rows["applied_hundredths"].to_list() == [
        0,
        1500,
        1470,
        1500,
        1320,
        3960,
        1320,
        1320,
        990,
        990,
    ]
    check(
        result.rating("P"), frozen=1500, k=30, games=11, hundredths=14370, change=144, rating=1644
    )


# --------------------------------------------------------------------------- §1.3 which games


def test_fide_rated_opponent_counts_only_for_the_side_without_fide() -> None:
    # P 1700 (no FIDE, K = 15) draws F, FIDE 1800 at the start and 1810 at the close.
    # P: D = 1700 - 1800 = -100, |D| in 99-106 -> PD 0.64 -> We 0.36:
    #    V = 15 * (0.5 - 0.36) = +2.10 -> 210 -> +2 -> 1702 (F is not first: P has 1.5).
    # F: FIDE-rated, the game counts for nobody on his side: 0 games; his K is still the
    #    schedule's (1800, 50 games -> 15); at the close he is "fide" at 1810.
    # G (FIDE 1900) draws F: both FIDE-rated, counted for nobody.
    period = Period(
        [
            player("P", 1700),
            player("F", fide_start=1800, fide_close=1810, total_games=50),
            player("G", fide_start=1900, fide_close=1900),
        ],
        [Tournament("T", {"P": 1.5, "F": 1.0, "G": 0.5}, [("P", "F", 0.5), ("F", "G", 0.5)])],
        era(2015, 1, 1),
    )
    result = period.run()
    check(
        result.rating("P"),
        frozen=1700,
        k=15,
        games=1,
        hundredths=210,
        change=2,
        rating=1702,
        basis="list",
    )
    assert result.variation("T", "P")["games"] == 1
    f = result.rating("F")
    assert (f["frozen_rating"], f["rating_basis"], f["k"], f["games"]) == (1800, "fide", 15, 0)
    assert (f["variation_hundredths"], f["period_change"]) == (0, 0)
    assert (f["rating"], f["rating_type"]) == (1810, "fide")
    assert f["total_games"] == 50
    g = result.rating("G")
    assert (g["games"], g["variation_hundredths"], g["rating"], g["rating_type"]) == (
        0,
        0,
        1900,
        "fide",
    )
    result.assert_no_variation("T", "F")
    result.assert_no_variation("T", "G")


def test_a_fide_rating_wins_over_a_list_rating() -> None:
    # H carries both a list rating 1650 and a FIDE rating 1800 at the start: he plays with
    # 1800 (§1.2). P 1700 loses to H: D = -100 -> We 0.36; V = 15 * (0 - 0.36) = -5.40 -> -5.
    # (Against 1650 it would be D = +50 -> 0.57 -> -8.55 -> -9.)
    period = Period(
        [player("P", 1700), player("H", 1650, fide_start=1800, fide_close=1800)],
        [Tournament("T", {"P": 0.0, "H": 1.0}, [("P", "H", 0.0)])],
        era(2015, 1, 1),
    )
    result = period.run()
    check(result.rating("P"), frozen=1700, k=15, games=1, hundredths=-540, change=-5, rating=1695)
    h = result.rating("H")
    assert (h["frozen_rating"], h["rating_basis"], h["games"], h["rating_type"]) == (
        1800,
        "fide",
        0,
        "fide",
    )


def test_unplayed_games_count_for_nobody() -> None:
    # T1: P 1500 (K = 15) plays one game (beats O 1500: D = 0, We 0.50 -> +7.50) and wins
    #     two more points by forfeit, absent from the games: 1 game counted, not 3.
    # T2: P only wins by forfeit: no counted game, V = 0; it is not a tournament with counted
    #     games (so not part of the sequence).
    # P: 750 -> +7.50 -> +8 -> 1508; O: 15 * (0 - 0.50) = -7.50 -> -8 -> 1492.
    period = Period(
        [player("P", 1500), player("O", 1500), player("R", 1500)],
        [
            Tournament("T1", {"P": 3.0, "O": 0.0, "R": 0.0}, [("P", "O", 1.0)]),
            Tournament("T2", {"P": 1.0, "R": 0.0}, []),
        ],
        era(2015, 1, 1),
    )
    result = period.run()
    check(result.rating("P"), frozen=1500, k=15, games=1, hundredths=750, change=8, rating=1508)
    check(result.rating("O"), frozen=1500, k=15, games=1, hundredths=-750, change=-8, rating=1492)
    assert result.variation("T1", "P")["games"] == 1
    result.assert_no_variation("T2", "P")
    result.assert_no_variation("T1", "R")
    result.assert_no_variation("T2", "R")
    check(result.rating("R"), frozen=1500, k=15, games=0, hundredths=0, change=0, rating=1500)
    assert result.rating("P")["total_games"] == 101


# --------------------------------------------------------------------------- difference cap


@pytest.mark.parametrize(
    ("list_date", "we_b", "b_hundredths", "b_change", "a_change"),
    [
        # No cap (2005): |D| = 500 in 485-517 -> PD 0.96, B's We 0.04:
        #   B: 30 * (1 - 0.04) = 28.80 -> +29; A: 30 * (0 - 0.96) = -28.80 -> -29.
        (date(2005, 1, 1), 4, 2880, 29, -29),
        # Cap 350 (2007): 500 -> 350, in 345-357 -> PD 0.89, B's We 0.11:
        #   B: 30 * 0.89 = 26.70 -> +27; A: -26.70 -> -27.
        (date(2007, 1, 1), 11, 2670, 27, -27),
        # Cap 400 (2015): 500 -> 400, in 392-411 -> PD 0.92, B's We 0.08:
        #   B: 30 * 0.92 = 27.60 -> +28; A: -27.60 -> -28.
        (date(2015, 1, 1), 8, 2760, 28, -28),
    ],
)
def test_difference_cap_by_era(
    list_date: date, we_b: int, b_hundredths: int, b_change: int, a_change: int
) -> None:
    # A 2000 and B 1500, 10 prior games each -> K = 30; B (lower) wins: D(A) = +500.
    period = Period(
        [player("A", 2000, total_games=10), player("B", 1500, total_games=10)],
        [Tournament("T", {"A": 0.0, "B": 1.0}, [("A", "B", 0.0)])],
        RULEBOOK.era_at(list_date),
    )
    result = period.run()
    assert result.variation("T", "B")["expected"] == pytest.approx(we_b / 100)
    assert result.variation("T", "A")["expected"] == pytest.approx((100 - we_b) / 100)
    check(
        result.rating("B"),
        frozen=1500,
        k=30,
        games=1,
        hundredths=b_hundredths,
        change=b_change,
        rating=1500 + b_change,
    )
    check(
        result.rating("A"),
        frozen=2000,
        k=30,
        games=1,
        hundredths=-b_hundredths,
        change=a_change,
        rating=2000 + a_change,
    )


def test_a_game_is_capped_only_when_the_difference_exceeds_the_cap() -> None:
    # Cap 400 (2015): |D| = 400 is read from the table as it is (392-411, PD 0.92), so no game
    # is capped; |D| = 401 is treated as 400 and is (the list's note counts capped games).
    period = Period(
        [player("A", 2000), player("B", 1600), player("C", 2001), player("D", 1600)],
        [
            Tournament("AT", {"A": 1.0, "B": 0.0}, [("A", "B", 1.0)]),
            Tournament("CT", {"C": 1.0, "D": 0.0}, [("C", "D", 1.0)]),
        ],
        era(2015, 1, 1),
    )
    result = period.run()
    capped = {
        (row["tournament_id"], row["player_id"]): row["capped_games"]
        for row in result.variations.iter_rows(named=True)
    }
    assert capped == {("AT", "A"): 0, ("AT", "B"): 0, ("CT", "C"): 1, ("CT", "D"): 1}
    assert result.variation("AT", "A")["expected"] == pytest.approx(0.92)
    assert result.variation("CT", "C")["expected"] == pytest.approx(0.92)


# --------------------------------------------------------------------------- K


def test_k_zero_from_2021() -> None:
    # List of 2021-04-01: K = 0 for everyone, registry K included. The newcomer N (1440)
    # beats S (1600): 0 * (1 - 0.29) = 0; ratings stay frozen. The game is still played and
    # counted (no FIDE rating), it just moves nothing.
    period = Period(
        [
            player("N", category="NC", total_games=0),
            player("S", 1600, total_games=40),
            player("K", 1500, k_override=20),
        ],
        [Tournament("T", {"N": 1.0, "S": 0.0, "K": 0.5}, [("N", "S", 1.0), ("K", "S", 0.5)])],
        era(2021, 4, 1),
    )
    result = period.run()
    check(result.rating("N"), frozen=1440, k=0, games=1, hundredths=0, change=0, rating=1440)
    check(result.rating("S"), frozen=1600, k=0, games=2, hundredths=0, change=0, rating=1600)
    check(result.rating("K"), frozen=1500, k=0, games=1, hundredths=0, change=0, rating=1500)
    assert result.variations["raw_hundredths"].to_list() == [0] * result.variations.height
    assert result.variations["applied_hundredths"].to_list() == [0] * result.variations.height


def test_k_schedule_edges() -> None:
    # Era 2015. Each of these beats or loses to a partner; only K and the V it gives matter.
    # H 2400, 100 games -> K 10; L 2399, 100 games -> K 15. H beats L:
    #   H: D = +1 -> We 0.50: 10 * 0.50 = +5.00 -> 2405.
    #   L: D = -1 -> We 0.50: 15 * -0.50 = -7.50 -> -8 -> 2391.
    # Y 2450 with 29 prior games -> K 30 (the newcomer rule comes before the 2400 rule);
    # Z 1500 with exactly 30 prior games -> K 15. Y draws Z in a tournament Z wins on points:
    #   Y: D = +950 -> cap 400 -> We 0.92: 30 * (0.5 - 0.92) = -12.60 -> -13 -> 2437.
    #   Z: We 0.08: 15 * (0.5 - 0.08) = +6.30 -> +6 -> 1506.
    period = Period(
        [
            player("H", 2400),
            player("L", 2399),
            player("Y", 2450, total_games=29),
            player("Z", 1500, total_games=30),
        ],
        [
            Tournament("T1", {"H": 1.0, "L": 0.0}, [("H", "L", 1.0)]),
            Tournament("T2", {"Y": 0.5, "Z": 1.5}, [("Y", "Z", 0.5)]),
        ],
        era(2015, 1, 1),
    )
    result = period.run()
    check(result.rating("H"), frozen=2400, k=10, games=1, hundredths=500, change=5, rating=2405)
    check(result.rating("L"), frozen=2399, k=15, games=1, hundredths=-750, change=-8, rating=2391)
    check(result.rating("Y"), frozen=2450, k=30, games=1, hundredths=-1260, change=-13, rating=2437)
    check(result.rating("Z"), frozen=1500, k=15, games=1, hundredths=630, change=6, rating=1506)


def test_registry_k_overrides_the_schedule() -> None:
    # P 1500, 0 prior games (schedule: 30), registry K = 20; beats O 1500 (D = 0, We 0.50):
    #   20 * 0.50 = +10.00 -> 1510.
    # M 2450, 100 games (schedule: 10), registry K = 25; beats O2 2450 (D = 0):
    #   25 * 0.50 = +12.50 -> 1250 -> +13 -> 2463.
    players = [
        player("P", 1500, total_games=0, k_override=20),
        player("O", 1500),
        player("M", 2450, k_override=25),
        player("O2", 2450),
    ]
    tournaments = [
        Tournament("T1", {"P": 1.0, "O": 0.0}, [("P", "O", 1.0)]),
        Tournament("T2", {"M": 1.0, "O2": 0.0}, [("M", "O2", 1.0)]),
    ]
    result = Period(players, tournaments, era(2015, 1, 1)).run()
    check(result.rating("P"), frozen=1500, k=20, games=1, hundredths=1000, change=10, rating=1510)
    check(result.rating("M"), frozen=2450, k=25, games=1, hundredths=1250, change=13, rating=2463)
    # With registry_override off in the rulebook the schedule applies: P K 30 -> 30 * 0.5 =
    # +15 -> 1515; M K 10 -> +5 -> 2455.
    the_era = era(2015, 1, 1)
    no_override = replace(the_era, k=replace(the_era.k, rules=the_era.k.rules[1:]))
    result = Period(players, tournaments, no_override).run()
    check(result.rating("P"), frozen=1500, k=30, games=1, hundredths=1500, change=15, rating=1515)
    check(result.rating("M"), frozen=2450, k=10, games=1, hundredths=500, change=5, rating=2455)


# --------------------------------------------------------------------------- §1.2 entry ratings


@pytest.mark.parametrize(
    ("category", "frozen", "hundredths"),
    [
        # Each newcomer (0 games, K = 30) beats A (1440) in his own tournament; era 2015,
        # cap 400. V = 30 * (1 - We), D = frozen - 1440:
        ("1S", 1480, 1320),  # D 40, 40-46 -> 0.56: 30 * 0.44 = 13.20 -> +13
        ("2S", 1460, 1410),  # D 20, 18-25 -> 0.53: 30 * 0.47 = 14.10 -> +14
        ("NC", 1440, 1500),  # D 0 -> 0.50: 30 * 0.50 = 15.00 -> +15
        ("3N", 1500, 1260),  # D 60, 54-61 -> 0.58: 30 * 0.42 = 12.60 -> +13
        ("2N", 1600, 870),  # D 160, 154-162 -> 0.71: 30 * 0.29 = 8.70 -> +9
        ("1N", 1800, 300),  # D 360, 358-374 -> 0.90: 30 * 0.10 = 3.00 -> +3
        ("CM", 2000, 240),  # D 560 -> cap 400 -> 0.92: 30 * 0.08 = 2.40 -> +2
        ("M", 2200, 240),  # D 760 -> cap 400 -> 0.92: 2.40 -> +2
        (None, 1440, 1500),  # not in the registry: unregistered category NC -> as NC
    ],
)
def test_entry_rating_by_category(category: str | None, frozen: int, hundredths: int) -> None:
    period = Period(
        [player("N", category=category, total_games=0), player("A", 1440)],
        [Tournament("T", {"N": 1.0, "A": 0.0}, [("N", "A", 1.0)])],
        era(2015, 1, 1),
    )
    result = period.run()
    change = (hundredths + 50) // 100  # all positive: half up = half away from zero
    check(
        result.rating("N"),
        frozen=frozen,
        k=30,
        games=1,
        hundredths=hundredths,
        change=change,
        rating=frozen + change,
        basis="entry",
    )


def test_the_anchor_of_the_entry_ratings_sums_all_its_tournaments() -> None:
    # A (1440, K = 15) loses to all nine newcomers above, one tournament each (K < 20: no
    # groups). A's We in each = 1 - (newcomer's We):
    #   0.44 + 0.47 + 0.50 + 0.42 + 0.29 + 0.10 + 0.08 + 0.08 + 0.50 = 2.88
    #   V = 15 * (0 - 2.88) = -43.20 -> -4320 -> -43 -> 1397.
    categories = ["1S", "2S", "NC", "3N", "2N", "1N", "CM", "M", None]
    players = [player(f"N{i}", category=c, total_games=0) for i, c in enumerate(categories)]
    tournaments = [
        Tournament(
            f"T{i}",
            {f"N{i}": 1.0, "A": 0.0},
            [(f"N{i}", "A", 1.0)],
            end=date(2014, 10, 1) + timedelta(days=i),
        )
        for i in range(len(categories))
    ]
    result = Period([*players, player("A", 1440)], tournaments, era(2015, 1, 1)).run()
    check(result.rating("A"), frozen=1440, k=15, games=9, hundredths=-4320, change=-43, rating=1397)


def test_entry_ratings_follow_the_era() -> None:
    # A rulebook change of the entry ratings reaches the engine: NC at 1400 instead of 1440.
    # N (K = 30) beats A 1440: D = -40 -> We 0.44: 30 * 0.56 = +16.80 -> +17 -> 1417.
    the_era = era(2015, 1, 1)
    changed = replace(
        the_era,
        theoretical_ratings={**the_era.theoretical_ratings, "NC": 1400},
        entry_ratings={**the_era.entry_ratings, "NC": 1400},
    )
    period = Period(
        [player("N", category="NC", total_games=0), player("A", 1440)],
        [Tournament("T", {"N": 1.0, "A": 0.0}, [("N", "A", 1.0)])],
        changed,
    )
    check(
        period.run().rating("N"),
        frozen=1400,
        k=30,
        games=1,
        hundredths=1680,
        change=17,
        rating=1417,
        basis="entry",
    )


def test_a_newcomer_enters_at_the_entry_rating_of_his_category() -> None:
    # §1.2: the entry table decides (1S 1490 here, the theoretical table still says 1480); a
    # category the entry table does not list (1N: a national category) enters at its
    # theoretical rating, 1800.
    # N1S (K = 30) beats A 1490: D = 0 -> We 0.50: 30 * 0.50 = +15 -> 1505.
    # N1N (K = 30) loses to B 1800: D = 0 -> We 0.50: 30 * -0.50 = -15 -> 1785.
    the_era = era(2015, 1, 1)
    changed = replace(the_era, entry_ratings={**the_era.entry_ratings, "1S": 1490})
    period = Period(
        [
            player("N1S", category="1S", total_games=0),
            player("N1N", category="1N", total_games=0),
            player("A", 1490),
            player("B", 1800),
        ],
        [
            Tournament("T", {"N1S": 1.0, "A": 0.0}, [("N1S", "A", 1.0)]),
            Tournament("U", {"N1N": 0.0, "B": 1.0}, [("N1N", "B", 0.0)]),
        ],
        changed,
    ).run()
    check(period.rating("N1S"), frozen=1490, k=30, games=1, hundredths=1500, change=15, rating=1505)
    check(
        period.rating("N1N"), frozen=1800, k=30, games=1, hundredths=-1500, change=-15, rating=1785
    )


def test_foreign_player_with_an_arbiter_rating() -> None:
    # X: not registered, no FIDE, no list rating, rating 1700 set by the chief arbiter.
    # 0 prior games -> K 30. X beats O (1700): D = 0 -> We 0.50: 30 * 0.50 = +15 -> 1715.
    period = Period(
        [player("X", total_games=0, arbiter_rating=1700), player("O", 1700)],
        [Tournament("T", {"X": 1.0, "O": 0.0}, [("X", "O", 1.0)])],
        era(2015, 1, 1),
    )
    result = period.run()
    check(
        result.rating("X"),
        frozen=1700,
        k=30,
        games=1,
        hundredths=1500,
        change=15,
        rating=1715,
        basis="arbiter",
    )
    assert result.rating("X")["rating_type"] == "elo_italia"


def test_arbiter_reassignment_only_if_higher() -> None:
    # U 1600 on the list, arbiter re-assigns 1650 (higher): plays with 1650.
    # D list 1600, arbiter 1550 (lower): keeps 1600.  E list 1600, arbiter 1600: not higher.
    # Each draws O (1600) in a tournament O wins on points (O 1.5: a forfeit win + the draw):
    #   U: D = +50, 47-53 -> We 0.57: 15 * (0.5 - 0.57) = -1.05 -> -1 -> 1649.
    #   D: D = 0 -> We 0.50: 0 -> 1600.   E: same -> 1600.
    period = Period(
        [
            player("U", 1600, arbiter_rating=1650),
            player("D", 1600, arbiter_rating=1550),
            player("E", 1600, arbiter_rating=1600),
            player("O", 1600),
        ],
        [Tournament(f"T{p}", {p: 0.5, "O": 1.5}, [(p, "O", 0.5)]) for p in ("U", "D", "E")],
        era(2015, 1, 1),
    )
    result = period.run()
    check(
        result.rating("U"),
        frozen=1650,
        k=15,
        games=1,
        hundredths=-105,
        change=-1,
        rating=1649,
        basis="arbiter_reassignment",
    )
    check(
        result.rating("D"),
        frozen=1600,
        k=15,
        games=1,
        hundredths=0,
        change=0,
        rating=1600,
        basis="list",
    )
    check(
        result.rating("E"),
        frozen=1600,
        k=15,
        games=1,
        hundredths=0,
        change=0,
        rating=1600,
        basis="list",
    )


# --------------------------------------------------------------------------- §1.5 the close


def test_fide_rated_at_the_close_loses_elo_italia() -> None:
    # P 1700 (no FIDE at the start, K 15) beats O 1700 (D = 0 -> We 0.50): V = +7.50 -> 750,
    # counted as usual; at the close P holds FIDE 1850, so his rating is FIDE 1850.
    period = Period(
        [player("P", 1700, fide_close=1850), player("O", 1700)],
        [Tournament("T", {"P": 1.0, "O": 0.0}, [("P", "O", 1.0)])],
        era(2015, 1, 1),
    )
    result = period.run()
    p = result.rating("P")
    assert (p["frozen_rating"], p["rating_basis"], p["k"], p["games"]) == (1700, "list", 15, 1)
    assert p["variation_hundredths"] == 750
    assert (p["rating"], p["rating_type"]) == (1850, "fide")
    check(result.rating("O"), frozen=1700, k=15, games=1, hundredths=-750, change=-8, rating=1692)


@pytest.mark.parametrize(
    ("list_date", "reentry"),
    [
        (date(2009, 4, 1), 1800),  # minimum 1801 until 2009-06-30
        (date(2009, 7, 1), 1199),  # minimum 1200 from 2009-07-01
        (date(2012, 4, 1), 1199),
        (date(2012, 7, 1), 999),  # minimum 1000 from 2012-07-01
        (date(2024, 1, 1), 999),
        (date(2024, 4, 1), 1399),  # minimum 1400 from 2024-03-01: first list 2024-04-01
    ],
)
def test_fide_delisted_reenters_at_the_minimum_minus_one(list_date: date, reentry: int) -> None:
    # R: on the previous list as FIDE, delisted since (no FIDE now): starts at minimum - 1.
    #    R draws O (also at minimum - 1): D = 0 -> We 0.50 -> V = 0; stays at minimum - 1.
    # L: FIDE at the start (plays with it, games not counted), no FIDE at the close: re-enters
    #    Elo Italia at minimum - 1 of the era.
    the_era = RULEBOOK.era_at(list_date)
    period = Period(
        [
            player("R", on_list_as_fide=True),
            player("O", reentry),
            player("L", fide_start=reentry + 20),
        ],
        [Tournament("T", {"R": 0.5, "O": 0.5, "L": 0.0}, [("R", "O", 0.5)])],
        the_era,
    )
    result = period.run()
    k = 0 if the_era.k.everyone_zero else 15
    check(
        result.rating("R"),
        frozen=reentry,
        k=k,
        games=1,
        hundredths=0,
        change=0,
        rating=reentry,
        basis="fide_reentry",
    )
    assert result.rating("R")["rating_type"] == "elo_italia"
    lost = result.rating("L")
    assert (lost["frozen_rating"], lost["rating_basis"], lost["games"]) == (
        reentry + 20,
        "fide",
        0,
    )
    assert lost["rating"] == reentry
    assert lost["rating_type"] == "elo_italia"
