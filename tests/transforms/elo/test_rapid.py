"""Elo Rapid (RULES.md §2): its rulebook, how newcomers enter, which tournaments are valid, and
the letters. Expected values are worked out by hand in the comments."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Any

import polars as pl
import pytest

from tests.transforms.elo.period_frames import (
    ENTRY_SCHEMA,
    GAME_SCHEMA,
    PREVIOUS_SCHEMA,
    QUARANTINED_SCHEMA,
    REGISTRY_SCHEMA,
)
from transforms.elo.lists import PeriodFacts, build_list
from transforms.elo.rapid_letters import (
    label_problems,
    letters_at_list,
    normalise_labels,
    parse_labels,
)
from transforms.elo.rulebook import parse_rulebook
from transforms.elo.validity import non_member_tournaments, size_reasons
from transforms.lists.eras import RulebookError, default_rulebook_path

RAPID = parse_rulebook(default_rulebook_path("elo_rapid").read_bytes(), "elo_rapid.toml")
ERA_2019 = RAPID.era_at(date(2019, 7, 1))
LETTERS = ERA_2019.letters
assert LETTERS is not None


# --------------------------------------------------------------------------- rulebook


def test_the_rapid_rulebook_holds_the_numbers_of_the_regulation() -> None:
    era = ERA_2019
    assert era.system == "elo_rapid"
    newcomer_line = era.k.rules[0]
    assert (newcomer_line.condition, newcomer_line.threshold, newcomer_line.k) == (
        "games_below",
        30,
        30,
    )
    assert not era.k.registry_override  # the registry's K is the Elo Italia one
    assert not era.arbiter_entry  # §2: no free arbiter value
    assert (era.time_control.min_minutes, era.time_control.max_minutes) == (15, 60)
    assert era.theoretical_ratings[era.unregistered_category] == 1440
    assert set(era.theoretical_ratings.values()) == {1440}  # 1440 whatever the category
    assert era.entry_precedence == ("fide_rapid", "fide_standard", "elo_italia")
    assert not era.arbiter_raises_listed
    assert not era.fide_holders_leave_list
    assert (era.validity.min_players, era.validity.min_rounds, era.validity.all_members) == (
        14,
        6,
        True,
    )
    assert dict(LETTERS.bands)["D"] == 1800 and dict(LETTERS.bands)["E"] == 1600
    assert LETTERS.definitive_after == 2
    assert LETTERS.provisional_mark == "x"
    assert LETTERS.held_counts == "rating_in_band"


@pytest.mark.parametrize(
    "list_date",
    [date(1998, 4, 1), date(1998, 7, 1), date(2006, 1, 1), date(2006, 4, 1), date(2009, 7, 1)],
)
def test_the_machinery_the_rapid_list_shares_switches_with_elo_italia(list_date: date) -> None:
    # [DEFAULT] groups of tournaments and the difference cap "as Elo Italia": from the same
    # dates too (groups from the list of 1998-07-01, caps from 2006-04-01 and 2009-07-01)
    italia = parse_rulebook(default_rulebook_path("elo_italia").read_bytes()).era_at(list_date)
    rapid = RAPID.era_at(list_date)
    shared = ("groups_enabled", "group_size", "group_min_k", "difference_cap")
    assert [getattr(rapid, name) for name in shared] == [getattr(italia, name) for name in shared]


def test_letters_start_with_the_list_of_2006_01_01() -> None:
    before = RAPID.era_at(date(2005, 10, 1)).letters
    after = RAPID.era_at(date(2006, 1, 1)).letters
    assert before is not None and not before.enabled
    assert after is not None and after.enabled


def _rapid_text() -> str:
    return default_rulebook_path("elo_rapid").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('["G", 0]]', '["G", 100]]'), "letters.bands must run from the highest band down"),
        (('["F", 1400]', '["F", 1700]'), "letters.bands must run from the highest band down"),
        (("definitive_after = 2 ", "definitive_after = 0 "), "letters.definitive_after"),
        (('held_counts = "rating_in_band"', 'held_counts = "twice"'), "letters.held_counts"),
        (
            ('"fide_standard", "elo_italia"]', '"fide_standard", "elo_rapid"]'),
            "ratings.entry_precedence must list some of",
        ),
        (('kind = "letters"', 'kind = "national"'), "categories.thresholds must be a table"),
        (("min_players = 14", "min_players = -1"), "validity.min_players must be between"),
    ],
)
def test_an_invalid_rapid_rulebook_is_refused_naming_the_key(
    change: tuple[str, str], message: str
) -> None:
    text = _rapid_text()
    assert change[0] in text
    with pytest.raises(RulebookError, match=message):
        parse_rulebook(text.replace(change[0], change[1], 1).encode(), "elo_rapid.toml")


def test_a_letter_list_needs_its_letter_bands() -> None:
    italia = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
    text = italia.replace('kind = "national"', 'kind = "letters"', 1)
    with pytest.raises(RulebookError, match="letters is needed exactly when"):
        parse_rulebook(text.encode(), "elo_italia.toml")


# --------------------------------------------------------------------------- entry precedence

LIST_DATE = date(2019, 7, 1)


def _facts(
    previous: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    games: list[tuple[str, str, str, float]],
    registry: list[dict[str, Any]],
    reference: list[tuple[str, int]],
) -> PeriodFacts:
    registry_frame = pl.DataFrame(
        [
            {
                "player_id": row["player_id"],
                "name": row["player_id"],
                "sex": "M",
                "birth_date": date(1980, 1, 1),
                "fide_standard": row.get("fide_standard"),
                "fide_rapid": row.get("fide_rapid"),
                "category": row.get("category", "NC"),
                "k_override": row.get("k_override"),
                "last_fide_tournament": None,
            }
            for row in registry
        ],
        schema=REGISTRY_SCHEMA,
    )
    entry_frame = pl.DataFrame(
        [
            {
                "tournament_id": row["tournament_id"],
                "tournament_version": 1,
                "player_id": row["player_id"],
                "name": row["player_id"],
                "points": row["points"],
                "start_date": date(2019, 5, 4),
                "end_date": date(2019, 5, 4),
                "received_on": date(2019, 5, 10),
                "arbiter_rating": row.get("arbiter_rating"),
                "rating_in_file": None,
                "fide_id": None,
            }
            for row in entries
        ],
        schema=ENTRY_SCHEMA,
    )
    game_frame = pl.DataFrame(games, schema=GAME_SCHEMA, orient="row")
    previous_frame = pl.DataFrame(previous, schema=PREVIOUS_SCHEMA)
    players = [row["player_id"] for row in registry]
    return PeriodFacts(
        previous=previous_frame,
        entries=entry_frame,
        games=game_frame,
        registry_start=registry_frame,
        registry_close=registry_frame,
        members=pl.DataFrame({"player_id": players}),
        activity=pl.DataFrame(
            {
                "player_id": players,
                "last_played": [date(2019, 5, 4)] * len(players),
                "is_active": [True] * len(players),
            }
        ),
        quarantined=pl.DataFrame(schema=QUARANTINED_SCHEMA),
        reference_ratings=pl.DataFrame(
            reference, schema={"player_id": pl.Utf8, "elo_italia": pl.Int32}, orient="row"
        ),
    )


# on the rapid list at 1650 (letter E, definitive), 80 games
OLD_ON_THE_LIST = {
    "player_id": "OLD",
    "rating": 1650,
    "rating_type": "elo_rapid",
    "total_games": 80,
    "category": "E",
    "letter": "E",
    "letter_provisional": False,
    "letter_held": 3,
}


def _one_game_each(pairs: list[tuple[str, str]]) -> tuple[list[dict], list[tuple]]:
    """A draw per pair, each in its own tournament (no winner protection at stake: draws)."""
    entries, games = [], []
    for number, (a, b) in enumerate(pairs):
        tid = f"R{number}"
        entries += [
            {"tournament_id": tid, "player_id": a, "points": 0.5},
            {"tournament_id": tid, "player_id": b, "points": 0.5},
        ]
        games += [(tid, a, b, 0.5), (tid, b, a, 0.5)]
    return entries, games


def test_entry_precedence_fide_rapid_fide_standard_elo_italia_then_1440_never_the_arbiter() -> None:
    # §2 (corrected): the arbiter gives no free value in Elo Rapid, so ARB's arbiter 1700 is
    # no entry source: he enters at his FIDE rapid 1900 like FRA (the engine failed this when
    # it took the arbiter's number first)
    registry = [
        {"player_id": "ARB", "fide_rapid": 1900, "fide_standard": 2000},
        {"player_id": "FRA", "fide_rapid": 1900, "fide_standard": 2000},  # FIDE rapid first
        {"player_id": "FST", "fide_standard": 2000},  # then FIDE standard
        {"player_id": "ITA"},  # then the Elo Italia list in force
        {"player_id": "NEW", "category": "1N"},  # then 1440, whatever the category
        # on the rapid list already: the list rating, whatever FIDE or the arbiter say
        {"player_id": "OLD", "fide_rapid": 2100},
    ]
    entries, games = _one_game_each([("ARB", "FRA"), ("FST", "ITA"), ("NEW", "OLD")])
    entries[0]["arbiter_rating"] = 1700
    entries[5]["arbiter_rating"] = 1900  # OLD: an arbiter rating does not raise a listed one
    facts = _facts(
        previous=[OLD_ON_THE_LIST],
        entries=entries,
        games=games,
        registry=registry,
        reference=[("ITA", 1810), ("FST", 1500), ("OLD", 2222)],
    )
    rows = build_list(facts, ERA_2019, LIST_DATE).rows.select(
        "player_id", "frozen_rating", "rating_basis", "k", "rating_type"
    )
    assert rows.sort("player_id").rows() == [
        ("ARB", 1900, "fide_rapid", 30, "elo_rapid"),
        ("FRA", 1900, "fide_rapid", 30, "elo_rapid"),
        ("FST", 2000, "fide_standard", 30, "elo_rapid"),
        ("ITA", 1810, "elo_italia", 30, "elo_rapid"),
        ("NEW", 1440, "entry", 30, "elo_rapid"),
        ("OLD", 1650, "list", 15, "elo_rapid"),
    ]


def test_a_rapid_newcomer_plays_with_k_30_whatever_the_registry_k() -> None:
    # §2 [REG]: 1440 with K = 30. The registry's K (15 for both) is the Elo Italia one.
    # NEW (1440, K 30) draws OLD (1650, K 15, 80 games): D = -210 -> We 0.23 for NEW:
    # 30 x 0.27 = +8.1 -> 1448; OLD: 15 x (0.5 - 0.77) = -4.05, but he ties for first: winner
    # protection keeps him at 1650.
    entries, games = _one_game_each([("NEW", "OLD")])
    facts = _facts(
        previous=[OLD_ON_THE_LIST],
        entries=entries,
        games=games,
        registry=[{"player_id": "NEW", "k_override": 15}, {"player_id": "OLD", "k_override": 15}],
        reference=[],
    )
    rows = build_list(facts, ERA_2019, LIST_DATE).rows.select(
        "player_id", "frozen_rating", "k", "rating"
    )
    assert rows.sort("player_id").rows() == [("NEW", 1440, 30, 1448), ("OLD", 1650, 15, 1650)]


def test_a_fide_rated_player_stays_on_the_rapid_list_and_his_games_count() -> None:
    # FID (FIDE standard 2000, enters at it) beats NEW (1440) in a two-player tournament.
    # D = 2000 - 1440 = 560, cap 400 in 2019: |D| = 400 -> band 392-411, PD = 0.92.
    # FID: K 30 x (1 - 0.92) = +2.4 -> 2002; NEW: 30 x (0 - 0.08) = -2.4 -> 1438 (rounded once).
    facts = _facts(
        previous=[],
        entries=[
            {"tournament_id": "R1", "player_id": "FID", "points": 1.0},
            {"tournament_id": "R1", "player_id": "NEW", "points": 0.0},
        ],
        games=[("R1", "FID", "NEW", 1.0), ("R1", "NEW", "FID", 0.0)],
        registry=[{"player_id": "FID", "fide_standard": 2000}, {"player_id": "NEW"}],
        reference=[],
    )
    published = build_list(facts, ERA_2019, LIST_DATE)
    rows = published.rows.sort("player_id").select("player_id", "rating", "rating_type", "games")
    assert rows.rows() == [("FID", 2002, "elo_rapid", 1), ("NEW", 1438, "elo_rapid", 1)]
    variations = published.variations.sort("player_id")
    assert variations.get_column("applied_variation").to_list() == [2.4, -2.4]
    assert published.rows.sort("player_id").get_column("note").to_list() == [
        "entered at the FIDE standard rating 2000; letter Cx (provisional)",
        "entered at 1440 (NC); letter Fx (provisional)",
    ]


# --------------------------------------------------------------------------- validity


def test_a_tournament_of_13_players_is_refused_with_the_reason() -> None:
    assert size_reasons(13, 7, ERA_2019.validity) == [
        ("players", 13, "13 players, at least 14 required")
    ]
    assert size_reasons(14, 6, ERA_2019.validity) == []
    assert size_reasons(20, 5, ERA_2019.validity) == [
        ("rounds", 5, "5 rounds, at least 6 required")
    ]
    italia = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
    assert size_reasons(4, 3, italia.era_at(LIST_DATE).validity) == []


def test_a_tournament_with_a_player_not_member_for_its_year_is_set_aside() -> None:
    entries = pl.DataFrame(
        {
            "tournament_id": ["R1", "R1", "R2", "R2", "R3"],
            "player_id": ["A", "B", "A", "C", "A"],
            "end_date": [date(2019, 5, 1)] * 2 + [date(2018, 12, 10)] * 2 + [None],
            "start_date": [None] * 5,
            "received_on": [date(2019, 5, 9)] * 4 + [date(2019, 1, 9)],
        },
        schema_overrides={"start_date": pl.Date, "end_date": pl.Date},
    )
    # A is a member for 2018 and 2019, B only for 2018, C only for 2018
    memberships = pl.DataFrame(
        {"player_id": ["A", "A", "B", "C"], "year": [2018, 2019, 2018, 2018]}
    )
    excluded = non_member_tournaments(entries, memberships, ERA_2019.validity)
    # R1 (2019): B is not a member for 2019; R2 (2018): both are; R3: year from the receipt
    assert excluded.rows() == [
        ("R1", "1 of 2 players are not members of the federation for 2019: B"),
    ]
    italia = dataclasses.replace(ERA_2019.validity, all_members=False)
    assert non_member_tournaments(entries, memberships, italia).height == 0


# --------------------------------------------------------------------------- letters


def _step(previous: pl.DataFrame, ratings: dict[str, int]) -> pl.DataFrame:
    rows = pl.DataFrame(
        {"player_id": list(ratings), "rating": list(ratings.values())},
        schema={"player_id": pl.Utf8, "rating": pl.Int32},
    )
    return letters_at_list(rows, previous, LETTERS)


def _state(frame: pl.DataFrame, player: str) -> tuple[str, bool, int]:
    row = frame.filter(pl.col("player_id") == player).row(0, named=True)
    return row["letter"], row["letter_provisional"], row["letter_held"]


EMPTY = pl.DataFrame(schema={"player_id": pl.Utf8})


def test_a_letter_is_provisional_then_definitive_after_two_list_dates_even_with_a_gap() -> None:
    first = _step(EMPTY, {"P": 1810})  # reaches D (1800-1999): Dx, held once
    assert _state(first, "P") == ("D", True, 1)
    dip = _step(first, {"P": 1790})  # below D: keeps Dx (never lowered), count unchanged
    assert _state(dip, "P") == ("D", True, 1)
    back = _step(dip, {"P": 1805})  # in D again: second list date, not consecutive: definitive
    assert _state(back, "P") == ("D", False, 2)
    fall = _step(back, {"P": 1420})  # a falling rating keeps the letter, definitive
    assert _state(fall, "P") == ("D", False, 2)


def test_with_every_list_counted_the_second_list_showing_a_letter_makes_it_definitive() -> None:
    # letters.held_counts = "every_list": a list showing Dx counts whatever the rating, so a
    # dip below D at the next list date still makes D definitive there
    every_list = dataclasses.replace(LETTERS, held_counts="every_list")
    rows = pl.DataFrame(
        {"player_id": ["P"], "rating": [1790]}, schema={"player_id": pl.Utf8, "rating": pl.Int32}
    )
    dip = letters_at_list(rows, _step(EMPTY, {"P": 1810}), every_list)
    assert _state(dip, "P") == ("D", False, 2)


def test_a_letter_held_at_two_consecutive_list_dates_is_definitive() -> None:
    first = _step(EMPTY, {"P": 1650})
    second = _step(first, {"P": 1700})
    assert [_state(first, "P"), _state(second, "P")] == [("E", True, 1), ("E", False, 2)]


def test_a_jump_of_more_than_one_band_gives_the_higher_letter_provisional() -> None:
    start = _step(EMPTY, {"P": 1650})
    definitive = _step(start, {"P": 1690})
    assert _state(definitive, "P") == ("E", False, 2)
    jump = _step(definitive, {"P": 2010})  # E -> C, over D: Cx, held once
    assert _state(jump, "P") == ("C", True, 1)


def test_band_edges_and_no_letters_before_the_era() -> None:
    edges = _step(EMPTY, {"a": 2400, "b": 2399, "c": 1400, "d": 1399, "e": 0})
    assert [edges.filter(pl.col("player_id") == p)["letter"][0] for p in "abcde"] == [
        "A",
        "B",
        "F",
        "G",
        "G",
    ]
    before = RAPID.era_at(date(2005, 10, 1)).letters
    none = letters_at_list(pl.DataFrame({"player_id": ["a"], "rating": [2000]}), EMPTY, before)
    assert none.row(0, named=True)["letter"] is None


def test_published_labels_give_the_letter_state() -> None:
    labels = pl.DataFrame({"category": ["Dx", "D", None]})
    letter, provisional, held = parse_labels(pl.col("category"), LETTERS)
    parsed = labels.select(letter.alias("l"), provisional.alias("p"), held.alias("h"))
    assert parsed.rows() == [
        ("D", True, 1),
        ("D", False, 2),
        (None, None, None),
    ]


def test_labels_typed_in_any_case_are_read_as_the_list_shows_them() -> None:
    typed = pl.DataFrame({"category": ["dx", "DX", "d", "Dx", "x", None]})
    shown = typed.select(normalise_labels(pl.col("category"), LETTERS)).to_series().to_list()
    assert shown == ["Dx", "Dx", "D", "Dx", "X", None]
    problems = label_problems(
        pl.DataFrame({"line_no": [2, 3, 4], "category": ["Dx", "X", "H"]}), LETTERS
    )
    assert problems.get_column("line_no").to_list() == [3, 4]


def test_a_list_sets_aside_a_tournament_with_a_non_member_and_says_why() -> None:
    from transforms.elo.lists import History, period_facts, split_history

    def entry(tid: str, pid: str, points: float) -> dict[str, Any]:
        return {
            "tournament_id": tid,
            "tournament_version": 1,
            "player_id": pid,
            "name": pid,
            "points": points,
            "start_date": date(2019, 5, 4),
            "end_date": date(2019, 5, 4),
            "received_on": date(2019, 5, 10),
            "file_name": f"{tid}.trf",
            "arbiter_rating": None,
            "rating_in_file": None,
            "fide_id": None,
        }

    entries = pl.DataFrame(
        [
            entry("R1", "A", 1.0),
            entry("R1", "B", 0.0),
            entry("R2", "A", 1.0),
            entry("R2", "X", 0.0),
        ],
        schema_overrides={
            "arbiter_rating": pl.Int32,
            "rating_in_file": pl.Int32,
            "fide_id": pl.Int64,
        },
    )
    games = pl.DataFrame(
        {
            "tournament_id": ["R1", "R1", "R2", "R2"],
            "player_id": ["A", "B", "A", "X"],
            "opponent_id": ["B", "A", "X", "A"],
            "score": [1.0, 0.0, 1.0, 0.0],
            "received_on": [date(2019, 5, 10)] * 4,
        }
    )
    registry = pl.DataFrame(
        {
            "as_of": [date(2019, 1, 1)] * 3,
            "player_id": ["A", "B", "X"],
            "name": ["A", "B", "X"],
            "sex": ["M"] * 3,
            "birth_date": [date(1990, 1, 1)] * 3,
            "fide_standard": [None, None, None],
            "fide_rapid": [None, None, None],
            "category": ["NC"] * 3,
            "k_override": [None, None, None],
            "last_fide_tournament": [None, None, None],
        },
        schema_overrides={
            "fide_standard": pl.Int32,
            "fide_rapid": pl.Int32,
            "k_override": pl.Int32,
            "last_fide_tournament": pl.Date,
        },
    )
    # X is a member for 2018 only: R2 (played in 2019) is not valid for the rapid list
    memberships = pl.DataFrame(
        {
            "as_of": [date(2019, 1, 1)] * 3,
            "player_id": ["A", "B", "X"],
            "year": [2019, 2019, 2018],
        }
    )
    quarantined = pl.DataFrame(schema=QUARANTINED_SCHEMA)
    history = split_history(
        History(entries, games, registry, memberships, quarantined), ERA_2019.calendar
    )
    facts = period_facts(
        history,
        pl.DataFrame(
            schema={
                "player_id": pl.Utf8,
                "name": pl.Utf8,
                "rating": pl.Int32,
                "rating_type": pl.Utf8,
                "total_games": pl.Int32,
                "category": pl.Utf8,
                "last_played": pl.Date,
            }
        ),
        history.played_before(LIST_DATE),
        LIST_DATE,
        date(2019, 4, 1),
        ERA_2019,
    )
    assert set(facts.entries.get_column("tournament_id")) == {"R1"}
    assert set(facts.games.get_column("tournament_id")) == {"R1"}
    assert facts.quarantined.select("tournament_id", "file_name", "reason").rows() == [
        ("R2", "R2.trf", "1 of 2 players are not members of the federation for 2019: X")
    ]
    assert build_list(facts, ERA_2019, LIST_DATE).excluded.rows() == [
        ("R2", "1 of 2 players are not members of the federation for 2019: X")
    ]
    # a later list (or the first list of a replay) counts activity only from rated tournaments
    later = date(LIST_DATE.year + 1, LIST_DATE.month, LIST_DATE.day)
    rated = history.played_before(later, lambda day: ERA_2019.validity)
    assert sorted(rated.rows()) == [("A", date(2019, 5, 4)), ("B", date(2019, 5, 4))]
    every = history.played_before(later)
    assert sorted(every.get_column("player_id")) == ["A", "B", "X"]
