"""The federation calendar as Prefect schedules, for those who run a Prefect server.

``graduatoria serve --system elo_italia --warehouse FILE`` registers a deployment whose cron
fires on every list date of the rulebook's calendar and publishes that day's list (any system:
the FSI lists and the FID draughts ones). It needs a
running Prefect server (``prefect server start``, with PREFECT_API_URL pointing at it); the
other verbs never do.
"""

from __future__ import annotations

from datetime import date

from prefect import flow

from flows.draughts import RUBELE_SYSTEMS, load_rubele_rulebook, rubele_quarterly_flow
from flows.lists import OFFICIAL, load_rulebook, quarterly_flow
from flows.runtime import say
from transforms.lists.eras import Calendar
from transforms.lists.periods import cron_for, is_list_date


@flow(name="scheduled-quarterly")
def scheduled_quarterly_flow(system: str, warehouse: str, rulebook_path: str | None = None) -> None:
    """Publish the list of today, when today is a list date of the era in force."""
    today = date.today()
    if not is_list_date(calendar_at(system, today, rulebook_path), today):
        say(f"{today} is not a list date of {system}: nothing to publish")
        return
    if system in RUBELE_SYSTEMS:
        rubele_quarterly_flow(system, today, warehouse, rulebook_path)
    else:
        quarterly_flow(system, today, warehouse, rulebook_path)


def calendar_at(system: str, day: date, rulebook_path: str | None = None) -> Calendar:
    """The list calendar of ``system`` in the era in force on ``day``."""
    if system in RUBELE_SYSTEMS:
        return load_rubele_rulebook(system, rulebook_path).era_at(day).calendar
    return load_rulebook(system, rulebook_path).era_at(day).calendar


def serve(system: str, warehouse: str, rulebook_path: str | None = None) -> None:
    """Serve the scheduled flow with the calendar of the era in force today."""
    cron = cron_for(calendar_at(system, date.today(), rulebook_path))
    say(f"serving {system} ({OFFICIAL} lists) on the cron '{cron}'; stop with Ctrl-C")
    scheduled_quarterly_flow.serve(
        name=f"{system}-quarterly",
        cron=cron,
        parameters={"system": system, "warehouse": warehouse, "rulebook_path": rulebook_path},
    )
