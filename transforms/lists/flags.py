"""Flags of a list at its date (RULES.md §1.5): active, member in good standing, in ranking,
and the national category (granted from the rating, never taken away)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol

import polars as pl

# What the flags read of an era: any system's era that has these (Elo, Elo-Rubele) will do.


class ActivityRules(Protocol):
    @property
    def activity_months(self) -> int: ...
    @property
    def foreign_fide_tournaments(self) -> bool: ...


class CategoryLadder(Protocol):
    @property
    def category_order(self) -> tuple[str, ...]: ...
    @property
    def category_thresholds(self) -> dict[str, int]: ...


class YouthRule(Protocol):
    @property
    def youth_age(self) -> int: ...
    @property
    def youth_age_on(self) -> str: ...


def months_before(day: date, months: int) -> date:
    """The same day ``months`` earlier (the last day of the month when it does not exist)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    for last_day in (day.day, 30, 29, 28):
        try:
            return date(year, month + 1, last_day)
        except ValueError:
            continue
    raise ValueError(day)


def in_activity_window(last_played: pl.Expr, list_date: date, months: int) -> pl.Expr:
    """Whether a player's last tournament falls in the ``months`` whole months before the list
    date: for the list of 1 April 2019 and 24 months, 1 April 2017 to 31 March 2019 (RULES.md
    §1.5, "nell'arco degli ultimi 24 mesi"). Null stays null."""
    return last_played >= months_before(list_date, months)


def activity(
    participations: pl.DataFrame,
    foreign_fide: pl.DataFrame,
    list_date: date,
    era: ActivityRules,
) -> pl.DataFrame:
    """Who played a valid individual tournament in the window before the list date.

    ``participations``: (player_id, played_on) of rated tournaments known at the list;
    ``foreign_fide``: (player_id, played_on) of FIDE tournaments abroad, from the registry,
    counted only in eras that say so. Returns player_id, last_played, is_active.
    """
    return played_through_and_activity([], participations, foreign_fide, list_date, era)[1]


def played_through_and_activity(
    rated: Sequence[pl.DataFrame | pl.LazyFrame],
    participations: pl.DataFrame,
    foreign_fide: pl.DataFrame,
    list_date: date,
    era: ActivityRules,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each player's latest rated tournament, and the list's :func:`activity`, in one grouping.

    ``rated``: (player_id, played_on) of the tournaments rated up to this list, as many rows
    per player as they come; their latest date per player is the first frame returned
    (player_id, played_on) and counts, like ``participations``, for the activity when it falls
    on or before the list date. A replay groups its tens of thousands of players once a list
    instead of twice.
    """
    sources = [
        *(
            frame.lazy().select("player_id", "played_on", pl.lit(True).alias("rated"))
            for frame in rated
        ),
        participations.lazy().select("player_id", "played_on", pl.lit(False).alias("rated")),
    ]
    if era.foreign_fide_tournaments:
        sources.append(
            foreign_fide.lazy().select("player_id", "played_on", pl.lit(False).alias("rated"))
        )
    rated_latest = pl.col("played_on").filter("rated").max()
    # one query on the default (streaming) engine: at tens of thousands of players it groups
    # about a third faster than the in-memory one; the rows come in no particular order
    grouped = (
        pl.concat(sources, how="vertical_relaxed")
        .group_by("player_id")
        .agg(
            rated_latest.alias("rated_latest"),
            pl.col("played_on")
            .filter(~pl.col("rated") & (pl.col("played_on") <= list_date))
            .max()
            .alias("other_latest"),
        )
        .collect()
    )
    played_through = grouped.filter(pl.col("rated_latest").is_not_null()).select(
        "player_id", pl.col("rated_latest").alias("played_on")
    )
    # a player's latest rated date counts only when it is on or before the list date (as a
    # participation of its own; no earlier rated date stands in for it)
    last_played = pl.max_horizontal(
        pl.when(pl.col("rated_latest") <= list_date).then(pl.col("rated_latest")),
        pl.col("other_latest"),
    )
    flags = (
        grouped.lazy()
        .select("player_id", last_played.alias("last_played"))
        .filter(pl.col("last_played").is_not_null())
        .with_columns(
            in_activity_window(pl.col("last_played"), list_date, era.activity_months).alias(
                "is_active"
            )
        )
        .collect(engine="in-memory")
    )
    return played_through, flags


def category_rank(category: pl.Expr, era: CategoryLadder) -> pl.Expr:
    """Position of a category in the ladder (NC lowest); null for an unknown category.

    The ladder as an Enum: a category's physical value is its position (a third cheaper than
    a lookup table on a list's tens of thousands of rows, and a list reads four of them)."""
    return (
        category.cast(pl.Enum(list(era.category_order)), strict=False).to_physical().cast(pl.Int32)
    )


def category_from_rating(rating: pl.Expr, era: CategoryLadder) -> pl.Expr:
    """The highest category whose threshold the rating reaches (null below every threshold)."""
    reached: pl.Expr = pl.lit(None, dtype=pl.Utf8)
    for name, threshold in sorted(era.category_thresholds.items(), key=lambda item: item[1]):
        reached = pl.when(rating >= threshold).then(pl.lit(name)).otherwise(reached)
    return reached


def highest_category(columns: list[str], era: CategoryLadder) -> pl.Expr:
    """The highest of several category columns (categories are never lowered)."""
    ranks = [category_rank(pl.col(column), era) for column in columns]
    best = pl.max_horizontal(ranks)
    return best.replace_strict(
        dict(enumerate(era.category_order)), default=None, return_dtype=pl.Utf8
    )


def is_youth(birth_date: pl.Expr, list_date: date, era: YouthRule) -> pl.Expr:
    """Under ``youth_age`` on the era's day (``youth_age_on``): 1 January of the list's year,
    or the list date itself. Born on that day ``youth_age`` years before is that age already."""
    day = date(list_date.year, 1, 1) if era.youth_age_on == "year_start" else list_date
    return birth_date > months_before(day, 12 * era.youth_age)
