"""The rating systems graduatoria publishes, each registered once: its name, rulebook, list
flows, list import and staleness check.

Every command that works on "any system" (``import-list``, ``quarterly``, ``recalculate``,
``status``, ``serve``, the command line) dispatches through :data:`SYSTEMS` instead of
importing the flows of each family. A new system is one more entry here, built from its
family's flows (``flows.elo``, ``flows.rubele``).

The flows are imported when first called, not with this module: a module of flows imports
Prefect (seconds), and ``status`` reads the registry (the systems, their rulebooks and stale
lists) without ever running a flow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import duckdb

from flows.elo.periods import stale_fsi_lists
from flows.elo.rulebook import load_rulebook
from flows.publishing.arguments import ListError
from flows.publishing.staleness import StaleList
from flows.rubele.periods import stale_rubele_lists
from flows.rubele.rulebook import load_rubele_rulebook
from transforms.lists.eras import Calendar

if TYPE_CHECKING:
    from flows.publishing.importing import ListImport


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


# Each family's flows, imported when called (see the module's note)


def _elo_quarterly(*args: Any, **kwargs: Any) -> dict[str, int]:
    from flows.elo.lists import quarterly_flow

    return quarterly_flow(*args, **kwargs)


def _elo_recalculate(*args: Any, **kwargs: Any) -> dict[str, int]:
    from flows.elo.recalculate import recalculate_flow

    return recalculate_flow(*args, **kwargs)


def _elo_list_import(system: str, list_date: date) -> ListImport:
    from flows.elo.lists import fsi_list_import

    return fsi_list_import(system, list_date)


def _rubele_quarterly(*args: Any, **kwargs: Any) -> dict[str, int]:
    from flows.rubele.lists import rubele_quarterly_flow

    return rubele_quarterly_flow(*args, **kwargs)


def _rubele_recalculate(*args: Any, **kwargs: Any) -> dict[str, int]:
    from flows.rubele.lists import rubele_recalculate_flow

    return rubele_recalculate_flow(*args, **kwargs)


def _rubele_list_import(system: str, list_date: date) -> ListImport:
    from flows.rubele.lists import rubele_list_import

    return rubele_list_import(system, list_date)


def _elo(name: str) -> RatingSystem:
    return RatingSystem(
        name=name,
        family="elo",
        rulebook=load_rulebook,
        quarterly=_elo_quarterly,
        recalculate=_elo_recalculate,
        list_import=_elo_list_import,
        stale=stale_fsi_lists,
    )


def _rubele(name: str) -> RatingSystem:
    return RatingSystem(
        name=name,
        family="rubele",
        rulebook=load_rubele_rulebook,
        quarterly=_rubele_quarterly,
        recalculate=_rubele_recalculate,
        list_import=_rubele_list_import,
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
