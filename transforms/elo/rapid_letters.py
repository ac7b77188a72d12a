"""Elo Rapid letter categories (RULES.md §2): bands of the rating, reached letters go up only,
provisional (``Dx``) until the rating has qualified for the letter at enough list dates.

State carried from list to list, per player: ``letter``, ``letter_provisional`` and
``letter_held``, the number of list dates at which the letter was held since it was reached.
By default (``letters.held_counts = "rating_in_band"``) a list date counts when the rating is
in the letter's band (not necessarily consecutive: a rating that dips below the band keeps the
letter but does not add to the count); with ``"every_list"`` every list showing it counts.
"""

from __future__ import annotations

from typing import TypeVar

import polars as pl

from transforms.elo.rulebook import Letters
from transforms.lists.published import LETTER_COLUMNS

# the list builder passes its rows as one lazy query; the import flow, a frame
Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def letter_rank(letter: pl.Expr, letters: Letters) -> pl.Expr:
    """0 for the lowest band, rising; null for no letter (or one the rulebook does not know)."""
    lowest_first = [name for name, _ in reversed(letters.bands)]
    return letter.replace_strict(
        {name: rank for rank, name in enumerate(lowest_first)}, default=None, return_dtype=pl.Int32
    )


def band_rank(rating: pl.Expr, letters: Letters) -> pl.Expr:
    """Rank of the band that holds the rating (null for no rating)."""
    lowest_first = list(reversed(letters.bands))
    rank: pl.Expr = pl.lit(None, dtype=pl.Int32)
    for position, (_, lowest) in enumerate(lowest_first):
        rank = pl.when(rating >= lowest).then(pl.lit(position, dtype=pl.Int32)).otherwise(rank)
    return pl.when(rating.is_not_null()).then(rank).otherwise(None)


def letter_label(letter: pl.Expr, provisional: pl.Expr, letters: Letters) -> pl.Expr:
    """``D`` or, while provisional, ``Dx``."""
    return pl.when(provisional).then(letter + letters.provisional_mark).otherwise(letter)


def letters_at_list(rows: Frame, previous: pl.DataFrame, letters: Letters | None) -> Frame:
    """Add the letter state at this list to ``rows`` (player_id, rating).

    ``previous`` holds the state of the list before (player_id and ``LETTER_COLUMNS``; players
    missing from it have no letter yet). Before the era that starts letters, all are null.
    """
    if letters is None or not letters.enabled:
        return rows.with_columns(
            pl.lit(None, dtype=dtype).alias(name) for name, dtype in LETTER_COLUMNS.items()
        )
    lowest_first = [name for name, _ in reversed(letters.bands)]
    previous = previous.with_columns(
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in LETTER_COLUMNS.items()
        if name not in previous.columns
    )
    before = previous.select(
        "player_id",
        pl.col("letter").alias("_previous_letter"),
        pl.col("letter_held").alias("_previous_held"),
    )
    reached = band_rank(pl.col("rating"), letters)
    held_rank = letter_rank(pl.col("_previous_letter"), letters)
    rank = pl.max_horizontal(held_rank, reached)
    held = (
        pl.when(reached.is_null() & held_rank.is_null())
        .then(None)
        # a first letter, or a higher one (one band up or more): held at this list only
        .when(held_rank.is_null() | (reached > held_rank))
        .then(1)
        # the rating qualifies for the letter held (or, by the rulebook, any list showing it
        # counts): one more list date
        .when((reached == held_rank) | pl.lit(letters.held_counts == "every_list"))
        .then(pl.col("_previous_held").fill_null(0) + 1)
        # below the band: the letter stays (never lowered), the count does not grow
        .otherwise(pl.col("_previous_held").fill_null(0))
        .cast(pl.Int32)
    )
    return (
        rows.join(
            before.lazy() if isinstance(rows, pl.LazyFrame) else before, on="player_id", how="left"
        )  # type: ignore[arg-type]
        .with_columns(
            rank.replace_strict(
                dict(enumerate(lowest_first)), default=None, return_dtype=pl.Utf8
            ).alias("letter"),
            held.alias("letter_held"),
        )
        .with_columns(
            pl.when(pl.col("letter").is_not_null())
            .then(pl.col("letter_held") < letters.definitive_after)
            .alias("letter_provisional")
        )
        .drop("_previous_letter", "_previous_held")
    )


def parse_labels(label: pl.Expr, letters: Letters) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """From a published label (``D`` or ``Dx``) to (letter, provisional, held): a definitive
    letter counts as held the required number of times, a provisional one once."""
    mark = letters.provisional_mark
    provisional = label.str.ends_with(mark)
    letter = pl.when(provisional).then(label.str.strip_suffix(mark)).otherwise(label)
    held = pl.when(label.is_null()).then(None).when(provisional).then(1)
    held = held.otherwise(letters.definitive_after).cast(pl.Int32)
    return letter, pl.when(label.is_not_null()).then(provisional), held


def label_problems(rows: pl.DataFrame, letters: Letters) -> pl.DataFrame:
    """Rows (``line_no``, ``category``) of a published letter list whose category is not a
    letter of the bands, with or without the provisional mark: one error each."""
    known = [name for name, _ in letters.bands]
    labels = known + [name + letters.provisional_mark for name in known]
    return rows.filter(pl.col("category").is_not_null() & ~pl.col("category").is_in(labels)).select(
        pl.col("line_no").cast(pl.Int32),
        pl.lit("category").alias("field"),
        pl.col("category").alias("value"),
        pl.format(
            "'{}' is not a letter of this list ({}, provisional with '{}')",
            pl.col("category"),
            pl.lit(", ".join(known)),
            pl.lit(letters.provisional_mark),
        ).alias("reason"),
        pl.lit("error").alias("severity"),
    )


def normalise_labels(label: pl.Expr, letters: Letters) -> pl.Expr:
    """A label as typed in a file (``dx``, ``DX``) written as the list shows it (``Dx``)."""
    mark = letters.provisional_mark
    marked = (label.str.len_chars() > len(mark)) & label.str.to_lowercase().str.ends_with(
        mark.lower()
    )
    return (
        pl.when(marked)
        .then(label.str.head(-len(mark)).str.to_uppercase() + mark)
        .otherwise(label.str.to_uppercase())
    )
