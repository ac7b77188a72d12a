"""What the Lists and What-if pages do to the rows they read: pure Polars, no Streamlit."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

ALL_PLAYERS = "all players"
# the national rankings each list carries (list_ranking, view ranking)
RANKINGS = ("overall", "women", "youth")
ANY, YES, NO = "any", "yes", "no"


@dataclass(frozen=True)
class ListFilter:
    ranking: str = ALL_PLAYERS  # ALL_PLAYERS or one of RANKINGS
    categories: tuple[str, ...] = ()  # none chosen: every category
    active: str = ANY  # ANY, YES or NO
    member: str = ANY
    search: str = ""  # part of a name, or of an id


def _flag(column: str, wanted: str) -> pl.Expr:
    if wanted == YES:
        return pl.col(column)
    if wanted == NO:
        return ~pl.col(column)
    return pl.lit(True)


def search_expr(text: str, name: str = "name", ident: str = "player_id") -> pl.Expr:
    """Rows whose name holds ``text`` (any case, every word of it in any order), or whose id
    is ``text`` exactly or starts with it."""
    text = text.strip()
    if not text:
        return pl.lit(True)
    words = text.lower().replace(",", " ").split()
    by_name = pl.all_horizontal(
        [pl.col(name).str.to_lowercase().str.contains(word, literal=True) for word in words]
    )
    by_id = pl.col(ident).cast(pl.Utf8).str.starts_with(text)
    return by_name.fill_null(False) | by_id.fill_null(False)


def filter_entries(entries: pl.DataFrame, chosen: ListFilter) -> pl.DataFrame:
    """The rows of a list the filters keep: a national ranking keeps its players in its
    order, with their position in it as ``position``."""
    rows = entries
    if chosen.ranking in RANKINGS:
        column = f"{chosen.ranking}_position"
        rows = rows.filter(pl.col(column).is_not_null()).sort(column, "name", "player_id")
        rows = rows.with_columns(pl.col(column).alias("position"))
    else:
        rows = rows.with_columns(pl.col("overall_position").alias("position"))
    if chosen.categories:
        rows = rows.filter(pl.col("category").is_in(list(chosen.categories)))
    rows = rows.filter(_flag("is_active", chosen.active), _flag("is_member", chosen.member))
    return rows.filter(search_expr(chosen.search))


def movers(entries: pl.DataFrame, count: int = 10) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``count`` largest gains and the ``count`` largest losses since the previous list
    (players on both)."""
    changed = entries.filter(pl.col("change").is_not_null() & (pl.col("change") != 0))
    columns = ["player_id", "name", "previous_rating", "rating", "change", "games", "category"]
    gains = changed.filter(pl.col("change") > 0).sort(["change", "name"], descending=[True, False])
    losses = changed.filter(pl.col("change") < 0).sort(["change", "name"])
    return gains.head(count).select(columns), losses.head(count).select(columns)


def newcomers(entries: pl.DataFrame) -> pl.DataFrame:
    """Players new to the list: no rating on the list before (the engines leave the previous
    rating empty for them only), with what they entered on."""
    return (
        entries.filter(pl.col("previous_rating").is_null())
        .select("player_id", "name", "rating", "rating_basis", "games", "category", "note")
        .sort(["rating", "name"], descending=[True, False], nulls_last=True)
    )


def promotions(entries: pl.DataFrame) -> pl.DataFrame:
    """Players whose category (Elo Rapid: letter label) changed at this list. No system lowers
    a category, so every change is a promotion (or a letter becoming definitive)."""
    return (
        entries.filter(
            pl.col("previous_category").is_not_null()
            & pl.col("category").is_not_null()
            & (pl.col("category") != pl.col("previous_category"))
        )
        .select("player_id", "name", "previous_category", "category", "previous_rating", "rating")
        .sort(["category", "rating"], descending=[False, True])
    )


# a game of a list_games.sql row: its tournament version, round and lower start number
GAME = ("tournament_id", "tournament_version", "round", "game")


def games_counted(counted: pl.DataFrame, players: pl.DataFrame) -> int:
    """The games counted for at least one of ``players``, each once. ``counted`` has a row per
    game and player it counted for (list_games.sql): a game between two of ``players`` is one
    game, not two, and a FIDE-rated player's game, counted only for his opponent, is a game
    of the opponent's."""
    return (
        counted.join(players.select("player_id"), on="player_id", how="semi")
        .select(GAME)
        .unique()
        .height
    )
