"""Pandera models of the draughts (FID) inputs after typing: the FID registry, the tournaments
of a delivery (``tournaments.csv``) and the games files. Documented in docs/INPUTS.md."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas.validation import row_check
from schemas.vocabulary import VALIDITY_RANGE

DRAUGHTS_VARIANTS = ["italiana", "internazionale"]
DRAUGHTS_CATEGORIES = ["M", "CM", "N", "1C", "2C", "3C", "NC"]
GAME_STATUSES = ["played", "forfeit", "bye", "withdrawn"]
POINT_SCALES = ["fid", "one"]  # FID 2 / 1 / 0, or 1 / ½ / 0
CAPITAL_RANGE = {"min_value": 1, "max_value": 20_000}


class FidPlayer(pa.DataFrameModel):
    """A person of the FID registry as of the snapshot date, with a category per variant."""

    line_no: pl.Int32
    player_id: pl.Utf8 = pa.Field(nullable=False, unique=True, str_matches=r"^[\w\-]+$")
    name: pl.Utf8 = pa.Field(nullable=False, str_length={"min_value": 2, "max_value": 80})
    sex: pl.Utf8 = pa.Field(nullable=False, isin=["M", "F"])
    birth_date: pl.Date = pa.Field(nullable=True)
    country: pl.Utf8 = pa.Field(nullable=False, str_matches=r"^[A-Z]{3}$")
    category_italiana: pl.Utf8 = pa.Field(nullable=True, isin=DRAUGHTS_CATEGORIES)
    category_internazionale: pl.Utf8 = pa.Field(nullable=True, isin=DRAUGHTS_CATEGORIES)
    capital_italiana: pl.Int64 = pa.Field(nullable=True, in_range=CAPITAL_RANGE)
    capital_internazionale: pl.Int64 = pa.Field(nullable=True, in_range=CAPITAL_RANGE)

    class Config:
        name = "FID registry players"


class DraughtsTournamentRow(pa.DataFrameModel):
    """One draughts tournament of a delivery, as the federation received it."""

    line_no: pl.Int32
    tournament_id: pl.Utf8 = pa.Field(nullable=False, unique=True, str_matches=r"^[\w.\-/]+$")
    variant: pl.Utf8 = pa.Field(nullable=False, isin=DRAUGHTS_VARIANTS)
    name: pl.Utf8 = pa.Field(nullable=True)
    city: pl.Utf8 = pa.Field(nullable=True)
    start_date: pl.Date = pa.Field(nullable=True)
    end_date: pl.Date = pa.Field(nullable=False)
    # a percentage; which ones count, and with what factor, is the rulebook's validity.factors
    # (a list sets aside a tournament at a validity its era does not know, with the reason)
    validity: pl.Int64 = pa.Field(nullable=False, in_range=VALIDITY_RANGE)
    received_on: pl.Date = pa.Field(nullable=False)
    file: pl.Utf8 = pa.Field(nullable=False)
    points_scale: pl.Utf8 = pa.Field(nullable=False, isin=POINT_SCALES)

    @row_check("start_date must not be after end_date", "start_date", "end_date")
    def dates_in_order(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.col("start_date").is_null() | (pl.col("start_date") <= pl.col("end_date"))
        )

    @row_check("received_on must not be before end_date", "received_on", "end_date")
    def received_after_play(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("received_on") >= pl.col("end_date"))

    class Config:
        name = "draughts tournaments"


class DraughtsGameRow(pa.DataFrameModel):
    """One game of a draughts games file (one row per game; ``result`` is player_id's)."""

    line_no: pl.Int32
    tournament_id: pl.Utf8 = pa.Field(nullable=False)
    round: pl.Int64 = pa.Field(nullable=False, in_range={"min_value": 1, "max_value": 99})
    player_id: pl.Utf8 = pa.Field(nullable=False)
    opponent_id: pl.Utf8 = pa.Field(nullable=True)
    result: pl.Utf8 = pa.Field(nullable=False)
    status: pl.Utf8 = pa.Field(nullable=False, isin=GAME_STATUSES)

    @row_check("a bye has no opponent; every other game has one", "status", "opponent_id")
    def opponent_unless_bye(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("status") == "bye") == pl.col("opponent_id").is_null())

    @row_check("a player cannot play himself", "player_id", "opponent_id")
    def two_players(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.col("opponent_id").is_null() | (pl.col("player_id") != pl.col("opponent_id"))
        )

    class Config:
        name = "draughts games"


class PublishedCapitalRow(pa.DataFrameModel):
    """One player of a published FID list of capitals, imported to start a draughts system."""

    line_no: pl.Int32
    player_id: pl.Utf8 = pa.Field(nullable=False, unique=True)
    rating: pl.Int64 = pa.Field(nullable=False, in_range=CAPITAL_RANGE)
    games: pl.Int64 = pa.Field(nullable=False, ge=0)
    k: pl.Int64 = pa.Field(nullable=True)  # a capital has no K: the column may stay empty
    category: pl.Utf8 = pa.Field(nullable=True)
    last_played: pl.Date = pa.Field(nullable=True)

    class Config:
        name = "published list of capitals"
