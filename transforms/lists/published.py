"""The shape of a published list, whatever the system: its rows' columns (``rating_list``), what
one list date publishes, the rows of a list imported as the federation published it, and the
input of its rankings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import polars as pl

from transforms.lists.flags import YouthRule, in_activity_window, is_youth

LETTER_COLUMNS: dict[str, pl.DataType] = {
    "letter": pl.Utf8(),
    "letter_provisional": pl.Boolean(),
    "letter_held": pl.Int32(),
}


LIST_COLUMNS = [
    "player_id",
    "name",
    "sex",
    "birth_date",
    "rating",
    "rating_type",
    "previous_rating",
    "frozen_rating",
    "rating_basis",
    "games",
    "total_games",
    "k",
    "period_change",
    "category",
    "previous_category",
    "last_played",
    "is_active",
    "is_member",
    "in_ranking",
    "note",
    *LETTER_COLUMNS,
]


def ranking_input(listed: pl.DataFrame, era: YouthRule, list_date: date) -> pl.DataFrame:
    return listed.select(
        "player_id",
        "rating",
        "in_ranking",
        (pl.col("sex") == "F").alias("is_woman"),
        is_youth(pl.col("birth_date"), list_date, era).alias("is_youth"),
    )


@dataclass(frozen=True)
class PublishedList:
    """Everything one list date publishes."""

    rows: pl.DataFrame  # LIST_COLUMNS
    variations: pl.DataFrame  # engine columns + note, raw_variation, applied_variation
    rankings: pl.DataFrame  # RANKING_COLUMNS
    # tournaments of the period that the list does not rate: tournament_id, reason
    excluded: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema={"tournament_id": pl.Utf8, "reason": pl.Utf8})
    )


def imported_list_columns(rating_type: str, list_date: date, activity_months: int) -> list[pl.Expr]:
    """The columns of an imported list's row that any system's import gives the same way: the
    published rating is the list's, nothing was played in a period, activity comes from
    ``last_played`` in the window before ``list_date``, membership from the registry
    (``is_member``)."""
    return [
        pl.col("rating").cast(pl.Int32),
        pl.lit(rating_type).alias("rating_type"),
        pl.lit(None, dtype=pl.Int32).alias("previous_rating"),
        pl.col("rating").cast(pl.Int32).alias("frozen_rating"),
        pl.lit("imported").alias("rating_basis"),
        pl.lit(0, dtype=pl.Int32).alias("games"),
        pl.col("games").cast(pl.Int32).alias("total_games"),
        pl.lit(0, dtype=pl.Int32).alias("period_change"),
        pl.lit(None, dtype=pl.Utf8).alias("previous_category"),
        pl.col("last_played").cast(pl.Date),
        in_activity_window(pl.col("last_played"), list_date, activity_months)
        .fill_null(False)
        .alias("is_active"),
        pl.col("is_member").fill_null(False),
        pl.lit("imported from the published list").alias("note"),
    ]
