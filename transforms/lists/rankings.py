"""National rankings of a list: overall, women, youth; only active members in good standing."""

from __future__ import annotations

import polars as pl

RANKING_COLUMNS = ["ranking", "position", "player_id", "rating"]


def rankings(listed: pl.DataFrame) -> pl.DataFrame:
    """Rank ``listed`` (player_id, rating, in_ranking, is_woman, is_youth) three ways.

    Equal ratings share a position (1, 2, 2, 4); ties are listed by player id.
    """
    eligible = listed.lazy().filter(pl.col("in_ranking") & pl.col("rating").is_not_null())
    if not listed.get_column("player_id").is_sorted():
        eligible = eligible.sort("player_id")
    selections = {
        "overall": pl.lit(True),
        "women": pl.col("is_woman").fill_null(False),
        "youth": pl.col("is_youth").fill_null(False),
    }
    # one query for the three (Polars runs them together); rows come in player_id order, so a
    # stable sort by position lists ties by player id without comparing ids
    parts = [
        eligible.filter(selection)
        .select(
            pl.lit(name).alias("ranking"),
            pl.col("rating").rank(method="min", descending=True).cast(pl.Int32).alias("position"),
            "player_id",
            "rating",
        )
        .sort("position", maintain_order=True)
        for name, selection in selections.items()
    ]
    # the in-memory engine: a list's rankings are tens of thousands of rows (see PERIOD_ENGINE)
    return pl.concat(parts).collect(engine="in-memory")
