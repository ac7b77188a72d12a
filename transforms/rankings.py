"""National rankings of a list: overall, women, youth; only active members in good standing."""

from __future__ import annotations

import polars as pl

RANKING_COLUMNS = ["ranking", "position", "player_id", "rating"]


def rankings(listed: pl.DataFrame) -> pl.DataFrame:
    """Rank ``listed`` (player_id, rating, in_ranking, is_woman, is_youth) three ways.

    Equal ratings share a position (1, 2, 2, 4); ties are listed by player id.
    """
    eligible = listed.filter(pl.col("in_ranking") & pl.col("rating").is_not_null())
    selections = {
        "overall": pl.lit(True),
        "women": pl.col("is_woman").fill_null(False),
        "youth": pl.col("is_youth").fill_null(False),
    }
    parts = [
        eligible.filter(selection)
        .with_columns(
            pl.lit(name).alias("ranking"),
            pl.col("rating").rank(method="min", descending=True).cast(pl.Int32).alias("position"),
        )
        .sort("position", "player_id")
        .select(RANKING_COLUMNS)
        for name, selection in selections.items()
    ]
    return pl.concat(parts)
