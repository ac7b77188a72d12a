"""Where a draughts (Elo-Rubele) list date stands and what it reads: its context, and the
fingerprint of its inputs (how a stale list is told from a current one).

Plain reads, no Prefect: ``graduatoria status`` checks the draughts lists through here without
importing the flows of :mod:`flows.rubele.lists`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

import duckdb

from flows.publishing.context import PeriodContext, PreviousList, first_receipt, list_context
from flows.publishing.staleness import StaleList, stale_lists
from flows.rubele.rulebook import load_rubele_rulebook
from flows.warehouse import execute, read_sql
from transforms.lists.periods import cutoff_for
from transforms.rubele.rulebook import RubeleRulebook


def rubele_context(
    con: duckdb.DuckDBPyConnection,
    system: str,
    scenario: str,
    list_date: date,
    rulebook: RubeleRulebook,
    previous: PreviousList,
    fingerprints: Mapping[date, str] | None = None,
) -> PeriodContext:
    """Where a draughts list date stands (capitals are read at the list date itself;
    ``fingerprints``: the inputs' fingerprints of a replay's dates, read at once)."""

    def inputs_hash(up_to: date) -> str:
        if fingerprints is not None and list_date in fingerprints:
            return fingerprints[list_date]
        return rubele_fingerprint(con, system, list_date, up_to)

    return list_context(
        system,
        scenario,
        list_date,
        rulebook.era_at(list_date),
        rulebook,
        previous,
        list_date,
        inputs_hash,
        first_receipt=lambda: first_receipt(con, system),
    )


def rubele_fingerprint(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date, up_to: date
) -> str:
    """A hash of every input a draughts list reads: tells a stale revision from a current one."""
    return rubele_fingerprints(con, system, [(list_date, up_to)])[list_date]


def rubele_fingerprints(
    con: duckdb.DuckDBPyConnection, system: str, lists: Sequence[tuple[date, date]]
) -> dict[date, str]:
    """:func:`rubele_fingerprint` of many lists at once (list date, cut-off), in one query."""
    if not lists:
        return {}
    list_dates, cutoffs = (list(column) for column in zip(*lists, strict=True))
    found = execute(
        con,
        read_sql("queries/rubele/inputs_fingerprint.sql"),
        {"system": system, "list_dates": list_dates, "cutoffs": cutoffs},
    )
    return {list_date: str(fingerprint) for list_date, fingerprint in found}


def rubele_list_fingerprints(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: RubeleRulebook,
    list_dates: Sequence[date],
) -> dict[date, str]:
    """What the draughts lists of ``list_dates`` would be computed from, now."""
    return rubele_fingerprints(
        con,
        system,
        [(day, cutoff_for(rulebook.era_at(day).calendar, day)) for day in list_dates],
    )


def stale_rubele_lists(con: duckdb.DuckDBPyConnection, system: str) -> list[StaleList]:
    """The official lists of a draughts system that a replay under its rulebook would change."""
    return stale_lists(con, system, load_rubele_rulebook(system), rubele_list_fingerprints)
