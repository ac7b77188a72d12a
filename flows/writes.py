"""Writes shared by the flows: the raw-file archive and the rejection / warning records."""

from __future__ import annotations

import duckdb
import polars as pl

from flows.inputs import InputFile
from flows.warehouse import execute, read_sql

RECORD_COLUMNS = [
    "severity",
    "source",
    "file_name",
    "file_sha256",
    "line_no",
    "field",
    "value",
    "reason",
    "tournament_id",
]


def archive_files(
    con: duckdb.DuckDBPyConnection, run_id: str, files: list[tuple[InputFile, str]]
) -> int:
    """Keep every raw input by checksum; a file already archived is not stored again."""
    added = 0
    for file, kind in files:
        if execute(con, "SELECT 1 FROM raw_file WHERE sha256 = ?", [file.sha256]):
            continue
        execute(
            con,
            "INSERT INTO raw_file VALUES (?, ?, ?, ?, ?, ?, current_timestamp)",
            [file.sha256, file.name, kind, len(file.content), file.content, run_id],
        )
        added += 1
    return added


def record_problems(
    con: duckdb.DuckDBPyConnection, run_id: str, problems: pl.DataFrame
) -> tuple[int, int]:
    """Store problems not seen before; returns (new errors, new warnings).

    ``problems`` has PROBLEM_SCHEMA plus source, file_name, file_sha256 and tournament_id.
    """
    if problems.height == 0:
        return 0, 0
    count_by_severity = "SELECT severity, count(*) FROM input_problem GROUP BY severity"
    before = dict(execute(con, count_by_severity))
    con.register("_incoming_problems", problems.select(RECORD_COLUMNS).to_arrow())
    try:
        execute(con, read_sql("queries/insert_new_problems.sql"), {"run_id": run_id})
    finally:
        con.unregister("_incoming_problems")
    after = dict(execute(con, count_by_severity))
    return tuple(  # type: ignore[return-value]
        after.get(severity, 0) - before.get(severity, 0) for severity in ("error", "warning")
    )
