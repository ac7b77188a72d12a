"""Publishing one list date of any system as the quarterly run does: the refusals every
system's list shares, the list computed and written as a revision, and the run's report.

A list that is current (:mod:`flows.publishing.current`) is not computed again: the run finds
that out on a read-only session, before it copies the warehouse, and writes only its record."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import duckdb

from flows.console import say
from flows.publishing.arguments import (
    OFFICIAL,
    ListError,
    refuse_a_day_off_the_calendar,
)
from flows.publishing.current import (
    CurrentList,
    current_lists,
    list_checksums,
    read_only_verdict,
)
from flows.publishing.refusals import (
    refuse_a_first_list,
    refuse_a_range,
    refuse_stale_lists_before,
)
from flows.publishing.revisions import WrittenList, inputs_checksums, superseded_note
from flows.publishing.staleness import StaleList
from flows.publishing.unrated import fill_receipt_windows, has_windowless_revisions
from flows.runtime import RunRecord, publish_markdown
from flows.warehouse import Warehouse, execute, read_sql

Stale = Callable[[duckdb.DuckDBPyConnection], list[StaleList]]


def publish_quarterly(
    system: str,
    list_date: date,
    warehouse: str,
    rulebook: Any,
    stale: Stale,
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

    def unchanged(con: duckdb.DuckDBPyConnection) -> CurrentList | None:
        return unchanged_list(con, system, list_date, rulebook, stale)

    def refused_or_unchanged(con: duckdb.DuckDBPyConnection) -> CurrentList | None:
        # what the transaction would refuse is refused here, before the run takes the standby
        # or a copy of the warehouse (a run that fails in its transaction drops the standby it
        # took, and its record then costs a copy): the transaction refuses it again, should
        # the read-only session not be possible. Revisions without a receipt window (written
        # by an earlier version) get theirs in the transaction first, and the stale lists may
        # depend on them: until then they are not asked here.
        found = None if has_windowless_revisions(con, system) else stale(con)
        refuse_a_quarterly(con, system, list_date, rulebook, found)
        return None if found is None else current_list(con, system, list_date, rulebook, found)

    current = read_only_verdict(warehouse, refused_or_unchanged)
    with Warehouse(warehouse).transaction(create=False) as con:
        if current is not None:
            # checked again under the writer lock, which the read-only session did not hold:
            # a run that wrote in between (an ingest) may have changed what the list reads
            current = unchanged(con)
        if current is not None:
            report = record_unchanged_list(con, run, system, current)
        else:
            report = _publish(con, run, system, list_date, rulebook, stale, publish)
    publish_markdown(report, key=f"{system.replace('_', '-')}-list")
    say(report)
    return run.counts


def _publish(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    list_date: date,
    rulebook: Any,
    stale: Stale,
    publish: Callable[[duckdb.DuckDBPyConnection, RunRecord], WrittenList],
) -> str:
    """Refuse what no list may be computed for, compute the list and write it: the report."""
    fill_receipt_windows(con, system, lambda day: rulebook.era_at(day).calendar)
    refuse_a_quarterly(con, system, list_date, rulebook, stale(con))
    written = publish(con, run)
    stored = _stored_report(con, system, list_date, written.revision)
    report = superseded_note(con, run, written) + stored
    rows = written.published.rows
    report = _nobody_ranked(rows.height) + report if not rows["in_ranking"].any() else report
    run.input_checksums = inputs_checksums([written.context])
    run.counts = {
        "revision": written.revision,
        "new_revision": int(written.written),
        "players": rows.height,
        "in_ranking": int(rows.get_column("in_ranking").sum()),
    }
    run.write(con, "succeeded", report)
    return report


def refuse_a_quarterly(
    con: duckdb.DuckDBPyConnection,
    system: str,
    list_date: date,
    rulebook: Any,
    stale: list[StaleList] | None,
) -> None:
    """What refuses a quarterly run before it computes its list: a day off the calendar, a
    receipt window still open, an imported list date or a missing previous list (these three
    :func:`refuse_a_range`), a stale list before it (``stale``: the system's stale lists; None
    where they cannot be told yet, see :func:`has_windowless_revisions`), a first list with
    nothing to list or leaving out earlier tournaments. Reads only: the run asks it on a
    read-only session, and again in its transaction."""
    calendar = rulebook.era_at(list_date).calendar
    refuse_a_day_off_the_calendar(system, calendar, list_date)
    refuse_a_range(con, system, OFFICIAL, [list_date], rulebook)
    if stale is not None:
        refuse_stale_lists_before(system, list_date, stale)
    refuse_a_first_list(con, system, list_date, calendar)


def unchanged_list(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date, rulebook: Any, stale: Stale
) -> CurrentList | None:
    """The list of ``list_date`` when a quarterly run would leave it as it is and refuse
    nothing (None: the run computes it, or refuses, saying why). Reads only: a read-only
    session will do."""
    if has_windowless_revisions(con, system):
        return None  # the run gives the revisions written before receipt windows theirs
    found = stale(con)
    try:
        refuse_a_quarterly(con, system, list_date, rulebook, found)
    except (ListError, ValueError):  # a refusal (or no era in force): the run says it
        return None
    return current_list(con, system, list_date, rulebook, found)


def current_list(
    con: duckdb.DuckDBPyConnection,
    system: str,
    list_date: date,
    rulebook: Any,
    stale: list[StaleList],
) -> CurrentList | None:
    """The official list of ``list_date`` when it is current (``stale``: the system's stale
    lists), for a run that refuses nothing."""
    lists = current_lists(con, system, rulebook, [list_date], stale)
    return lists[0] if lists else None


def record_unchanged_list(
    con: duckdb.DuckDBPyConnection, run: RunRecord, system: str, current: CurrentList
) -> str:
    """The report, counts and run record of a quarterly run whose list is current, as a run
    that computed it again and found it unchanged gives them, read from the revision in
    force."""
    players, in_ranking = execute(
        con,
        read_sql("queries/lists/revision_counts.sql"),
        {
            "system": system,
            "scenario": OFFICIAL,
            "list_date": current.list_date,
            "revision": current.revision,
        },
    )[0]
    report = (
        f"Unchanged: revision {current.revision} already holds this list.\n\n"
        + _stored_report(con, system, current.list_date, current.revision)
    )
    report = _nobody_ranked(players) + report if not in_ranking else report
    run.input_checksums = list_checksums(system, [(current.list_date, current.inputs_hash)])
    run.counts = {
        "revision": current.revision,
        "new_revision": 0,
        "players": players,
        "in_ranking": in_ranking,
    }
    run.write(con, "succeeded", report)
    return report


def _stored_report(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date, revision: int
) -> str:
    key = {"system": system, "scenario": OFFICIAL, "list_date": list_date, "revision": revision}
    return str(execute(con, read_sql("queries/lists/revision_report.sql"), key)[0][0])


def _nobody_ranked(players: int) -> str:
    return (
        f"WARNING: nobody is in the national ranking of this list ({players} players, none "
        "both active and a member): is the registry loaded, with its memberships?\n\n"
    )
