"""Which published lists are stale, whatever the system: their inputs or rulebook changed since
they were written, or the list they were computed from was replaced (each system says what its
lists read, as a fingerprint)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import duckdb
import polars as pl

from flows.console import counted
from flows.publishing.arguments import OFFICIAL
from flows.warehouse import execute, query_frame, read_sql
from schemas.vocabulary import ALL_SYSTEMS
from transforms.lists.notes import first_named
from transforms.lists.periods import is_list_date, receipt_window

# What the lists of a system at some dates would be computed from, now (connection, system,
# rulebook, list dates -> the fingerprint of each): each system reads its own inputs
# (flows.elo.periods, flows.rubele.periods), every date in one query
Fingerprints = Callable[[duckdb.DuckDBPyConnection, str, Any, Sequence[date]], Mapping[date, str]]


@dataclass(frozen=True)
class StaleList:
    list_date: date
    reason: str


def stale_lists(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Any,  # any system's rulebook: era_at, content_hash
    fingerprints: Fingerprints,
) -> list[StaleList]:
    """Official lists whose inputs or rulebook changed since written, or computed from a
    revision of the list before that is no longer in force, and every later one up to the next
    imported list (``fingerprints`` says what lists would read now)."""
    current = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": OFFICIAL},
    )
    in_force = dict(current.select("list_date", "revision").rows())
    fingerprint = _fingerprint_now(con, system, rulebook, fingerprints, current)
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
        elif fingerprint(list_date) != row["inputs_hash"]:
            changed = _inputs_changed_since(con, system, rulebook, list_date, row["created_at"])
            stale.append(StaleList(list_date, f"its inputs changed since it was written{changed}"))
        elif row["rulebook_hash"] != rulebook.content_hash:
            stale.append(StaleList(list_date, "the rulebook changed since it was written"))
    return stale


def _fingerprint_now(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Any,
    fingerprints: Fingerprints,
    current: pl.DataFrame,
) -> Callable[[date], str]:
    """What each computed list would read now, its fingerprint read with every other one's in
    one query: one query per list cost 53 ms at national scale (91 lists: 4.5 s of every
    status), all of them 0.05 s.

    Only the dates the rulebook still places on its calendar (an era in force, a list date of
    it) are read at once; a list it no longer places is read alone when the check reaches it,
    failing the check there, as when every list was read alone (the check stops at the first
    stale list, so it may never reach it)."""
    placed = [
        list_date
        for list_date, source in current.select("list_date", "source").rows()
        if source != "imported" and _placed(rulebook, list_date)
    ]
    now = fingerprints(con, system, rulebook, placed) if placed else {}

    def fingerprint(list_date: date) -> str:
        if list_date in now:
            return now[list_date]
        return fingerprints(con, system, rulebook, [list_date])[list_date]

    return fingerprint


def _placed(rulebook: Any, list_date: date) -> bool:
    try:
        return is_list_date(rulebook.era_at(list_date).calendar, list_date)
    except ValueError:  # no era in force on that date (a RulebookError)
        return False


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
    version (those it knew whose new version is quarantined, or of another system, apart), the
    merges of their players, the registry snapshots loaded since it was written, and a new
    revision of another system's list it reads (Elo Rapid's newcomers enter with their Elo
    Italia rating); "" when none of these."""
    era = rulebook.era_at(list_date)
    _, up_to = receipt_window(era.calendar, list_date)
    # the other systems' lists it reads: a newcomer's entry from another list (Elo Rapid's)
    read_systems = [
        source for source in getattr(era, "entry_precedence", ()) if source in ALL_SYSTEMS
    ]
    (
        tournaments,
        withdrawn,
        quarantined,
        moved,
        new_tournaments,
        merges,
        snapshots,
        read_lists,
    ) = execute(
        con,
        read_sql("queries/lists/inputs_changed_since.sql"),
        {
            "system": system,
            "written_at": written_at,
            "up_to": up_to,
            "list_date": list_date,
            "read_systems": read_systems,
        },
    )[0]
    named = [
        f"{what} {first_named(ids, NAMED_CHANGES)}"
        for what, ids in (
            ("new versions of", tournaments),
            ("withdrawn:", withdrawn),
            # a rated tournament whose new version cannot be rated: the replay drops it
            ("now quarantined (a replay takes it out until it is delivered again):", quarantined),
            ("moved to another system:", moved),
            ("new tournaments", new_tournaments),
        )
        if ids
    ]
    if merges:
        named.append(f"{counted(merges, 'merge')} recorded")
    if snapshots:
        dates = ", ".join(str(day) for day in snapshots)
        named.append(f"the registry snapshot{'s' if len(snapshots) > 1 else ''} of {dates} loaded")
    if read_lists:
        lists = first_named(sorted(read_lists), NAMED_CHANGES)
        plural = "s" if len(read_lists) > 1 else ""
        named.append(f"a new revision of the list{plural} it reads: {lists}")
    return f": {', '.join(named)}" if named else ""
