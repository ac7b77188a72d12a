"""Run a Pandera model over a collected frame and turn every failure into a plain problem row.

A rating officer reads these reasons, so Pandera's check names are translated into sentences
("must be one of elo_italia, elo_rapid", "is repeated: each value must appear once").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandera.polars as pa
import polars as pl
from pandera.errors import SchemaError, SchemaErrors

from schemas.problems import PROBLEM_SCHEMA, empty_problems

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
    (re.compile(r"^multiple_fields_uniqueness$"), "is repeated: each value must appear once"),
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
    """The rows that passed and one problem row (PROBLEM_SCHEMA) per failure."""

    valid: pl.DataFrame
    problems: pl.DataFrame

    @property
    def ok(self) -> bool:
        return self.problems.height == 0


def validate(
    model: type[pa.DataFrameModel], frame: pl.DataFrame, line_column: str | None = "line_no"
) -> Validated:
    """Validate data and schema (never a LazyFrame: that would check the schema only)."""
    try:
        model.validate(frame, lazy=True)
    except SchemaErrors as errors:
        return _split(frame, errors.failure_cases, model, line_column)
    except SchemaError as error:  # raised instead of SchemaErrors for some schema-level faults
        problems = pl.DataFrame(
            [
                {
                    "line_no": None,
                    "field": None,
                    "value": None,
                    "reason": str(error),
                    "severity": "error",
                }
            ],
            schema=PROBLEM_SCHEMA,
        )
        return Validated(frame.clear(), problems)
    except pl.exceptions.ColumnNotFoundError as error:
        problems = pl.DataFrame(
            [
                {
                    "line_no": None,
                    "field": None,
                    "value": None,
                    "reason": f"column is missing: {error}",
                    "severity": "error",
                }
            ],
            schema=PROBLEM_SCHEMA,
        )
        return Validated(frame.clear(), problems)
    return Validated(frame, empty_problems())


def _split(
    frame: pl.DataFrame,
    failures: pl.DataFrame,
    model: type[pa.DataFrameModel],
    line_column: str | None,
) -> Validated:
    model_name = model.Config.name if getattr(model.Config, "name", None) else model.__name__
    rows = failures.with_columns(
        pl.when(pl.col("column") == model_name)
        .then(None)
        .otherwise(pl.col("column"))
        .alias("column")
    )
    reasons = [
        plain_reason(check, column)
        for check, column in zip(rows["check"].to_list(), rows["column"].to_list(), strict=True)
    ]
    lines: list[int | None]
    if line_column and line_column in frame.columns:
        line_numbers = frame.get_column(line_column).to_list()
        lines = [None if index is None else line_numbers[index] for index in rows["index"]]
    else:
        lines = [None if index is None else index + 1 for index in rows["index"]]
    problems = pl.DataFrame(
        {
            "line_no": lines,
            "field": rows["column"],
            "value": rows["failure_case"],
            "reason": reasons,
            "severity": ["error"] * rows.height,
        },
        schema=PROBLEM_SCHEMA,
    )
    bad_indices = rows["index"].drop_nulls().unique()
    if rows["index"].null_count() > 0:  # a schema-level fault: nothing in the frame is usable
        return Validated(frame.clear(), problems)
    valid = (
        frame.with_row_index("_row")
        .filter(~pl.col("_row").is_in(bad_indices.cast(pl.UInt32).implode()))
        .drop("_row")
    )
    return Validated(valid, problems)
