"""Flags of a list at its date (RULES.md §1.5): active, member in good standing, in ranking,
and the national category (granted from the rating, never taken away)."""

from __future__ import annotations

from datetime import date

import polars as pl

from transforms.rulebook import EloEra


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


def activity(
    participations: pl.DataFrame,
    foreign_fide: pl.DataFrame,
    list_date: date,
    era: EloEra,
) -> pl.DataFrame:
    """Who played a valid individual tournament in the window before the list date.

    ``participations``: (player_id, played_on) of rated tournaments known at the list;
    ``foreign_fide``: (player_id, played_on) of FIDE tournaments abroad, from the registry,
    counted only in eras that say so. Returns player_id, last_played, is_active.
    """
    window_start = months_before(list_date, era.activity_months)
    sources = [participations.select("player_id", "played_on")]
    if era.foreign_fide_tournaments:
        sources.append(foreign_fide.select("player_id", "played_on"))
    # one query on the default (streaming) engine: at tens of thousands of players it groups
    # about a third faster than the in-memory one; the rows come in no particular order
    return (
        pl.concat([source.lazy() for source in sources])
        .filter(pl.col("played_on") <= list_date)
        .group_by("player_id")
        .agg(pl.col("played_on").max().alias("last_played"))
        .with_columns((pl.col("last_played") > window_start).alias("is_active"))
        .collect()
    )


def category_rank(category: pl.Expr, era: EloEra) -> pl.Expr:
    """Position of a category in the ladder (NC lowest); null for an unknown category."""
    return category.replace_strict(
        {name: index for index, name in enumerate(era.category_order)},
        default=None,
        return_dtype=pl.Int32,
    )


def category_from_rating(rating: pl.Expr, era: EloEra) -> pl.Expr:
    """The highest category whose threshold the rating reaches (null below every threshold)."""
    reached: pl.Expr = pl.lit(None, dtype=pl.Utf8)
    for name, threshold in sorted(era.category_thresholds.items(), key=lambda item: item[1]):
        reached = pl.when(rating >= threshold).then(pl.lit(name)).otherwise(reached)
    return reached


def highest_category(columns: list[str], era: EloEra) -> pl.Expr:
    """The highest of several category columns (categories are never lowered)."""
    ranks = [category_rank(pl.col(column), era) for column in columns]
    best = pl.max_horizontal(ranks)
    return best.replace_strict(
        dict(enumerate(era.category_order)), default=None, return_dtype=pl.Utf8
    )


def is_youth(birth_date: pl.Expr, list_date: date, era: EloEra) -> pl.Expr:
    """Under ``youth_age`` on 1 January of the list's year."""
    return birth_date > date(list_date.year - era.youth_age, 1, 1)
