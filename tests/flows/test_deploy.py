"""The federation calendar as Prefect deployments: one per system, cron schedules in Rome time
on the day after each cut-off, and a run that publishes the list whose window just closed."""

import os
import subprocess
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from flows.warehouse import Warehouse

ROME = ZoneInfo("Europe/Rome")
SYSTEMS = ("elo_italia", "elo_rapid", "rubele_italiana", "rubele_internazionale")
CRONS = {
    "elo_italia": ["0 6 16 3,6,9,12 *"],
    "elo_rapid": ["0 6 16 3,6,9,12 *"],
    "rubele_italiana": ["0 6 1 1,7 *"],
    "rubele_internazionale": ["0 6 1 1,7 *"],
}


def test_each_system_gets_a_deployment_on_the_day_after_its_cutoffs(tmp_path, monkeypatch):
    from flows.deploy import scheduled_deployments

    monkeypatch.chdir(tmp_path)
    deployments = scheduled_deployments(SYSTEMS, "w.duckdb")
    assert [d.full_name for d in deployments] == [f"scheduled-list/{s}" for s in SYSTEMS]
    for system, deployment in zip(SYSTEMS, deployments, strict=True):
        schedules = [(s.schedule.cron, s.schedule.timezone, s.active) for s in deployment.schedules]
        assert schedules == [(cron, "Europe/Rome", True) for cron in CRONS[system]]
        # absolute: the runs start in another process, maybe from another folder
        assert deployment.parameters == {
            "system": system,
            "warehouse": str(tmp_path / "w.duckdb"),
            "rulebook_path": None,
        }
        assert deployment.paused is False
        assert deployment.entrypoint == "flows.deploy.scheduled_list_flow"


def test_a_rulebook_is_registered_by_its_absolute_path(tmp_path, monkeypatch):
    from flows.deploy import scheduled_deployments
    from transforms.lists.eras import default_rulebook_path

    monkeypatch.chdir(default_rulebook_path("elo_italia").parent)
    (deployment,) = scheduled_deployments(
        ["elo_italia"], str(tmp_path / "w.duckdb"), "elo_italia.toml"
    )
    assert deployment.parameters["rulebook_path"] == str(default_rulebook_path("elo_italia"))


def test_a_run_day_is_the_day_in_rome():
    from flows.deploy import run_day

    # 06:00 in Rome is 05:00 UTC in winter and 04:00 in summer: the same day
    assert run_day(datetime(2019, 3, 16, 5, 0, tzinfo=UTC)) == date(2019, 3, 16)
    assert run_day(datetime(2019, 6, 16, 4, 0, tzinfo=UTC)) == date(2019, 6, 16)
    # just after midnight in Rome is still the day before in UTC (naive: UTC, as Prefect keeps it)
    assert run_day(datetime(2019, 12, 31, 23, 30, tzinfo=UTC)) == date(2020, 1, 1)
    assert run_day(datetime(2019, 12, 31, 23, 30)) == date(2020, 1, 1)
    assert run_day(None) == datetime.now(ROME).date()


def test_serve_refuses_a_temporary_server(tmp_path):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.deploy import ScheduleError, serve

    with (
        temporary_settings(restore_defaults={PREFECT_API_URL}),
        pytest.raises(ScheduleError, match="needs a lasting Prefect server"),
    ):
        serve("elo_italia", str(tmp_path / "w.duckdb"))


@pytest.mark.usefixtures("prefect_server")
def test_serve_registers_the_deployments_and_prints_a_command_that_finds_them(
    tmp_path, monkeypatch, capsys
):
    from prefect import get_client

    from flows import deploy

    warehouse = tmp_path / "w.duckdb"
    warehouse.touch()
    served = {}

    def apply_instead_of_serving(*deployments, **options):
        # what prefect.serve does first (Runner.add_deployment applies each), without running
        # forever
        served.update(options)
        for deployment in deployments:
            deployment.apply()

    monkeypatch.setattr(deploy, "serve_deployments", apply_instead_of_serving)
    for system in ("elo_italia", "rubele_italiana"):
        deploy.serve(system, str(warehouse))
    # the schedule is the federation's: stopping serve must not pause it
    assert served == {"pause_on_shutdown": False, "print_starting_message": False}
    out = capsys.readouterr().out

    with get_client(sync_client=True) as client:
        for system in ("elo_italia", "rubele_italiana"):
            registered = client.read_deployment_by_name(f"scheduled-list/{system}")
            assert [(s.schedule.cron, s.schedule.timezone) for s in registered.schedules] == [
                (cron, "Europe/Rome") for cron in CRONS[system]
            ]
            assert all(s.active for s in registered.schedules)
            assert registered.parameters == {
                "system": system,
                "warehouse": str(warehouse),
                "rulebook_path": None,
            }
            assert registered.paused is False
            assert registered.entrypoint == "flows.deploy.scheduled_list_flow"
        elo_italia = client.read_deployment_by_name("scheduled-list/elo_italia")

    assert "at 06:00 Europe/Rome on 16 Mar, 16 Jun, 16 Sep, 16 Dec (cron 0 6 16 3,6,9,12 *)" in out
    assert "at 06:00 Europe/Rome on 1 Jan, 1 Jul (cron 0 6 1 1,7 *)" in out
    command = next(
        line.strip()
        for line in out.splitlines()
        if "deployment run 'scheduled-list/elo_italia'" in line
    )
    assert command.startswith("PREFECT_API_URL=")
    # the printed command works from another shell with none of this process's Prefect
    # settings: another PREFECT_HOME, no PREFECT_API_URL of its own
    shell = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    shell["PREFECT_HOME"] = str(tmp_path / "another-home")
    done = subprocess.run(
        ["bash", "-c", command], env=shell, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Created flow run" in done.stdout
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    # the runs of this deployment only: the session's server holds every flow test's runs, more
    # than one page of read_flow_runs (which passed or failed with the suite's order)
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[elo_italia.id]))
        )
    assert [run.parameters["system"] for run in runs] == ["elo_italia"]


@pytest.mark.usefixtures("prefect_server")
def test_the_run_of_16_march_publishes_the_list_of_1_april(season_warehouse, monkeypatch, capsys):
    from prefect.runtime import flow_run

    from flows.deploy import scheduled_list_flow

    warehouse = season_warehouse(2019)
    # as Prefect gives a scheduled run its time; a direct call would be scheduled for now
    monkeypatch.setattr(flow_run, "scheduled_start_time", datetime(2019, 3, 16, 6, 0, tzinfo=ROME))
    counts = scheduled_list_flow("elo_italia", str(warehouse))
    assert counts["new_revision"] == 1 and counts["players"] > 0
    assert "run of 2019-03-16: the elo_italia list of 2019-04-01" in capsys.readouterr().out
    with Warehouse(warehouse).reader() as con:
        published = con.execute(
            "SELECT list_date, count(*) FROM rating_list WHERE system = 'elo_italia' "
            "AND list_date > DATE '2019-01-01' GROUP BY ALL"
        ).fetchall()
        runs = con.execute(
            "SELECT status, parameters FROM run WHERE flow = 'quarterly' ORDER BY started_at"
        ).fetchall()
    assert published == [(date(2019, 4, 1), counts["players"])]
    assert [status for status, _ in runs] == ["succeeded"]
    assert '"list_date": "2019-04-01"' in runs[0][1]
