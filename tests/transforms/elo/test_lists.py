"""The list builder (transforms/elo/lists.py) on random periods: the player sheet holds everyone
on the previous list or in the period once, in player_id order, and the published list does not
depend on the order of any input's rows, nor on whether the period start and its close read
one registry snapshot or two equal ones."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transforms.elo.lists import (
    History,
    PeriodFacts,
    build_list,
    closed_list_rows,
    last_played,
    player_sheet,
    split_history,
    with_list_notes,
    with_versions,
)
from transforms.elo.period import compute_period
from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import default_rulebook_path
from transforms.lists.periods import assign_list_dates

RULEBOOK = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
LIST_DATE = date(2013, 10, 1)
ERA = RULEBOOK.era_at(LIST_DATE)
CATEGORIES = [*ERA.category_order, None]


def _registry(rng: random.Random, players: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "player_id": players,
            "name": [f"name of {player}" for player in players],
            "sex": [rng.choice(["M", "F", None]) for _ in players],
            "birth_date": [date(rng.randint(1950, 2010), 1, 1) for _ in players],
            "fide_standard": [rng.choice([None, None, None, 2100]) for _ in players],
            "fide_rapid": [None for _ in players],
            "category": [rng.choice(CATEGORIES) for _ in players],
            "k_override": [None for _ in players],
            "last_fide_tournament": [None for _ in players],
        },
        # explicit types: a random registry, list or membership may be empty
        schema_overrides={
            "player_id": pl.Utf8,
            "name": pl.Utf8,
            "birth_date": pl.Date,
            "sex": pl.Utf8,
            "fide_standard": pl.Int32,
            "fide_rapid": pl.Int32,
            "category": pl.Utf8,
            "k_override": pl.Int32,
            "last_fide_tournament": pl.Date,
        },
    )


def _random_facts(seed: int, two_snapshots: bool) -> PeriodFacts:
    rng = random.Random(seed)
    people = [f"P{number:04d}" for number in rng.sample(range(10_000), rng.randint(4, 40))]
    listed = [person for person in people if rng.random() < 0.6]
    previous = pl.DataFrame(
        {
            "list_date": [date(2013, 7, 1)] * len(listed),
            "revision": [1] * len(listed),
            "scenario": ["official"] * len(listed),
            "player_id": listed,
            "name": [f"listed name of {person}" for person in listed],
            "rating": [rng.randint(1300, 2300) for _ in listed],
            "rating_type": [rng.choice(["elo_italia", "elo_italia", "fide"]) for _ in listed],
            "total_games": [rng.randint(0, 200) for _ in listed],
            "category": [rng.choice(CATEGORIES) for _ in listed],
            "last_played": [date(2012, rng.randint(1, 12), 1) for _ in listed],
        },
        schema_overrides={
            "list_date": pl.Date,
            "revision": pl.Int32,
            "scenario": pl.Utf8,
            "player_id": pl.Utf8,
            "name": pl.Utf8,
            "rating_type": pl.Utf8,
            "last_played": pl.Date,
            "rating": pl.Int32,
            "total_games": pl.Int32,
            "category": pl.Utf8,
        },
    )
    entries, games = [], []
    for number in range(rng.randint(1, 4)):
        tournament = f"T{number}"
        seated = rng.sample(people, rng.randint(2, min(8, len(people))))
        points = dict.fromkeys(seated, 0.0)
        for white, black in zip(seated[::2], seated[1::2], strict=False):
            score = rng.choice([0.0, 0.5, 1.0])
            points[white] += score
            points[black] += 1 - score
            games += [(tournament, white, black, score), (tournament, black, white, 1 - score)]
        entries += [
            {
                "tournament_id": tournament,
                "tournament_version": 1,
                "player_id": person,
                "name": f"file name of {person}",
                "points": points[person],
                "start_date": date(2013, 5, number + 1),
                "end_date": date(2013, 5, number + 3),
                "received_on": date(2013, 6, 1),
                "arbiter_rating": rng.choice([None, None, 1500]),
                "rating_in_file": rng.choice([None, 1900]),
                "fide_id": rng.choice([None, 123]),
            }
            for person in seated
        ]
    registered = [person for person in people if rng.random() < 0.8]
    start = _registry(rng, registered)
    close = _registry(rng, registered) if two_snapshots else start
    return PeriodFacts(
        previous=previous,
        entries=pl.DataFrame(
            entries,
            schema_overrides={
                "tournament_version": pl.Int32,
                "arbiter_rating": pl.Int32,
                "rating_in_file": pl.Int32,
                "fide_id": pl.Int64,
            },
        ),
        games=pl.DataFrame(
            games,
            schema={
                "tournament_id": pl.Utf8,
                "player_id": pl.Utf8,
                "opponent_id": pl.Utf8,
                "score": pl.Float64,
            },
            orient="row",
        ),
        registry_start=start,
        registry_close=close,
        members=pl.DataFrame(
            {"player_id": [p for p in people if rng.random() < 0.7]}, schema={"player_id": pl.Utf8}
        ),
        activity=pl.DataFrame(
            {
                "player_id": people,
                "last_played": [date(2013, 5, 3)] * len(people),
                "is_active": [rng.random() < 0.8 for _ in people],
            }
        ),
        quarantined=pl.DataFrame(
            schema={
                "tournament_id": pl.Utf8,
                "file_name": pl.Utf8,
                "received_on": pl.Date,
                "reason": pl.Utf8,
            }
        ),
    )


def test_a_player_missing_from_the_close_snapshot_keeps_the_fide_rating_of_the_start() -> None:
    # FIDE 2000 in the snapshot of the period start, no row in the one of the list date (a
    # membership not renewed, say): nothing says he left the FIDE list, so he closes with
    # FIDE 2000 and is not re-entered into Elo Italia at the FIDE minimum less one.
    facts = _random_facts(3, two_snapshots=True)
    player = facts.entries.get_column("player_id")[0]
    his_row = _registry(random.Random(3), [player]).with_columns(
        pl.lit(2000, dtype=pl.Int32).alias("fide_standard")
    )
    facts = replace(
        facts,
        registry_start=pl.concat(
            [facts.registry_start.filter(pl.col("player_id") != player), his_row]
        ),
        registry_close=facts.registry_close.filter(pl.col("player_id") != player),
    )
    sheet = player_sheet(facts, ERA).filter(pl.col("player_id") == player)
    assert sheet.select("fide_start", "fide_close").row(0) == (2000, 2000)
    listed = build_list(facts, ERA, LIST_DATE).rows.filter(pl.col("player_id") == player)
    assert listed.select("rating", "rating_type").row(0) == (2000, "fide")


def test_a_player_who_leaves_the_fide_list_is_noted_with_his_last_fide_rating() -> None:
    # FIDE 2000 at the period start, none in the snapshot of the list date: he re-enters Elo
    # Italia at the FIDE minimum less one (RULES.md §1.5), and the note shows both numbers
    facts = _random_facts(3, two_snapshots=True)
    player = facts.entries.get_column("player_id")[0]
    start_row = _registry(random.Random(3), [player]).with_columns(
        pl.lit(2000, dtype=pl.Int32).alias("fide_standard")
    )
    close_row = start_row.with_columns(pl.lit(None, dtype=pl.Int32).alias("fide_standard"))
    facts = replace(
        facts,
        registry_start=pl.concat(
            [facts.registry_start.filter(pl.col("player_id") != player), start_row]
        ),
        registry_close=pl.concat(
            [facts.registry_close.filter(pl.col("player_id") != player), close_row]
        ),
    )
    listed = build_list(facts, ERA, LIST_DATE).rows.filter(pl.col("player_id") == player)
    reentry = ERA.fide_minimum - 1
    assert listed.select("rating", "rating_type").row(0) == (reentry, ERA.system)
    note = listed.select("note").item()
    assert f"left the FIDE list (FIDE 2000 at the period start): re-enters at {reentry}" in note


def _listed_foreign_fide_player(facts: PeriodFacts) -> pl.DataFrame:
    """A previous-list row: a foreign player in no registry, listed as FIDE-rated 2272."""
    return facts.previous.head(1).with_columns(
        pl.lit("FOREIGN").alias("player_id"),
        pl.lit("Babic, Josip").alias("name"),
        pl.lit(2272, dtype=pl.Int32).alias("rating"),
        pl.lit("fide").alias("rating_type"),
    )


def test_an_unregistered_fide_player_without_a_file_this_period_keeps_his_fide_rating() -> None:
    # A foreign player in no registry, listed as FIDE-rated 2272 from his last tournament's
    # file: a period without a file of his says nothing of his FIDE status, so he stays at
    # FIDE 2272 (not re-entered at the FIDE minimum less one) and keeps his listed name.
    facts = _random_facts(5, two_snapshots=False)
    foreign = _listed_foreign_fide_player(facts)
    facts = replace(facts, previous=pl.concat([facts.previous, foreign]))
    sheet = player_sheet(facts, ERA).filter(pl.col("player_id") == "FOREIGN")
    assert sheet.select("fide_start", "fide_close").row(0) == (2272, 2272)
    listed = build_list(facts, ERA, LIST_DATE).rows.filter(pl.col("player_id") == "FOREIGN")
    assert listed.select("rating", "rating_type", "rating_basis", "name").row(0) == (
        2272,
        "fide",
        "fide",
        "Babic, Josip",
    )


def test_an_unregistered_player_whose_file_shows_no_fide_rating_has_left_fide() -> None:
    # The same foreign player, now in a file of the period that gives his FIDE id and no
    # rating: that is news, he is no longer FIDE-rated (RULES.md §1.5: re-entered at the FIDE
    # minimum less one), not the 2272 of the list.
    facts = _random_facts(5, two_snapshots=False)
    foreign = _listed_foreign_fide_player(facts)
    his_entry = facts.entries.head(1).with_columns(
        pl.lit("FOREIGN").alias("player_id"),
        pl.lit(14100000, dtype=facts.entries.schema["fide_id"]).alias("fide_id"),
        pl.lit(None, dtype=facts.entries.schema["rating_in_file"]).alias("rating_in_file"),
    )
    facts = replace(
        facts,
        previous=pl.concat([facts.previous, foreign]),
        entries=pl.concat([facts.entries, his_entry]),
    )
    sheet = player_sheet(facts, ERA).filter(pl.col("player_id") == "FOREIGN")
    assert sheet.select("fide_start", "fide_close").row(0) == (None, None)
    listed = build_list(facts, ERA, LIST_DATE).rows.filter(pl.col("player_id") == "FOREIGN")
    assert listed.select("rating_basis").item() == "fide_reentry"
    # the note gives the FIDE rating he was listed with, beside the one he re-enters at
    reentry = ERA.fide_minimum - 1
    note = listed.select("note").item()
    assert f"back from the FIDE list (listed FIDE 2272) at {reentry}" in note


def test_an_unregistered_fide_player_in_a_file_without_his_fide_id_keeps_his_fide_rating():
    # The same foreign player, in a file of the period whose line gives his rating but no FIDE
    # id: it says nothing of his FIDE status (the rating column is not known to be FIDE's), so
    # he keeps the list's FIDE 2272, not the FIDE minimum less one his opponents would play.
    facts = _random_facts(5, two_snapshots=False)
    foreign = _listed_foreign_fide_player(facts)
    his_entry = facts.entries.head(1).with_columns(
        pl.lit("FOREIGN").alias("player_id"),
        pl.lit(None, dtype=facts.entries.schema["fide_id"]).alias("fide_id"),
        pl.lit(2272, dtype=facts.entries.schema["rating_in_file"]).alias("rating_in_file"),
    )
    facts = replace(
        facts,
        previous=pl.concat([facts.previous, foreign]),
        entries=pl.concat([facts.entries, his_entry]),
    )
    sheet = player_sheet(facts, ERA).filter(pl.col("player_id") == "FOREIGN")
    assert sheet.select("fide_start", "fide_close").row(0) == (2272, 2272)
    listed = build_list(facts, ERA, LIST_DATE).rows.filter(pl.col("player_id") == "FOREIGN")
    assert listed.select("rating", "rating_type", "rating_basis").row(0) == (2272, "fide", "fide")


def test_a_team_event_is_rated_but_makes_no_one_active() -> None:
    # RULES.md §1.5: active means an individual tournament in the 24 months before the list
    entries = pl.DataFrame(
        {
            "player_id": ["A", "A", "B"],
            "end_date": [date(2013, 3, 1), date(2013, 9, 1), date(2013, 9, 1)],
            "start_date": [None, None, None],
            "received_on": [date(2013, 9, 10)] * 3,
            "is_team": [False, True, True],
        },
        schema_overrides={"start_date": pl.Date},
    )
    played = last_played(entries)
    assert sorted(played.rows()) == [("A", date(2013, 3, 1))]


def _shuffled(facts: PeriodFacts, seed: int) -> PeriodFacts:
    """Every frame's rows in another order; one snapshot stays one frame."""

    def shuffle(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.sample(fraction=1.0, shuffle=True, seed=seed)

    start = shuffle(facts.registry_start)
    close = start if facts.registry_close is facts.registry_start else shuffle(facts.registry_close)
    return replace(
        facts,
        previous=shuffle(facts.previous),
        entries=shuffle(facts.entries),
        games=shuffle(facts.games),
        registry_start=start,
        registry_close=close,
        members=shuffle(facts.members),
        activity=shuffle(facts.activity),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), two_snapshots=st.booleans())
def test_the_sheet_holds_everyone_once_in_player_id_order(seed: int, two_snapshots: bool) -> None:
    facts = _random_facts(seed, two_snapshots)
    sheet = player_sheet(_shuffled(facts, seed), ERA)
    everyone = set(facts.previous.get_column("player_id")) | set(
        facts.entries.get_column("player_id")
    )
    assert sheet.get_column("player_id").to_list() == sorted(everyone)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), two_snapshots=st.booleans())
def test_the_list_does_not_depend_on_the_order_of_input_rows(
    seed: int, two_snapshots: bool
) -> None:
    facts = _random_facts(seed, two_snapshots)
    published = build_list(facts, ERA, LIST_DATE)
    again = build_list(_shuffled(facts, seed), ERA, LIST_DATE)
    assert again.rows.equals(published.rows)
    assert again.rankings.equals(published.rankings)
    assert again.variations.sort("player_id", "tournament_id").equals(
        published.variations.sort("player_id", "tournament_id")
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_one_snapshot_read_twice_gives_the_list_of_two_equal_snapshots(seed: int) -> None:
    facts = _random_facts(seed, two_snapshots=False)
    copied = replace(facts, registry_close=facts.registry_start.clone())
    assert copied.registry_close is not copied.registry_start
    assert build_list(copied, ERA, LIST_DATE).rows.equals(build_list(facts, ERA, LIST_DATE).rows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_list_rows_from_ratings_in_another_order_than_the_sheet(seed: int) -> None:
    facts = _random_facts(seed, two_snapshots=True)
    sheet = player_sheet(facts, ERA)
    result = compute_period(
        sheet.select(
            "player_id",
            "list_rating",
            "on_list_as_fide",
            "total_games",
            "fide_start",
            "fide_close",
            "category",
            "k_override",
            "arbiter_rating",
        ),
        facts.entries.select("tournament_id", "player_id", "points", "start_date", "end_date"),
        facts.games,
        ERA,
    )
    reordered = replace(result, ratings=result.ratings.reverse())
    assert with_list_notes(closed_list_rows(reordered, facts, ERA, LIST_DATE, sheet), ERA).equals(
        with_list_notes(closed_list_rows(result, facts, ERA, LIST_DATE, sheet), ERA)
    )


def test_each_variation_gets_its_tournament_version_by_position_or_by_join() -> None:
    variations = pl.DataFrame(
        {"tournament_id": ["T1", "T2", "T1"], "player_id": ["A", "A", "B"], "games": [3, 4, 5]}
    )
    entries = pl.DataFrame(
        {
            "tournament_id": ["T1", "T1", "T2"],
            "player_id": ["B", "A", "A"],
            "tournament_version": [2, 2, 7],
            "entry_key": [4, 0, 1],
        }
    )
    expected = variations.with_columns(pl.Series("tournament_version", [2, 7, 2]))
    # entries in another order than the variations: the entry keys put them in line
    assert with_versions(variations, entries).equals(expected)
    # without keys, the (player, tournament) order of the unkeyed engine
    assert with_versions(variations, entries.drop("entry_key")).equals(expected)
    # an entry missing: no version taken by position from the wrong row
    partial = with_versions(variations, entries.filter(pl.col("player_id") == "A"))
    assert partial.get_column("tournament_version").to_list() == [2, 7, None]


@settings(max_examples=60, deadline=None)
@given(
    receipts=st.lists(
        st.dates(min_value=date(2011, 1, 1), max_value=date(2014, 12, 31)), max_size=40
    ),
    seed=st.integers(0, 1_000),
)
def test_a_history_in_receipt_order_is_cut_as_a_shuffled_one(
    receipts: list[date], seed: int
) -> None:
    """The history read gives the games in order of receipt, and the split then cuts each list
    date's run of rows by position; any other order goes through a join. Both must give every
    row to the list date its receipt feeds, keeping the frame's own order."""
    in_receipt_order = pl.DataFrame(
        {"received_on": sorted(receipts), "row": list(range(len(receipts)))},
        schema={"received_on": pl.Date, "row": pl.Int64},
    )
    shuffled = in_receipt_order.sample(fraction=1.0, shuffle=True, seed=seed)
    feeds = dict(
        assign_list_dates(in_receipt_order, ERA.calendar).select("row", "list_date").iter_rows()
    )

    def split(frame: pl.DataFrame) -> dict[date, list[int]]:
        history = History(
            entries=frame,
            games=frame,
            registry=pl.DataFrame(
                schema={"as_of": pl.Date, "player_id": pl.Utf8, "fide_standard": pl.Int32}
            ),
            memberships=pl.DataFrame(
                schema={"as_of": pl.Date, "player_id": pl.Utf8, "year": pl.Int32}
            ),
            quarantined=frame.head(0),
        )
        periods = split_history(history, ERA.calendar).periods
        return {day: part.games.get_column("row").to_list() for day, part in periods.items()}

    for frame in (in_receipt_order, shuffled):
        order = frame.get_column("row").to_list()
        expected: dict[date, list[int]] = {}
        for row in order:
            expected.setdefault(feeds[row], []).append(row)
        assert split(frame) == expected
