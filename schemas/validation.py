"""Run a Pandera model over a collected frame and turn every failure into a plain problem row.

A rating officer reads these reasons, so Pandera's check names are translated into sentences
("must be one of elo_italia, elo_rapid", "is repeated: each value must appear once").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandera.polars as pa
import polars as pl
from pandera.errors import SchemaError, SchemaErrors

from schemas.problems import PROBLEM_SCHEMA, empty_problems, problem, problems_frame

_NUMBER = r"(-?[\d.]+)"
_TRANSLATIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^isin\(\[(.*)\]\)$"), "must be one of {0}"),
    (re.compile(rf"^greater_than_or_equal_to\({_NUMBER}\)$"), "must be at least {0}"),
    (re.compile(rf"^greater_than\({_NUMBER}\)$"), "must be more than {0}"),
    (re.compile(rf"^less_than_or_equal_to\({_NUMBER}\)$"), "must be at most {0}"),
    (re.compile(rf"^less_than\({_NUMBER}\)$"), "must be less than {0}"),
    (re.compile(rf"^in_range\({_NUMBER}, {_NUMBER}\)$"), "must be between {0} and {1}"),
    (re.compile(r"^str_matches\('(.*)'\)$"), "does not have the expected form"),
    (re.compile(r"^str_length\((.*)\)$"), "has the wrong length ({0})"),
    (re.compile(r"^not_nullable$"), "is required and is empty"),
    (re.compile(r"^field_uniqueness$"), "is repeated: each value must appear once"),
    (re.compile(r"^multiple_fields_uniqueness$"), "is repeated: each combination must appear once"),
    (re.compile(r"^column_in_dataframe$"), "column is missing"),
    (re.compile(r"^dtype\('(.*)'\)$"), "has the wrong type (expected {0})"),
]


def plain_reason(check: str, column: str | None) -> str:
    """Turn a Pandera check label into a sentence; custom checks already carry one."""
    for pattern, template in _TRANSLATIONS:
        found = pattern.match(check)
        if found:
            groups = [group.replace("'", "") for group in found.groups()]
            sentence = template.format(*groups)
            return f"{column} {sentence}" if column else sentence
    return check


@dataclass(frozen=True)
class Validated:
    """The rows that passed and one problem row per failure.

    ``problems`` has PROBLEM_SCHEMA plus the ``carry`` columns asked for (null on faults that
    concern the whole frame rather than a row).
    """

    valid: pl.DataFrame
    problems: pl.DataFrame

    @property
    def ok(self) -> bool:
        return self.problems.height == 0


def validate(
    model: type[pa.DataFrameModel],
    frame: pl.DataFrame,
    line_column: str | None = "line_no",
    carry: tuple[str, ...] = (),
) -> Validated:
    """Validate data and schema (never a LazyFrame: that would check the schema only).

    ``carry`` names columns copied from each failing row into its problem (for example the
    tournament id when many tournaments are validated in one call).
    """
    carry_schema = {name: frame.schema[name] for name in carry if name in frame.columns}
    try:
        model.validate(frame, lazy=True)
    except SchemaErrors as errors:
        return _split(frame, errors.failure_cases, model, line_column, carry_schema)
    except (SchemaError, pl.exceptions.ColumnNotFoundError) as error:
        # some schema-level faults arrive alone, not collected: nothing in the frame is usable
        whole = problems_frame([problem(f"{model.Config.name}: {error}")])
        return Validated(frame.clear(), _with_nulls(whole, carry_schema))
    return Validated(frame, _with_nulls(empty_problems(), carry_schema))


# The fields each row-wide check of the models compares, by the check's error (what Pandera
# reports it as): its rejection names them and their values, not a dump of the whole row.
ROW_CHECK_FIELDS: dict[str, tuple[str, ...]] = {}


def row_check(error: str, *fields: str) -> Callable[[Callable[..., Any]], Any]:
    """``pa.dataframe_check`` for a check on each row that compares ``fields``: its
    rejections say which fields and with which values."""
    if ROW_CHECK_FIELDS.setdefault(error, fields) != fields:
        raise ValueError(f"two row checks say {error!r} of different fields")
    return pa.dataframe_check(error=error)


def _named_fields(
    rows: pl.DataFrame, indexed: pl.DataFrame, unique: list[str] | str | None
) -> pl.DataFrame:
    """A failure that concerns several fields of a row is reported by those fields (field:
    their names, value: their values in the row), not by Pandera's dump of the whole row: a
    row repeating the model's unique key, and a failed row-wide check."""
    named = {
        check: fields
        for check, fields in ROW_CHECK_FIELDS.items()
        if check in rows["check"] and set(fields) <= set(indexed.columns)
    }
    if unique and "multiple_fields_uniqueness" in rows["check"]:
        key = (unique,) if isinstance(unique, str) else tuple(unique)
        named["multiple_fields_uniqueness"] = key
    rows = rows.with_columns(
        pl.col("index").cast(pl.Int64).alias("_index"), pl.col("failure_case").cast(pl.Utf8)
    )
    for check, fields in named.items():
        values = indexed.select(
            "_index",
            pl.concat_str(
                [
                    pl.format(f"{name}={{}}", pl.col(name).cast(pl.Utf8).fill_null(""))
                    for name in fields
                ],
                separator=", ",
            ).alias("_values"),
        )
        this = pl.col("check") == check
        rows = (
            rows.join(values, on="_index", how="left", maintain_order="left")
            .with_columns(
                pl.when(this)
                .then(pl.lit(", ".join(fields)))
                .otherwise(pl.col("column"))
                .alias("column"),
                pl.when(this)
                .then(pl.col("_values"))
                .otherwise(pl.col("failure_case"))
                .alias("failure_case"),
            )
            .drop("_values")
        )
    return rows.drop("_index")


def _with_nulls(problems: pl.DataFrame, carry_schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return problems.with_columns(
        [pl.lit(None, dtype=dtype).alias(name) for name, dtype in carry_schema.items()]
    )


def _split(
    frame: pl.DataFrame,
    failures: pl.DataFrame,
    model: type[pa.DataFrameModel],
    line_column: str | None,
    carry_schema: dict[str, pl.DataType],
) -> Validated:
    model_name = getattr(model.Config, "name", None) or model.__name__
    rows = failures.with_columns(
        pl.when(pl.col("column") == model_name)
        .then(None)
        .otherwise(pl.col("column"))
        .alias("column")
    )
    indexed = frame.with_row_index("_index").with_columns(pl.col("_index").cast(pl.Int64))
    rows = _named_fields(rows, indexed, getattr(model.Config, "unique", None))
    reasons = [
        plain_reason(check, column)
        for check, column in zip(rows["check"].to_list(), rows["column"].to_list(), strict=True)
    ]
    picked = [*carry_schema]
    if line_column and line_column in frame.columns:
        picked.append(line_column)
    located = (
        rows.select(pl.col("index").cast(pl.Int64).alias("_index"))
        .with_row_index("_order")
        .join(indexed.select("_index", *picked), on="_index", how="left")
        .sort("_order")
    )
    lines = (
        located.get_column(line_column).cast(pl.Int32)
        if line_column and line_column in frame.columns
        else (located.get_column("_index") + 1).cast(pl.Int32)
    )
    problems = pl.DataFrame(
        {
            "line_no": lines,
            "field": rows["column"],
            "value": rows["failure_case"],
            "reason": reasons,
            "severity": ["error"] * rows.height,
        },
        schema=PROBLEM_SCHEMA,
    ).with_columns([located.get_column(name) for name in carry_schema])
    if rows["index"].null_count() > 0:  # a schema-level fault: nothing in the frame is usable
        return Validated(frame.clear(), problems)
    bad = rows["index"].cast(pl.Int64).unique().implode()
    valid = indexed.filter(~pl.col("_index").is_in(bad)).drop("_index")
    return Validated(valid, problems)
