"""Writes shared by the flows: the raw-file archive and the rejection / warning records."""

from __future__ import annotations

import duckdb
import polars as pl

from flows.inputs import InputFile
from flows.warehouse import execute, read_sql, scalar

PROBLEM_TABLES = {
    "error": ("rejection_record", "rejection_id"),
    "warning": ("ingest_warning", "warning_id"),
}
RECORD_COLUMNS = [
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
    """Store errors as rejections and warnings as warnings; returns (new errors, new warnings).

    ``problems`` has PROBLEM_SCHEMA plus source, file_name, file_sha256 and tournament_id.
    """
    added = []
    for severity, (table, id_column) in PROBLEM_TABLES.items():
        batch = problems.filter(pl.col("severity") == severity).select(RECORD_COLUMNS)
        if batch.height == 0:
            added.append(0)
            continue
        before = int(scalar(con, f"SELECT count(*) FROM {table}"))  # type: ignore[arg-type]
        con.register("_incoming_problems", batch.to_arrow())
        try:
            statement = read_sql("queries/insert_new_problems.sql").format(
                table=table, id_column=id_column
            )
            execute(con, statement, {"run_id": run_id})
        finally:
            con.unregister("_incoming_problems")
        after = int(scalar(con, f"SELECT count(*) FROM {table}"))  # type: ignore[arg-type]
        added.append(after - before)
    return added[0], added[1]
