"""Run reports an analyst can read: plain Markdown, printed and stored as a Prefect artifact."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from flows.ingest import DeliveryOutcome
    from flows.runtime import RunRecord

MAX_LISTED = 25


def _line(problem: dict[str, object]) -> str:
    where = str(problem["file_name"])
    if problem.get("line_no") is not None:
        where += f", line {problem['line_no']}"
    if problem.get("field"):
        where += f", field {problem['field']}"
    value = problem.get("value")
    shown = f" (value: `{value}`)" if value not in (None, "") else ""
    return f"- {where}{shown}: {problem['reason']}"


def ingest_report(run: RunRecord, outcomes: list[DeliveryOutcome]) -> str:
    counts = run.counts
    lines = [
        f"# Ingest run {run.run_id}",
        "",
        f"- deliveries read: {counts['deliveries']}",
        f"- new tournament versions: {counts['tournaments_new_versions']} "
        f"({counts['tournaments_accepted']} accepted, "
        f"{counts['tournaments_quarantined']} quarantined)",
        f"- tournaments unchanged since an earlier ingest: {counts['tournaments_unchanged']}",
        f"- played games in new versions: {counts['games_played']}",
        f"- players not found in the registry (provisional ids): {counts['players_unmatched']}",
        f"- new rejections: {counts['rejections_new']}; new warnings: {counts['warnings_new']}",
    ]
    problem_frames = [
        outcome.manifest_problems.with_columns(
            pl.lit(outcome.delivery.manifest.file.name).alias("file_name"),
            pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
        ).select("file_name", "tournament_id", "line_no", "field", "value", "reason", "severity")
        for outcome in outcomes
    ] + [
        intake.problems.with_columns(pl.lit(intake.tournament_id).alias("tournament_id")).select(
            "file_name", "tournament_id", "line_no", "field", "value", "reason", "severity"
        )
        for outcome in outcomes
        for intake in outcome.intakes
    ]
    problems = pl.concat(problem_frames) if problem_frames else pl.DataFrame()
    quarantined = [
        intake for outcome in outcomes for intake in outcome.intakes if intake.status != "accepted"
    ]
    if quarantined:
        lines += ["", "## Quarantined tournaments (not rated until delivered again)"]
        for intake in quarantined:
            first = intake.errors.row(0, named=True) if intake.errors.height else None
            reason = first["reason"] if first else "the manifest row was rejected"
            lines.append(f"- {intake.tournament_id}: {reason}")
    if problems.height:
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
    return "\n".join(lines) + "\n"
