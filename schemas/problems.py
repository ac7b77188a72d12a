"""The shape of a problem found in an input: what every rejection and warning is made from."""

from __future__ import annotations

import polars as pl

PROBLEM_SCHEMA: dict[str, pl.DataType] = {
    "line_no": pl.Int32(),
    "field": pl.Utf8(),
    "value": pl.Utf8(),
    "reason": pl.Utf8(),
    "severity": pl.Utf8(),  # error: the row or tournament is rejected; warning: reported only
}


# clear() makes a new empty frame of this one's columns in about a microsecond, where building
# one from the schema takes tens: an ingest asks for several per tournament
_NO_PROBLEMS = pl.DataFrame(schema=PROBLEM_SCHEMA)


def empty_problems() -> pl.DataFrame:
    return _NO_PROBLEMS.clear()


def problems_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=PROBLEM_SCHEMA) if rows else empty_problems()


def problem(
    reason: str,
    field: str | None = None,
    value: object = None,
    line_no: int | None = None,
    severity: str = "error",
) -> dict[str, object]:
    return {
        "line_no": line_no,
        "field": field,
        "value": None if value is None else str(value),
        "reason": reason,
        "severity": severity,
    }


def problem_rows(
    frame: pl.DataFrame, field: str, value: pl.Expr, reason: pl.Expr, severity: str = "error"
) -> pl.DataFrame:
    """One problem per row of ``frame`` (which has ``line_no``): the field, the value as written
    and the reason, as expressions over the row."""
    return frame.select(
        pl.col("line_no").cast(pl.Int32),
        pl.lit(field).alias("field"),
        value.cast(pl.Utf8).alias("value"),
        reason.alias("reason"),
        pl.lit(severity).alias("severity"),
    ).cast(PROBLEM_SCHEMA)  # type: ignore[arg-type]
