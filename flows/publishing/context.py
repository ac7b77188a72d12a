"""Where a list date of any system stands: its receipt window, the list it follows, and the
fingerprint of the inputs it reads (:class:`PeriodContext`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb
import polars as pl

from flows.publishing.arguments import (
    OFFICIAL,
    ListError,
    refuse_a_day_off_the_calendar,
    refuse_an_open_window,
)
from flows.warehouse import execute, query_frame, read_sql, scalar
from transforms.lists.eras import Calendar
from transforms.lists.periods import first_list_taking, previous_list_date, receipt_window


@dataclass(frozen=True)
class PeriodContext:
    system: str
    scenario: str
    list_date: date
    era: Any  # the system's era in force on the list date (an Elo or an Elo-Rubele era)
    rulebook: Any  # the system's rulebook: era_at, content_hash, source
    after: date
    up_to: date
    ratings_day: date
    previous_date: date | None
    previous_revision: int | None
    previous_scenario: str | None
    inputs_hash: str
    # the list of another system whose ratings newcomers may enter with (Elo Rapid: Elo Italia)
    reference_ratings: pl.DataFrame | None


@dataclass(frozen=True)
class PreviousList:
    """The list a list date follows: its date, revision and scenario (all None when no list
    precedes it) and its rows, which a list of nobody has none of."""

    list_date: date | None
    revision: int | None
    scenario: str | None
    rows: pl.DataFrame


def read_previous(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, list_date: date
) -> PreviousList:
    """The list in force before ``list_date`` (a scenario's own, else the official one)."""
    key = {"system": system, "scenario": scenario, "list_date": list_date}
    rows = query_frame(con, read_sql("queries/lists/previous_list.sql"), key)
    previous_date, revision, previous_scenario = _previous_key(con, key)
    return PreviousList(previous_date, revision, previous_scenario, rows)


def _previous_key(
    con: duckdb.DuckDBPyConnection, key: dict[str, Any]
) -> tuple[date | None, int | None, str | None]:
    found = execute(con, read_sql("queries/lists/previous_list_key.sql"), key)
    return found[0] if found else (None, None, None)


def refuse_a_missing_predecessor(
    con: duckdb.DuckDBPyConnection,
    system: str,
    scenario: str,
    list_date: date,
    calendar: Calendar,
) -> None:
    """Refuse a list date whose predecessor is not published while an earlier list is (the
    check of :func:`list_context`, from the list keys alone: a quarterly makes it on its
    read-only session, so that a refused run takes no copy of the warehouse)."""
    key = {"system": system, "scenario": scenario, "list_date": list_date}
    _refuse_a_gap(system, scenario, calendar, list_date, _previous_key(con, key)[0])


def _refuse_a_gap(
    system: str, scenario: str, calendar: Calendar, list_date: date, previous_date: date | None
) -> None:
    expected_previous = previous_list_date(calendar, list_date)
    if previous_date is not None and previous_date != expected_previous:
        where = "" if scenario == OFFICIAL else f" in scenario {scenario}"
        raise ListError(
            f"the {system} list of {expected_previous} has not been published{where} (the last "
            f"one is {previous_date}): publish it first"
        )


def list_context(
    system: str,
    scenario: str,
    list_date: date,
    era: Any,
    rulebook: Any,
    previous: PreviousList,
    ratings_day: date,
    inputs_hash: Callable[[date], str],
    reference_ratings: pl.DataFrame | None = None,
    first_receipt: Callable[[], date | None] | None = None,
) -> PeriodContext:
    """Where a list date of any system stands: its receipt window and the list it follows.

    Refuses a date that is not a list date, a list whose predecessor is not published, or a
    first list (none before it) whose window would leave out tournaments received before it
    (``first_receipt`` reads the first receipt date of the system's accepted tournaments);
    ``inputs_hash`` gives the fingerprint of the inputs received up to the cut-off.
    """
    calendar = era.calendar
    refuse_a_day_off_the_calendar(system, calendar, list_date)
    refuse_an_open_window(system, calendar, list_date)
    after, up_to = receipt_window(calendar, list_date)
    previous_date = previous.list_date
    _refuse_a_gap(system, scenario, calendar, list_date, previous_date)
    if previous_date is None and first_receipt is not None:
        refuse_a_first_list_leaving_out(system, calendar, list_date, first_receipt())
    return PeriodContext(
        system=system,
        scenario=scenario,
        list_date=list_date,
        era=era,
        rulebook=rulebook,
        after=after,
        up_to=up_to,
        ratings_day=ratings_day,
        previous_date=previous_date,
        previous_revision=previous.revision,
        previous_scenario=previous.scenario,
        inputs_hash=inputs_hash(up_to),
        reference_ratings=reference_ratings,
    )


def refuse_a_first_list_leaving_out(
    system: str, calendar: Calendar, list_date: date, first: date | None
) -> None:
    """Refuse a system's first list (none before it) whose window would leave out the
    tournaments received before it, the first on ``first`` (None: none received)."""
    after, _ = receipt_window(calendar, list_date)
    if first is not None and first <= after:
        first_list = first_list_taking(calendar, first)
        raise ListError(
            f"no {system} list precedes {list_date}, and its window (received after {after}) "
            f"would leave out the tournaments received before, the first on {first}: publish "
            f"the list of {first_list} first, or import the federation's list before it"
        )


def first_receipt(con: duckdb.DuckDBPyConnection, system: str) -> date | None:
    """When the first accepted tournament of ``system`` was received (None: none yet)."""
    first = scalar(con, read_sql("queries/lists/first_receipt.sql"), {"system": system})
    return first if isinstance(first, date) else None
