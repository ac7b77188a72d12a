"""Tournaments no list will rate: accepted, but received before their system's first list takes
tournaments (view ``unrated_tournament``), and those an ingest quarantined. Each list revision
keeps the receipt window it rates; revisions written before the window was kept get it from
their system's calendar."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import duckdb
import polars as pl

from flows.warehouse import execute, has_relation, query_frame, read_sql
from transforms.lists.eras import Calendar
from transforms.lists.periods import receipt_window


def has_windowless_revisions(con: duckdb.DuckDBPyConnection, system: str) -> bool:
    """Whether revisions of ``system`` were written without a receipt window (by a version
    before the windows): a write gives them theirs first (:func:`fill_receipt_windows`)."""
    return bool(execute(con, read_sql("queries/lists/windowless_dates.sql"), {"system": system}))


def fill_receipt_windows(
    con: duckdb.DuckDBPyConnection, system: str, calendar_at: Callable[[date], Calendar]
) -> int:
    """Give the revisions of ``system`` written without a receipt window theirs (one update per
    list date: a system has a few dozen); returns how many list dates were filled."""
    missing = execute(con, read_sql("queries/lists/windowless_dates.sql"), {"system": system})
    for (list_date,) in missing:
        after, up_to = receipt_window(calendar_at(list_date), list_date)
        execute(
            con,
            read_sql("queries/lists/fill_receipt_window.sql"),
            {"system": system, "list_date": list_date, "after": after, "up_to": up_to},
        )
    return len(missing)


def unrated_tournaments(con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> pl.DataFrame:
    """The rows of ``unrated_tournament`` (of the versions ``run_id`` wrote, when given); none
    in a warehouse no write has upgraded yet (its lists do not keep their windows)."""
    if not has_relation(con, "unrated_tournament"):
        return pl.DataFrame(
            schema={
                "system": pl.Utf8,
                "tournament_id": pl.Utf8,
                "version": pl.Int32,
                "received_on": pl.Date,
                "delivery": pl.Utf8,
                "first_list_date": pl.Date,
                "reason": pl.Utf8,
            }
        )
    return query_frame(con, read_sql("queries/unrated_tournaments.sql"), {"run_id": run_id})


def unrated_section(unrated: pl.DataFrame, shown: int) -> list[str]:
    """Report lines naming the tournaments no list will rate, with why."""
    if unrated.height == 0:
        return []
    lines = ["", f"## Tournaments no list will rate ({unrated.height})"]
    lines += [
        f"- {tournament_id} ({system}): {reason}"
        for system, tournament_id, reason in unrated.head(shown)
        .select("system", "tournament_id", "reason")
        .rows()
    ]
    if unrated.height > shown:
        lines.append(f"- … and {unrated.height - shown} more in the `unrated_tournament` view")
    return lines


def quarantined_section(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """Report lines naming the tournaments an ingest quarantined, with why, and a warning on
    each that the lists rated before: its new version takes it out of them at their next
    replay (``recalculate --stale``), though only one line of it may be wrong."""
    quarantined = query_frame(con, read_sql("queries/quarantined_by_run.sql"), {"run_id": run_id})
    if quarantined.height == 0:
        return []
    lines = ["", "## Quarantined tournaments (not rated until delivered again)"]
    for tournament_id, system, reason, rated_in in quarantined.select(
        "tournament_id", "system", "reason", "rated_in"
    ).rows():
        line = f"- {tournament_id}: {reason or 'the manifest row was rejected'}"
        if rated_in:
            dates = ", ".join(str(day) for day in rated_in)
            line += (
                f" — WARNING: {system} lists rate an earlier version of it ({dates}): the "
                "next `graduatoria recalculate --stale` takes it out of them; deliver a "
                "corrected file first (or withdraw it, to take it out on purpose)"
            )
        lines.append(line)
    return lines
