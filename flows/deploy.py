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

from flows.console import say
from flows.publishing.arguments import OFFICIAL
from flows.systems import rating_system
from transforms.lists.periods import cron_for, is_list_date


@flow(name="scheduled-quarterly")
def scheduled_quarterly_flow(system: str, warehouse: str, rulebook_path: str | None = None) -> None:
    """Publish the list of today, when today is a list date of the era in force."""
    today = date.today()
    rating = rating_system(system)
    if not is_list_date(rating.calendar_at(today, rulebook_path), today):
        say(f"{today} is not a list date of {system}: nothing to publish")
        return
    rating.publish(today, warehouse, rulebook_path)


def serve(system: str, warehouse: str, rulebook_path: str | None = None) -> None:
    """Serve the scheduled flow with the calendar of the era in force today."""
    cron = cron_for(rating_system(system).calendar_at(date.today(), rulebook_path))
    say(f"serving {system} ({OFFICIAL} lists) on the cron '{cron}'; stop with Ctrl-C")
    scheduled_quarterly_flow.serve(
        name=f"{system}-quarterly",
        cron=cron,
        parameters={"system": system, "warehouse": warehouse, "rulebook_path": rulebook_path},
    )
