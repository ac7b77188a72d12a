"""Cross-check of the Elo Italia engine against a slow, independent reference (RULES.md §1).

(a) hand-checked cases of the reference itself (they run even before the engine exists);
(b) the engine gives exactly the reference's results on hundreds of random periods and eras;
(c) invariants, on both: row order is irrelevant, a draw between equals changes nothing, and a
    closed pool with one K, no cap and no groups has raw variations summing to exactly zero.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date
from types import ModuleType
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from tests.reference.elo_italia import (
    expected_score,
    higher_expected,
    reference_period,
    reference_period_frames,
    round_hundredths,
)
from tests.reference.random_periods import (
    ENTRY_SCHEMA,
    ERAS,
    GAME_SCHEMA,
    PLAYER_SCHEMA,
    NamedEra,
    RandomPeriod,
    Shape,
    elo_italia_rulebook,
    eras,
    periods,
    random_period,
)
from transforms.elo.rulebook import EloEra

Row = dict[str, Any]
BOOK = elo_italia_rulebook()
ERA_1990 = BOOK.era_at(date(1990, 1, 1))  # no cap, no groups, FIDE minimum 1801
ERA_1998 = BOOK.era_at(date(1998, 6, 1))  # groups, no cap
ERA_2006 = BOOK.era_at(date(2006, 4, 1))  # cap 350
ERA_2009 = BOOK.era_at(date(2009, 7, 1))  # cap 400, FIDE minimum 1200
ERA_2021 = BOOK.era_at(date(2021, 1, 1))  # K = 0

RATING_FIELDS = (
    "k",
    "games",
    "total_games",
    "frozen_rating",
    "period_change",
    "rating",
    "rating_type",
)
VARIATION_FIELDS = (
    "own_rating",
    "wave",
    "games",
    "raw_hundredths",
    "applied_hundredths",
    "is_winner",
)
RATING_DTYPES: dict[str, Any] = {
    "player_id": pl.Utf8,
    "frozen_rating": pl.Int32,
    "rating_basis": pl.Utf8,
    "k": pl.Int32,
    "games": pl.Int32,
    "total_games": pl.Int32,
    "variation_hundredths": pl.Int64,
    "period_change": pl.Int32,
    "rating": pl.Int32,
    "rating_type": pl.Utf8,
}
VARIATION_DTYPES: dict[str, Any] = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "sequence": pl.Int32,
    "wave": pl.Int32,
    "own_rating": pl.Int32,
    "games": pl.Int32,
    "score": pl.Float64,
    "expected": pl.Float64,
    "k": pl.Int32,
    "raw_hundredths": pl.Int64,
    "applied_hundredths": pl.Int64,
    "is_winner": pl.Boolean,
}
# the rest of the outputs: compared too, separately, so that a disagreement on a column the
# brief leaves less precise (sequence when groups do not apply) does not hide the others
EXTRA_RATING_FIELDS = ("rating_basis", "variation_hundredths")
EXTRA_VARIATION_FIELDS = ("sequence", "score", "expected", "k")

Compute = Callable[[pl.DataFrame, pl.DataFrame, pl.DataFrame, EloEra], tuple[list[Row], list[Row]]]


# --------------------------------------------------------------------------- building inputs


def player(pid: str, **values: Any) -> Row:
    row: Row = dict.fromkeys(PLAYER_SCHEMA)
    row.update(player_id=pid, on_list_as_fide=False, total_games=100)
    row.update(values)
    return row


def entry(tid: str, pid: str, points: float, end: date, start: date | None = None) -> Row:
    return {
        "tournament_id": tid,
        "player_id": pid,
        "points": points,
        "start_date": start or end,
        "end_date": end,
    }


def game(tid: str, pid: str, opponent: str, score: float) -> list[Row]:
    """Both sides' view of one game; ``score`` is ``pid``'s."""
    return [
        {"tournament_id": tid, "player_id": pid, "opponent_id": opponent, "score": score},
        {"tournament_id": tid, "player_id": opponent, "opponent_id": pid, "score": 1 - score},
    ]


def frames(
    players: list[Row], entries: list[Row], games: list[Row]
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    return (
        pl.DataFrame(players, schema=PLAYER_SCHEMA, orient="row"),
        pl.DataFrame(entries, schema=ENTRY_SCHEMA, orient="row"),
        pl.DataFrame(games, schema=GAME_SCHEMA, orient="row"),
    )


def by_player(rows: list[Row]) -> dict[str, Row]:
    return {row["player_id"]: row for row in rows}


def by_entry(rows: list[Row]) -> dict[tuple[str, str], Row]:
    return {(row["tournament_id"], row["player_id"]): row for row in rows}


# --------------------------------------------------------------------------- (a) the reference


def test_rounding_is_exact_and_away_from_zero() -> None:
    cases = {250: 3, -250: -3, 249: 2, -249: -2, 251: 3, 50: 1, -50: -1, 49: 0, -49: 0, 0: 0}
    for hundredths, rounded in cases.items():
        assert round_hundredths(hundredths) == rounded, hundredths
    assert round_hundredths(-36300) == -363
    assert round_hundredths(7260) == 73


def test_expected_score_reads_the_table_and_the_cap() -> None:
    bands = ERA_1990.expected_bands
    assert [higher_expected(d, bands) for d in (0, 3, 4, 10, 11, 735, 736, 5000)] == [
        50,
        50,
        51,
        51,
        52,
        99,
        100,
        100,
    ]
    assert higher_expected(100, bands) == 64  # 99-106
    assert expected_score(1600, 1500, ERA_1990) == 64
    assert expected_score(1500, 1600, ERA_1990) == 36
    assert expected_score(1500, 1504, ERA_1990) == 49  # D = -4
    assert expected_score(1500, 1503, ERA_1990) == 50  # D = -3, still the 0-3 band
    # no cap before 2006: D = 800 is in the open 736- band
    assert expected_score(2400, 1600, ERA_1990) == 100
    # cap 350 from 2006: |D| = 500 is read as 350 (345-357: 0.89)
    assert expected_score(1500, 2000, ERA_2006) == 11
    assert expected_score(2000, 1500, ERA_2006) == 89
    # cap 400 from 2009: 400 is in 392-411 (0.92)
    assert expected_score(2400, 1600, ERA_2009) == 92
    assert expected_score(1600, 2400, ERA_2009) == 8


def test_frozen_rating_basis_in_order_of_precedence() -> None:
    players = [
        player("fide", fide_start=2100, list_rating=1900, arbiter_rating=2300),
        player("list", list_rating=1700, arbiter_rating=1650),
        player("reassigned", list_rating=1700, arbiter_rating=1750),
        player("equal_arbiter", list_rating=1700, arbiter_rating=1700),
        player("reentry", on_list_as_fide=True, arbiter_rating=1500),
        player("foreign", arbiter_rating=1650),
        player("new_2n", category="2N", total_games=0),
        player("new_unregistered", total_games=0),
    ]
    result = reference_period(players, [], [], ERA_2009)
    got = {
        pid: (row["frozen_rating"], row["rating_basis"])
        for pid, row in by_player(result.ratings).items()
    }
    assert got == {
        "fide": (2100, "fide"),
        "list": (1700, "list"),
        "reassigned": (1750, "arbiter_reassignment"),
        "equal_arbiter": (1700, "list"),
        "reentry": (1199, "fide_reentry"),
        "foreign": (1650, "arbiter"),
        "new_2n": (1600, "entry"),
        "new_unregistered": (1440, "entry"),
    }
    # the FIDE minimum of the era: 1801 before 2009-07-01, so re-entry at 1800
    old = by_player(reference_period(players, [], [], ERA_1990).ratings)
    assert old["reentry"]["frozen_rating"] == 1800


def test_k_schedule() -> None:
    players = [
        player("newcomer", list_rating=2500, total_games=29),
        player("high", list_rating=2400, total_games=30),
        player("default", list_rating=2399, total_games=30),
        player("registry", list_rating=2500, total_games=5, k_override=25),
        player("fide_high", fide_start=2450, total_games=100),
    ]
    k = {
        pid: row["k"]
        for pid, row in by_player(reference_period(players, [], [], ERA_2009).ratings).items()
    }
    assert k == {"newcomer": 30, "high": 10, "default": 15, "registry": 25, "fide_high": 10}
    no_registry = dataclasses.replace(
        ERA_2009, k=dataclasses.replace(ERA_2009.k, registry_override=False)
    )
    assert by_player(reference_period(players, [], [], no_registry).ratings)["registry"]["k"] == 30
    assert {row["k"] for row in reference_period(players, [], [], ERA_2021).ratings} == {0}


def test_one_game_and_winner_protection() -> None:
    day = date(2010, 3, 1)
    players = [player("A", list_rating=1600), player("B", list_rating=1500)]
    # A beats B: D = 100 -> 0.64; V(A) = 15 x 0.36 = 5.40, V(B) = -5.40
    won = reference_period(
        players,
        [entry("T", "A", 1, day), entry("T", "B", 0, day)],
        game("T", "A", "B", 1),
        ERA_2009,
    )
    ratings = by_player(won.ratings)
    assert (ratings["A"]["variation_hundredths"], ratings["A"]["rating"]) == (540, 1605)
    assert (ratings["B"]["variation_hundredths"], ratings["B"]["rating"]) == (-540, 1495)
    assert ratings["A"]["games"] == 1 and ratings["A"]["total_games"] == 101
    # a draw with a tie for first: A's -2.10 is protected, B keeps +2.10
    drawn = reference_period(
        players,
        [entry("T", "A", 0.5, day), entry("T", "B", 0.5, day)],
        game("T", "A", "B", 0.5),
        ERA_2009,
    )
    variations = by_entry(drawn.variations)
    assert variations["T", "A"]["raw_hundredths"] == -210
    assert variations["T", "A"]["applied_hundredths"] == 0
    assert variations["T", "A"]["is_winner"] and variations["T", "B"]["is_winner"]
    assert variations["T", "B"]["applied_hundredths"] == 210
    assert by_player(drawn.ratings)["A"]["rating"] == 1600
    assert by_player(drawn.ratings)["B"]["rating"] == 1502  # 2.10 -> 2


def test_fide_players_and_the_close() -> None:
    day = date(2010, 3, 1)
    players = [
        player("F", fide_start=1700, fide_close=1710),  # stays FIDE-rated
        player("L", fide_start=1300),  # delisted by FIDE during the period
        player("E", list_rating=1600, fide_close=1650),  # gains FIDE at the close
    ]
    # L also won a game by forfeit, so E (1 point) is not first
    entries = [entry("T", "F", 0, day), entry("T", "L", 2, day), entry("T", "E", 1, day)]
    games = game("T", "E", "F", 1) + game("T", "E", "L", 0)
    result = reference_period(players, entries, games, ERA_2009)
    ratings = by_player(result.ratings)
    # E's games count, against the FIDE ratings: D = -100 (0.36), D = +300 (0.85)
    assert by_entry(result.variations)["T", "E"]["raw_hundredths"] == 15 * (100 - 36 + 0 - 85)
    assert ratings["E"]["games"] == 2 and ratings["E"]["period_change"] == -3
    assert (ratings["E"]["rating"], ratings["E"]["rating_type"]) == (1650, "fide")
    # FIDE-rated players count no game
    assert ratings["F"]["games"] == 0 and ratings["F"]["variation_hundredths"] == 0
    assert (ratings["F"]["rating"], ratings["F"]["rating_type"]) == (1710, "fide")
    assert (ratings["L"]["rating"], ratings["L"]["rating_type"]) == (1199, "elo_italia")
    assert by_entry(result.variations)["T", "F"]["sequence"] is None


def test_groups_use_the_updated_own_rating_in_tournament_order() -> None:
    """A newcomer (K 30) in 5 tournaments: the 5th by date plays at 1440 + the first four."""
    players = [player("N", category="NC", total_games=0), player("L", list_rating=1440)]
    entries, games = [], []
    # T1 ends last (it is the 5th); T2..T5 end on the same day and are ordered by start date
    # (T5 started first), then by id (T2 and T3 share the start date)
    dates = {
        "T1": (date(2010, 3, 10), date(2010, 3, 10)),
        "T2": (date(2010, 3, 1), date(2010, 2, 27)),
        "T3": (date(2010, 3, 1), date(2010, 2, 27)),
        "T4": (date(2010, 3, 1), date(2010, 2, 26)),
        "T5": (date(2010, 3, 1), date(2010, 2, 20)),
    }
    for tid, (end, start) in dates.items():
        n_points = 1.0 if tid != "T1" else 0.5
        entries += [
            entry(tid, "N", n_points, end, start),
            entry(tid, "L", 1 - n_points, end, start),
        ]
        games += game(tid, "N", "L", n_points)
    result = reference_period(players, entries, games, ERA_2009)
    variations = by_entry(result.variations)
    order = sorted((variations[tid, "N"]["sequence"], tid) for tid in dates)
    assert [tid for _, tid in order] == ["T5", "T4", "T2", "T3", "T1"]
    for tid in ("T2", "T3", "T4", "T5"):
        assert variations[tid, "N"]["wave"] == 0
        assert variations[tid, "N"]["own_rating"] == 1440
        assert variations[tid, "N"]["raw_hundredths"] == 30 * 50
    # wave 1: own 1440 + 60 = 1500 against the frozen 1440 (D 60 -> 0.58); a draw, but N shares
    # first place, so -2.40 is protected
    assert variations["T1", "N"]["wave"] == 1
    assert variations["T1", "N"]["own_rating"] == 1500
    assert variations["T1", "N"]["raw_hundredths"] == 30 * (50 - 58)
    assert variations["T1", "N"]["applied_hundredths"] == 0
    # the opponent, K 15, never uses groups and sees N at 1440 throughout
    assert {variations[tid, "L"]["wave"] for tid in dates} == {0}
    assert variations["T1", "L"]["raw_hundredths"] == 0
    ratings = by_player(result.ratings)
    assert (ratings["N"]["rating"], ratings["L"]["rating"]) == (1500, 1410)
    # with groups off, the 5th tournament uses the frozen rating: D = 0, V = 0
    flat = reference_period(
        players, entries, games, dataclasses.replace(ERA_2009, groups_enabled=False)
    )
    assert by_entry(flat.variations)["T1", "N"]["own_rating"] == 1440
    assert by_entry(flat.variations)["T1", "N"]["wave"] == 0


def test_random_periods_are_realistic() -> None:
    """The plain generator covers what the property tests rely on."""
    seen: dict[str, int] = {}
    for seed in range(60):
        period = random_period(seed)
        ratings = by_player(reference_period_frames(*period.frames(), ERA_2009).ratings)
        variations = reference_period_frames(*period.frames(), ERA_1998).variations
        bases = {row["rating_basis"] for row in ratings.values()}
        for basis in bases:
            seen[basis] = seen.get(basis, 0) + 1
        counts = period.entries.group_by("player_id").len()["len"]
        seen["more_than_4"] = seen.get("more_than_4", 0) + int(counts.max() > 4)
        seen["wave_2"] = seen.get("wave_2", 0) + any(row["wave"] == 2 for row in variations)
        winners = period.entries.filter(
            pl.col("points") == pl.col("points").max().over("tournament_id")
        )
        tied = winners.group_by("tournament_id").len()["len"].max()
        seen["tie_for_first"] = seen.get("tie_for_first", 0) + int(tied > 1)
        protected = any(r["raw_hundredths"] != r["applied_hundredths"] for r in variations)
        seen["protected"] = seen.get("protected", 0) + protected
        lost = period.players.filter(
            pl.col("fide_start").is_not_null() & pl.col("fide_close").is_null()
        ).height
        seen["lost_fide"] = seen.get("lost_fide", 0) + int(lost > 0)
    for what in (
        "fide",
        "list",
        "arbiter_reassignment",
        "fide_reentry",
        "arbiter",
        "entry",
        "more_than_4",
        "wave_2",
        "tie_for_first",
        "protected",
        "lost_fide",
    ):
        assert seen.get(what, 0) >= 5, (what, seen)


# --------------------------------------------------------------------------- the engine


@pytest.fixture(scope="module")
def engine() -> ModuleType:
    return pytest.importorskip("transforms.elo.period")


def engine_compute(module: ModuleType) -> Compute:
    def compute(players, entries, games, era) -> tuple[list[Row], list[Row]]:
        result = module.compute_period(players, entries, games, era)
        return result.ratings.to_dicts(), result.variations.to_dicts()

    return compute


def reference_compute(players, entries, games, era) -> tuple[list[Row], list[Row]]:
    result = reference_period_frames(players, entries, games, era)
    return result.ratings, result.variations


@pytest.fixture(scope="module", params=["reference", "engine"])
def compute(request: pytest.FixtureRequest) -> Compute:
    if request.param == "reference":
        return reference_compute
    return engine_compute(pytest.importorskip("transforms.elo.period"))


def differences(
    engine_rows: list[Row], reference_rows: list[Row], key: Callable[[Row], Any], fields: tuple
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
        for field in fields:
            expected, got = mine[k][field], theirs[k].get(field, "<no column>")
            same = (
                got == pytest.approx(expected, abs=1e-9)
                if isinstance(expected, float) and isinstance(got, float)
                else got == expected
            )
            if not same:
                found.append(f"{k} {field}: engine {got!r}, reference {expected!r}")
    return found


def compare(engine_module: ModuleType, period: RandomPeriod, era: EloEra, extra: bool) -> None:
    got_ratings, got_variations = engine_compute(engine_module)(*period.frames(), era)
    reference = reference_period_frames(*period.frames(), era)
    rating_fields = EXTRA_RATING_FIELDS if extra else RATING_FIELDS
    variation_fields = EXTRA_VARIATION_FIELDS if extra else VARIATION_FIELDS
    found = differences(
        got_ratings, reference.ratings, lambda r: r["player_id"], rating_fields
    ) + differences(
        got_variations,
        reference.variations,
        lambda r: (r["tournament_id"], r["player_id"]),
        variation_fields,
    )
    assert not found, f"{len(found)} differences:\n" + "\n".join(found[:40])


# --------------------------------------------------------------------------- (b) engine = reference


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(era=eras(), period=periods())
def test_engine_matches_reference(engine: ModuleType, era: NamedEra, period) -> None:
    note(f"era: {era.name}")
    compare(engine, period, era.era, extra=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(era=eras(), period=periods())
def test_engine_matches_reference_on_the_other_columns(
    engine: ModuleType, era: NamedEra, period
) -> None:
    """rating_basis, the period sum, sequence, score, expected and K per tournament."""
    note(f"era: {era.name}")
    compare(engine, period, era.era, extra=True)


@pytest.mark.parametrize("seed", range(20))
def test_engine_matches_reference_seeded(engine: ModuleType, seed: int) -> None:
    """The plain generator, over every era: a fixed regression net next to hypothesis."""
    period = random_period(seed)
    for _, era in ERAS:
        compare(engine, period, era, extra=False)


def edge_periods() -> dict[str, RandomPeriod]:
    day = date(2010, 3, 1)
    lone = [player("A", list_rating=1500), player("B", category="1N", total_games=0)]
    fide = [player("F", fide_start=2000, fide_close=2010), player("G", fide_start=1900)]
    cases = {
        "no tournaments": (lone, [], []),
        "entries without games": (lone, [entry("T", "A", 1, day), entry("T", "B", 0, day)], []),
        "only FIDE players": (
            fide,
            [entry("T", "F", 1, day), entry("T", "G", 0, day)],
            game("T", "F", "G", 1),
        ),
        "one player of two plays": (
            [*lone, player("C", list_rating=1700)],
            [entry("T", "A", 0.5, day), entry("T", "C", 0.5, day)],
            game("T", "A", "C", 0.5),
        ),
    }
    return {name: RandomPeriod(*frames(*rows)) for name, rows in cases.items()}


@pytest.mark.parametrize("case", list(edge_periods()))
@pytest.mark.parametrize("era_name", [name for name, _ in ERAS])
def test_engine_matches_reference_on_edge_periods(
    engine: ModuleType, case: str, era_name: str
) -> None:
    era = dict(ERAS)[era_name]
    compare(engine, edge_periods()[case], era, extra=False)
    compare(engine, edge_periods()[case], era, extra=True)


def test_engine_output_schema(engine: ModuleType) -> None:
    period = random_period(7)
    result = engine.compute_period(*period.frames(), ERA_2009)
    # the contract's columns, with its dtypes (the engine may add its own columns after them)
    ratings = dict(result.ratings.schema)
    variations = dict(result.variations.schema)
    assert {name: ratings.get(name) for name in RATING_DTYPES} == RATING_DTYPES
    assert {name: variations.get(name) for name in VARIATION_DTYPES} == VARIATION_DTYPES
    assert result.ratings.height == period.players.height
    assert result.variations.height == period.entries.height


# --------------------------------------------------------------------------- (c) invariants


def sorted_rows(rows: list[Row], *key: str) -> list[Row]:
    return sorted(rows, key=lambda row: tuple(row[k] for k in key))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(era=eras(), period=periods(), seed=st.integers(0, 2**32 - 1))
def test_row_order_changes_nothing(compute: Compute, era, period, seed: int) -> None:
    shuffled = [
        frame.sample(fraction=1.0, shuffle=True, seed=seed + index)
        for index, frame in enumerate(period.frames())
    ]
    first = compute(*period.frames(), era.era)
    second = compute(*shuffled, era.era)
    assert sorted_rows(first[0], "player_id") == sorted_rows(second[0], "player_id")
    keys = ("tournament_id", "player_id")
    assert sorted_rows(first[1], *keys) == sorted_rows(second[1], *keys)


def test_row_order_changes_nothing_in_the_engine_frames(engine: ModuleType) -> None:
    """Same as above on the frames themselves: dtypes and values, for a few seeds."""
    for seed in range(10):
        period = random_period(seed)
        shuffled = [f.sample(fraction=1.0, shuffle=True, seed=seed) for f in period.frames()]
        a = engine.compute_period(*period.frames(), ERA_1998)
        b = engine.compute_period(*shuffled, ERA_1998)
        assert_frame_equal(a.ratings.sort("player_id"), b.ratings.sort("player_id"))
        keys = ["tournament_id", "player_id"]
        assert_frame_equal(a.variations.sort(keys), b.variations.sort(keys))


def warehouse_keys(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame, seed: int
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Keys as a history read gives them: codes with gaps that are not row positions, entry
    keys rising with (player_id, tournament_id) but not from 0, no code for a player without
    an entry of the period (he is on the list only), and games without player ids."""
    playing = entries.get_column("player_id").unique().sort()
    codes = pl.DataFrame(
        {
            "player_id": playing,
            "player_code": pl.Series(range(playing.len()), dtype=pl.Int32).shuffle(seed) * 3 + 11,
        }
    )
    keyed_entries = (
        entries.join(codes, on="player_id")
        .sort("player_id", "tournament_id")
        .with_columns((pl.int_range(pl.len(), dtype=pl.Int64) * 2 + 5).alias("entry_key"))
    )
    keyed_games = games.join(
        keyed_entries.select("tournament_id", "player_id", "entry_key", "player_code"),
        on=["tournament_id", "player_id"],
    ).join(
        codes.rename({"player_id": "opponent_id", "player_code": "opponent_code"}), on="opponent_id"
    )
    # as the warehouse gives them: no player ids on the games
    keyed_games = keyed_games.select(
        "tournament_id", "score", "entry_key", "player_code", "opponent_code"
    )
    keyed_players = players.join(codes, on="player_id", how="left")
    return (
        keyed_players.sample(fraction=1.0, shuffle=True, seed=seed),
        keyed_entries.sample(fraction=1.0, shuffle=True, seed=seed + 1),
        keyed_games.sample(fraction=1.0, shuffle=True, seed=seed + 2),
    )


@pytest.mark.parametrize("era", [ERA_1998, ERA_2009], ids=["1998", "2009"])
def test_warehouse_keys_give_the_same_numbers_as_string_ids(
    engine: ModuleType, era: EloEra
) -> None:
    """The flows hand the engine the integer keys of the history read; the numbers must be
    those of the same period given by player and tournament ids only."""
    for seed in range(12):
        period = random_period(seed)
        by_ids = engine.compute_period(*period.frames(), era)
        by_keys = engine.compute_period(*warehouse_keys(*period.frames(), seed), era)
        assert_frame_equal(by_ids.ratings.sort("player_id"), by_keys.ratings.sort("player_id"))
        assert_frame_equal(by_ids.variations, by_keys.variations)


def test_a_code_outside_the_period_is_refused(engine: ModuleType) -> None:
    period = random_period(3)
    players, entries, games = warehouse_keys(*period.frames(), 3)
    stray = games.with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(9999)
        .otherwise(pl.col("opponent_code"))
        .cast(pl.Int32)
        .alias("opponent_code")
    )
    with pytest.raises(ValueError, match="is not among the period's players"):
        engine.compute_period(players, entries, stray, ERA_2009)


def test_two_players_with_one_code_are_refused(engine: ModuleType) -> None:
    """The engine's table by player code holds one player a code: a second player given the
    same code (a bad key read) is refused, not silently dropped."""
    period = random_period(4)
    players, entries, games = warehouse_keys(*period.frames(), 4)
    coded = players.get_column("player_code").drop_nulls()
    clash = players.with_columns(
        pl.when(pl.col("player_code") == coded[1])
        .then(coded[0])
        .otherwise(pl.col("player_code"))
        .cast(pl.Int32)
        .alias("player_code")
    )
    with pytest.raises(ValueError, match="share a player code"):
        engine.compute_period(clash, entries, games, ERA_2009)


def test_a_player_with_two_entries_in_a_tournament_is_refused(engine: ModuleType) -> None:
    """By ids or by the warehouse's keys (a merge could make it): never summed twice."""
    period = random_period(5)
    players, entries, games = period.frames()
    doubled = pl.concat([entries, entries.head(1)])
    with pytest.raises(ValueError, match="cannot play twice in a tournament"):
        engine.compute_period(players, doubled, games, ERA_2009)
    keyed_players, keyed_entries, keyed_games = warehouse_keys(players, entries, games, 5)
    # a second entry with the same key, as a merge into a player of the same tournament gives
    first = keyed_entries.filter(pl.col("entry_key") == keyed_games.get_column("entry_key")[0])
    with pytest.raises(ValueError, match="cannot play twice in a tournament"):
        engine.compute_period(
            keyed_players, pl.concat([keyed_entries, first]), keyed_games, ERA_2009
        )


@settings(max_examples=80, deadline=None)
@given(
    era=eras(),
    rating=st.integers(1000, 2600),
    n_players=st.integers(2, 8),
    total_games=st.integers(0, 100),
    k_override=st.none() | st.sampled_from([10, 15, 20, 30, 40]),
    tournaments=st.integers(1, 9),
)
def test_draws_between_equals_change_nothing(
    compute: Compute, era, rating, n_players, total_games, k_override, tournaments
) -> None:
    ids = [f"P{i}" for i in range(n_players)]
    players = [
        player(pid, list_rating=rating, total_games=total_games, k_override=k_override)
        for pid in ids
    ]
    entries, games = [], []
    for t in range(tournaments):
        tid, day = f"T{t}", date(2010, 3, 1 + t)
        entries += [entry(tid, pid, (n_players - 1) / 2, day) for pid in ids]
        for i, white in enumerate(ids):
            for black in ids[i + 1 :]:
                games += game(tid, white, black, 0.5)
    ratings, variations = compute(*frames(players, entries, games), era.era)
    for row in ratings:
        assert (row["variation_hundredths"], row["period_change"], row["rating"]) == (0, 0, rating)
        assert row["games"] == (n_players - 1) * tournaments
    assert {row["raw_hundredths"] for row in variations} == {0}
    assert {row["own_rating"] for row in variations} == {rating}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    era=eras(),
    k=st.sampled_from([15, 10, 20, 30, 40]),
    data=st.data(),
)
def test_closed_pool_with_one_k_sums_to_zero(compute: Compute, era, k, data) -> None:
    """No FIDE player, one K, no cap, no groups: every game moves as much up as down."""
    closed = dataclasses.replace(
        era.era,
        difference_cap=0,
        groups_enabled=False,
        k=dataclasses.replace(era.era.k, registry_override=True, everyone_zero=False),
    )
    period = data.draw(periods(Shape(allow_fide=False, same_k=k)))
    ratings, variations = compute(*period.frames(), closed)
    assert {row["k"] for row in ratings} == {k}
    assert sum(row["raw_hundredths"] for row in variations) == 0
    assert sum(row["games"] for row in ratings) == period.games.height
