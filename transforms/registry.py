"""The member registry (anagrafica) as dated snapshots.

FIDE ratings, categories and memberships change, so every load says its as-of date and every
computation reads the registry as it stood at the date it needs: the latest snapshot on or
before that date (RULES.md §1.2). A recalculation of 2010 never sees a FIDE rating of 2020.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import date

import polars as pl

from transforms.tabular import FieldSpec, type_columns

PLAYER_FIELDS = [
    FieldSpec("player_id", "text", required=True),
    FieldSpec("name", "text", required=True),
    FieldSpec("sex", "text", required=True),
    FieldSpec("birth_date", "date"),
    FieldSpec("country", "text", required=True),
    FieldSpec("fide_id", "int"),
    FieldSpec("fide_standard", "int"),
    FieldSpec("fide_rapid", "int"),
    FieldSpec("category", "text", required=True),
    FieldSpec("k_override", "int"),
    FieldSpec("last_fide_tournament", "date"),
]

MEMBERSHIP_FIELDS = [
    FieldSpec("player_id", "text", required=True),
    FieldSpec("year", "int", required=True),
]

LIST_FIELDS = [
    FieldSpec("player_id", "text", required=True),
    FieldSpec("rating", "int", required=True),
    FieldSpec("games", "int", required=True),
    FieldSpec("k", "int"),
    FieldSpec("category", "text"),
    FieldSpec("last_played", "date"),  # last rated tournament: carries activity into the list
]


def type_registry_players(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, PLAYER_FIELDS)
    typed = typed.select("line_no", *[spec.name for spec in PLAYER_FIELDS]).with_columns(
        pl.col("sex").str.to_uppercase(),
        pl.col("country").str.to_uppercase(),
        pl.col("category").str.to_uppercase(),
    )
    return typed, problems


def type_memberships(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, MEMBERSHIP_FIELDS)
    return typed.select("line_no", *[spec.name for spec in MEMBERSHIP_FIELDS]), problems


def type_published_list(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, LIST_FIELDS)
    typed = typed.select("line_no", *[spec.name for spec in LIST_FIELDS]).with_columns(
        pl.col("category").str.to_uppercase()
    )
    return typed, problems


def snapshot_at(snapshots: pl.DataFrame, on: date) -> pl.DataFrame:
    """Rows of the latest snapshot (column ``as_of``) on or before ``on``; empty if none."""
    eligible = snapshots.filter(pl.col("as_of") <= on)
    if eligible.height == 0:
        return eligible
    latest = eligible.get_column("as_of").max()
    return eligible.filter(pl.col("as_of") == latest)


@dataclass(frozen=True)
class DatedSnapshots:
    """Registry snapshots cut once by as-of date, so reading one at a date is a lookup."""

    dates: tuple[date, ...]
    frames: dict[date, pl.DataFrame]
    empty: pl.DataFrame

    @classmethod
    def of(cls, snapshots: pl.DataFrame) -> DatedSnapshots:
        frames = {
            key[0]: part for key, part in snapshots.partition_by("as_of", as_dict=True).items()
        }
        return cls(tuple(sorted(frames)), frames, snapshots.clear())

    def at(self, on: date) -> pl.DataFrame:
        """The latest snapshot on or before ``on`` (as :func:`snapshot_at`); empty if none."""
        index = bisect_right(self.dates, on) - 1
        return self.frames[self.dates[index]] if index >= 0 else self.empty


def latest_identity(snapshots: pl.DataFrame) -> pl.DataFrame:
    """Each player's most recent registry row: identity (ids, name, birth) for matching."""
    return (
        snapshots.sort("as_of").group_by("player_id", maintain_order=True).last().sort("player_id")
    )
