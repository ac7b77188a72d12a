"""Delivery manifest: one CSV row per tournament with the facts a TRF does not carry.

Columns: ``tournament_id, file, system, received_on`` (required), ``start_date, end_date,
time_control, arbiter_ratings`` (optional). ``arbiter_ratings`` lists the theoretical ratings the
chief arbiter gave to foreign players without FIDE rating, as ``start_number=rating`` pairs
separated by ``;`` (for example ``12=1650;15=1500``). Here a pair is checked for its form and
for being a rating at all (0 to 3500); what the tournament's system allows (the rulebook's
arbiter range, no arbiter rating at all in Elo Rapid, none for a national player) is checked at
intake (:mod:`transforms.elo.intake`), where the era in force is known. ``time_control`` is
read by :mod:`transforms.inputs.time_control`, at intake too.
"""

from __future__ import annotations

import polars as pl

from schemas.inputs import RATING_RANGE
from schemas.problems import PROBLEM_SCHEMA
from transforms.inputs.tabular import FieldSpec, type_columns, with_receipt_reason

MANIFEST_FIELDS = [
    FieldSpec("tournament_id", "text", required=True),
    FieldSpec("file", "text", required=True),
    FieldSpec("system", "text", required=True),
    FieldSpec("received_on", "date", required=True),
    FieldSpec("start_date", "date"),
    FieldSpec("end_date", "date"),
    FieldSpec("time_control", "text"),
    FieldSpec("arbiter_ratings", "text"),
]

ARBITER_RATING_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "start_number": pl.Int32(),
    "arbiter_rating": pl.Int32(),
}


def type_manifest(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Type a manifest read as text (with ``line_no``); returns typed rows and cell problems."""
    typed, problems = type_columns(raw, MANIFEST_FIELDS)
    problems = with_receipt_reason(problems, raw, "manifest")
    typed = typed.select(
        "line_no",
        *[spec.name for spec in MANIFEST_FIELDS],
    ).with_columns(pl.col("system").str.to_lowercase())
    return typed, problems


# start_number=rating; a minus sign is read with the rating
_PAIR = r"^(\d+)\s*=\s*(-?\d+)$"


def parse_arbiter_ratings(manifest: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split the ``arbiter_ratings`` column into one row per (tournament, start number)."""
    pairs = (
        manifest.select("line_no", "tournament_id", "arbiter_ratings")
        .filter(pl.col("arbiter_ratings").is_not_null())
        .with_columns(pl.col("arbiter_ratings").str.split(";").alias("pair"))
        .explode("pair")
        .with_columns(pl.col("pair").str.strip_chars())
        .filter(pl.col("pair") != "")
        .with_columns(
            pl.col("pair").str.extract(_PAIR, 1).cast(pl.Int32, strict=False).alias("start_number"),
            # read with its sign and as Int64, so that "12=-5" or "12=99999999999" is a rating
            # out of range (the check below), not a malformed pair
            pl.col("pair")
            .str.extract(_PAIR, 2)
            .cast(pl.Int64, strict=False)
            .alias("arbiter_rating"),
        )
    )
    lowest, highest = RATING_RANGE["min_value"], RATING_RANGE["max_value"]
    per_player = pairs.group_by("line_no", "start_number").agg(
        pl.len().alias("given"),
        pl.col("arbiter_rating").cast(pl.Utf8).str.join(", ").alias("ratings_given"),
    )
    reason = (
        pl.when(pl.col("start_number").is_null() | pl.col("arbiter_rating").is_null())
        .then(pl.lit("arbiter_ratings must be start_number=rating pairs separated by ';'"))
        .when(pl.col("given") > 1)
        .then(
            pl.format(
                "start number {} is given {} arbiter ratings ({}): give one",
                "start_number",
                "given",
                "ratings_given",
            )
        )
        .when(~pl.col("arbiter_rating").is_between(lowest, highest))
        .then(
            pl.format(
                "{} is not a rating (from {} to {}): a mistyped arbiter rating would be "
                "published as the player's rating",
                "arbiter_rating",
                pl.lit(lowest),
                pl.lit(highest),
            )
        )
    )
    checked = pairs.join(
        per_player, on=["line_no", "start_number"], how="left", maintain_order="left"
    ).with_columns(reason.alias("reason"))
    problems = (
        checked.filter(pl.col("reason").is_not_null())
        .select(
            pl.col("line_no").cast(pl.Int32),
            pl.lit("arbiter_ratings").alias("field"),
            pl.col("pair").alias("value"),
            "reason",
            pl.lit("error").alias("severity"),
        )
        .cast(PROBLEM_SCHEMA)  # type: ignore[arg-type]
    )
    ratings = (
        checked.filter(pl.col("reason").is_null())
        .select(list(ARBITER_RATING_SCHEMA))
        .cast(ARBITER_RATING_SCHEMA)  # type: ignore[arg-type]
    )
    return ratings, problems
