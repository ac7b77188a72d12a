"""What a new revision of a list changes against the one it supersedes (or a scenario's base)."""

from __future__ import annotations

import polars as pl

DIFF_COLUMNS = [
    "player_id",
    "name",
    "old_rating",
    "new_rating",
    "difference",
    "old_category",
    "new_category",
    "old_position",
    "new_position",
]


def _side(rows: pl.DataFrame, rankings: pl.DataFrame, prefix: str) -> pl.DataFrame:
    overall = rankings.filter(pl.col("ranking") == "overall").select(
        "player_id", pl.col("position").alias(f"{prefix}_position")
    )
    return rows.select(
        "player_id",
        pl.col("name").alias(f"{prefix}_name"),
        pl.col("rating").alias(f"{prefix}_rating"),
        pl.col("category").alias(f"{prefix}_category"),
    ).join(overall, on="player_id", how="left")


def list_diff(
    old_rows: pl.DataFrame,
    old_rankings: pl.DataFrame,
    new_rows: pl.DataFrame,
    new_rankings: pl.DataFrame,
) -> pl.DataFrame:
    """One row per player whose rating, category or overall position differs (or who appears
    on only one side), largest absolute rating difference first."""
    joined = _side(old_rows, old_rankings, "old").join(
        _side(new_rows, new_rankings, "new"), on="player_id", how="full", coalesce=True
    )
    changed = (
        pl.col("old_rating").ne_missing(pl.col("new_rating"))
        | pl.col("old_category").ne_missing(pl.col("new_category"))
        | pl.col("old_position").ne_missing(pl.col("new_position"))
    )
    return (
        joined.filter(changed)
        .with_columns(
            pl.coalesce("new_name", "old_name").alias("name"),
            (pl.col("new_rating") - pl.col("old_rating")).alias("difference"),
        )
        .sort(
            [pl.col("difference").abs().fill_null(10**6), "player_id"],
            descending=[True, False],
        )
        .select(DIFF_COLUMNS)
    )
