"""``graduatoria status``: what the warehouse holds, read like a dashboard would (read-only)."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from flows.console import counted
from flows.publishing.staleness import StaleList
from flows.publishing.unrated import unrated_tournaments
from flows.systems import SYSTEMS, rating_system
from flows.warehouse import Standby, Warehouse, query_frame, read_sql


def status_text(warehouse: str) -> str:
    with Warehouse(warehouse).reader() as con:
        facts = query_frame(con, read_sql("queries/status.sql"))
        by_system = query_frame(con, read_sql("queries/tournaments_by_system.sql"))
        unrated = unrated_tournaments(con)
    width = max(len(what) for what in facts.get_column("what").to_list())
    lines = [f"Warehouse: {Warehouse(warehouse).path}", ""]
    lines += [f"  {what:<{width}}  {count:>9,}" for what, count in facts.rows()]
    lines += ["", "Tournaments by system:"]
    named = max((len(system or "(none)") for system in by_system.get_column("system")), default=0)
    for system, status, tournaments, entries, games, first, last in by_system.rows():
        lines.append(
            f"  {system or '(none)':<{named}} {status:<12} {tournaments:>5} tournaments "
            f"{entries or 0:>7,} entries {games or 0:>8,} played games  received {first} .. {last}"
        )
    if unrated.height:
        lines += ["", f"Tournaments no list will rate ({unrated.height}; view unrated_tournament):"]
        lines += [
            f"  {tournament_id} ({system}): {reason}"
            for system, tournament_id, reason in unrated.head(UNRATED_SHOWN)
            .select("system", "tournament_id", "reason")
            .rows()
        ]
        if unrated.height > UNRATED_SHOWN:
            lines.append(f"  … and {unrated.height - UNRATED_SHOWN} more")
    lines += ["", "Lists:", *_list_lines(warehouse)]
    lines += ["", "Writes:", _next_write(Warehouse(warehouse).path)]
    return "\n".join(lines)


def _next_write(live: Path) -> str:
    """Where the next run will write: in the standby, or in a copy of the warehouse, and why
    (docs/OPERATIONS.md, "The standby")."""
    standby = Standby(live)
    try:
        why_not = standby.untrusted(os.stat(live))
        size = os.stat(live if why_not else standby.path).st_size / 2**20
    except OSError as error:  # a run took the standby or swapped the file meanwhile
        return f"  not known now ({error.strerror}: {error.filename}): a run is writing"
    if why_not is None:
        return (
            f"  the next run writes in the standby {standby.path.name} ({size:,.0f} MB beside "
            "the warehouse), brought up to date with the last run's changes"
        )
    return f"  the next run copies the warehouse ({size:,.0f} MB): {why_not}"


# tournaments no list will rate that status names one by one
UNRATED_SHOWN = 10


def stale_of(con: duckdb.DuckDBPyConnection, system: str) -> list[StaleList]:
    """The official lists of ``system`` that a replay under its rulebook would change."""
    return rating_system(system).stale_lists(con)


def published_systems(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Systems with official lists, in the order a cascade replays them (Elo Italia before
    Elo Rapid, whose newcomers read it), each with its number of list dates."""
    published = dict(query_frame(con, read_sql("queries/published_systems.sql")).rows())
    return {system: published[system] for system in SYSTEMS if system in published}


def _list_lines(warehouse: str) -> list[str]:
    lines = []
    with Warehouse(warehouse).reader() as con:
        for system, list_dates in published_systems(con).items():
            stale = stale_of(con, system)
            lines.append(
                f"  {system}: {counted(list_dates, 'list date')} published, {len(stale)} stale"
            )
            lines += [f"    stale {item.list_date}: {item.reason}" for item in stale]
        scenarios = query_frame(con, read_sql("queries/status_scenarios.sql"))
    lines = lines or ["  none published yet"]
    if scenarios.height:
        lines += ["", "What-if scenarios (beside the official lists; not checked for staleness):"]
        lines += [
            f"  {system} {scenario}: {counted(dates, 'list date')}, {first} .. {last}"
            for system, scenario, dates, first, last in scenarios.rows()
        ]
    return lines


def print_status(warehouse: str) -> None:
    print(status_text(warehouse))
