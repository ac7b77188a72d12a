"""The project's lasting Prefect server (flows/prefect_server.py): the first command starts and
records it, later ones reuse it, a stale record is detected and replaced, ``stop_server`` stops
it, and a command killed with SIGKILL at any point leaves no process but the recorded server.

Everything here runs in one temporary PREFECT_HOME of this module (the rest of the suite runs
under GRADUATORIA_PREFECT_SERVER=ephemeral, tests/conftest.py): commands are ``python -c``
scripts that call ``ensure_server`` and run a tiny flow, as ``graduatoria`` does. The tests
share one server and run in file order; a server start takes 3-7 s on 2 cores and the module
makes three (the first command, after a crash, after a start killed half-way). The module's
finalizer stops whatever is left.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

from flows import prefect_server
from flows.prefect_server import ServerRecord, Verdict, judge

pytestmark = [
    pytest.mark.flow,
    pytest.mark.skipif(
        not Path("/proc/self/environ").exists(), reason="reads processes from /proc (Linux)"
    ),
]

REPO_ROOT = Path(__file__).resolve().parents[2]

# what `graduatoria` does before a flow: configure, ensure the server, then import Prefect
COMMAND = """
import os, sys, time
from flows.runtime import configure_prefect_environment, quiet_flow_settings
configure_prefect_environment()
from flows.prefect_server import ensure_server
print("URL", ensure_server(), flush=True)
from prefect import flow

@flow
def tiny(seconds: float) -> None:
    print("FLOW", os.getpid(), flush=True)
    time.sleep(seconds)

with quiet_flow_settings():
    tiny(float(sys.argv[1]))
print("DONE", flush=True)
"""


@dataclass
class Command:
    process: subprocess.Popen[bytes]
    output: Path
    began: float

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def wait_for(self, marker: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.text():
            assert self.process.poll() is None, f"ended before {marker!r}:\n{self.text()}"
            assert time.monotonic() < deadline, f"no {marker!r} in {timeout} s:\n{self.text()}"
            time.sleep(0.02)

    def finish(self, timeout: float = 180) -> float:
        """Wall time of a command that must succeed."""
        code = self.process.wait(timeout)
        assert code == 0, self.text()
        return time.monotonic() - self.began

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)  # collected: no zombie of ours counts as a process left behind


def command_environment(home: Path) -> dict[str, str]:
    # nothing of the test process's Prefect settings, nor its ephemeral mode
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PREFECT_", "GRADUATORIA_"))
    }
    environment.update(
        {
            "PREFECT_HOME": str(home),
            "DO_NOT_TRACK": "1",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PYTHONPATH": str(REPO_ROOT),
        }
    )
    return environment


def run_command(home: Path, flow_seconds: float = 0.0, name: str = "command") -> Command:
    output = home.parent / f"{name}-{time.monotonic_ns()}.out"
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", COMMAND, str(flow_seconds)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=command_environment(home),
            cwd=REPO_ROOT,
        )
    return Command(process, output, time.monotonic())


def processes_of(home: Path) -> set[int]:
    """Live processes started with this PREFECT_HOME or naming it: commands, their children
    (they inherit the environment), servers."""
    mark = f"PREFECT_HOME={home}".encode()
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if (mark in environment or str(home).encode() in command) and prefect_server.process_alive(
            int(entry.name)
        ):
            found.add(int(entry.name))
    return found


def settled_processes_of(home: Path, expected: set[int], timeout: float = 10) -> set[int]:
    """The processes of the home once what is dying has died (a kill is not instant)."""
    deadline = time.monotonic() + timeout
    while (found := processes_of(home)) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def record_of(home: Path) -> ServerRecord:
    record = prefect_server.read_record(home)
    assert record is not None, f"no record in {home}"
    return record


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("lasting") / "prefect-home"
    folder.mkdir()
    yield folder
    # whatever a failed test left: our servers first, then any command still running
    for pid in prefect_server.our_servers(folder.resolve()):
        prefect_server._terminate(pid)
    for pid in processes_of(folder):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def in_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process as a command of the module's project (for the in-process calls)."""
    monkeypatch.setenv("PREFECT_HOME", str(home))
    monkeypatch.delenv(prefect_server.MODE_VARIABLE, raising=False)
    # recorded by monkeypatch, so what ensure_server sets is undone after the test
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv(prefect_server.OWN_URL_VARIABLE, raising=False)
    return home


@pytest.fixture(scope="module")
def first_command(home: Path) -> tuple[Command, float]:
    command = run_command(home, name="first")
    return command, command.finish()


def test_the_first_command_starts_the_server_and_records_it(home: Path, first_command) -> None:
    command, _ = first_command
    assert "starting the local Prefect server" in command.text()
    data = json.loads((home / "graduatoria-server.json").read_text())
    assert set(data) == {"pid", "port", "url", "prefect_version", "started_at", "python", "log"}
    assert data["url"] == f"http://127.0.0.1:{data['port']}/api"
    assert data["prefect_version"] == metadata.version("prefect")
    assert f"URL {data['url']}" in command.text()
    assert prefect_server.answers(data["url"])
    assert prefect_server.is_our_server(data["pid"], home.resolve(), data["port"])
    # the command is gone; the server it started is all that is left
    assert settled_processes_of(home, {data["pid"]}) == {data["pid"]}


def test_a_second_command_reuses_the_server(home: Path, first_command) -> None:
    _, first_seconds = first_command
    server = record_of(home)
    command = run_command(home, name="second")
    seconds = command.finish()
    assert f"URL {server.url}" in command.text()
    assert "starting the local Prefect server" not in command.text()
    assert record_of(home) == server
    assert seconds < first_seconds, (seconds, first_seconds)
    assert settled_processes_of(home, {server.pid}) == {server.pid}


def test_a_foreign_process_behind_the_record_is_never_signalled(in_home: Path) -> None:
    server = record_of(in_home)
    # a recycled pid: the record names a live process that is not our server
    foreign = subprocess.Popen(["sleep", "60"])
    try:
        stale = dataclasses.replace(server, pid=foreign.pid)
        prefect_server._write_record(in_home.resolve(), stale)
        assert "no longer the server" in prefect_server.server_status()
        url = prefect_server.ensure_server()
        # the unrecorded server of ours still runs and answers: adopted, not restarted
        assert url == server.url
        assert record_of(in_home).pid == server.pid
        assert os.environ["PREFECT_API_URL"] == server.url
        assert foreign.poll() is None, "the foreign process was signalled"
    finally:
        foreign.kill()
        foreign.wait()


def test_a_dead_server_behind_the_record_is_replaced(home: Path) -> None:
    crashed = record_of(home)
    os.kill(crashed.pid, signal.SIGKILL)  # a crash, or a reboot: the record outlives it
    deadline = time.monotonic() + 10
    while prefect_server.process_alive(crashed.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    command = run_command(home, name="after-crash")
    command.finish()
    server = record_of(home)
    assert server.pid != crashed.pid
    assert "starting the local Prefect server" in command.text()
    assert f"URL {server.url}" in command.text()
    assert settled_processes_of(home, {server.pid}) == {server.pid}


def test_a_command_killed_right_after_it_started_leaves_only_the_server(home: Path) -> None:
    server = record_of(home)
    command = run_command(home, flow_seconds=5, name="killed-early")
    time.sleep(0.3)  # importing, before the server is even looked at
    command.kill()
    assert settled_processes_of(home, {server.pid}) == {server.pid}
    assert record_of(home) == server


def test_a_command_killed_during_its_flow_leaves_only_the_server(home: Path) -> None:
    server = record_of(home)
    command = run_command(home, flow_seconds=30, name="killed-in-flow")
    command.wait_for("FLOW")
    command.kill()
    assert settled_processes_of(home, {server.pid}) == {server.pid}
    assert record_of(home) == server


def test_a_command_killed_while_starting_the_server_leaves_it_to_the_next(in_home: Path) -> None:
    """Two commands at once, no server: one takes the lock and starts the server; killed right
    then, the server it recorded keeps starting and the other command waits for it and uses it.
    One server in the end, the recorded one."""
    assert "stopped" in prefect_server.stop_server()
    assert settled_processes_of(in_home, set()) == set()
    first = run_command(in_home, flow_seconds=1, name="together-a")
    second = run_command(in_home, flow_seconds=1, name="together-b")
    starting = "starting the local Prefect server"
    deadline = time.monotonic() + 60
    while not any(starting in command.text() for command in (first, second)):
        assert time.monotonic() < deadline, first.text() + second.text()
        time.sleep(0.01)
    killed, other = (first, second) if starting in first.text() else (second, first)
    killed.kill()
    server = record_of(in_home)
    assert prefect_server.process_alive(server.pid)
    assert not prefect_server.answers(server.url), "killed too late: the server was up already"
    assert settled_processes_of(in_home, {server.pid, other.process.pid}) == {
        server.pid,
        other.process.pid,
    }
    other.finish()
    assert starting not in other.text()  # it waited for the recorded server, started none
    assert f"URL {server.url}" in other.text()
    assert record_of(in_home) == server
    assert settled_processes_of(in_home, {server.pid}) == {server.pid}


def test_stop_server_stops_it_and_removes_the_record(in_home: Path) -> None:
    server = record_of(in_home)
    assert "running" in prefect_server.server_status()
    assert prefect_server.stop_server() == f"local Prefect server stopped (pid {server.pid})"
    assert not prefect_server.process_alive(server.pid)
    assert prefect_server.read_record(in_home) is None
    assert settled_processes_of(in_home, set()) == set()
    assert prefect_server.server_status().startswith("no lasting Prefect server")
    assert prefect_server.stop_server() == "no lasting Prefect server was running"


# --- without a server -------------------------------------------------------------------


def _record(version: str = "3.9.1", age: float = 0.0) -> ServerRecord:
    from datetime import datetime, timedelta

    started = datetime.now().astimezone() - timedelta(seconds=age)
    return ServerRecord(1, 4200, "http://127.0.0.1:4200/api", version, started.isoformat(), "", "")


@pytest.mark.parametrize(
    ("version", "age", "ours", "answering", "running", "verdict"),
    [
        ("3.9.1", 0, True, True, "3.9.1", Verdict.REUSE),
        ("3.9.1", 0, False, True, "3.9.1", Verdict.FORGET),  # a recycled pid: never signalled
        ("3.8.0", 0, True, True, "3.8.0", Verdict.STOP),  # Prefect was upgraded
        ("3.9.1", 0, True, True, "3.8.0", Verdict.STOP),
        ("3.9.1", 5, True, False, None, Verdict.WAIT),  # still starting
        ("3.9.1", 600, True, False, None, Verdict.STOP),  # hung
    ],
)
def test_what_is_done_with_a_recorded_server(
    version: str, age: float, ours: bool, answering: bool, running: str | None, verdict: Verdict
) -> None:
    # the record is made when the test runs: made at collection, its age would grow with the
    # time the suite takes to reach it (a "still starting" server would look hung)
    assert (
        judge(
            _record(version, age),
            ours=ours,
            answering=answering,
            running_version=running,
            installed_version="3.9.1",
            startup_timeout=90,
        )
        is verdict
    )


def test_the_ephemeral_mode_and_a_users_own_server_start_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv(prefect_server.OWN_URL_VARIABLE, raising=False)
    monkeypatch.setenv(prefect_server.MODE_VARIABLE, "ephemeral")
    assert prefect_server.ensure_server() is None
    assert "ephemeral" in prefect_server.server_status()
    monkeypatch.setenv(prefect_server.MODE_VARIABLE, "sometimes")
    with pytest.raises(ValueError, match="GRADUATORIA_PREFECT_SERVER"):
        prefect_server.ensure_server()

    monkeypatch.delenv(prefect_server.MODE_VARIABLE)
    monkeypatch.setenv("PREFECT_API_URL", "http://prefect.example:4200/api")
    assert prefect_server.ensure_server() == "http://prefect.example:4200/api"
    assert "starts no server" in prefect_server.stop_server()

    monkeypatch.delenv("PREFECT_API_URL")
    (tmp_path / "profiles.toml").write_text(
        'active = "team"\n[profiles.team]\nPREFECT_API_URL = "http://team.example/api"\n'
    )
    assert prefect_server.ensure_server() == "http://team.example/api"
    assert "PREFECT_API_URL" not in os.environ
    assert sorted(path.name for path in tmp_path.iterdir()) == ["profiles.toml"]
