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

from schemas.problems import PROBLEM_SCHEMA, empty_problems, problem, problem_rows, problems_frame
from transforms.inputs.tabular import FieldSpec, type_columns
from transforms.lists.notes import first_named

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
# a published list whose header lacks one of these is refused whole (one problem naming its
# header, typically ';'-separated), not rejected once per row and column
LIST_REQUIRED = [spec.name for spec in LIST_FIELDS if spec.required]


def type_registry_players(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, PLAYER_FIELDS)
    typed = typed.select("line_no", *[spec.name for spec in PLAYER_FIELDS]).with_columns(
        pl.col("sex").str.to_uppercase(),
        pl.col("country").str.to_uppercase(),
        pl.col("category").str.to_uppercase(),
    )
    return typed, problems


def set_aside_shared_fide_ids(players: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Clear a FIDE id that the file gives to two players, on every row that has it, with a
    warning on each row naming the others.

    Which row is right cannot be known, so neither player is dropped (a rejected row would
    vanish from the snapshot, and a valid member with it); a cleared id keeps a tournament
    entry with that FIDE id from being matched to the wrong person (matching then goes on by
    name and birth date, or leaves the entry to the analyst). The rest of each row is kept.
    """
    holders = (
        players.filter(pl.col("fide_id").is_not_null())
        .group_by("fide_id")
        .agg(pl.col("player_id").n_unique().alias("holders"))
        .filter(pl.col("holders") > 1)
        .select("fide_id")
    )
    shared = players.join(holders, on="fide_id", how="semi").select(
        "line_no", "player_id", "fide_id"
    )
    others = (
        shared.join(shared, on="fide_id", suffix="_other")
        .filter(pl.col("line_no") != pl.col("line_no_other"))
        .sort("line_no", "line_no_other")
        .group_by("line_no", "fide_id", maintain_order=True)
        .agg(
            pl.format("player {} on line {}", "player_id_other", "line_no_other")
            .str.join(", ")
            .alias("others")
        )
    )
    warnings = problem_rows(
        others,
        "fide_id",
        pl.col("fide_id"),
        pl.format(
            "fide_id {} is also given to {}; set aside on both lines: no tournament entry is "
            "matched to either by this FIDE id",
            "fide_id",
            "others",
        ),
        severity="warning",
    )
    cleared = players.with_columns(
        pl.when(pl.col("line_no").is_in(shared.get_column("line_no").implode()))
        .then(None)
        .otherwise(pl.col("fide_id"))
        .alias("fide_id")
    )
    return cleared, warnings


def prepare_registry_players(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """players.csv typed, with a FIDE id shared by two players set aside (warnings)."""
    typed, problems = type_registry_players(raw)
    typed, warnings = set_aside_shared_fide_ids(typed)
    return typed, pl.concat([problems, warnings])


def type_memberships(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, MEMBERSHIP_FIELDS)
    return typed.select("line_no", *[spec.name for spec in MEMBERSHIP_FIELDS]), problems


def prepare_memberships(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """memberships.csv typed, a year written twice for a player kept once (a warning on the
    repeat): both rows say the same, and rejecting them both would lose that year."""
    typed, problems = type_memberships(raw)
    key = ["player_id", "year"]
    known = pl.col("player_id").is_not_null() & pl.col("year").is_not_null()
    marked = typed.with_columns(pl.col("line_no").min().over(key).alias("first_line"))
    repeat = known & (pl.col("line_no") != pl.col("first_line"))
    warnings = problem_rows(
        marked.filter(repeat),
        "year",
        pl.col("year"),
        pl.format(
            "player_id {} is a member for {} on line {} already; counted once",
            "player_id",
            "year",
            "first_line",
        ),
        severity="warning",
    )
    return marked.filter(~repeat).drop("first_line"), pl.concat([problems, warnings])


def type_published_list(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, LIST_FIELDS)
    typed = typed.select("line_no", *[spec.name for spec in LIST_FIELDS]).with_columns(
        pl.col("category").str.to_uppercase()
    )
    return typed, problems


def membership_orphans(
    memberships: pl.DataFrame,
    accepted: pl.DataFrame,
    listed: pl.DataFrame,
    players_file: str,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Memberships of a player who is not among the snapshot's players: (the others, one
    problem each).

    ``accepted`` holds the players kept (player_id), ``listed`` every data row of the players
    file as written (line_no, player_id text). A player whose row was rejected is in the file:
    the reason says so, and where, rather than that he is missing.
    """
    orphans = memberships.join(accepted.select("player_id"), on="player_id", how="anti")
    rejected = (
        listed.with_columns(pl.col("player_id").str.strip_chars())
        .filter(pl.col("player_id").is_not_null() & (pl.col("player_id") != ""))
        .join(accepted.select("player_id"), on="player_id", how="anti")
        .sort("line_no")
        .group_by("player_id")
        .agg(
            pl.len().alias("rows"),
            pl.col("line_no").cast(pl.Utf8).str.join(", ").alias("lines"),
        )
    )
    problems = (
        orphans.join(rejected, on="player_id", how="left", maintain_order="left")
        .select(
            pl.col("line_no").cast(pl.Int32),
            pl.lit("player_id").alias("field"),
            pl.col("player_id").alias("value"),
            pl.when(pl.col("lines").is_null())
            .then(pl.format("player_id {} is not in {}", "player_id", pl.lit(players_file)))
            .otherwise(
                pl.format(
                    "player_id {}'s row in {} was rejected ({} {})",
                    "player_id",
                    pl.lit(players_file),
                    pl.when(pl.col("rows") > 1).then(pl.lit("lines")).otherwise(pl.lit("line")),
                    "lines",
                )
            )
            .alias("reason"),
            pl.lit("error").alias("severity"),
        )
        .cast(PROBLEM_SCHEMA)  # type: ignore[arg-type]
    )
    return memberships.join(orphans.select("line_no"), on="line_no", how="anti"), problems


def repeated_rows_read_once(typed: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A player's row written twice, the same in every column, is read once (a warning on the
    repeat): rejecting both copies as a repeated player_id would drop a valid member."""
    # the row's values as every column but line_no, not by their names: pl.col reads a column
    # a file names "*" as every column, one named "^...$" as a pattern (a bad one raises)
    row = pl.struct(pl.all().exclude("line_no"))
    marked = typed.with_columns(pl.col("line_no").min().over(row).alias("first_line"))
    repeat = pl.col("player_id").is_not_null() & (pl.col("line_no") != pl.col("first_line"))
    warnings = problem_rows(
        marked.filter(repeat),
        "player_id",
        pl.col("player_id"),
        pl.format("this row repeats line {} exactly; read once", "first_line"),
        severity="warning",
    )
    return marked.filter(~repeat).drop("first_line"), warnings


# the earliest birth date a registry row may give (a member born before it is a typing slip:
# 0001-01-01 from an empty date cell, 1090 for 1990)
EARLIEST_BIRTH = date(1900, 1, 1)


def implausible_births(players: pl.DataFrame, as_of: date) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The players of a snapshot as of ``as_of`` without those born before ``EARLIEST_BIRTH``
    or after ``as_of``, and one error each: a date of birth in the future would make a player
    a youth, one in year 1 an old man, and neither is a fact to publish."""
    implausible = (pl.col("birth_date") < EARLIEST_BIRTH) | (pl.col("birth_date") > as_of)
    problems = problem_rows(
        players.filter(implausible),
        "birth_date",
        pl.col("birth_date"),
        pl.format(
            "birth_date {} is not a plausible date of birth (from {} to the snapshot's date {})",
            pl.col("birth_date").cast(pl.Utf8),
            pl.lit(str(EARLIEST_BIRTH)),
            pl.lit(str(as_of)),
        ),
    )
    return players.filter(~implausible.fill_null(False)), problems


def rejected_rows(accepted: pl.DataFrame, listed: pl.DataFrame) -> pl.DataFrame:
    """The players of the file (``listed``: line_no, player_id as written) none of whose rows
    was accepted: player_id and the first line of his."""
    return (
        listed.with_columns(pl.col("player_id").str.strip_chars())
        .filter(pl.col("player_id").is_not_null() & (pl.col("player_id") != ""))
        .join(accepted.select("player_id"), on="player_id", how="anti")
        .group_by("player_id")
        .agg(pl.col("line_no").min())
        .sort("line_no")
    )


def rows_kept_from_before(
    accepted: pl.DataFrame,
    rejected: pl.DataFrame,
    in_force: pl.DataFrame,
    players_file: str,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The earlier rows of players whose row in a new snapshot was rejected: (those rows, in
    ``accepted``'s columns, and one warning each).

    A rejected row (an unreadable birth date, a category the federation does not use) would
    otherwise take the player out of the registry from the snapshot's date: no name, category
    or membership on the lists, a newcomer's entry rating for a rated player, and his
    opponents' numbers moved. The snapshot in force before (``in_force``, with ``as_of``)
    still describes him, so its row stands until the file is corrected; a player it does not
    hold stays out, as the rejection says. ``rejected`` is :func:`rejected_rows` of the file."""
    kept = in_force.join(rejected, on="player_id", how="inner")
    warnings = problem_rows(
        kept.sort("line_no"),
        "player_id",
        pl.col("player_id"),
        pl.format(
            "player_id {}'s row in {} was rejected: his row of the snapshot of {} is kept "
            "until the file is corrected",
            "player_id",
            pl.lit(players_file),
            pl.col("as_of").cast(pl.Utf8),
        ),
        severity="warning",
    )
    rows = kept.select(
        pl.lit(None, dtype=accepted.schema["line_no"]).alias("line_no"),
        *[pl.col(name).cast(dtype) for name, dtype in accepted.schema.items() if name != "line_no"],
    )
    return rows, warnings


# players named in the warning of those a new snapshot leaves out, at most
MISSING_NAMED = 10


def identity_changes(
    accepted: pl.DataFrame, in_force: pl.DataFrame, rejected: pl.DataFrame
) -> pl.DataFrame:
    """Warnings for what a new snapshot changes of the players the one in force before it
    (``in_force``, with ``as_of``) held: a birth date or sex changed (they move a player in or
    out of the youth and women's rankings), a name changed, and the players it leaves out
    (from its date they hold no category and no membership), one warning for all of them.
    ``rejected`` are the file's rejected rows: their players are not left out, their earlier
    row is kept (:func:`rows_kept_from_before`)."""
    if in_force.height == 0:
        return empty_problems()
    before = in_force.select(
        "player_id",
        "as_of",
        pl.col("name").alias("_name_before"),
        pl.col("sex").alias("_sex_before"),
        pl.col("birth_date").alias("_birth_before"),
    )
    both = accepted.join(before, on="player_id").sort("line_no")
    changes = [
        problem_rows(
            both.filter(pl.col(column).ne_missing(pl.col(earlier))),
            column,
            pl.col(column),
            pl.format(
                "player_id {}: {} was {} in the snapshot of {}{}",
                "player_id",
                pl.lit(what),
                pl.col(earlier).cast(pl.Utf8).fill_null("empty"),
                pl.col("as_of").cast(pl.Utf8),
                pl.lit(why),
            ),
            severity="warning",
        )
        for column, earlier, what, why in (
            (
                "birth_date",
                "_birth_before",
                "the birth date",
                ": the youth rankings read the new one",
            ),
            ("sex", "_sex_before", "the sex", ": the women's ranking reads the new one"),
            ("name", "_name_before", "the name", ""),
        )
    ]
    left_out = (
        in_force.join(accepted, on="player_id", how="anti")
        .join(rejected, on="player_id", how="anti")
        .sort("player_id")
    )
    if left_out.height:
        named = first_named(left_out.get_column("player_id").to_list(), MISSING_NAMED)
        changes.append(
            problems_frame(
                [
                    problem(
                        f"players of the snapshot of {in_force['as_of'][0]} not in this file: "
                        f"{left_out.height} ({named}); from its date they hold no category "
                        "and no membership",
                        field="player_id",
                        severity="warning",
                    )
                ]
            )
        )
    return pl.concat(changes)


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
