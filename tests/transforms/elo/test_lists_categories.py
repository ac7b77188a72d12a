"""National categories, membership and rankings on a published Elo Italia list (RULES.md §1.5),
on hand-built periods whose numbers are worked out in the comments."""

from __future__ import annotations

from datetime import date
from typing import Any

import polars as pl

from tests.transforms.elo.period_frames import (
    ENTRY_SCHEMA,
    GAME_SCHEMA,
    PREVIOUS_SCHEMA,
    QUARANTINED_SCHEMA,
    REGISTRY_SCHEMA,
)
from transforms.elo.lists import History, PeriodFacts, build_list, period_facts, split_history
from transforms.elo.rulebook import EloEra, parse_rulebook
from transforms.lists.eras import default_rulebook_path

RULEBOOK = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
LIST_DATE = date(2019, 7, 1)
ERA = RULEBOOK.era_at(LIST_DATE)


def _registry(*rows: dict[str, Any]) -> pl.DataFrame:
    defaults = dict.fromkeys(REGISTRY_SCHEMA) | {"sex": "M", "birth_date": date(1980, 1, 1)}
    return pl.DataFrame([defaults | row for row in rows], schema=REGISTRY_SCHEMA)


def _previous(*rows: dict[str, Any]) -> pl.DataFrame:
    defaults = dict.fromkeys(PREVIOUS_SCHEMA) | {
        "rating_type": "elo_italia",
        "total_games": 100,  # past the newcomer's K: K = 15 below 2400
        "last_played": date(2019, 1, 20),
    }
    return pl.DataFrame([defaults | row for row in rows], schema=PREVIOUS_SCHEMA)


def _one_game(winner: str, loser: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A two-player tournament of the period that ``winner`` won."""
    entries = pl.DataFrame(
        [
            dict.fromkeys(ENTRY_SCHEMA)
            | {
                "tournament_id": "T1",
                "tournament_version": 1,
                "player_id": player,
                "name": player,
                "points": points,
                "start_date": date(2019, 5, 4),
                "end_date": date(2019, 5, 5),
                "received_on": date(2019, 5, 10),
            }
            for player, points in ((winner, 1.0), (loser, 0.0))
        ],
        schema=ENTRY_SCHEMA,
    )
    games = pl.DataFrame(
        [("T1", winner, loser, 1.0), ("T1", loser, winner, 0.0)], schema=GAME_SCHEMA, orient="row"
    )
    return entries, games


def _facts(
    previous: pl.DataFrame,
    registry: pl.DataFrame,
    games: tuple[pl.DataFrame, pl.DataFrame] | None = None,
    members: tuple[str, ...] = (),
) -> PeriodFacts:
    entries, played = games or (
        pl.DataFrame(schema=ENTRY_SCHEMA),
        pl.DataFrame(schema=GAME_SCHEMA),
    )
    everyone = sorted({*previous.get_column("player_id"), *entries.get_column("player_id")})
    return PeriodFacts(
        previous=previous,
        entries=entries,
        games=played,
        registry_start=registry,
        registry_close=registry,
        members=pl.DataFrame({"player_id": list(members)}, schema={"player_id": pl.Utf8}),
        activity=pl.DataFrame(
            {
                "player_id": everyone,
                "last_played": [date(2019, 5, 5)] * len(everyone),
                "is_active": [True] * len(everyone),
            }
        ),
        quarantined=pl.DataFrame(schema=QUARANTINED_SCHEMA),
    )


def _row(facts: PeriodFacts, player: str, era: EloEra = ERA) -> dict[str, Any]:
    rows = build_list(facts, era, LIST_DATE).rows
    return rows.filter(pl.col("player_id") == player).to_dicts()[0]


def test_a_category_reached_by_rating_is_granted_with_a_note() -> None:
    # C (2N, 1795) beats X (2N, 1795): D = 0, expected 0.50, K = 15, so C gains 7.5, rounded
    # away from zero to 8: 1803 reaches the 1N threshold of 1800. X falls to 1787 (-7.5 -> -8),
    # still above 2N's 1600, and keeps 2N.
    facts = _facts(
        _previous(
            {"player_id": "C", "rating": 1795, "category": "2N"},
            {"player_id": "X", "rating": 1795, "category": "2N"},
        ),
        _registry({"player_id": "C", "category": "2N"}, {"player_id": "X", "category": "2N"}),
        _one_game("C", "X"),
    )
    promoted = _row(facts, "C")
    assert (promoted["rating"], promoted["category"], promoted["previous_category"]) == (
        1803,
        "1N",
        "2N",
    )
    assert "category 1N" in promoted["note"]
    kept = _row(facts, "X")
    assert (kept["rating"], kept["category"]) == (1787, "2N")
    assert "category" not in (kept["note"] or "")


def test_a_category_is_never_taken_away_when_the_rating_falls_below_it() -> None:
    # C (1N on the list at 1805) loses to X (1805): 1805 - 8 = 1797, under 1N's 1800; he stays
    # 1N, and the registry's older 2N does not lower him either.
    facts = _facts(
        _previous(
            {"player_id": "C", "rating": 1805, "category": "1N"},
            {"player_id": "X", "rating": 1805, "category": "2N"},
        ),
        _registry({"player_id": "C", "category": "2N"}, {"player_id": "X", "category": "2N"}),
        _one_game("X", "C"),
    )
    fallen = _row(facts, "C")
    assert (fallen["rating"], fallen["category"]) == (1797, "1N")


def test_a_player_whose_registration_lapsed_keeps_his_category() -> None:
    # C, 1N on the previous list, is in neither registry snapshot of the period (a lapsed
    # registration): he stays on the list as 1N, with no note about his category ...
    lapsed = _facts(
        _previous(
            {"player_id": "C", "rating": 1810, "category": "1N"},
            {"player_id": "X", "rating": 1810, "category": "1N"},
        ),
        _registry({"player_id": "X", "category": "2N"}),
    )
    row = _row(lapsed, "C")
    assert (row["rating"], row["category"], row["is_member"]) == (1810, "1N", False)
    assert "category" not in (row["note"] or "")
    # ... and a period later, back in a registry that still says 2N, beaten from 1805 to 1797
    # (under 1N's 1800): still 1N, because the list of the period before kept it.
    back = _facts(
        _previous(
            {"player_id": "C", "rating": 1805, "category": row["category"]},
            {"player_id": "X", "rating": 1805, "category": "1N"},
        ),
        _registry({"player_id": "C", "category": "2N"}, {"player_id": "X", "category": "2N"}),
        _one_game("X", "C"),
    )
    again = _row(back, "C")
    assert (again["rating"], again["category"]) == (1797, "1N")


def test_a_foreign_player_in_no_registry_gets_no_national_category() -> None:
    # F, in no registry and on no earlier list with a category, reaches 2000 by rating: the
    # national categories are the federation's members', so he has none.
    facts = _facts(
        _previous(
            {"player_id": "F", "rating": 1995, "category": None},
            {"player_id": "X", "rating": 1995, "category": "1N"},
        ),
        _registry({"player_id": "X", "category": "1N"}),
        _one_game("F", "X"),
    )
    foreign = _row(facts, "F")
    assert (foreign["rating"], foreign["category"]) == (2003, None)


def test_a_fide_rated_player_takes_the_category_his_fide_rating_reaches() -> None:
    # §1.5 grants a category when "the rating" reaches its threshold, and the seed's
    # "punteggio di merito (Italia o Fide)" is the FIDE rating for a FIDE-rated player: FIDE
    # 2100 with a registry 2N gives CM (2000), with its note.
    facts = _facts(
        _previous({"player_id": "F", "rating": 2080, "rating_type": "fide", "category": "2N"}),
        _registry({"player_id": "F", "category": "2N", "fide_standard": 2100}),
    )
    row = _row(facts, "F")
    assert (row["rating"], row["rating_type"], row["category"]) == (2100, "fide", "CM")
    assert "category CM" in row["note"]


def test_a_list_of_1_january_takes_the_members_of_its_new_year() -> None:
    # Memberships are for a calendar year (§1.5: "registered for the year of the list date"):
    # the list of 2020-01-01 counts the 2020 registrations, not the 2019 ones.
    registry = _registry({"player_id": "OLD"}, {"player_id": "NEW"}).with_columns(
        pl.lit(date(2019, 1, 1)).alias("as_of")
    )
    memberships = pl.DataFrame(
        {
            "as_of": [date(2019, 9, 1)] * 3,
            "player_id": ["OLD", "OLD", "NEW"],
            "year": [2018, 2019, 2020],
        }
    )
    history = split_history(
        History(
            pl.DataFrame(schema=ENTRY_SCHEMA | {"file_name": pl.Utf8()}),
            pl.DataFrame(schema=GAME_SCHEMA | {"received_on": pl.Date()}),
            registry,
            memberships,
            pl.DataFrame(schema=QUARANTINED_SCHEMA),
        ),
        ERA.calendar,
    )
    january = date(2020, 1, 1)

    def members_at(list_date: date) -> list[str]:
        facts = period_facts(
            history,
            _previous({"player_id": "OLD", "rating": 1500}, {"player_id": "NEW", "rating": 1500}),
            history.played_before(list_date),
            list_date,
            list_date,
            RULEBOOK.era_at(list_date),
        )
        return sorted(facts.members.get_column("player_id"))

    assert members_at(date(2019, 10, 1)) == ["OLD"]
    assert members_at(january) == ["NEW"]


def test_an_active_player_who_is_not_a_member_is_listed_but_not_ranked() -> None:
    # Both active; only M is registered for the year: both are on the list, M alone in the
    # national rankings.
    facts = _facts(
        _previous(
            {"player_id": "M", "rating": 1700, "category": "2N"},
            {"player_id": "N", "rating": 1800, "category": "1N"},
        ),
        _registry({"player_id": "M", "category": "2N"}, {"player_id": "N", "category": "1N"}),
        members=("M",),
    )
    published = build_list(facts, ERA, LIST_DATE)
    listed = dict(published.rows.select("player_id", "in_ranking").rows())
    assert listed == {"M": True, "N": False}
    assert set(published.rankings.get_column("player_id")) == {"M"}
