"""Checks of a command's arguments that need neither Prefect nor what the warehouse holds.

The command line runs them before a flow starts Prefect's temporary server (10–30 s), so a
mistyped date, a rulebook that does not load or a missing warehouse is refused at once. The
flows make the same checks again, for callers that do not come through the command line.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from flows.publishing.arguments import (
    refuse_a_day_off_the_calendar,
    refuse_an_open_window,
    refuse_bad_scenario_name,
    replay_dates,
)
from flows.systems import rating_system
from flows.warehouse import Warehouse, WarehouseError
from transforms.lists.eras import default_rulebook_path


def require_warehouse(path: str) -> None:
    """Commands that work on data already loaded (a list, a replay, a merge) need it there."""
    if not Warehouse(path).exists():
        raise WarehouseError(f"no warehouse at {path}: run an ingest first")


def check_list_date(system: str, list_date: date, rulebook_path: str | None) -> None:
    """A list to publish: its date is one of the calendar in force then, its window closed."""
    # the rulebook must load, too
    calendar = rating_system(system).calendar_at(list_date, rulebook_path)
    refuse_a_day_off_the_calendar(system, calendar, list_date)
    refuse_an_open_window(system, calendar, list_date)


def refuse_an_unofficial_rulebook(
    system: str, rulebook_path: str | None, list_date: date | None = None
) -> None:
    """The official lists follow the system's own rulebook (data/rules/): another one is a
    what-if, which ``recalculate`` computes into a scenario beside them. Published as the
    official list, ``status`` would call it stale (its rulebook is not the system's) and the
    next replay of stale lists would undo it. The system's rulebook named by its path, or a
    copy of it, is taken."""
    if rulebook_path is None:
        return
    official = default_rulebook_path(system)
    given = Path(rulebook_path).expanduser()
    if given.read_bytes() == official.read_bytes():
        return
    dates = f" --from {list_date} --to {list_date}" if list_date else " --from … --to …"
    raise ValueError(
        f"{given.name} is not the rulebook of {system} ({official}): the official lists "
        "follow that one (a change of rules is a new era there); a what-if goes beside them: "
        f"graduatoria recalculate --system {system}{dates} --rulebook {rulebook_path} "
        "--scenario NAME"
    )


def check_replay(
    system: str, start: date, end: date, rulebook_path: str | None, scenario: str
) -> None:
    """A replay from ``start`` to ``end``: some list date between them, the last one's window
    closed, and a scenario name the warehouse can keep."""
    refuse_bad_scenario_name(scenario)
    calendar = rating_system(system).calendar_at(start, rulebook_path)
    dates = replay_dates(system, calendar, start, end)
    refuse_an_open_window(system, calendar, dates[-1])


def check_import(system: str, list_date: date) -> None:
    """A federation's list to import: a system the project knows, on one of its list dates
    (the lists after it could never follow it otherwise)."""
    calendar = rating_system(system).calendar_at(list_date)
    refuse_a_day_off_the_calendar(system, calendar, list_date)
