"""What an FSI Elo list date reads: the era in force, the history of tournaments and registry
snapshots, the list it follows and the Elo Italia list newcomers may enter with, and the
fingerprint of those inputs (how a stale list is told from a current one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

import duckdb
import polars as pl

from flows.elo.history import StreamedHistory
from flows.elo.rulebook import load_rulebook, reference_system
from flows.publishing.context import (
    PeriodContext,
    PreviousList,
    first_receipt,
    list_context,
    read_previous,
)
from flows.publishing.staleness import StaleList, stale_lists
from flows.warehouse import execute, query_frame, read_sql
from transforms.elo.lists import PeriodFacts, PeriodSource, period_facts
from transforms.elo.rulebook import EloEra, Rulebook
from transforms.lists.periods import cutoff_for, ratings_day


def period_context(
    con: duckdb.DuckDBPyConnection,
    system: str,
    scenario: str,
    list_date: date,
    rulebook: Rulebook,
    previous: PreviousList,
    fingerprints: Mapping[date, str] | None = None,
) -> PeriodContext:
    """Where an FSI list date stands: its era, receipt window and the list it follows
    (``fingerprints``: the inputs' fingerprints of a replay's dates, read at once)."""
    era = rulebook.era_at(list_date)
    day = ratings_day(era.calendar, era.ratings_snapshot, list_date)
    reference = reference_system(era)

    def inputs_hash(up_to: date) -> str:
        if fingerprints is not None and list_date in fingerprints:
            return fingerprints[list_date]
        return inputs_fingerprint(con, system, list_date, up_to, reference)

    return list_context(
        system,
        scenario,
        list_date,
        era,
        rulebook,
        previous,
        day,
        inputs_hash,
        read_reference_ratings(con, era, day),
        lambda: first_receipt(con, system),
    )


def read_reference_ratings(
    con: duckdb.DuckDBPyConnection, era: EloEra, day: date
) -> pl.DataFrame | None:
    """The official list in force on ``day`` that the era's newcomers may enter with."""
    system = reference_system(era)
    if system is None:
        return None
    return query_frame(
        con, read_sql("queries/lists/reference_ratings.sql"), {"system": system, "day": day}
    )


def validity_in_force(rulebook: Rulebook) -> Callable[[date], Any]:
    """The validity rules of the era in force at a list date (to replay earlier lists)."""
    return lambda list_date: rulebook.era_at(list_date).validity


def read_period(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, list_date: date, rulebook: Rulebook
) -> tuple[PeriodContext, PeriodFacts]:
    """Everything the engine needs for one list date, as the warehouse holds it now."""
    previous = read_previous(con, system, scenario, list_date)
    context = period_context(con, system, scenario, list_date, rulebook, previous)
    with StreamedHistory(con, system, context.era.calendar, [list_date], context.up_to) as history:
        played = history.played_before(list_date, validity_in_force(rulebook))
        return context, facts_of(context, history, previous.rows, played)


def facts_of(
    context: PeriodContext,
    history: PeriodSource,
    previous: pl.DataFrame,
    played_before: pl.DataFrame,
) -> PeriodFacts:
    return period_facts(
        history,
        previous,
        played_before,
        context.list_date,
        context.ratings_day,
        context.era,
        context.reference_ratings,
        context.rulebook.fide_reentry_rating,
    )


def inputs_fingerprint(
    con: duckdb.DuckDBPyConnection,
    system: str,
    list_date: date,
    up_to: date,
    reference: str | None = None,
) -> str:
    """A hash of every input a list reads: tells a stale revision from a current one."""
    return inputs_fingerprints(con, system, [(list_date, up_to, reference)])[list_date]


def inputs_fingerprints(
    con: duckdb.DuckDBPyConnection,
    system: str,
    lists: Sequence[tuple[date, date, str | None]],
) -> dict[date, str]:
    """:func:`inputs_fingerprint` of many lists at once (list date, cut-off, reference system):
    a replay reads them in one query."""
    if not lists:
        return {}
    list_dates, cutoffs, references = (list(column) for column in zip(*lists, strict=True))
    found = execute(
        con,
        read_sql("queries/lists/inputs_fingerprint.sql"),
        {
            "system": system,
            "list_dates": list_dates,
            "cutoffs": cutoffs,
            "reference_systems": references,
        },
    )
    return {list_date: str(fingerprint) for list_date, fingerprint in found}


def fsi_fingerprints(
    con: duckdb.DuckDBPyConnection, system: str, rulebook: Rulebook, list_dates: Sequence[date]
) -> dict[date, str]:
    """What the FSI lists of ``list_dates`` would be computed from, now."""
    lists = []
    for list_date in list_dates:
        era = rulebook.era_at(list_date)
        lists.append((list_date, cutoff_for(era.calendar, list_date), reference_system(era)))
    return inputs_fingerprints(con, system, lists)


def fsi_fingerprint(
    con: duckdb.DuckDBPyConnection, system: str, rulebook: Rulebook, list_date: date
) -> str:
    """What an FSI list of ``list_date`` would be computed from, now."""
    return fsi_fingerprints(con, system, rulebook, [list_date])[list_date]


def stale_fsi_lists(con: duckdb.DuckDBPyConnection, system: str) -> list[StaleList]:
    """The official lists of an FSI system that a replay under its rulebook would change."""
    return stale_lists(con, system, load_rulebook(system), fsi_fingerprints)
