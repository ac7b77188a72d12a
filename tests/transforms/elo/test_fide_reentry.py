"""FIDE delisting re-entry read from the registry's dated snapshots (RULES.md §1.5, corrected):
a player whose FIDE standard rating disappears from the registry re-enters Elo Italia at the FIDE
minimum - 1 of the first list date that reads that snapshot, whether or not he plays and whether
or not an Elo Italia list ever showed him (an imported list carries no FIDE status)."""

from __future__ import annotations

from datetime import date
from typing import Any

import polars as pl

from tests.transforms.elo.period_frames import (
    ENTRY_SCHEMA,
    PREVIOUS_SCHEMA,
    QUARANTINED_SCHEMA,
    REGISTRY_SCHEMA,
)
from transforms.elo.lists import History, build_list, fide_losses, period_facts, split_history
from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import default_rulebook_path

RULEBOOK = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
LIST_DATE = date(2019, 7, 1)
ERA = RULEBOOK.era_at(LIST_DATE)  # FIDE minimum 1000 (re-entry 999), cap 400


def snapshot(as_of: date, rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "as_of": as_of,
                "player_id": row["player_id"],
                "name": row["player_id"],
                "sex": "M",
                "birth_date": date(1980, 1, 1),
                "fide_standard": row.get("fide_standard"),
                "fide_rapid": None,
                "category": row.get("category", "NC"),
                "k_override": None,
                "last_fide_tournament": None,
            }
            for row in rows
        ],
        schema={"as_of": pl.Date(), **REGISTRY_SCHEMA},
    )


def registry_history() -> pl.DataFrame:
    # X: FIDE 1500 on 2019-01-01, none from 2019-03-01 (before the period's start snapshot).
    # Y: FIDE 1450 until 2019-05-01, when it is gone (inside the period); Y plays nothing.
    # Z: FIDE 1600 throughout. W: never FIDE-rated. G: FIDE, gone on 2019-03-01, back on
    # 2019-05-01 (FIDE-rated at the close: not delisted). M: missing from the 2019-03-01
    # snapshot (a snapshot that does not list him says nothing).
    return pl.concat(
        [
            snapshot(
                date(2019, 1, 1),
                [
                    {"player_id": "X", "fide_standard": 1500, "category": "CM"},
                    {"player_id": "Y", "fide_standard": 1450, "category": "1N"},
                    {"player_id": "Z", "fide_standard": 1600},
                    {"player_id": "W"},
                    {"player_id": "G", "fide_standard": 1700},
                    {"player_id": "M", "fide_standard": 1650},
                    {"player_id": "O"},
                ],
            ),
            snapshot(
                date(2019, 3, 1),
                [
                    {"player_id": "X", "category": "CM"},
                    {"player_id": "Y", "fide_standard": 1450, "category": "1N"},
                    {"player_id": "Z", "fide_standard": 1600},
                    {"player_id": "W"},
                    {"player_id": "G"},
                    {"player_id": "O"},
                ],
            ),
            snapshot(
                date(2019, 5, 1),
                [
                    {"player_id": "X", "category": "CM"},
                    {"player_id": "Y", "category": "1N"},
                    {"player_id": "Z", "fide_standard": 1600},
                    {"player_id": "W"},
                    {"player_id": "G", "fide_standard": 1710},
                    {"player_id": "M", "fide_standard": 1650},
                    {"player_id": "O"},
                ],
            ),
        ]
    )


def test_the_losses_are_read_from_consecutive_snapshots_listing_the_player() -> None:
    losses = fide_losses(registry_history()).sort("player_id")
    assert losses.rows() == [
        ("G", date(2019, 3, 1)),
        ("X", date(2019, 3, 1)),
        ("Y", date(2019, 5, 1)),
    ]


def test_the_reentry_rating_is_the_minimum_of_the_list_date_that_reads_the_snapshot() -> None:
    # 1801 until 2009-06-30 (1800), 1200 from 2009-07-01 (1199), 1000 from 2012-07-01 (999),
    # 1400 from 2024-03-01 (1399): a snapshot of 2009-06-20 is first read by the list of
    # 2009-07-01, so 1199; one of 2024-02-15 by 2024-04-01, so 1399.
    assert RULEBOOK.fide_reentry_rating(date(2009, 3, 20)) == 1800
    assert RULEBOOK.fide_reentry_rating(date(2009, 6, 20)) == 1199
    assert RULEBOOK.fide_reentry_rating(date(2019, 3, 1)) == 999
    assert RULEBOOK.fide_reentry_rating(date(2024, 2, 15)) == 1399


def test_delisted_players_reenter_at_the_minimum_whether_or_not_they_play_or_were_listed() -> None:
    # The previous list was imported (no FIDE status): it shows only O (1500) and W (1600).
    # Period of 2019-07-01: ratings from the snapshot on or before 2019-04-01 (2019-03-01),
    # FIDE status at the close from 2019-05-01.
    # X (CM, delisted on 2019-03-01, on no list) plays O and wins. He plays at 999, not at the
    #   CM's 2000. K 30 (no games before). D = 999 - 1500 = -501, capped at 400 (band 392-411,
    #   PD 0.92): We 0.08, 30 x 0.92 = +27.60 -> +28 -> 1027.
    #   O (K 15, 100 games): 15 x (0 - 0.92) = -13.80 -> -14 -> 1486.
    # Y (FIDE 1450 at the start, none at the close, plays nothing) re-enters at 999.
    # Z keeps FIDE; G is FIDE-rated again at the close; M was missing from one snapshot: none
    # of them is on the Elo Italia list. W stays at 1600.
    previous = pl.DataFrame(
        [
            {
                "player_id": "O",
                "name": "O",
                "rating": 1500,
                "rating_type": "elo_italia",
                "total_games": 100,
                "category": "NC",
            },
            {
                "player_id": "W",
                "name": "W",
                "rating": 1600,
                "rating_type": "elo_italia",
                "total_games": 100,
                "category": "NC",
            },
        ],
        schema=PREVIOUS_SCHEMA,
    )
    entries = pl.DataFrame(
        [
            {
                "tournament_id": "T",
                "tournament_version": 1,
                "player_id": player_id,
                "name": player_id,
                "points": points,
                "start_date": date(2019, 5, 4),
                "end_date": date(2019, 5, 5),
                "received_on": date(2019, 5, 10),
            }
            for player_id, points in (("X", 1.0), ("O", 0.0))
        ],
        schema={**ENTRY_SCHEMA, "file_name": pl.Utf8()},
    )
    games = pl.DataFrame(
        {
            "tournament_id": ["T", "T"],
            "player_id": ["X", "O"],
            "opponent_id": ["O", "X"],
            "score": [1.0, 0.0],
            "received_on": [date(2019, 5, 10)] * 2,
        }
    )
    registry = registry_history()
    memberships = registry.select("as_of", "player_id", pl.lit(2019).alias("year"))
    history = split_history(
        History(entries, games, registry, memberships, pl.DataFrame(schema=QUARANTINED_SCHEMA)),
        ERA.calendar,
    )
    facts = period_facts(
        history,
        previous,
        history.played_before(LIST_DATE),
        LIST_DATE,
        date(2019, 4, 1),
        ERA,
        reentry_rating_at=RULEBOOK.fide_reentry_rating,
    )
    published = build_list(facts, ERA, LIST_DATE)
    rows = {row["player_id"]: row for row in published.rows.iter_rows(named=True)}
    assert {pid: (rows[pid]["rating"], rows[pid]["rating_type"]) for pid in rows} == {
        "O": (1486, "elo_italia"),
        "W": (1600, "elo_italia"),
        "X": (1027, "elo_italia"),
        "Y": (999, "elo_italia"),
    }
    assert "back from the FIDE list" in rows["X"]["note"]
    assert "2019-03-01" in rows["X"]["note"] and "at 999" in rows["X"]["note"]
    assert (
        rows["Y"]["note"] == "left the FIDE list (FIDE 1450 at the period start): re-enters at 999"
    )
    assert [row["note"].split(";")[0] for row in published.variations.iter_rows(named=True)] == [
        "K 15 (the era's K)",
        "K 30 (fewer than 30 counted games before the period)",
    ]
