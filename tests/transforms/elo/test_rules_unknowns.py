"""The rulebook values the regulation leaves open (issue 30), each tested both ways with numbers
worked by hand: the K schedule, the rounding mode, the order of a player's tournaments, the
expected-score method, winner protection, and the FIDE re-entry of a player on no list.

Notation as in ``test_rules.py``: We from the FIDE table (§1.6), D = own - opponent,
V = K x sum(W - We).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from tests.transforms.elo.test_rules import Period, Tournament, check, era, player
from transforms.elo.rulebook import KRule, KSchedule

ERA = era(2015, 1, 1)  # cap 400, groups of 4 from K 20, K 30/10/15, halves away from zero


def test_a_k_by_rating_band_is_a_ladder_of_schedule_lines() -> None:
    # Each beats an equal opponent (D = 0, We 0.50): V = K x 0.50.
    # Default schedule (100 games each): H 2300 < 2400 -> K 15: +7.50 -> +8 (line 3, "always");
    #   M 1900 -> 15: +8; L 1500 -> 15: +8.
    # Ladder [>= 2200: 10, >= 1800: 20, else 25]: H +5.00 -> 2305; M +10.00 -> 1910;
    #   L +12.50 -> +13 -> 1513.
    players = [player(name, rating) for name, rating in (("H", 2300), ("M", 1900), ("L", 1500))]
    players += [
        player(f"O{name}", rating) for name, rating in (("H", 2300), ("M", 1900), ("L", 1500))
    ]
    tournaments = [
        Tournament(f"T{name}", {name: 1.0, f"O{name}": 0.0}, [(name, f"O{name}", 1.0)])
        for name in ("H", "M", "L")
    ]
    default = Period(players, tournaments, ERA).run()
    for name, rating in (("H", 2300), ("M", 1900), ("L", 1500)):
        row = default.rating(name)
        check(row, frozen=rating, k=15, games=1, hundredths=750, change=8, rating=rating + 8)
        assert row["k_rule"] == 3
    ladder = KSchedule(
        (
            KRule("rating_at_least", 2200, 10),
            KRule("rating_at_least", 1800, 20),
            KRule(None, None, 25),
        )
    )
    banded = Period(players, tournaments, replace(ERA, k=ladder)).run()
    check(banded.rating("H"), frozen=2300, k=10, games=1, hundredths=500, change=5, rating=2305)
    check(banded.rating("M"), frozen=1900, k=20, games=1, hundredths=1000, change=10, rating=1910)
    check(banded.rating("L"), frozen=1500, k=25, games=1, hundredths=1250, change=13, rating=1513)
    assert [banded.rating(name)["k_rule"] for name in ("H", "M", "L")] == [0, 1, 2]
    # "rating_below" reads the frozen rating too: below 1600 -> 40, else 15
    below = KSchedule((KRule("rating_below", 1600, 40), KRule(None, None, 15)))
    low = Period(players, tournaments, replace(ERA, k=below)).run()
    check(low.rating("L"), frozen=1500, k=40, games=1, hundredths=2000, change=20, rating=1520)
    check(low.rating("M"), frozen=1900, k=15, games=1, hundredths=750, change=8, rating=1908)


@pytest.mark.parametrize(
    ("mode", "plus_12_5", "minus_12_5", "plus_13_5", "plus_15_9"),
    [
        ("half_away_from_zero", 13, -13, 14, 16),
        ("half_even", 12, -12, 14, 16),
        ("toward_zero", 12, -12, 13, 15),
    ],
)
def test_the_rounding_mode_rounds_the_period_sum(
    mode: str, plus_12_5: int, minus_12_5: int, plus_13_5: int, plus_15_9: int
) -> None:
    # Registry K against an equal opponent (D = 0, We 0.50): A K 25 wins: +12.50; B K 25
    # loses: -12.50; C K 27 wins: +13.50. J K 30 beats a 1520 at 1500: D = -20 (band 18-25,
    # PD 0.53) -> We 0.47: 30 x 0.53 = +15.90.
    # Half away from zero: 13, -13, 14, 16; half even: 12, -12, 14, 16; toward zero: 12, -12,
    # 13, 15.
    players = [
        player("A", 1500, k_override=25),
        player("B", 1500, k_override=25),
        player("C", 1500, k_override=27),
        player("J", 1500, k_override=30),
        player("OA", 1500),
        player("OB", 1500),
        player("OC", 1500),
        player("OJ", 1520),
    ]
    tournaments = [
        Tournament("TA", {"A": 1.0, "OA": 0.0}, [("A", "OA", 1.0)]),
        Tournament("TB", {"B": 0.0, "OB": 1.0}, [("B", "OB", 0.0)]),
        Tournament("TC", {"C": 1.0, "OC": 0.0}, [("C", "OC", 1.0)]),
        Tournament("TJ", {"J": 1.0, "OJ": 0.0}, [("J", "OJ", 1.0)]),
    ]
    result = Period(players, tournaments, replace(ERA, rounding=mode)).run()
    changes = [result.rating(name)["period_change"] for name in ("A", "B", "C", "J")]
    assert changes == [plus_12_5, minus_12_5, plus_13_5, plus_15_9]
    assert result.rating("J")["variation_hundredths"] == 1590


def test_the_rounding_mode_rounds_the_sum_carried_into_a_later_group() -> None:
    # P (K 30) wins A-D against 1500s at 1500: +60.00; a registry K of 25 instead: 4 x 12.50 =
    # +50.00, no half. With K 25 and one draw among A-D: 3 x 12.50 + 0 = 37.50 carried:
    # half away -> own rating 1538 in E; half even -> 1538 (37.5 -> 38, even); toward zero ->
    # 1537. E is lost against a 1500: D = +38 (band 33-39 PD 0.55) or +37 (same band):
    # 25 x -0.55 = -13.75 either way; the sum 37.50 - 13.75 = 23.75 -> 24 / 24 / 23.
    players, tournaments = five_tournaments_one_lost()
    players[0] = player("P", 1500, total_games=0, k_override=25)
    drawn = tournaments[1]
    tournaments[1] = Tournament(
        drawn.tournament_id, {"P": 0.5, "OB": 0.5}, [("P", "OB", 0.5)], drawn.start, drawn.end
    )
    for mode, own, change in (
        ("half_away_from_zero", 1538, 24),
        ("half_even", 1538, 24),
        ("toward_zero", 1537, 23),
    ):
        result = Period(players, tournaments, replace(ERA, rounding=mode)).run()
        assert result.variation("E", "P")["own_rating"] == own, mode
        assert result.rating("P")["period_change"] == change, mode


def five_tournaments_one_lost() -> tuple[list[dict], list[Tournament]]:
    """P (1500, newcomer: K 30, so the groups apply) plays one game in each of five
    tournaments against a 1500: A-D won, E lost. E started first and ended last."""
    players = [player("P", 1500, total_games=0)]
    tournaments = []
    for index, name in enumerate("ABCD"):
        day = date(2014, 11, 1 + index)
        opponent = f"O{name}"
        players.append(player(opponent, 1500))
        tournaments.append(
            Tournament(name, {"P": 1.0, opponent: 0.0}, [("P", opponent, 1.0)], day, day)
        )
    players.append(player("OE", 1500))
    tournaments.append(
        Tournament(
            "E", {"P": 0.0, "OE": 1.0}, [("P", "OE", 0.0)], date(2014, 10, 1), date(2014, 11, 30)
        )
    )
    return players, tournaments


def test_the_order_of_a_players_tournaments_is_a_rulebook_value() -> None:
    # By end date (default): A B C D | E. A-D at 1500: 4 x 30 x 0.50 = +60.00. E (5th) at own
    #   1500 + 60 = 1560 against 1500: D = +60 -> band 54-61 PD 0.58 -> We 0.58:
    #   30 x (0 - 0.58) = -17.40. Sum 42.60 -> +43 -> 1543.
    # By start date: E A B C | D. E at 1500: -15.00; A-C: +45.00; first group 30.00. D (5th) at
    #   1530: D = +30 -> band 26-32 PD 0.54: 30 x 0.46 = +13.80. Sum 43.80 -> +44 -> 1544.
    players, tournaments = five_tournaments_one_lost()
    by_end = Period(players, tournaments, ERA).run()
    check(by_end.rating("P"), frozen=1500, k=30, games=5, hundredths=4260, change=43, rating=1543)
    assert by_end.variation("E", "P")["own_rating"] == 1560
    by_start = replace(ERA, tournament_order=("start_date", "end_date", "tournament_id"))
    result = Period(players, tournaments, by_start).run()
    check(result.rating("P"), frozen=1500, k=30, games=5, hundredths=4380, change=44, rating=1544)
    assert result.variation("E", "P")["sequence"] == 1
    assert result.variation("D", "P")["own_rating"] == 1530
    # by id only: A B C D E, as by end date here
    by_id = Period(players, tournaments, replace(ERA, tournament_order=("tournament_id",))).run()
    assert by_id.rating("P")["rating"] == 1543


def one_player_three_opponents() -> tuple[list[dict], list[Tournament]]:
    """P 1600 (K 15) beats O1 1500, draws O2 1700, loses to O3 1650."""
    players = [player("P", 1600), player("O1", 1500), player("O2", 1700), player("O3", 1650)]
    tournament = Tournament(
        "T",
        {"P": 1.5, "O1": 0.0, "O2": 0.5, "O3": 1.0},
        [("P", "O1", 1.0), ("P", "O2", 0.5), ("P", "O3", 0.0)],
    )
    return players, [tournament]


def test_the_expected_score_method_is_a_rulebook_value() -> None:
    players, tournaments = one_player_three_opponents()
    # Table, game by game: D +100 (band 99-106) We 0.64; D -100 -> 0.36; D -50 (band 47-53)
    #   -> 0.43. Sum 1.43; W 1.5: 15 x 0.07 = +1.05 -> +1.
    table = Period(players, tournaments, ERA).run()
    check(table.rating("P"), frozen=1600, k=15, games=3, hundredths=105, change=1, rating=1601)
    assert table.variation("T", "P")["expected"] == pytest.approx(1.43)
    # Average of opponents: (1500 + 1700 + 1650) / 3 = 1616.67 -> 1617; D = -17 (band 11-17,
    #   PD 0.52) -> We 0.48 per game, 1.44 for three: 15 x 0.06 = +0.90 -> +1.
    average = Period(players, tournaments, replace(ERA, expected_method="average_opponent")).run()
    check(average.rating("P"), frozen=1600, k=15, games=3, hundredths=90, change=1, rating=1601)
    assert average.variation("T", "P")["expected"] == pytest.approx(1.44)


def test_the_logistic_expectation_is_unrounded() -> None:
    # P 1500 (K 30) loses four games to 1550s: D = -50.
    # Table: band 47-53 PD 0.57 -> We 0.43... P is lower: We = 0.43, V = 30 x 4 x (0 - 0.43)
    #   = -51.60 -> -52. Logistic: We = 1 / (1 + 10^(50/400)) = 1 / (1 + 1.333521) =
    #   0.428537; 4 x 0.428537 = 1.714148; V = -30 x 1.714148 = -51.4244 -> hundredths
    #   -5142 -> -51.
    players = [player("P", 1500, total_games=0)] + [player(f"O{i}", 1550) for i in range(4)]
    tournaments = [
        Tournament(f"T{i}", {"P": 0.0, f"O{i}": 1.0}, [("P", f"O{i}", 0.0)]) for i in range(4)
    ]
    table = Period(players, tournaments, ERA).run()
    check(table.rating("P"), frozen=1500, k=30, games=4, hundredths=-5160, change=-52, rating=1448)
    logistic = Period(players, tournaments, replace(ERA, expected_method="logistic")).run()
    check(
        logistic.rating("P"), frozen=1500, k=30, games=4, hundredths=-5142, change=-51, rating=1449
    )
    assert logistic.variation("T0", "P")["expected"] == pytest.approx(0.428537, abs=1e-6)


def test_winner_protection_can_be_switched_off() -> None:
    # P 1700 and O 1500 draw their only game: both 0.5 points, both first.
    # P: D = +200 (band 198-206) We 0.76: 15 x (0.5 - 0.76) = -3.90: protected to 0 when on,
    #   -4 -> 1696 when off. O: 15 x (0.5 - 0.24) = +3.90 -> +4 either way.
    players = [player("P", 1700), player("O", 1500)]
    tournaments = [Tournament("T", {"P": 0.5, "O": 0.5}, [("P", "O", 0.5)])]
    protected = Period(players, tournaments, ERA).run()
    check(protected.rating("P"), frozen=1700, k=15, games=1, hundredths=0, change=0, rating=1700)
    assert protected.variation("T", "P")["raw_hundredths"] == -390
    unprotected = Period(players, tournaments, replace(ERA, winner_protection=False)).run()
    check(
        unprotected.rating("P"), frozen=1700, k=15, games=1, hundredths=-390, change=-4, rating=1696
    )
    check(
        unprotected.rating("O"), frozen=1500, k=15, games=1, hundredths=390, change=4, rating=1504
    )


def test_a_player_the_registry_shows_delisted_plays_at_the_reentry_rating_on_no_list() -> None:
    # §1.5 corrected: X, a CM on no Elo Italia list, lost his FIDE rating before the period
    # (the flow gives fide_reentry_rating 999). He plays at 999, not at the CM's 2000.
    # X (K 30: no games before) beats O 1500: D = -501, capped at 400 in 2015 (band 392-411,
    # PD 0.92) -> We 0.08: 30 x 0.92 = +27.60 -> +28 -> 1027. O: 15 x (0 - 0.92) = -13.80 ->
    # -14 -> 1486. Without the re-entry X would enter at 2000: D = +500, capped: We 0.92,
    # 30 x 0.08 = +2.40 -> 2002.
    players = [
        {**player("X", None, total_games=0, category="CM"), "fide_reentry_rating": 999},
        {**player("O", 1500), "fide_reentry_rating": None},
    ]
    tournaments = [Tournament("T", {"X": 1.0, "O": 0.0}, [("X", "O", 1.0)])]
    result = Period(players, tournaments, ERA).run()
    check(
        result.rating("X"),
        frozen=999,
        k=30,
        games=1,
        hundredths=2760,
        change=28,
        rating=1027,
        basis="fide_reentry",
    )
    check(result.rating("O"), frozen=1500, k=15, games=1, hundredths=-1380, change=-14, rating=1486)
    newcomer = [{**row, "fide_reentry_rating": None} for row in players]
    result = Period(newcomer, tournaments, ERA).run()
    check(result.rating("X"), frozen=2000, k=30, games=1, hundredths=240, change=2, rating=2002)


def test_an_arbiter_rating_is_no_entry_where_the_era_gives_the_arbiter_no_free_value() -> None:
    # F, foreign, no FIDE, arbiter 1700, on no list (NC: 1440), beats O 1500 (K 15).
    # arbiter_entry on: F at 1700: D = +200 -> We 0.76: 30 x 0.24 = +7.20 -> 1707.
    # off: F at 1440: D = -60 (band 54-61 PD 0.58) -> We 0.42: 30 x 0.58 = +17.40 -> 1457.
    players = [player("F", None, total_games=0, arbiter_rating=1700), player("O", 1500)]
    tournaments = [Tournament("T", {"F": 1.0, "O": 0.0}, [("F", "O", 1.0)])]
    given = Period(players, tournaments, ERA).run()
    check(given.rating("F"), frozen=1700, k=30, games=1, hundredths=720, change=7, rating=1707)
    ignored = Period(players, tournaments, replace(ERA, arbiter_entry=False)).run()
    check(ignored.rating("F"), frozen=1440, k=30, games=1, hundredths=1740, change=17, rating=1457)
    assert ignored.rating("F")["rating_basis"] == "entry"
