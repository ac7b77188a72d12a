"""Cross-check of the Elo-Rubele engine against a slow, independent reference (RULES.md §3).

(a) hand-checked cases of the reference itself (they run even before the engine exists), with
    the default rulebook settings and every non-default one;
(b) the engine gives exactly (bit for bit) the reference's results on random histories of both
    variants, with the Gauss and a banded conversion, and with the rulebooks' non-default
    settings switched on across eras (``ALTERNATIVE_RULEBOOKS``);
(c) invariants, on both: row order is irrelevant, waves never hold a player twice and follow each
    player's tournament order, overlapping tournaments are applied by end date, then id.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from datetime import date, timedelta
from types import ModuleType
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from tests.reference.random_rubele import (
    ENTRY_SCHEMA,
    GAME_SCHEMA,
    REACHED_CAPITAL_SCHEMA,
    RULEBOOKS,
    TOURNAMENT_SCHEMA,
    NamedRulebook,
    RandomHistory,
    alternative_rulebooks,
    edited_rulebook,
    histories,
    random_history,
    rubele_rulebook,
    rulebooks,
)
from tests.reference.rubele import (
    CAPITAL_DTYPES,
    VARIATION_DTYPES,
    capital_after,
    era_for,
    order_key,
    reference_history,
    reference_history_frames,
)
from transforms.rubele.rulebook import RubeleRulebook

Row = dict[str, Any]
ITALIANA = rubele_rulebook("italiana")
INTERNAZIONALE = rubele_rulebook("internazionale")
BOOKS = {"italiana": ITALIANA, "internazionale": INTERNAZIONALE}
BEFORE_Q = date(2010, 6, 1)  # minimum 500, no Q
WITH_Q = date(2022, 6, 1)  # minimum 500, Q
BASE = date(1990, 6, 1)  # no minimum, no Q

Compute = Callable[
    [pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame, RubeleRulebook],
    tuple[list[Row], list[Row]],
]


# --------------------------------------------------------------------------- building inputs


def tournament(
    tid: str, end: date, start: date | None = None, validity: int = 100, no_start: bool = False
) -> Row:
    return {
        "tournament_id": tid,
        "start_date": None if no_start else (start or end),
        "end_date": end,
        "validity": validity,
    }


def game(tid: str, pid: str, opponent: str, points: float) -> list[Row]:
    """Both sides' view of one game; ``points`` are ``pid``'s."""
    return [
        {"tournament_id": tid, "player_id": pid, "opponent_id": opponent, "points": points},
        {"tournament_id": tid, "player_id": opponent, "opponent_id": pid, "points": 1 - points},
    ]


def entries_of(tid: str, *pids: str) -> list[Row]:
    return [{"tournament_id": tid, "player_id": pid} for pid in pids]


def history(
    capitals: dict[str, int],
    tournaments: list[Row],
    entries: list[Row],
    games: list[Row],
    reached: dict[str, int] | None = None,
) -> RandomHistory:
    """Frames of a history; ``reached``: capitals known reached before it (by player)."""
    reached = reached or {}
    return RandomHistory(
        pl.DataFrame(
            [
                {"player_id": p, "capital": c, "reached": reached.get(p)}
                for p, c in capitals.items()
            ],
            schema=REACHED_CAPITAL_SCHEMA,
            orient="row",
        ),
        pl.DataFrame(tournaments, schema=TOURNAMENT_SCHEMA, orient="row"),
        pl.DataFrame(entries, schema=ENTRY_SCHEMA, orient="row"),
        pl.DataFrame(games, schema=GAME_SCHEMA, orient="row"),
    )


def by_player(rows: list[Row]) -> dict[str, Row]:
    return {row["player_id"]: row for row in rows}


def by_entry(rows: list[Row]) -> dict[tuple[str, str], Row]:
    return {(row["tournament_id"], row["player_id"]): row for row in rows}


def run(case: RandomHistory, rulebook: RubeleRulebook = ITALIANA) -> tuple[list[Row], list[Row]]:
    result = reference_history_frames(*case.frames(), rulebook)
    return result.capitals, result.variations


# --------------------------------------------------------------------------- (a) the reference

# RULES.md §3: variant, CI, D, validity, CF before the Q rule, CF with Q
HAND_CHECKED = [
    ("italiana", 2950, 0.8, 100, 3047, 3057),
    ("internazionale", 1950, 1.0, 100, 2127, 2142),
    ("italiana", 560, -1.0, 100, 500, 500),
    ("italiana", 3500, 1.5, 50, 3575, 3585),
    ("italiana", 2999, 10.0, 100, 3950, 3960),
    ("italiana", 3050, -1.0, 100, 2950, 2960),
    ("internazionale", 3100, -0.5, 100, 3060, 3075),
    ("italiana", 3900, 0.5, 100, 3925, 3935),
]


@pytest.mark.parametrize(("variant", "ci", "d", "validity", "before_q", "with_q"), HAND_CHECKED)
def test_hand_checked_cases(
    variant: str, ci: int, d: float, validity: int, before_q: int, with_q: int
) -> None:
    book = BOOKS[variant]  # the default: the first-time rescaling
    assert era_for(book, BEFORE_Q).rescale_upward == "first"
    for rulebook in (book, EVERY_BY_VARIANT[variant]):
        assert capital_after(ci, d, era_for(rulebook, BEFORE_Q), validity).final == before_q
        # having held CI (3900 for the last one) is not having passed a threshold at CI
        held = capital_after(ci, d, era_for(rulebook, BEFORE_Q), validity, reached=ci)
        assert held.final == before_q
        outcome = capital_after(ci, d, era_for(rulebook, WITH_Q), validity)
        assert outcome.final == with_q
        assert outcome.q == (10 if variant == "italiana" else 15)


def test_hand_checked_details() -> None:
    era = era_for(ITALIANA, BEFORE_Q)
    first = capital_after(2950, 0.8, era, 100)
    assert (first.s, first.crossings) == (150, 1)
    assert first.rescaled == pytest.approx(3000 + 70 * 100 / 150)
    two = capital_after(2999, 10.0, era, 100)
    assert (two.s, two.variation, two.crossings) == (150, 1500.0, 2)
    assert two.rescaled == pytest.approx(3900 + (3000 + 1499 * 100 / 150 - 3900) * 50 / 100)
    floor = capital_after(560, -1.0, era, 100)
    assert (floor.floored, floor.rescaled, floor.final) == (True, 410.0, 500)
    down = capital_after(3050, -1.0, era, 100)  # no rescaling downward
    assert (down.crossings, down.s, down.final) == (0, 100, 2950)
    top = capital_after(3900, 0.5, era, 100)  # 3900 is still the middle band
    assert (top.s, top.crossings, top.final) == (100, 1, 3925)
    # at 50 % V is halved, the rescaling still divides by the S of the band (not S x 0.5)
    half = capital_after(2950, 0.8, era, 50)
    assert (half.factor, half.crossings) == (0.5, 1)
    assert half.variation == pytest.approx(60.0)
    assert half.final == 3007  # 3000 + 10 x 100 / 150 = 3006.67
    # exactly on a threshold is not a crossing
    assert capital_after(2850, 1.0, era, 100).crossings == 0


EVERY = edited_rulebook("italiana", [('upward = "first"', 'upward = "every"')])
EVERY_BY_VARIANT = {
    "italiana": EVERY,
    "internazionale": edited_rulebook("internazionale", [('upward = "first"', 'upward = "every"')]),
}
FID_SCALE = edited_rulebook("italiana", [('scale = "one"', 'scale = "fid"')])
HALF_DOWN = edited_rulebook("italiana", [('rounding = "half_up"', 'rounding = "half_down"')])
DOWNWARD = edited_rulebook("italiana", [("downward = false", "downward = true")])
AFTER = edited_rulebook(
    "italiana", [('factor_stage = "before_rescaling"', 'factor_stage = "after_rescaling"')]
)
Q_FACTOR = edited_rulebook("internazionale", [("factor_on_q = false", "factor_on_q = true")])
CAP_400 = edited_rulebook("italiana", [("difference_cap = 0 ", "difference_cap = 400 ")])
FORFEIT_LOSSES = edited_rulebook(
    "italiana", [("counted_for_loser = []", 'counted_for_loser = ["forfeit"]')]
)
BY_START = edited_rulebook(
    "italiana",
    [
        (
            'by = ["end_date", "start_date", "tournament_id"]',
            'by = ["start_date", "end_date", "tournament_id"]',
        )
    ],
)


def test_hand_checked_non_default_settings() -> None:
    """The numbers of tests/transforms/rubele/test_capitals.py, worked out there, on the
    reference."""
    era = era_for(ITALIANA, BEFORE_Q)  # the first-time rescaling, the default
    # 2950 + 120 = 3070: 3001 held before (3000 passed), no rescaling; else 3047
    again = capital_after(2950, 0.8, era, 100, reached=3001)
    assert (again.final, again.crossings, again.recrossed, again.rescaled) == (3070, 0, 1, 3070.0)
    assert capital_after(2950, 0.8, era, 100, reached=3000).final == 3047  # reached, not passed
    assert capital_after(2950, 0.8, era, 100, reached=2999).final == 3047
    assert capital_after(2950, 0.8, era_for(EVERY, BEFORE_Q), 100, reached=3001).final == 3047
    # 3900 held, 3950 after the tournament: passed for the first time, 3925; 3901 held: 3950
    assert capital_after(3900, 0.5, era, 100, reached=3900).final == 3925
    assert capital_after(3900, 0.5, era, 100, reached=3901).final == 3950
    # 4499: 3000 crossed as it is (passed), S 150 kept for 3900: 3900 + 599 x 50/150 -> 4100
    two = capital_after(2999, 10.0, era, 100, reached=3500)
    assert (two.final, two.crossings, two.recrossed) == (4100, 1, 1)
    # the FID's 2 / 1 / 0 points scale: D 1.5 -> 3.0 at 50 %: 3500 + 150 = 3650 (3575 on 1)
    fid = capital_after(3500, 1.5, era_for(FID_SCALE, BEFORE_Q), 50)
    assert (fid.variation, fid.final) == (150.0, 3650)
    # halves down: 1950 + 1.5 -> 1951 (halves up: 1952)
    assert capital_after(1950, 0.01, era_for(HALF_DOWN, BASE), 100).final == 1951
    assert capital_after(1950, 0.01, era_for(ITALIANA, BASE), 100).final == 1952
    # downward: 2950 -> 3000 - 50 x 150/100 = 2925; 2950 from 3950 (two thresholds) -> 1500
    down = capital_after(3050, -1.0, era_for(DOWNWARD, BEFORE_Q), 100)
    assert (down.final, down.crossings, down.rescaled) == (2925, 1, 2925.0)
    assert capital_after(3950, -20.0, era_for(DOWNWARD, BEFORE_Q), 100).crossings == 2
    assert capital_after(3950, -20.0, era_for(DOWNWARD, BEFORE_Q), 100).final == 1500
    # the factor after the rescaling: V 120 unscaled, 3046.67, then 2950 + 96.67 x 0.5 -> 2998
    after = capital_after(2950, 0.8, era_for(AFTER, BEFORE_Q), 50)
    assert (after.variation, after.final) == (120.0, 2998)
    assert after.rescaled == pytest.approx(3000 + 70 * 100 / 150)
    # Q x 0.5: 2000 + 7.5 -> 2008
    assert capital_after(2000, 0.0, era_for(Q_FACTOR, WITH_Q), 50).final == 2008


def test_hand_checked_histories_with_non_default_settings() -> None:
    day = date(2021, 3, 1)
    # a cap of 400: A 3000 beats B 1000 -> 3039 and 942 (3008 and 988 without)
    case = history(
        {"A": 3000, "B": 1000}, [tournament("T", day)], entries_of("T", "A", "B"),
        game("T", "A", "B", 1.0),
    )  # fmt: skip
    assert [row["capital"] for row in run(case, CAP_400)[0]] == [3039, 942]
    assert [row["capital"] for row in run(case)[0]] == [3008, 988]
    # C lost to A by forfeit: counted for C only (1500 - 75); A's win never counts
    forfeit = [{**row, "kind": "forfeit"} for row in game("T", "A", "C", 1.0)] + [
        {**row, "kind": "played"} for row in game("T", "A", "B", 0.5)
    ]
    case = history(
        dict.fromkeys("ABC", 1500), [tournament("T", day)], entries_of("T", "A", "B", "C"), []
    )
    rows = pl.DataFrame(forfeit, schema=GAME_SCHEMA | {"kind": pl.Utf8}, orient="row")
    case = RandomHistory(case.capitals, case.tournaments, case.entries, rows)
    capitals = by_player(run(case, FORFEIT_LOSSES)[0])
    assert {p: (r["capital"], r["games"]) for p, r in capitals.items()} == {
        "A": (1500, 1),
        "B": (1500, 1),
        "C": (1425, 1),
    }
    assert by_player(run(case)[0])["C"]["games"] == 0
    # X (3040) loses to Y, then beats Z from 2990: over 3000 again, 3065 under "first"
    games = game("T1", "Y", "X", 1.0) + game("T2", "X", "Z", 1.0)
    case = history(
        {"X": 3040, "Y": 3040, "Z": 2990},
        [tournament("T1", day), tournament("T2", day + timedelta(days=31))],
        entries_of("T1", "X", "Y") + entries_of("T2", "X", "Z"),
        games,
    )
    assert by_player(run(case)[0])["X"]["capital"] == 3065
    assert by_player(run(case, EVERY)[0])["X"]["capital"] == 3043
    # A above 3000 (3043), below (2993), back over (3068): rescaled again only under every
    # (3045); see test_capitals.py for the numbers
    games = game("T1", "A", "B", 1.0) + game("T2", "C", "A", 1.0) + game("T3", "A", "D", 1.0)
    case = history(
        {"A": 2990, "B": 2990, "C": 3043, "D": 2993},
        [tournament(f"T{n}", day + timedelta(days=31 * n)) for n in (1, 2, 3)],
        entries_of("T1", "A", "B") + entries_of("T2", "A", "C") + entries_of("T3", "A", "D"),
        games,
    )
    assert [r["final"] for r in run(case)[1] if r["player_id"] == "A"] == [3043, 2993, 3068]
    assert [r["final"] for r in run(case, EVERY)[1] if r["player_id"] == "A"] == [3043, 2993, 3045]
    # by start date: LONG (1-10 Mar) before SHORT (5-8 Mar)
    long_short = history(
        dict.fromkeys("PQR", 1500),
        [
            tournament("LONG", date(2021, 3, 10), date(2021, 3, 1)),
            tournament("SHORT", date(2021, 3, 8), date(2021, 3, 5)),
        ],
        entries_of("LONG", "P", "R") + entries_of("SHORT", "P", "Q"),
        game("LONG", "P", "R", 1.0) + game("SHORT", "P", "Q", 1.0),
    )
    assert [row["capital"] for row in run(long_short, BY_START)[0]] == [1647, 1428, 1425]
    assert [row["capital"] for row in run(long_short)[0]] == [1647, 1425, 1428]


def test_minimum_and_q_by_era() -> None:
    assert capital_after(560, -1.0, era_for(ITALIANA, BASE), 100).final == 410
    assert capital_after(560, -1.0, era_for(ITALIANA, BASE), 100).floored is False
    # a capital below 500 that does not fall is still raised to 500 from 1994-01-16
    raised = capital_after(420, 0.2, era_for(ITALIANA, BEFORE_Q), 100)
    assert (raised.final, raised.floored) == (500, True)
    # the floor applies after Q: 495 + 10 = 505 is not floored
    q = capital_after(495, 0.0, era_for(ITALIANA, WITH_Q), 100)
    assert (q.q, q.final, q.floored) == (10, 505, False)
    # Q is not halved at 50 %
    assert capital_after(2000, 0.0, era_for(INTERNAZIONALE, WITH_Q), 50).final == 2015


def test_no_counted_game() -> None:
    outcome = capital_after(3100, 0.0, era_for(ITALIANA, WITH_Q), 50, counted=False)
    assert (outcome.final, outcome.q, outcome.variation, outcome.rescaled) == (3100, 0, 0.0, 3100.0)
    assert (outcome.s, outcome.factor, outcome.floored, outcome.crossings) == (100, 0.5, False, 0)
    below = capital_after(300, 0.0, era_for(ITALIANA, WITH_Q), 100, counted=False)
    assert (below.final, below.floored) == (300, False)  # no floor without a counted game


def test_rounding_halves_up() -> None:
    era = era_for(ITALIANA, BASE)
    # S 150 x D 0.01 = 1.5 -> 1001.5 -> 1002; -1.5 -> 998.5 -> 999
    assert capital_after(1000, 0.01, era, 100).final == 1002
    assert capital_after(1000, -0.01, era, 100).final == 999


def test_era_selection() -> None:
    eras = ITALIANA.eras
    assert era_for(ITALIANA, date(1987, 1, 1)) is eras[0]
    assert era_for(INTERNAZIONALE, date(1981, 1, 1)) is INTERNAZIONALE.eras[0]
    with pytest.raises(ValueError, match="before rubele_italiana is rated"):
        era_for(ITALIANA, date(1986, 12, 31))
    assert era_for(ITALIANA, date(1994, 1, 15)).minimum == 0
    assert era_for(ITALIANA, date(1994, 1, 16)).minimum == 500
    assert era_for(ITALIANA, date(2021, 12, 31)).q == 0
    assert era_for(ITALIANA, date(2022, 1, 1)).q == 10
    assert era_for(INTERNAZIONALE, date(2022, 1, 1)).q == 15


def test_two_debutants() -> None:
    day = date(2023, 3, 5)
    case = history(
        {"A": 1500, "B": 1500},
        [tournament("T", day)],
        entries_of("T", "A", "B"),
        game("T", "A", "B", 1.0),
    )
    capitals, variations = run(case)
    # PA 0.5 each; V = 150 x +-0.5 = +-75; Q 10
    assert {p: row["capital"] for p, row in by_player(capitals).items()} == {"A": 1585, "B": 1435}
    row = by_entry(variations)["T", "A"]
    assert (row["wave"], row["sequence"], row["expected"], row["points"]) == (0, 1, 0.5, 1.0)
    assert (row["variation"], row["q"], row["final"]) == (75.0, 10, 1585)
    assert by_player(capitals)["A"]["tournaments"] == 1 and by_player(capitals)["A"]["games"] == 1


def test_everyone_plays_with_the_capital_before_the_tournament() -> None:
    """A round-robin of three: B's opponents see him at 2000 in every game."""
    day = date(2010, 3, 7)
    games = game("T", "A", "B", 0.0) + game("T", "B", "C", 1.0) + game("T", "A", "C", 0.5)
    case = history(
        {"A": 2000, "B": 2000, "C": 2000, "X": 2500},
        [tournament("T", day)],
        entries_of("T", "A", "B", "C", "X"),  # X entered, no counted game
        games,
    )
    capitals, variations = run(case)
    rows = by_entry(variations)
    assert {pid: rows["T", pid]["expected"] for pid in "ABC"} == dict.fromkeys("ABC", 1.0)
    assert {pid: rows["T", pid]["final"] for pid in "ABC"} == {"A": 1925, "B": 2150, "C": 1925}
    assert rows["T", "X"]["games"] == 0 and rows["T", "X"]["final"] == 2500
    assert by_player(capitals)["X"] == {
        "player_id": "X",
        "capital": 2500,
        "tournaments": 0,
        "games": 0,
    }


def overlap_case() -> RandomHistory:
    """A plays T1 (1-10 March) and T2 (5-8 March): T2 ends first and is applied first.

    T3 and T4 end together on 12 March: T4 started earlier and goes first; T5 has no start date
    and goes before both; T6 and T7 share end and start dates: the id decides.
    """
    tournaments = [
        tournament("T1", date(2010, 3, 10), date(2010, 3, 1)),
        tournament("T2", date(2010, 3, 8), date(2010, 3, 5)),
        tournament("T3", date(2010, 3, 12), date(2010, 3, 11)),
        tournament("T4", date(2010, 3, 12), date(2010, 3, 9)),
        tournament("T5", date(2010, 3, 12), no_start=True),
        tournament("T7", date(2010, 3, 14), date(2010, 3, 13)),
        tournament("T6", date(2010, 3, 14), date(2010, 3, 13)),
    ]
    entries: list[Row] = []
    games: list[Row] = []
    opponents = {"T1": "B", "T2": "C", "T3": "D", "T4": "E", "T5": "F", "T6": "G", "T7": "H"}
    for tid, opponent in opponents.items():
        entries += entries_of(tid, "A", opponent)
        games += game(tid, "A", opponent, 1.0)
    capitals = {"A": 2000} | dict.fromkeys(opponents.values(), 2000)
    return history(capitals, tournaments, entries, games)


OVERLAP_ORDER = ["T2", "T1", "T5", "T4", "T3", "T6", "T7"]


def check_overlap(capitals: list[Row], variations: list[Row]) -> None:
    rows = by_entry(variations)
    order = sorted(OVERLAP_ORDER, key=lambda tid: rows[tid, "A"]["sequence"])
    assert order == OVERLAP_ORDER
    assert [rows[tid, "A"]["wave"] for tid in OVERLAP_ORDER] == list(range(7))
    # A's capital grows from one to the next: each one starts from the previous final
    previous = 2000
    for tid in OVERLAP_ORDER:
        assert rows[tid, "A"]["initial"] == previous
        previous = rows[tid, "A"]["final"]
    assert by_player(capitals)["A"]["capital"] == previous
    # the first one: D = 0.5, S 150 (2000 is below the italiana's 3000): 2075
    assert rows["T2", "A"]["final"] == 2075


def test_overlapping_tournaments_in_order() -> None:
    check_overlap(*run(overlap_case()))


def test_waves_by_hand() -> None:
    day = date(2010, 3, 7)
    tournaments = [tournament(tid, day + timedelta(days=i)) for i, tid in enumerate("PQRS")]
    entries = (
        entries_of("P", "A", "B")
        + entries_of("Q", "C", "D")  # nobody played before: wave 0 too
        + entries_of("R", "B", "C")  # after P and Q: wave 1
        + entries_of("S", "D", "E")  # D's last was Q (wave 0): wave 1
    )
    _, variations = run(history(dict.fromkeys("ABCDE", 1500), tournaments, entries, []))
    waves = {row["tournament_id"]: row["wave"] for row in variations}
    assert waves == {"P": 0, "Q": 0, "R": 1, "S": 1}
    assert by_entry(variations)["S", "D"]["sequence"] == 2


def test_random_histories_are_realistic() -> None:
    """The plain generator covers what the property tests rely on."""
    seen: dict[str, int] = {}

    def count(what: str, happened: bool) -> None:
        seen[what] = seen.get(what, 0) + int(happened)

    for seed in range(60):
        case = random_history(seed)
        book = ITALIANA if seed % 2 else INTERNAZIONALE
        _, variations = run(case, book)
        counted = [row for row in variations if row["games"]]
        count("floored", any(row["floored"] for row in variations))
        count("one crossing", any(row["crossings"] == 1 for row in variations))
        count("q", any(row["q"] for row in variations))
        count("no q", any(row["q"] == 0 for row in counted))
        count("half", any(row["factor"] == 0.5 for row in counted))
        count("no counted game", len(counted) < len(variations))
        count("wave 3", any(row["wave"] >= 3 for row in variations))
        count("below 500", case.capitals["capital"].min() < 500)
        ends = case.tournaments["end_date"]
        count("first era", ends.min() < date(1994, 1, 16))
        count("first day", ends.min() == date(1987, 1, 1))
        count("same end date", ends.n_unique() < case.tournaments.height)
        count("no start date", case.tournaments["start_date"].null_count() > 0)
        count("overlap", any(row["sequence"] >= 2 for row in variations))
    for what in (
        "floored",
        "one crossing",
        "q",
        "no q",
        "half",
        "no counted game",
        "wave 3",
        "below 500",
        "first era",
        "first day",
        "same end date",
        "no start date",
    ):
        assert seen.get(what, 0) >= 3, (what, seen)


def test_random_histories_exercise_the_alternative_settings() -> None:
    """Over the plain generator, each non-default setting of the alternative rulebooks acts:
    a threshold crossed again and rescaled or not as the era says (the default rescales only
    the first time; the alternatives every time, in some eras), a downward rescaling, a lost
    forfeit or withdrawal counted, Q scaled at 50 %, the difference cap changing PA, another
    order."""
    seen: dict[tuple[str, str], int] = {}

    def count(name: str, what: str, happened: bool) -> None:
        seen[name, what] = seen.get((name, what), 0) + int(happened)

    defaults = dict(RULEBOOKS)
    for seed in range(30):
        case = random_history(seed)
        for name, book in alternative_rulebooks():
            default = defaults[name.replace(" alternative", "")]  # the same, all defaults
            _, mine = run(case, book)
            _, theirs = run(case, default)
            before = by_entry(theirs)
            uncapped = dataclasses.replace(
                book, eras=tuple(dataclasses.replace(e, difference_cap=0) for e in book.eras)
            )
            free = by_entry(run(case, uncapped)[1])
            ours = by_entry(mine)
            count(
                name,
                "every",
                any(
                    row["recrossed"]
                    and not ours[row["tournament_id"], row["player_id"]]["recrossed"]
                    for row in theirs
                ),
            )
            count(
                name,
                "downward",
                any(row["crossings"] and row["final"] < row["initial"] for row in mine),
            )
            count(
                name,
                "loser counted",
                any(
                    row["games"] > before[row["tournament_id"], row["player_id"]]["games"]
                    for row in mine
                ),
            )
            count(
                name,
                "q scaled",
                any(row["q"] and row["games"] and row["factor"] == 0.5 for row in mine),
            )
            count(
                name,
                "cap",
                any(
                    row["expected"] != free[row["tournament_id"], row["player_id"]]["expected"]
                    for row in mine
                ),
            )
            count(
                name,
                "order",
                [(r["tournament_id"], r["player_id"]) for r in mine]
                != [(r["tournament_id"], r["player_id"]) for r in theirs],
            )
    names = [name for name, _ in alternative_rulebooks()]
    for name in names:
        for what in ("every", "downward", "loser counted", "q scaled", "cap", "order"):
            assert seen.get((name, what), 0) >= 3, (name, what, seen)


def test_reference_of_large_seeded_history() -> None:
    case = random_history(5, players=300, tournaments=60, regulars=0)
    assert [frame.height for frame in case.frames()][:2] == [300, 60]
    capitals, variations = run(case, INTERNAZIONALE)
    assert len(capitals) == 300 and len(variations) == case.entries.height


# --------------------------------------------------------------------------- the engine


@pytest.fixture(scope="module")
def engine() -> ModuleType:
    return pytest.importorskip("transforms.rubele.capitals")


def engine_compute(module: ModuleType) -> Compute:
    def compute(capitals, tournaments, entries, games, rulebook) -> tuple[list[Row], list[Row]]:
        result = module.apply_tournaments(capitals, tournaments, entries, games, rulebook)
        return (
            result.capitals.select(list(CAPITAL_DTYPES)).to_dicts(),
            result.variations.select(list(VARIATION_DTYPES)).to_dicts(),
        )

    return compute


def reference_compute(
    capitals, tournaments, entries, games, rulebook
) -> tuple[list[Row], list[Row]]:
    result = reference_history_frames(capitals, tournaments, entries, games, rulebook)
    return result.capitals, result.variations


@pytest.fixture(scope="module", params=["reference", "engine"])
def compute(request: pytest.FixtureRequest) -> Compute:
    if request.param == "reference":
        return reference_compute
    return engine_compute(pytest.importorskip("transforms.rubele.capitals"))


def same(got: Any, expected: Any) -> bool:
    """Exact equality, of the same Python type (a float is not an int; -0.0 equals 0.0)."""
    return type(got) is type(expected) and got == expected


def differences(
    engine_rows: list[Row], reference_rows: list[Row], key: Callable[[Row], Any]
) -> list[str]:
    mine = {key(row): row for row in reference_rows}
    theirs = {key(row): row for row in engine_rows}
    found = []
    if len(theirs) != len(engine_rows):
        found.append(f"engine has {len(engine_rows)} rows for {len(theirs)} keys")
    for missing in sorted(set(mine) - set(theirs)):
        found.append(f"{missing}: missing from the engine")
    for extra in sorted(set(theirs) - set(mine)):
        found.append(f"{extra}: not expected (engine only)")
    for k in sorted(set(mine) & set(theirs)):
        for field, expected in mine[k].items():
            got = theirs[k].get(field, "<no column>")
            if not same(got, expected):
                found.append(f"{k} {field}: engine {got!r}, reference {expected!r}")
    return found


def compare(engine_module: ModuleType, case: RandomHistory, rulebook: RubeleRulebook) -> None:
    got_capitals, got_variations = engine_compute(engine_module)(*case.frames(), rulebook)
    reference = reference_history_frames(*case.frames(), rulebook)
    found = differences(got_capitals, reference.capitals, lambda r: r["player_id"])
    found += differences(
        got_variations, reference.variations, lambda r: (r["tournament_id"], r["player_id"])
    )
    assert not found, f"{len(found)} differences:\n" + "\n".join(found[:40])


# --------------------------------------------------------------------------- (b) engine = reference


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(book=rulebooks(), case=histories())
def test_engine_matches_reference(engine: ModuleType, book: NamedRulebook, case) -> None:
    note(f"rulebook: {book.name}")
    compare(engine, case, book.rulebook)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    book=rulebooks(),
    hero=st.sampled_from([1999, 2999, 3899, 1950, 2950, 3850, 1800, 2800]),
    opponents=st.lists(st.integers(2500, 6500), min_size=1, max_size=14),
    results=st.lists(st.sampled_from([1.0, 0.5, 0.0]), max_size=14),
    epoch=st.sampled_from([date(1990, 3, 4), date(2010, 3, 7), date(2023, 3, 5)]),
    validity=st.sampled_from([100, 50]),
    reached=st.sampled_from([None, 2000, 2001, 3000, 3001, 3900, 3901, 5000]),
)
def test_engine_matches_reference_on_big_upsets(
    engine: ModuleType,
    book: NamedRulebook,
    hero: int,
    opponents: list[int],
    results: list[float],
    epoch: date,
    validity: int,
    reached: int | None,
) -> None:
    """One player just below a threshold against far stronger ones: one or two crossings,
    which random histories rarely reach (D above 6 to 9), the thresholds passed before, held
    exactly or never reached (rescaling.upward = "first")."""
    note(f"rulebook: {book.name}")
    ids = [f"S{i:02d}" for i in range(len(opponents))]
    games: list[Row] = []
    for i, pid in enumerate(ids):
        games += game("T", "H", pid, results[i] if i < len(results) else 1.0)
    capitals = {"H": hero} | dict(zip(ids, opponents, strict=True))
    case = history(
        capitals,
        [tournament("T", epoch, validity=validity)],
        entries_of("T", *capitals),
        games,
        reached={} if reached is None else {"H": reached},
    )
    compare(engine, case, book.rulebook)


@pytest.mark.parametrize("seed", range(15))
def test_engine_matches_reference_seeded(engine: ModuleType, seed: int) -> None:
    """The plain generator, over every rulebook: a fixed regression net next to hypothesis."""
    case = random_history(seed)
    for _, book in RULEBOOKS:
        compare(engine, case, book)


@pytest.mark.parametrize("book", ["italiana", "italiana alternative"])
def test_engine_matches_reference_on_a_large_history(engine: ModuleType, book: str) -> None:
    case = random_history(11, players=400, tournaments=120, regulars=3)
    compare(engine, case, dict(RULEBOOKS)[book])


def two_crossings_case() -> RandomHistory:
    """Two players just below a low threshold beat ten far stronger ones (and draw together)."""
    day = date(2023, 3, 5)
    strong = [f"S{i}" for i in range(10)]
    games = game("T", "H1", "H2", 0.5)
    for pid in strong:
        games += game("T", "H1", pid, 1.0) + game("T", "H2", pid, 1.0)
    capitals = {"H1": 1990, "H2": 2990} | dict.fromkeys(strong, 5500)
    return history(capitals, [tournament("T", day)], entries_of("T", *capitals), games)


def test_two_crossings_case() -> None:
    for book in (ITALIANA, INTERNAZIONALE):
        _, variations = run(two_crossings_case(), book)
        crossings = {row["player_id"]: row["crossings"] for row in variations}
        assert crossings["H2" if book is ITALIANA else "H1"] == 2


def edge_cases() -> dict[str, RandomHistory]:
    day = date(2023, 3, 5)
    two = {"A": 1500, "B": 499}
    return {
        "no tournaments": history(two, [], [], []),
        "entries without games": history(two, [tournament("T", day)], entries_of("T", *two), []),
        "two debutants": history(
            two, [tournament("T", day)], entries_of("T", *two), game("T", "A", "B", 0.0)
        ),
        "a tournament without entries": history(two, [tournament("T", day)], [], []),
        "the first day of dama italiana": history(
            {"A": 2999, "B": 1000},
            [tournament("T", date(1987, 1, 1), validity=50)],
            entries_of("T", "A", "B"),
            game("T", "A", "B", 1.0),
        ),
        "overlapping tournaments": overlap_case(),
        "two crossings": two_crossings_case(),
    }


@pytest.mark.parametrize("case", list(edge_cases()))
@pytest.mark.parametrize("book", [name for name, _ in RULEBOOKS])
def test_engine_matches_reference_on_edge_cases(engine: ModuleType, case: str, book: str) -> None:
    compare(engine, edge_cases()[case], dict(RULEBOOKS)[book])


@pytest.mark.parametrize("book", [name for name, _ in RULEBOOKS])
def test_a_tournament_before_the_variant_is_rated_is_refused_by_both(
    engine: ModuleType, book: str
) -> None:
    # the first era of every rulebook starts on the variant's first day (1987 or 1981)
    rulebook = dict(RULEBOOKS)[book]
    case = history(
        {"A": 2000, "B": 2000},
        [tournament("T", rulebook.rated_from - timedelta(days=1))],
        entries_of("T", "A", "B"),
        game("T", "A", "B", 1.0),
    )
    with pytest.raises(ValueError, match="is rated"):
        run(case, rulebook)
    with pytest.raises(engine.RubeleInputError, match="is rated"):
        engine.apply_tournaments(*case.frames(), rulebook)


def test_engine_output_schema(engine: ModuleType) -> None:
    case = random_history(7)
    result = engine.apply_tournaments(*case.frames(), ITALIANA)
    # the contract's columns, with its dtypes (the engine may add its own columns after them)
    capitals = dict(result.capitals.schema)
    variations = dict(result.variations.schema)
    assert {name: capitals.get(name) for name in CAPITAL_DTYPES} == CAPITAL_DTYPES
    assert {name: variations.get(name) for name in VARIATION_DTYPES} == VARIATION_DTYPES
    assert result.capitals.height == case.capitals.height
    assert result.variations.height == case.entries.height


# --------------------------------------------------------------------------- (c) invariants


def sorted_rows(rows: list[Row], *key: str) -> list[Row]:
    return sorted(rows, key=lambda row: tuple(row[k] for k in key))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(book=rulebooks(), case=histories(), seed=st.integers(0, 2**32 - 1))
def test_row_order_changes_nothing(
    compute: Compute, book: NamedRulebook, case: RandomHistory, seed: int
) -> None:
    shuffled = [
        frame.sample(fraction=1.0, shuffle=True, seed=seed + index)
        for index, frame in enumerate(case.frames())
    ]
    first = compute(*case.frames(), book.rulebook)
    second = compute(*shuffled, book.rulebook)
    assert sorted_rows(first[0], "player_id") == sorted_rows(second[0], "player_id")
    keys = ("tournament_id", "player_id")
    assert sorted_rows(first[1], *keys) == sorted_rows(second[1], *keys)


def test_row_order_changes_nothing_in_the_engine_frames(engine: ModuleType) -> None:
    """Same as above on the frames themselves: dtypes and values, for a few seeds."""
    for seed in range(8):
        case = random_history(seed)
        shuffled = [f.sample(fraction=1.0, shuffle=True, seed=seed) for f in case.frames()]
        a = engine.apply_tournaments(*case.frames(), INTERNAZIONALE)
        b = engine.apply_tournaments(*shuffled, INTERNAZIONALE)
        assert_frame_equal(a.capitals.sort("player_id"), b.capitals.sort("player_id"))
        keys = ["tournament_id", "player_id"]
        assert_frame_equal(a.variations.sort(keys), b.variations.sort(keys))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(book=rulebooks(), case=histories())
def test_waves_follow_each_players_order(
    compute: Compute, book: NamedRulebook, case: RandomHistory
) -> None:
    _, variations = compute(*case.frames(), book.rulebook)
    # one wave per tournament; no player twice in a wave
    wave_of: dict[str, int] = {}
    seen: set[tuple[int, str]] = set()
    for row in variations:
        assert wave_of.setdefault(row["tournament_id"], row["wave"]) == row["wave"]
        assert (row["wave"], row["player_id"]) not in seen, row
        seen.add((row["wave"], row["player_id"]))
    # each player's tournaments in the order of the rules: strictly increasing waves, sequence
    # 1, 2, 3..., each starting from the capital the previous one ended with
    order = {
        row["tournament_id"]: order_key(row, book.rulebook) for row in case.tournaments.to_dicts()
    }
    starting = {row["player_id"]: row["capital"] for row in case.capitals.to_dicts()}
    mine: dict[str, list[Row]] = {}
    for row in variations:
        mine.setdefault(row["player_id"], []).append(row)
    for pid, rows in mine.items():
        rows.sort(key=lambda row: order[row["tournament_id"]])
        assert [row["sequence"] for row in rows] == list(range(1, len(rows) + 1)), pid
        waves = [row["wave"] for row in rows]
        assert all(a < b for a, b in itertools.pairwise(waves)), (pid, waves)
        capital = starting[pid]
        for row in rows:
            assert row["initial"] == capital, (pid, row)
            capital = row["final"]
    # a tournament's wave is as low as the players' order allows (0 when nobody played before)
    for tid, wave in wave_of.items():
        if wave > 0:
            assert any(
                (wave - 1, row["player_id"]) in seen
                for row in variations
                if row["tournament_id"] == tid
            ), tid


def test_overlapping_tournaments_in_order_on_both(compute: Compute) -> None:
    check_overlap(*compute(*overlap_case().frames(), ITALIANA))


def test_reference_is_plain_rows() -> None:
    """``reference_history`` works on plain dicts too (no frames), as the docstring says."""
    case = overlap_case()
    result = reference_history(
        case.capitals.to_dicts(),
        case.tournaments.to_dicts(),
        case.entries.to_dicts(),
        case.games.to_dicts(),
        ITALIANA,
    )
    capitals, variations = result.frames()
    assert dict(capitals.schema) == CAPITAL_DTYPES
    assert dict(variations.schema) == VARIATION_DTYPES
