"""What the warehouse forbids a list to be computed for, whatever the system: a list imported
as the federation published it, a first list with nothing to list, a list after a stale one, a
scenario on another rulebook, an import after computed lists."""

from __future__ import annotations

from datetime import date
from typing import Any

import duckdb
import polars as pl

from flows.publishing.arguments import OFFICIAL, ListError, refuse_an_open_window
from flows.publishing.context import (
    first_receipt,
    read_previous,
    refuse_a_first_list_leaving_out,
    refuse_a_missing_predecessor,
)
from flows.publishing.staleness import StaleList
from flows.warehouse import execute, query_frame, read_sql, scalar
from transforms.lists.eras import Calendar
from transforms.lists.periods import is_list_date


def refuse_imported_dates(con: duckdb.DuckDBPyConnection, system: str, dates: list[date]) -> None:
    """A list the federation published and the warehouse imported (the opening list,
    typically) cannot be computed: it holds what no history does, and computed from nothing it
    would replace every player's rating. Nor can an official list before the first imported
    one: the system's lists start from it."""
    imported = [
        day
        for day, source in query_frame(
            con,
            read_sql("queries/lists/current_revisions.sql"),
            {"system": system, "scenario": OFFICIAL},
        )
        .select("list_date", "source")
        .rows()
        if source == "imported"
    ]
    if imported and dates[0] < imported[0]:
        raise ListError(
            f"the {system} lists start from the list of {imported[0]}, imported as the "
            f"federation published it: a list before it ({dates[0]}) cannot be computed"
        )
    inside = [day for day in imported if dates[0] <= day <= dates[-1]]
    if inside:
        after = [day for day in dates if day > inside[-1]]
        start_after = f"--from {after[0]}" if after else "a later date"
        raise ListError(
            f"the {system} list of {inside[-1]} was imported as the federation published it: "
            f"it cannot be computed; start from the list after it ({start_after})"
        )


def refuse_a_range(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, dates: list[date], rulebook: Any
) -> None:
    """What refuses a replay of ``dates`` (in order) before it computes a list: a last date
    whose receipt window is still open, an imported list among them or after them, a scenario
    that would build on its lists of another rulebook, a first date whose previous list is not
    published. Read-only: a replay asks it on a read-only session before it takes the
    standby, and again in its transaction."""
    refuse_an_open_window(system, rulebook.era_at(dates[-1]).calendar, dates[-1])
    refuse_imported_dates(con, system, dates)
    refuse_a_scenario_on_another_rulebook(con, system, scenario, dates[0], rulebook)
    refuse_a_missing_predecessor(
        con, system, scenario, dates[0], rulebook.era_at(dates[0]).calendar
    )


def refuse_a_first_list(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date, calendar: Calendar
) -> None:
    """Refuse to publish a system's first list while the system has no tournament at all (an
    empty list would stand as the system's start, and the federation's list could no longer
    be imported at its date), or whose window leaves out tournaments received before it (as
    the list's context does, here on a read-only session: a refused run takes no standby).
    A replay of a list published before stays possible."""
    if not is_list_date(calendar, list_date):
        return  # the list's context refuses it, saying why
    key = {"system": system, "scenario": OFFICIAL, "list_date": list_date}
    if read_previous(con, system, OFFICIAL, list_date).list_date is not None or execute(
        con, read_sql("queries/lists/current_revision.sql"), key
    ):
        return  # not the first list, or one published before
    if not scalar(con, read_sql("queries/lists/tournaments_received.sql"), {"system": system}):
        raise ListError(
            f"no {system} list precedes {list_date} and no {system} tournament has been "
            f"received: nothing to list. Import the federation's list of {list_date} "
            "(graduatoria import-list), or ingest its tournaments first"
        )
    refuse_a_first_list_leaving_out(system, calendar, list_date, first_receipt(con, system))


def refuse_a_scenario_on_another_rulebook(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, first: date, rulebook: Any
) -> None:
    """A scenario replayed from ``first`` builds on its own list before it: refuse when that
    list was computed under another rulebook, or the scenario would mix two sets of rules
    without a word (an edited what-if rulebook, or another file under the same name)."""
    if scenario == OFFICIAL:
        return  # the official lists follow the system's rulebook: a change makes them stale
    before = execute(
        con,
        read_sql("queries/lists/scenario_list_before.sql"),
        {"system": system, "scenario": scenario, "list_date": first},
    )
    if before and before[0][1] != rulebook.content_hash:
        list_date, _, scenario_start = before[0]
        raise ListError(
            f"scenario {scenario}'s list of {list_date}, which a replay from {first} builds on, "
            f"was computed under another rulebook than {rulebook.source}: replay the scenario "
            f"from its first list date ({scenario_start}), or name a new scenario"
        )


def refuse_stale_lists_before(system: str, list_date: date, stale: list[StaleList]) -> None:
    """A list is built on the one before: refuse it while an earlier list of the system is
    stale (a late or corrected tournament, a merge), or it would carry that list's error on
    (``stale``: the system's stale lists, as its own flows find them)."""
    earlier = [item for item in stale if item.list_date < list_date]
    if earlier:
        first = earlier[0]
        raise ListError(
            f"the {system} list of {first.list_date} is stale ({first.reason})"
            + (f", and {len(earlier) - 1} more after it" if len(earlier) > 1 else "")
            + f": replay {'it' if len(earlier) == 1 else 'them'} first with `graduatoria "
            f"recalculate --system {system} --stale`, then publish the list of {list_date}"
        )


def refuse_an_import_after_computed_lists(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date
) -> None:
    """An imported list starts a system: it cannot follow lists computed from nothing, which
    would then stand before the system's first list, stale and never to be replayed."""
    earlier = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": OFFICIAL},
    ).filter(pl.col("list_date") < list_date)
    if earlier.height and earlier.get_column("source")[0] == "computed":
        first, last = earlier.get_column("list_date")[0], earlier.get_column("list_date")[-1]
        raise ListError(
            f"the {system} lists of {first} … {last} were computed before {list_date}: an "
            "imported list starts a system, so import the federation's list of a date before "
            f"{first} (the lists after it then show as stale, and a replay rebuilds them)"
        )
