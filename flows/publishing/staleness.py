"""Which published lists are stale, whatever the system: their inputs or rulebook changed since
they were written, or the list they were computed from was replaced (each system says what its
lists read, as a fingerprint)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import duckdb

from flows.console import counted
from flows.publishing.arguments import OFFICIAL
from flows.warehouse import execute, query_frame, read_sql
from transforms.lists.notes import first_named
from transforms.lists.periods import receipt_window

# What a list of a system would be computed from, now (connection, system, rulebook, list date):
# each system reads its own inputs (flows.elo.periods, flows.rubele.lists)
Fingerprint = Callable[[duckdb.DuckDBPyConnection, str, Any, date], str]


@dataclass(frozen=True)
class StaleList:
    list_date: date
    reason: str


def stale_lists(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Any,  # any system's rulebook: era_at, content_hash
    fingerprint: Fingerprint,
) -> list[StaleList]:
    """Official lists whose inputs or rulebook changed since written, or computed from a
    revision of the list before that is no longer in force, and every later one up to the next
    imported list (``fingerprint`` says what a list would read now)."""
    current = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": OFFICIAL},
    )
    in_force = dict(current.select("list_date", "revision").rows())
    stale: list[StaleList] = []
    before: date | None = None  # the list in force before this one
    for row in current.iter_rows(named=True):
        list_date, source = row["list_date"], row["source"]
        before, list_before = list_date, before
        if source == "imported":
            if stale:
                break  # an imported list is a given: the lists after it follow it, not these
            continue  # nor is it a computation to check
        if stale:
            stale.append(StaleList(list_date, f"follows the stale list of {stale[0].list_date}"))
            continue
        previous = row["previous_list_date"]
        if previous != list_before:
            # published before the list that now precedes it (a first list from nothing)
            stale.append(
                StaleList(
                    list_date,
                    f"it was computed from {f'the list of {previous}' if previous else 'no list'}"
                    f", but the list of {list_before} now precedes it",
                )
            )
        elif previous in in_force and in_force[previous] != row["previous_revision"]:
            stale.append(
                StaleList(
                    list_date,
                    f"it was computed from revision {row['previous_revision']} of the list of "
                    f"{previous}, which revision {in_force[previous]} has replaced",
                )
            )
        elif fingerprint(con, system, rulebook, list_date) != row["inputs_hash"]:
            changed = _inputs_changed_since(con, system, rulebook, list_date, row["created_at"])
            stale.append(StaleList(list_date, f"its inputs changed since it was written{changed}"))
        elif row["rulebook_hash"] != rulebook.content_hash:
            stale.append(StaleList(list_date, "the rulebook changed since it was written"))
    return stale


# tournaments named in a stale list's reason, at most
NAMED_CHANGES = 5


def _inputs_changed_since(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Any,  # any system's rulebook: era_at, content_hash
    list_date: date,
    written_at: datetime,
) -> str:
    """What the status can name of the inputs a stale list gained: the tournaments with a new
    version, the merges of their players and the registry snapshots loaded since it was
    written ("" when none: the list another system's newcomers read changed, say)."""
    _, up_to = receipt_window(rulebook.era_at(list_date).calendar, list_date)
    tournaments, new_tournaments, merges, snapshots = execute(
        con,
        read_sql("queries/lists/inputs_changed_since.sql"),
        {"system": system, "written_at": written_at, "up_to": up_to, "list_date": list_date},
    )[0]
    named = [
        f"{what} {first_named(ids, NAMED_CHANGES)}"
        for what, ids in (("new versions of", tournaments), ("new tournaments", new_tournaments))
        if ids
    ]
    if merges:
        named.append(f"{counted(merges, 'merge')} recorded")
    if snapshots:
        dates = ", ".join(str(day) for day in snapshots)
        named.append(f"the registry snapshot{'s' if len(snapshots) > 1 else ''} of {dates} loaded")
    return f": {', '.join(named)}" if named else ""
