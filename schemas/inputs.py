"""Pandera models of the CSV inputs after typing: delivery manifest, registry, published list.

Column-level rules live here; cell typing (text to date or number) is done before, by
``transforms.tabular.type_columns``, so a value that cannot be read is reported as such.
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas.validation import row_check
from schemas.vocabulary import CHESS_SYSTEMS

CHESS_CATEGORIES = ["M", "CM", "1N", "2N", "3N", "1S", "2S", "NC"]
# A rating below this or above that is a typing error, not a player.
RATING_RANGE = {"min_value": 0, "max_value": 3500}


class ManifestRow(pa.DataFrameModel):
    """One tournament of a delivery, as the federation received it."""

    line_no: pl.Int32
    tournament_id: pl.Utf8 = pa.Field(nullable=False, unique=True, str_matches=r"^[\w.\-/]+$")
    file: pl.Utf8 = pa.Field(nullable=False)
    system: pl.Utf8 = pa.Field(nullable=False, isin=CHESS_SYSTEMS)
    received_on: pl.Date = pa.Field(nullable=False)
    start_date: pl.Date = pa.Field(nullable=True)
    end_date: pl.Date = pa.Field(nullable=True)
    time_control: pl.Utf8 = pa.Field(nullable=True)
    arbiter_ratings: pl.Utf8 = pa.Field(nullable=True)

    @row_check("start_date must not be after end_date", "start_date", "end_date")
    def dates_in_order(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.col("start_date").is_null()
            | pl.col("end_date").is_null()
            | (pl.col("start_date") <= pl.col("end_date"))
        )

    @row_check("received_on must not be before end_date", "received_on", "end_date")
    def received_after_play(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.col("end_date").is_null() | (pl.col("received_on") >= pl.col("end_date"))
        )

    class Config:
        name = "manifest"


class ArbiterRating(pa.DataFrameModel):
    """A theoretical rating given by the chief arbiter to a foreign player without FIDE rating."""

    tournament_id: pl.Utf8 = pa.Field(nullable=False)
    start_number: pl.Int32 = pa.Field(ge=1)
    arbiter_rating: pl.Int32 = pa.Field(in_range=RATING_RANGE)

    class Config:
        name = "arbiter_rating"
        unique = ["tournament_id", "start_number"]  # noqa: RUF012


class RegistryPlayer(pa.DataFrameModel):
    """One registered person as of the snapshot date (anagrafica)."""

    line_no: pl.Int32
    player_id: pl.Utf8 = pa.Field(nullable=False, unique=True, str_matches=r"^[\w\-]+$")
    name: pl.Utf8 = pa.Field(nullable=False, str_length={"min_value": 2, "max_value": 80})
    sex: pl.Utf8 = pa.Field(nullable=False, isin=["M", "F"])
    birth_date: pl.Date = pa.Field(nullable=True)
    country: pl.Utf8 = pa.Field(nullable=False, str_matches=r"^[A-Z]{3}$")
    fide_id: pl.Int64 = pa.Field(nullable=True, ge=1)
    fide_standard: pl.Int64 = pa.Field(nullable=True, in_range=RATING_RANGE)
    fide_rapid: pl.Int64 = pa.Field(nullable=True, in_range=RATING_RANGE)
    category: pl.Utf8 = pa.Field(nullable=False, isin=CHESS_CATEGORIES)
    k_override: pl.Int64 = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 100})
    last_fide_tournament: pl.Date = pa.Field(nullable=True)

    @pa.check("fide_id", name="unique FIDE id", error="fide_id is given to two players")
    def fide_id_unique(cls, data: pa.PolarsData) -> pl.LazyFrame:
        column = pl.col(data.key)
        return data.lazyframe.select(column.is_null() | column.is_unique())

    class Config:
        name = "registry players"


class Membership(pa.DataFrameModel):
    """A year in which the player was registered (tesserato) with the federation."""

    line_no: pl.Int32
    player_id: pl.Utf8 = pa.Field(nullable=False)
    year: pl.Int64 = pa.Field(in_range={"min_value": 1900, "max_value": 2200})

    class Config:
        name = "registry memberships"
        unique = ["player_id", "year"]  # noqa: RUF012


class PublishedListRow(pa.DataFrameModel):
    """One player of an official list imported to bootstrap a system."""

    line_no: pl.Int32
    player_id: pl.Utf8 = pa.Field(nullable=False, unique=True)
    rating: pl.Int64 = pa.Field(nullable=False, in_range=RATING_RANGE)
    games: pl.Int64 = pa.Field(nullable=False, ge=0)
    k: pl.Int64 = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 100})
    category: pl.Utf8 = pa.Field(nullable=True)
    last_played: pl.Date = pa.Field(nullable=True)

    class Config:
        name = "published list"
