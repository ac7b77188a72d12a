"""Sections every run report shares (rejections and warnings, biggest moves): plain Markdown,
printed and stored as a Prefect artifact."""

from __future__ import annotations

import polars as pl

from flows.console import counted

MAX_LISTED = 25
TOP_MOVES = 5  # players listed among the biggest gains, and among the losses


def quarantine_reason(reasons: list[str]) -> str | None:
    """The reason a quarantined tournament is shown with, from what its check found wrong in
    the order of the input (its manifest or listing row, then its file line by line; for a
    TRF, a cut that explains the rest first): the first, and how many more there are. None
    when nothing was found."""
    if not reasons:
        return None
    more = len(reasons) - 1
    return reasons[0] + (f"; and {counted(more, 'more rejection')}" if more else "")


def _line(problem: dict[str, object]) -> str:
    where = str(problem["file_name"])
    if problem.get("line_no") is not None:
        where += f", line {problem['line_no']}"
    if problem.get("field"):
        where += f", field {problem['field']}"
    value = problem.get("value")
    shown = f" (value: `{value}`)" if value not in (None, "") else ""
    return f"- {where}{shown}: {problem['reason']}"


# what identifies a problem among a run's (its value aside)
PROBLEM_KEY = ["file_name", "tournament_id", "line_no", "field", "reason"]


def problems_section(problems: pl.DataFrame, new: pl.DataFrame | None = None) -> str:
    """The rejections (every one, up to MAX_LISTED, then a pointer to the view) and the
    warnings of a run (up to MAX_LISTED, then a pointer), as report sections; ``problems``
    holds the rows of ``sql/queries/run_problems.sql``. Where a run read problems that earlier
    runs recorded already, ``new`` holds those it recorded itself: its warnings are listed
    first, so that a new one (a version moved to another period, a manifest value used) is
    not cut off behind warnings the analyst has seen before."""
    lines: list[str] = []
    errors = problems.filter(pl.col("severity") == "error")
    if errors.height:
        lines += ["", f"## Rejections ({errors.height})"]
        lines += [_line(row) for row in errors.head(MAX_LISTED).iter_rows(named=True)]
        if errors.height > MAX_LISTED:
            lines.append(f"- … and {errors.height - MAX_LISTED} more in the `rejection` view")
    warnings = problems.filter(pl.col("severity") == "warning")
    if warnings.height:
        cut = warnings.height > MAX_LISTED
        order = (
            "new ones first, then whole-file ones" if new is not None else ("whole-file ones first")
        )
        lines += [
            "",
            f"## Warnings ({warnings.height}{f', first {MAX_LISTED}: {order}' if cut else ''})",
        ]
        shown = _worth_reading_first(warnings, new).head(MAX_LISTED)
        lines += [_line(row) for row in shown.iter_rows(named=True)]
        if cut:
            lines.append(
                f"- … and {warnings.height - MAX_LISTED} more: `graduatoria problems`, or the "
                "`input_warning` view"
            )
    return "\n".join(lines) + "\n" if lines else ""


def _worth_reading_first(warnings: pl.DataFrame, new: pl.DataFrame | None) -> pl.DataFrame:
    """``warnings`` with those ``new`` holds first (when given), then those of a whole
    tournament or manifest row (no line) before those of one line; otherwise as they come."""
    ranked = warnings.with_row_index("_read")
    if new is None:
        ranked = ranked.with_columns(pl.lit(None, dtype=pl.Boolean).alias("_new"))
    else:
        recorded = new.select(PROBLEM_KEY).unique().cast(ranked.select(PROBLEM_KEY).schema)
        ranked = ranked.join(
            recorded.with_columns(pl.lit(True).alias("_new")),
            on=PROBLEM_KEY,
            how="left",
            nulls_equal=True,
        )
    order = [pl.col("_new").is_null(), pl.col("line_no").is_not_null(), "_read"]
    return ranked.sort(order).drop("_read", "_new")


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
