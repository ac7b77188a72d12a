"""Checks of a list's arguments that need nothing from the warehouse, shared by every system:
a list date on the calendar, a receipt window already closed, a replay with a list date, a
scenario name the warehouse can keep. The command line runs them before Prefect starts."""

from __future__ import annotations

import re
from datetime import date, timedelta

from transforms.lists.eras import Calendar
from transforms.lists.periods import is_list_date, list_dates_between, receipt_window

OFFICIAL = "official"


class ListError(RuntimeError):
    """A list cannot be computed as asked (one clear line for the analyst)."""


def today() -> date:
    """The day a run happens (a function, so tests can move it)."""
    return date.today()


def refuse_a_day_off_the_calendar(system: str, calendar: Calendar, list_date: date) -> None:
    if not is_list_date(calendar, list_date):
        days = ", ".join(f"{m:02d}-{d:02d}" for m, d in calendar.list_dates)
        raise ListError(f"{list_date} is not a list date of {system} (list dates: {days})")


def replay_dates(system: str, calendar: Calendar, start: date, end: date) -> list[date]:
    """The list dates of a replay from ``start`` to ``end``; refused when there is none."""
    dates = list_dates_between(calendar, start, end)
    if not dates:
        raise ListError(f"no list date of {system} between {start} and {end}")
    return dates


def refuse_an_open_window(system: str, calendar: Calendar, list_date: date) -> None:
    """The tournaments received up to a list's cut-off belong to it: computed before its
    window closes, it would miss those still to arrive (and a replay would run into the
    future: list dates no tournament can have reached yet)."""
    up_to = receipt_window(calendar, list_date)[1]
    if up_to >= today():
        raise ListError(
            f"the {system} list of {list_date} takes the tournaments received up to {up_to}, "
            f"a window still open: publish it from {up_to + timedelta(days=1)} on"
        )


# a scenario's name: it names the scenario's rows and its report's Prefect artifact key, whose
# letters are lowercase (so "K20" and "k20" would share one)
SCENARIO_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def refuse_bad_scenario_name(scenario: str) -> None:
    if not SCENARIO_NAME.fullmatch(scenario):
        raise ListError(
            f"scenario name {scenario!r}: use lowercase letters, digits, '-' and '_', "
            "beginning with a letter or a digit"
        )
