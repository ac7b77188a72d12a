"""Sections every run report shares (rejections and warnings, biggest moves): plain Markdown,
printed and stored as a Prefect artifact."""

from __future__ import annotations

import polars as pl

MAX_LISTED = 25
TOP_MOVES = 5  # players listed among the biggest gains, and among the losses


def _line(problem: dict[str, object]) -> str:
    where = str(problem["file_name"])
    if problem.get("line_no") is not None:
        where += f", line {problem['line_no']}"
    if problem.get("field"):
        where += f", field {problem['field']}"
    value = problem.get("value")
    shown = f" (value: `{value}`)" if value not in (None, "") else ""
    return f"- {where}{shown}: {problem['reason']}"


def problems_section(problems: pl.DataFrame) -> str:
    """The rejections (every one, up to MAX_LISTED, then a pointer to the view) and the first
    warnings of a run, as report sections; ``problems`` holds the rows of
    ``sql/queries/run_problems.sql``."""
    lines: list[str] = []
    errors = problems.filter(pl.col("severity") == "error")
    if errors.height:
        lines += ["", f"## Rejections ({errors.height})"]
        lines += [_line(row) for row in errors.head(MAX_LISTED).iter_rows(named=True)]
        if errors.height > MAX_LISTED:
            lines.append(f"- … and {errors.height - MAX_LISTED} more in the `rejection` view")
    warnings = problems.filter(pl.col("severity") == "warning")
    if warnings.height:
        lines += ["", f"## Warnings ({warnings.height}, first {MAX_LISTED})"]
        lines += [_line(row) for row in warnings.head(MAX_LISTED).iter_rows(named=True)]
    return "\n".join(lines) + "\n" if lines else ""


def _players_line(frame: pl.DataFrame, column: str) -> list[str]:
    return [
        f"| {row['name'] or row['player_id']} | {row['player_id']} | {row['previous_rating']} "
        f"| {row['rating']} | {row[column]:+d} |"
        for row in frame.iter_rows(named=True)
    ]


def moves_sections(gains: pl.DataFrame, losses: pl.DataFrame) -> list[str]:
    """A list's biggest gains and losses as report tables (player_id, name, frozen_rating,
    rating, change)."""
    lines: list[str] = []
    for title, top in (("Biggest gains", gains), ("Biggest losses", losses)):
        if top.height:
            lines += [
                "",
                f"## {title}",
                "",
                "| player | id | before | after | change |",
                "|---|---|---|---|---|",
            ]
            before = top.select(
                "player_id",
                "name",
                pl.col("frozen_rating").alias("previous_rating"),
                "rating",
                "change",
            )
            lines += _players_line(before, "change")
    return lines
