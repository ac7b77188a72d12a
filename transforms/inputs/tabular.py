"""Typing of raw CSV inputs (all read as text) into typed columns, with a problem row per bad cell.

Every CSV that enters the pipeline (manifests, registry, published lists, draughts games) goes
through :func:`type_columns`, so "file, line, field, value, reason" is produced the same way
everywhere and no value is silently turned into a null.
"""

from __future__ import annotations

import csv
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

import polars as pl

from schemas.problems import PROBLEM_SCHEMA, empty_problems, problem, problems_frame

FieldKind = Literal["text", "int", "date", "float"]

_KIND_DTYPES: dict[FieldKind, pl.DataType] = {
    "text": pl.Utf8(),
    "int": pl.Int64(),
    "date": pl.Date(),
    "float": pl.Float64(),
}

_KIND_HINTS: dict[FieldKind, str] = {
    "text": "text",
    "int": "a whole number",
    "date": "a date written YYYY-MM-DD",
    "float": "a number",
}


@dataclass(frozen=True)
class FieldSpec:
    name: str
    kind: FieldKind
    required: bool = False


def missing_columns(raw: pl.DataFrame, specs: list[FieldSpec]) -> list[str]:
    """Required columns absent from the header (the whole file is unusable without them)."""
    return [spec.name for spec in specs if spec.required and spec.name not in raw.columns]


def _parse_expr(spec: FieldSpec) -> pl.Expr:
    text = pl.col(spec.name).cast(pl.Utf8).str.strip_chars()
    blank_as_null = pl.when(text == "").then(None).otherwise(text)
    match spec.kind:
        case "text":
            return blank_as_null.alias(spec.name)
        case "int":
            return blank_as_null.cast(pl.Int64, strict=False).alias(spec.name)
        case "float":
            return blank_as_null.cast(pl.Float64, strict=False).alias(spec.name)
        case "date":
            return blank_as_null.str.to_date("%Y-%m-%d", strict=False).alias(spec.name)


def type_columns(
    raw: pl.DataFrame, specs: list[FieldSpec], line_column: str = "line_no"
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Cast text columns to their kinds.

    Returns the typed frame (every row kept, bad cells null) and one problem row per cell that
    was required but blank, or present but unreadable as its kind (errors), and one warning per
    column of the header that is not among ``specs``. Optional columns missing from the header
    are added as nulls. Callers decide whether a problem drops the row.
    """
    present = [spec for spec in specs if spec.name in raw.columns]
    absent = [spec for spec in specs if spec.name not in raw.columns]
    typed = raw.with_columns(
        [_parse_expr(spec) for spec in present]
        + [pl.lit(None, dtype=_KIND_DTYPES[spec.kind]).alias(spec.name) for spec in absent]
    )
    problem_parts = []
    for spec in present:
        raw_text = raw.get_column(spec.name).cast(pl.Utf8).str.strip_chars()
        is_blank = raw_text.is_null() | (raw_text == "")
        unreadable = ~is_blank & typed.get_column(spec.name).is_null()
        reason_blank = f"{spec.name} is required and is empty"
        reason_bad = f"{spec.name} must be {_KIND_HINTS[spec.kind]}"
        flagged = pl.DataFrame(
            {
                "line_no": raw.get_column(line_column).cast(pl.Int32),
                "value": raw_text,
                "blank": is_blank,
                "unreadable": unreadable,
            }
        ).filter(pl.col("unreadable") | (pl.col("blank") & spec.required))
        if flagged.height:
            problem_parts.append(
                flagged.select(
                    "line_no",
                    pl.lit(spec.name).alias("field"),
                    pl.col("value").fill_null(""),
                    pl.when(pl.col("blank"))
                    .then(pl.lit(reason_blank))
                    .otherwise(pl.lit(reason_bad))
                    .alias("reason"),
                    pl.lit("error").alias("severity"),
                )
            )
    known = {spec.name for spec in specs} | {line_column}
    unknown = [name for name in raw.columns if name not in known]
    if unknown:
        # a misspelt optional column ("fide id") would otherwise be read as empty, silently
        columns = ", ".join(spec.name for spec in specs)
        reasons = [_unknown_column(name, columns, line_column) for name in unknown]
        problem_parts.append(
            pl.DataFrame(
                {
                    "line_no": [1] * len(unknown),
                    "field": [field for field, _ in reasons],
                    "value": [field for field, _ in reasons],
                    "reason": [reason for _, reason in reasons],
                    "severity": ["warning"] * len(unknown),
                },
                schema=PROBLEM_SCHEMA,
            )
        )
    problems = pl.concat(problem_parts) if problem_parts else empty_problems()
    return typed, problems.cast(PROBLEM_SCHEMA)  # type: ignore[arg-type]


# how the CSV reader names the second column of a name the header gives twice
_REPEATED = re.compile(r"(.+)_duplicated_\d+")


def _unknown_column(name: str, columns: str, line_column: str) -> tuple[str, str]:
    """The field a column not among the specs is reported under, and why its values are
    ignored: a name the header repeats (the reader names the repeat ``name_duplicated_0``),
    the name the rows' line numbers go under, or a name this file does not have."""
    repeated = _REPEATED.fullmatch(name)
    if repeated and repeated.group(1) == line_column:
        return line_column, (
            f"column '{line_column}' is the name each row's line number is read under, not one "
            f"of this file's ({columns}): its values are ignored"
        )
    if repeated:
        return repeated.group(1), (
            f"column '{repeated.group(1)}' is in the header twice (in any case, blanks "
            "aside): the values of the second are ignored"
        )
    return name, f"column '{name}' is not one of this file's ({columns}): its values are ignored"


def with_line_numbers(raw: pl.DataFrame, first_data_line: int = 2) -> pl.DataFrame:
    """Number data rows as an editor shows them (line 1 is the header)."""
    return raw.with_row_index("line_no", offset=first_data_line).with_columns(
        pl.col("line_no").cast(pl.Int32)
    )


def refused_file(content: bytes, required: Sequence[str]) -> pl.DataFrame:
    """Why a CSV cannot be read at all: one problem (its whole file is refused), or none.

    Read anyway, such a file gives rows that are all empty or unreadable: a registry snapshot
    without players (from its date the federation has none), or a delivery whose every row is
    rejected once for each required column.
    """
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        # the line as an editor counts it, so the analyst finds the character to fix
        line = content.count(b"\n", 0, error.start) + 1
        byte = f"0x{content[error.start]:02X}"
        reason = (
            f"the file is not UTF-8 (byte {byte} on line {line} cannot be read): "
            "save the file as UTF-8"
        )
        return problems_frame([problem(reason, value=byte, line_no=line)])
    header = text.removeprefix("\ufeff").split("\n", 1)[0].rstrip("\r")
    reason = header_fault(header, required)
    if reason is None:
        return empty_problems()
    return problems_frame([problem(reason, value=header, line_no=1)])


def header_fault(header: str, required: Sequence[str]) -> str | None:
    """What is wrong with a CSV's header line (None: it names every required column).

    Names are compared as the reader sees them: trimmed, any case.
    """
    if not header.strip():
        return f"the first line is empty: it must name the columns {', '.join(required)}"
    try:
        named = {name.strip().lower() for name in next(csv.reader([header]))}
    except csv.Error as error:
        # a line the csv module cannot split: its columns are unknown, so is every row's
        return f"the first line {csv_line_fault(error)}"
    missing = [column for column in required if column not in named]
    if not missing:
        return None
    reason = f"the header lacks the required column{'s' if len(missing) > 1 else ''} " + ", ".join(
        missing
    )
    # a spreadsheet in an Italian locale writes ';': the usual cause, so say it plainly
    for separator, called in ((";", "';'"), ("\t", "tabs")):
        if separator in header:
            return (
                f"{reason}: the file seems separated by {called} and must be comma-separated "
                "(save it as CSV with commas)"
            )
    # a misspelt name ("recieved_on"): name the column the header has instead
    spelt = [
        f"{close[0]!r} for {column}"
        for column in missing
        if (close := difflib.get_close_matches(column, sorted(named - set(required)), n=1))
    ]
    if spelt:
        return f"{reason} (the header has {', '.join(spelt)}: correct its spelling)"
    return reason


def csv_line_fault(error: csv.Error) -> str:
    """Why the csv module cannot split a line, plainly: the end of a sentence naming the line.

    The likeliest is a carriage return (CR) that ends no line: an old Mac program ends every
    line with CR alone, and the whole file is then one line to the readers, with a CR in each
    value; a CR slipped into an unquoted value does the same to its line."""
    if "new-line character" in str(error):
        return (
            "holds a carriage return (CR) that ends no line, inside a value not in double "
            "quotes: a CSV's lines end with LF or CR LF (a file saved with old Mac line ends has "
            "CR alone); save the file as CSV again, or quote the value"
        )
    if "field larger than field limit" in str(error):
        return (
            f"holds a value of more than {csv.field_size_limit():,} characters, more than a "
            "cell of these files holds: most likely a double quote opened and never closed, "
            "which takes in the lines after it; close the quotes"
        )
    return f"cannot be read as CSV ({error})"


def with_receipt_reason(problems: pl.DataFrame, raw: pl.DataFrame, listing: str) -> pl.DataFrame:
    """An empty ``received_on`` of a delivery's ``listing`` (its manifest, a draughts
    tournaments.csv) rejected with why it matters, what to do, and the tournament of its row
    (``raw``: the listing as read, with ``line_no``)."""
    empty = (pl.col("field") == "received_on") & (pl.col("value") == "")
    if "tournament_id" not in raw.columns or not problems.filter(empty).height:
        return problems
    ids = raw.select(
        pl.col("line_no").cast(pl.Int32),
        pl.col("tournament_id").str.strip_chars().replace("", None).alias("_tournament"),
    )
    named = pl.when(pl.col("_tournament").is_not_null()).then(
        pl.format(" (tournament {})", pl.col("_tournament"))
    )
    reason = pl.format(
        "received_on is required and is empty{}: the date of receipt decides the rating period "
        "and is never guessed; add it to the {} and deliver again",
        named.fill_null(""),
        pl.lit(listing),
    )
    return (
        problems.join(ids, on="line_no", how="left", maintain_order="left")
        .with_columns(pl.when(empty).then(reason).otherwise(pl.col("reason")).alias("reason"))
        .drop("_tournament")
    )


# A tournament received this long after it ended is rated like any other (by its receipt
# date, RULES.md §1.1), but so late a delivery is more often a wrong file or a wrong receipt
# date than a late arbiter: a warning asks the officer to look. Not a federation rule (it
# changes no number), so not a rulebook parameter.
LATE_RECEIPT_DAYS = 365


def late_receipt(played: date | None, received: date | None) -> str | None:
    """Why a tournament played on ``played`` (its end date, else its start) and received on
    ``received`` deserves a look: received more than ``LATE_RECEIPT_DAYS`` after (None: not)."""
    if played is None or received is None or (received - played).days <= LATE_RECEIPT_DAYS:
        return None
    return (
        f"received on {received}, {(received - played).days} days after the tournament ended "
        f"({played}): is it the right file and the right receipt date? It is rated as "
        "received, in the list whose window holds that date"
    )
