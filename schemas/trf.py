"""Pandera models of the frames the TRF parser yields and the ingest writes.

They mirror the parser's contract (``transforms.trf``) plus the ``tournament_id`` the ingest
adds (a delivery is validated in one call per model, not one per file), and add the value rules
an arbiter would check by eye: start numbers from 1, plausible ratings, known result codes.
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas.inputs import RATING_RANGE
from schemas.validation import row_check

RESULT_CODES = ["1", "0", "=", "+", "-", "W", "D", "L", "H", "F", "U", "Z", ""]
GAME_KINDS = ["played", "forfeit", "unrated", "bye", "unpaired"]


class TrfTournament(pa.DataFrameModel):
    tournament_id: pl.Utf8 = pa.Field(unique=True)
    name: pl.Utf8 = pa.Field(nullable=True)
    city: pl.Utf8 = pa.Field(nullable=True)
    federation: pl.Utf8 = pa.Field(nullable=True)
    start_date: pl.Date = pa.Field(nullable=True)
    end_date: pl.Date = pa.Field(nullable=True)
    rounds: pl.Int32 = pa.Field(ge=0)
    declared_players: pl.Int32 = pa.Field(nullable=True)
    time_control: pl.Utf8 = pa.Field(nullable=True)
    chief_arbiter: pl.Utf8 = pa.Field(nullable=True)
    tournament_type: pl.Utf8 = pa.Field(nullable=True)
    format: pl.Utf8 = pa.Field(nullable=True)
    encoding: pl.Utf8
    is_team: pl.Boolean

    class Config:
        name = "TRF header"


class TrfPlayer(pa.DataFrameModel):
    tournament_id: pl.Utf8
    start_number: pl.Int32 = pa.Field(ge=1)
    name: pl.Utf8 = pa.Field(nullable=True)
    sex: pl.Utf8 = pa.Field(nullable=True, isin=["M", "F"])
    title: pl.Utf8 = pa.Field(nullable=True)
    rating: pl.Int32 = pa.Field(nullable=True, in_range=RATING_RANGE)
    federation: pl.Utf8 = pa.Field(nullable=True)
    fide_id: pl.Int64 = pa.Field(nullable=True, ge=1)
    birth_date: pl.Date = pa.Field(nullable=True)
    birth_year: pl.Int32 = pa.Field(nullable=True, in_range={"min_value": 1850, "max_value": 2200})
    points: pl.Float64 = pa.Field(nullable=True, ge=0)
    rank: pl.Int32 = pa.Field(nullable=True, ge=1)
    line_no: pl.Int32

    class Config:
        name = "TRF player line"
        unique = ["tournament_id", "start_number"]  # noqa: RUF012


class TrfGame(pa.DataFrameModel):
    """One player's view of one round (a pairing appears twice, once per side)."""

    tournament_id: pl.Utf8
    start_number: pl.Int32 = pa.Field(ge=1)
    round: pl.Int32 = pa.Field(ge=1)
    opponent: pl.Int32 = pa.Field(nullable=True, ge=1)
    color: pl.Utf8 = pa.Field(nullable=True, isin=["w", "b"])
    result_code: pl.Utf8 = pa.Field(isin=RESULT_CODES)
    score: pl.Float64 = pa.Field(isin=[0.0, 0.5, 1.0])
    kind: pl.Utf8 = pa.Field(isin=GAME_KINDS)
    played: pl.Boolean
    line_no: pl.Int32

    @row_check("a played game needs an opponent", "result_code", "opponent")
    def played_has_opponent(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(~pl.col("played") | pl.col("opponent").is_not_null())

    class Config:
        name = "TRF round"
        unique = ["tournament_id", "start_number", "round"]  # noqa: RUF012


class TrfNational(pa.DataFrameModel):
    tournament_id: pl.Utf8
    federation_code: pl.Utf8 = pa.Field(str_matches=r"^[A-Z]{3}$")
    start_number: pl.Int32 = pa.Field(ge=1)
    national_id: pl.Utf8 = pa.Field(nullable=True)
    national_rating: pl.Int32 = pa.Field(nullable=True, in_range=RATING_RANGE)
    classification: pl.Utf8 = pa.Field(nullable=True)
    name: pl.Utf8 = pa.Field(nullable=True)
    birth_date: pl.Date = pa.Field(nullable=True)
    line_no: pl.Int32

    class Config:
        name = "TRF national line"
        unique = ["tournament_id", "federation_code", "start_number"]  # noqa: RUF012
