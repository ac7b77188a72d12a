"""Checking a CSV input read as text: each row typed and validated, its problems named by the
file, and the reasons a file is refused whole. Pure functions of what was read (no warehouse,
no Prefect): the registry loads, the list imports and the fuzz test use the same ones."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from flows.inputs import CsvInput
from schemas.problems import empty_problems, problem, problem_rows, problems_frame
from schemas.validation import validate
from transforms.inputs.registry import repeated_rows_read_once
from transforms.inputs.tabular import refused_file


def checked_csv(
    source: CsvInput, typer: object, model: object
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Type and validate a CSV; returns the good rows and every problem (file-tagged)."""
    if source.problems.height:
        good, problems = pl.DataFrame(), source.problems
    else:
        typed, cell_problems = typer(source.rows)  # type: ignore[operator]
        # a warning is reported with its row, which is kept
        errors = cell_problems.filter(pl.col("severity") == "error")
        cell_problems = pl.concat(
            [
                cell_problems,
                _keys_shared_with_rejected_rows(typed, errors, model, source.rejected_keys),
            ]
        )
        errors = cell_problems.filter(pl.col("severity") == "error")
        bad_lines = errors.get_column("line_no").unique().implode()
        checked = validate(model, typed.filter(~pl.col("line_no").is_in(bad_lines)))  # type: ignore[arg-type]
        good = checked.valid
        problems = pl.concat([source.rejected_lines, cell_problems, checked.problems])
    return good, tagged(problems, source)


def _keys_shared_with_rejected_rows(
    typed: pl.DataFrame, errors: pl.DataFrame, model: object, rejected_keys: pl.DataFrame
) -> pl.DataFrame:
    """An error for each row whose unique key (a player_id, say) is also on a rejected row (for
    a bad cell, or a line with a comma too many: ``rejected_keys``): which of the two is right
    cannot be told, and the rejected one would otherwise leave the other standing as if its
    key were written once."""
    columns = model.to_schema().columns  # type: ignore[attr-defined]
    rejected = typed.filter(pl.col("line_no").is_in(errors.get_column("line_no").implode()))
    kept = typed.filter(~pl.col("line_no").is_in(rejected.get_column("line_no").implode()))
    found = []
    for name in (name for name, column in columns.items() if column.unique):
        key = pl.col(name).cast(pl.Utf8).alias("_key")
        other_line = (
            pl.concat(
                [
                    frame.select("line_no", key)
                    for frame in (rejected, rejected_keys)
                    if name in frame.columns
                ]
            )
            .filter(pl.col("_key").is_not_null())
            .group_by("_key")
            .agg(pl.col("line_no").min().alias("_rejected_line"))
        )
        found.append(
            problem_rows(
                kept.with_columns(key).join(other_line, on="_key"),
                name,
                pl.col(name),
                pl.format(
                    "{} {} is also on line {}, rejected: which of the two rows is right cannot "
                    "be told",
                    pl.lit(name),
                    pl.col(name),
                    pl.col("_rejected_line"),
                ),
            )
        )
    return pl.concat(found) if found else empty_problems()


def tagged(problems: pl.DataFrame, source: CsvInput) -> pl.DataFrame:
    """Problems of one input file, named by it (a registry file has no tournament)."""
    return problems.with_columns(
        pl.lit(source.file.name).alias("file_name"),
        pl.lit(source.file.sha256).alias("file_sha256"),
        pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
    )


def required_columns(model: type) -> list[str]:
    """The columns every row must fill: a header without one of them makes no row usable."""
    columns = model.to_schema().columns  # type: ignore[attr-defined]
    return [name for name, column in columns.items() if name != "line_no" and not column.nullable]


def refusal(source: CsvInput, model: type) -> pl.DataFrame:
    """Why ``source`` is refused as a whole (not UTF-8, a header without the required columns,
    not readable as a CSV), file-tagged; no rows when its rows can be checked one by one."""
    found = refused_file(source.file.content, required_columns(model))
    if found.height == 0 and source.problems.height:
        found = source.problems
    if found.height == 0 and source.rows.height == 0 and source.rejected_lines.height:
        found = source.rejected_lines  # no line left to read
    if found.height == 0 and source.rows.height == 0:
        # a snapshot replaces the registry from its date: without rows it would say that the
        # federation has no players (or no members) from then on
        empty = f"{source.file.name} holds no rows: a snapshot cannot be empty"
        found = problems_frame([problem(empty)])
    return tagged(found, source)


def repeats_read_once(
    typer: Callable[[pl.DataFrame], tuple[pl.DataFrame, pl.DataFrame]],
) -> Callable[[pl.DataFrame], tuple[pl.DataFrame, pl.DataFrame]]:
    """``typer`` on the file's rows with a row written twice, to the letter, read once."""

    def typed(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        once, warnings = repeated_rows_read_once(raw)
        rows, problems = typer(once)
        return rows, pl.concat([problems, warnings])

    return typed


def refused_rows(errors: pl.DataFrame) -> str:
    """What a CSV's errors refuse, as a report names it: the whole file (errors of its header,
    or of no line), else its rows, counted once however many problems a row has (a file
    separated by ';' read as one column gave one error per required column of every row)."""
    rows = errors.filter(pl.col("line_no") > 1).get_column("line_no").n_unique()
    if rows == 0:
        return "the whole file"
    problems = f" ({errors.height} problems)" if errors.height > rows else ""
    return f"{rows} row{'s' if rows > 1 else ''}{problems}"


def problem_text(problem: dict[str, object]) -> str:
    """One problem of a CSV in a line of text: where (its line, else the file), the field and
    the value as written, and why."""
    where = f"line {problem['line_no']}" if problem.get("line_no") is not None else "the file"
    field = f", {problem['field']} {problem['value']!r}" if problem.get("field") else ""
    return f"{where}{field}: {problem['reason']}"
