"""The rating systems graduatoria publishes, each registered once: its name, rulebook, list
flows, list import and staleness check.

Every command that works on "any system" (``import-list``, ``quarterly``, ``recalculate``,
``status``, ``serve``, the command line) dispatches through :data:`SYSTEMS` instead of
importing the flows of each family. A new system is one more entry here, built from its
family's flows (``flows.elo``, ``flows.rubele``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb

from flows.elo.lists import fsi_list_import, quarterly_flow
from flows.elo.periods import stale_fsi_lists
from flows.elo.recalculate import recalculate_flow
from flows.elo.rulebook import load_rulebook
from flows.publishing.arguments import ListError
from flows.publishing.importing import ListImport
from flows.publishing.staleness import StaleList
from flows.rubele.lists import (
    rubele_list_import,
    rubele_quarterly_flow,
    rubele_recalculate_flow,
    stale_rubele_lists,
)
from flows.rubele.rulebook import load_rubele_rulebook
from transforms.lists.eras import Calendar


@dataclass(frozen=True)
class RatingSystem:
    """One list the federations publish, and the flows that make it."""

    name: str
    family: str  # "elo" (FSI chess) or "rubele" (FID draughts)
    # (system, rulebook path or None for the shipped one) -> its rulebook
    rulebook: Callable[[str, str | None], Any]
    # (system, list date, warehouse, rulebook path) -> the run's counts
    quarterly: Callable[..., dict[str, int]]
    # (system, warehouse, start=, end=, stale=, rulebook_path=, scenario=) -> the run's counts
    recalculate: Callable[..., dict[str, int]]
    # (system, list date) -> how the federation's published list is imported
    list_import: Callable[[str, date], ListImport]
    # (connection, system) -> the official lists a replay would change
    stale: Callable[[duckdb.DuckDBPyConnection, str], list[StaleList]]

    def load_rulebook(self, path: str | None = None) -> Any:
        return self.rulebook(self.name, path)

    def calendar_at(self, day: date, rulebook_path: str | None = None) -> Calendar:
        """The list calendar in the era in force on ``day``."""
        calendar: Calendar = self.load_rulebook(rulebook_path).era_at(day).calendar
        return calendar

    def publish(
        self, list_date: date, warehouse: str, rulebook_path: str | None = None
    ) -> dict[str, int]:
        return self.quarterly(self.name, list_date, warehouse, rulebook_path)

    def replay(
        self,
        warehouse: str,
        start: date | None = None,
        end: date | None = None,
        stale: bool = False,
        rulebook_path: str | None = None,
        scenario: str = "official",
    ) -> dict[str, int]:
        return self.recalculate(
            self.name,
            warehouse,
            start=start,
            end=end,
            stale=stale,
            rulebook_path=rulebook_path,
            scenario=scenario,
        )

    def importer(self, list_date: date) -> ListImport:
        return self.list_import(self.name, list_date)

    def stale_lists(self, con: duckdb.DuckDBPyConnection) -> list[StaleList]:
        return self.stale(con, self.name)


def _elo(name: str) -> RatingSystem:
    return RatingSystem(
        name=name,
        family="elo",
        rulebook=load_rulebook,
        quarterly=quarterly_flow,
        recalculate=recalculate_flow,
        list_import=fsi_list_import,
        stale=stale_fsi_lists,
    )


def _rubele(name: str) -> RatingSystem:
    return RatingSystem(
        name=name,
        family="rubele",
        rulebook=load_rubele_rulebook,
        quarterly=rubele_quarterly_flow,
        recalculate=rubele_recalculate_flow,
        list_import=rubele_list_import,
        stale=stale_rubele_lists,
    )


# In cascade order: a replay of every stale list goes down this table, Elo Italia before Elo
# Rapid (whose newcomers may enter with their Elo Italia rating)
SYSTEMS: dict[str, RatingSystem] = {
    system.name: system
    for system in (
        _elo("elo_italia"),
        _elo("elo_rapid"),
        _rubele("rubele_italiana"),
        _rubele("rubele_internazionale"),
    )
}


def rating_system(name: str) -> RatingSystem:
    """The system called ``name``; an unknown name is refused with the known ones."""
    if name not in SYSTEMS:
        raise ListError(f"unknown system {name!r}; expected one of {', '.join(SYSTEMS)}")
    return SYSTEMS[name]
