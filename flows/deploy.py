"""The federation calendar as Prefect deployments: each list published by itself, the day after
its receipt cut-off.

``graduatoria serve --system elo_italia --warehouse FILE`` registers the deployment
``scheduled-list/elo_italia`` on the Prefect server the commands use (the project's lasting
local server, or the one PREFECT_API_URL names) and serves it: while the process lives, it
runs the deployment's flow runs. The
schedules are crons in Europe/Rome time, at 06:00 on the day after each cut-off of the system's
calendar (:func:`transforms.lists.periods.publication_crons`): the FSI lists on 16 Dec, 16 Mar,
16 Jun and 16 Sep (``0 6 16 3,6,9,12 *``), the FID draughts ones on 1 Jan and 1 Jul
(``0 6 1 1,7 *``). A run publishes the list whose receipt window closed last before its
scheduled day (:func:`transforms.lists.periods.last_closed_list`): on 16 Mar, the list of
1 Apr, whose window closed on 15 Mar; a run that starts late still publishes the list of the
day it was scheduled for, never one whose window is open.

The deployment outlives the process: stopped, its schedules stay registered (they are not
paused), the server's scheduler keeps creating runs, and a run that falls due meanwhile waits
(Late) until ``serve`` starts again. A temporary Prefect server has no scheduler and dies with
its process, so ``serve`` refuses to start without a lasting one. docs/OPERATIONS.md says how
to keep the schedule running: this process, or a Prefect worker on a process work pool
(:func:`register`).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from prefect import flow
from prefect import serve as serve_deployments
from prefect.schedules import Cron
from prefect.types.entrypoint import EntrypointType

from flows.console import say
from flows.systems import rating_system
from flows.warehouse import Warehouse, WarehouseError
from transforms.lists.periods import (
    cutoff_for,
    first_list_taking,
    last_closed_list,
    publication_crons,
)

if TYPE_CHECKING:
    from prefect.deployments.runner import RunnerDeployment

# the federations' calendars are Italian days: a run at 06:00 in Rome is on the day after the
# cut-off whatever the server's clock says, summer time included
TIMEZONE = "Europe/Rome"
ROME = ZoneInfo(TIMEZONE)
PUBLICATION_HOUR = 6
FLOW_NAME = "scheduled-list"


class ScheduleError(RuntimeError):
    """The schedule cannot be registered as asked (one line for the analyst)."""


def run_day(scheduled_start: datetime | None) -> date:
    """The day in Rome of a run's scheduled start (naive: UTC, as Prefect stores it); today in
    Rome without one."""
    if scheduled_start is None:
        return datetime.now(ROME).date()
    if scheduled_start.tzinfo is None:
        scheduled_start = scheduled_start.replace(tzinfo=UTC)
    return scheduled_start.astimezone(ROME).date()


def scheduled_day() -> date:
    """The day the running flow was scheduled for: a run that starts late (the serving process
    was down) still publishes the list of its own day. A direct call is scheduled for now."""
    from prefect.runtime import flow_run

    start: datetime | None = flow_run.scheduled_start_time
    return run_day(start)


@flow(name=FLOW_NAME)
def scheduled_list_flow(
    system: str, warehouse: str, rulebook_path: str | None = None
) -> dict[str, int]:
    """Publish the list of ``system`` whose receipt window closed last before the run's
    scheduled day (in Rome): on 16 March, the list of 1 April."""
    day = scheduled_day()
    rating = rating_system(system)
    calendar = rating.calendar_at(day, rulebook_path)
    list_date = last_closed_list(calendar, day)
    say(
        f"run of {day}: the {system} list of {list_date}, which takes the tournaments "
        f"received up to {cutoff_for(calendar, list_date)}"
    )
    return rating.publish(list_date, warehouse, rulebook_path)


def deployment_name(system: str) -> str:
    """What ``prefect deployment run`` and the Prefect UI call the deployment of ``system``."""
    return f"{FLOW_NAME}/{system}"


def scheduled_deployments(
    systems: Sequence[str],
    warehouse: str,
    rulebook_path: str | None = None,
    *,
    hour: int = PUBLICATION_HOUR,
    work_pool: str | None = None,
) -> list[RunnerDeployment]:
    """One deployment per system (not yet registered), its crons from the calendar in force
    today. Its parameters are absolute paths: the runs start in another process, from another
    folder (a worker's)."""
    warehouse_path = str(Path(warehouse).expanduser().resolve())
    rulebook = str(Path(rulebook_path).expanduser().resolve()) if rulebook_path else None
    today = datetime.now(ROME).date()
    deployments = []
    for system in dict.fromkeys(systems):  # each system once, in the order asked
        crons = publication_crons(rating_system(system).calendar_at(today, rulebook), hour)
        deployments.append(
            scheduled_list_flow.to_deployment(
                name=system,
                schedules=[Cron(cron, timezone=TIMEZONE) for cron in crons],
                parameters={
                    "system": system,
                    "warehouse": warehouse_path,
                    "rulebook_path": rulebook,
                },
                # a schedule paused by an earlier serve (Prefect pauses on shutdown by default)
                # is resumed when registered again
                paused=False,
                description=(
                    f"Publishes the {system} list whose receipt window just closed, the day "
                    f"after each cut-off, into {warehouse_path}"
                ),
                tags=["graduatoria", system],
                # the runs import the flow from the installed package, not from a file path
                # relative to the folder serve was started in
                entrypoint_type=EntrypointType.MODULE_PATH,
                work_pool_name=work_pool,
            )
        )
    return deployments


def serve(systems: str | Sequence[str], warehouse: str, rulebook_path: str | None = None) -> None:
    """Register one deployment per system on the Prefect server and run their flow runs
    until stopped (Ctrl-C): their schedules stay registered after."""
    api_url, deployments = _prepared(systems, warehouse, rulebook_path)
    say(_instructions(deployments, api_url, serving=True))
    # not paused on shutdown: the schedule is the federation's, not this process's; runs that
    # fall due while it is stopped wait for the next serve
    serve_deployments(*deployments, pause_on_shutdown=False, print_starting_message=False)


def register(
    systems: str | Sequence[str],
    warehouse: str,
    work_pool: str,
    rulebook_path: str | None = None,
) -> list[str]:
    """Register the deployments on a work pool, for a Prefect worker to run (no process of
    ours keeps running); returns their names."""
    api_url, deployments = _prepared(systems, warehouse, rulebook_path, work_pool)
    for deployment in deployments:
        deployment.apply()
    say(_instructions(deployments, api_url, serving=False))
    return [deployment_name(deployment.name) for deployment in deployments]


def _prepared(
    systems: str | Sequence[str],
    warehouse: str,
    rulebook_path: str | None,
    work_pool: str | None = None,
) -> tuple[str, list[RunnerDeployment]]:
    """The server's API address and the deployments, once the server and the warehouse are
    known to be there (a schedule on a missing file would fail at every run)."""
    api_url = _lasting_server()
    if not Warehouse(warehouse).exists():
        raise WarehouseError(f"no warehouse at {warehouse}: run an ingest first")
    names = [systems] if isinstance(systems, str) else list(systems)
    return api_url, scheduled_deployments(names, warehouse, rulebook_path, work_pool=work_pool)


def _lasting_server() -> str:
    """The URL of the Prefect server the deployments go to; refused without one."""
    from prefect.settings import get_current_settings

    api_url = get_current_settings().api.url
    if not api_url:
        # a temporary server runs no scheduler and dies with this process: a deployment
        # registered there would never run, and no other shell could find it
        raise ScheduleError(
            "a schedule needs a lasting Prefect server, and this command has only a temporary "
            "one: run it with the project's server (`graduatoria server start`; not under "
            "GRADUATORIA_PREFECT_SERVER=ephemeral) or with PREFECT_API_URL set to your own"
        )
    return str(api_url)


def _prefect_command() -> str:
    """The Prefect command line of this environment (a shell may have another, or none)."""
    beside = Path(sys.executable).parent / "prefect"
    return shlex.quote(str(beside)) if beside.is_file() else "prefect"


def _run_days(crons: list[str]) -> str:
    """``16 Mar, 16 Jun, 16 Sep, 16 Dec``: the days the crons fire on, in calendar order."""
    days = sorted(
        date(2001, int(month), int(fields[2]))
        for fields in (cron.split() for cron in crons)
        for month in fields[3].split(",")
    )
    return ", ".join(f"{day.day} {day:%b}" for day in days)


def _describe(deployment: RunnerDeployment) -> str:
    """What a deployment does, in the analyst's words: when, which list, into which file."""
    parameters = deployment.parameters
    crons = [entry.schedule.cron for entry in deployment.schedules or []]
    today = datetime.now(ROME).date()
    calendar = rating_system(parameters["system"]).calendar_at(today, parameters["rulebook_path"])
    upcoming = first_list_taking(calendar, today)
    cutoff = cutoff_for(calendar, upcoming)
    return (
        f"  {deployment_name(deployment.name)}: at {PUBLICATION_HOUR:02d}:00 {TIMEZONE} on "
        f"{_run_days(crons)} (cron {' and '.join(crons)}),\n"
        "    the day after each cut-off, publishing the list whose receipt window has just "
        f"closed\n    into {parameters['warehouse']}; next: on {cutoff + timedelta(days=1)}, "
        f"the list of {upcoming} (cut-off {cutoff})"
    )


def _instructions(deployments: list[RunnerDeployment], api_url: str, *, serving: bool) -> str:
    """What was registered, how it keeps running, and the command that runs it now."""
    ui = api_url.removesuffix("/").removesuffix("/api")
    verb = "serve" if serving else "register"
    lines = [f"{verb}: scheduled on the Prefect server at {api_url} (UI: {ui}):"]
    lines += [_describe(deployment) for deployment in deployments]
    if serving:
        lines.append(
            "this process runs the scheduled runs: keep it running (Ctrl-C stops it; the "
            "schedules stay registered, and a run that falls due meanwhile runs when "
            "`graduatoria serve` starts again; a Prefect worker can run them instead: see "
            "docs/OPERATIONS.md)"
        )
    else:
        pool = shlex.quote(str(deployments[0].work_pool_name))
        lines.append(
            f"a worker of the pool runs them: {_prefect_command()} worker start --pool {pool}"
        )
    lines.append("to run one now (the last list whose window has closed), from any shell:")
    lines += [
        # quoted always, as Prefect prints it (a system's name needs no quoting)
        f"  PREFECT_API_URL={shlex.quote(api_url)} {_prefect_command()} deployment run "
        f"'{deployment_name(deployment.name)}'"
        for deployment in deployments
    ]
    return "\n".join(lines)
