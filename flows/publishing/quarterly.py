"""Publishing one list date of any system as the quarterly run does: the refusals every
system's list shares, the list computed and written as a revision, and the run's report."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import duckdb

from flows.console import say
from flows.publishing.arguments import OFFICIAL
from flows.publishing.refusals import (
    refuse_an_empty_first_list,
    refuse_imported_dates,
    refuse_stale_lists_before,
)
from flows.publishing.revisions import WrittenList, inputs_checksums, superseded_note
from flows.publishing.staleness import StaleList
from flows.publishing.unrated import fill_receipt_windows
from flows.runtime import RunRecord, publish_markdown
from flows.warehouse import Warehouse, execute, read_sql


def publish_quarterly(
    system: str,
    list_date: date,
    warehouse: str,
    rulebook: Any,
    stale: Callable[[duckdb.DuckDBPyConnection], list[StaleList]],
    publish: Callable[[duckdb.DuckDBPyConnection, RunRecord], WrittenList],
) -> dict[str, int]:
    """Publish the official list of ``system`` at ``list_date`` in one transaction (a new
    revision only if anything changed). ``stale`` finds the system's stale lists; ``publish``
    computes the list and writes it (the system's own engine and report)."""
    run = RunRecord(
        flow="quarterly",
        parameters={"system": system, "list_date": list_date, "rulebook": rulebook.source},
        rulebook_hash=rulebook.content_hash,
    )
    with Warehouse(warehouse).transaction(create=False) as con:
        fill_receipt_windows(con, system, lambda day: rulebook.era_at(day).calendar)
        refuse_imported_dates(con, system, [list_date])
        refuse_stale_lists_before(system, list_date, stale(con))
        refuse_an_empty_first_list(con, system, list_date, rulebook.era_at(list_date).calendar)
        written = publish(con, run)
        stored = execute(
            con,
            read_sql("queries/lists/revision_report.sql"),
            {
                "system": system,
                "scenario": OFFICIAL,
                "list_date": list_date,
                "revision": written.revision,
            },
        )[0][0]
        report = superseded_note(con, run, written) + str(stored)
        if not written.published.rows.get_column("in_ranking").any():
            report = (
                f"WARNING: nobody is in the national ranking of this list "
                f"({written.published.rows.height} players, none both active and a member): "
                "is the registry loaded, with its memberships?\n\n" + report
            )
        run.input_checksums = inputs_checksums([written])
        run.counts = {
            "revision": written.revision,
            "new_revision": int(written.written),
            "players": written.published.rows.height,
            "in_ranking": int(written.published.rows.get_column("in_ranking").sum()),
        }
        run.write(con, "succeeded", report)
    publish_markdown(report, key=f"{system.replace('_', '-')}-list")
    say(report)
    return run.counts
