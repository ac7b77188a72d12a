"""Run bookkeeping shared by every flow: Prefect settings, run ids, code version, run records."""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import socket
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from flows.console import say, show
from flows.prefect_server import OFFLINE_ENVIRONMENT, process_alive
from flows.warehouse import Warehouse, execute, read_sql

REPO_ROOT = Path(__file__).resolve().parents[1]
FlowFunction = TypeVar("FlowFunction", bound=Callable[..., Any])


def configure_prefect_environment(verbose: bool = False) -> None:
    """Offline, quiet, local defaults; must run before ``prefect`` is imported.

    Prefect's state goes to PREFECT_HOME, kept inside the project rather than the user's
    home: the lasting local server of :mod:`flows.prefect_server` lives there. Without it
    (``GRADUATORIA_PREFECT_SERVER=ephemeral``, as in the tests) and without PREFECT_API_URL,
    Prefect starts a temporary server per process, with the startup timeout below (a busy
    machine needs more than Prefect's default). Flows print their own progress lines, so
    Prefect's logs are shown only when asked for.
    """
    os.environ.setdefault("PREFECT_HOME", str(REPO_ROOT / ".prefect"))
    for name, value in OFFLINE_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO" if verbose else "CRITICAL")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "false")


@contextmanager
def quiet_flow_settings() -> Iterator[None]:
    """Heartbeats cost about a second per flow run and give nothing to a local run."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


# A flow run names the process that runs it in a tag, so that a later command can tell a run
# whose process was killed (SIGKILL, the kernel's out-of-memory killer, a power cut) from one
# still working: Prefect's server learns of neither without heartbeats, which local runs do
# without (quiet_flow_settings), and would show the run as running for ever.
PROCESS_TAG = "graduatoria-process"
# runs a command looks at for a killed process: far more than a machine runs at once
RUNS_LOOKED_AT = 200


@dataclass(frozen=True)
class RunProcess:
    """The process running a flow run: its host, its pid and when it started (clock ticks
    since boot, from /proc; empty where the system does not say), so that a pid used again
    by a later process is not taken for the run's."""

    host: str
    pid: int
    started: str

    def tag(self) -> str:
        return f"{PROCESS_TAG}:{self.host}:{self.pid}:{self.started}"

    @classmethod
    def from_tags(cls, tags: list[str]) -> RunProcess | None:
        for tag in tags:
            name, _, rest = tag.partition(":")
            host, _, rest = rest.partition(":")
            pid, _, started = rest.partition(":")
            if name == PROCESS_TAG and host and pid.isdigit():
                return cls(host, int(pid), started)
        return None

    def is_gone(self) -> bool:
        """Whether the process ended (only a process of this host can be told)."""
        if self.host != socket.gethostname():
            return False
        if Path("/proc/self/stat").exists():
            return process_start(self.pid) != self.started
        return not process_alive(self.pid)


def process_start(pid: int) -> str:
    """When process ``pid`` started, in clock ticks since boot; empty where there is no such
    process, or only its zombie (or no /proc). The name in /proc/PID/stat is in parentheses
    and may hold spaces: the fields are counted after its closing one (the start time is the
    22nd field)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat.rpartition(")")[2].split()
    # a zombie (Z) or dead (X) process has ended, though nobody has collected it yet
    if len(fields) <= 19 or fields[0] in ("Z", "X"):
        return ""
    return fields[19]


def this_process() -> RunProcess:
    pid = os.getpid()
    return RunProcess(socket.gethostname(), pid, process_start(pid))


@dataclass(frozen=True)
class KilledRun:
    """A flow run left running or pending by a process that is gone."""

    run_id: uuid.UUID
    flow: str
    name: str
    started: datetime | None
    pid: int

    def described(self) -> str:
        when = f", started {self.started.astimezone():%Y-%m-%d %H:%M}" if self.started else ""
        return f"{self.flow} run {self.name} (process {self.pid}{when})"


def settle_killed_runs() -> list[KilledRun]:
    """Mark as crashed, on the Prefect server, every run of this host whose process is gone
    while the run is still running or pending, and say which. A killed run wrote nothing to
    the warehouse (its writes land by an atomic swap, or not at all). Never fails the command
    that asks: a server that cannot answer leaves the runs as they are."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Crashed

    unfinished = FlowRunFilter(
        state=FlowRunFilterState(
            type=FlowRunFilterStateType(any_=[StateType.RUNNING, StateType.PENDING])
        )
    )
    killed: list[KilledRun] = []
    try:
        with get_client(sync_client=True) as client:
            for run in client.read_flow_runs(flow_run_filter=unfinished, limit=RUNS_LOOKED_AT):
                process = RunProcess.from_tags(run.tags)
                if process is None or not process.is_gone():
                    continue
                message = (
                    f"its process ({process.pid} on {process.host}) ended before the run did "
                    "(killed); a killed run leaves the warehouse as it was"
                )
                client.set_flow_run_state(run.id, Crashed(message=message), force=True)
                started = run.start_time or run.expected_start_time
                flow = client.read_flow(run.flow_id).name
                killed.append(KilledRun(run.id, flow, run.name, started, process.pid))
    except Exception as error:  # the server's own failure: the command goes on without it
        show(f"(earlier runs could not be checked for a killed process: {error})", err=True)
    return killed


def code_version() -> str:
    """Package version plus the git commit when running from a checkout."""
    try:
        version = metadata.version("graduatoria")
    except metadata.PackageNotFoundError:
        version = "unknown"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return f"{version}+{commit}" if commit else version


def current_run_id() -> str:
    """The Prefect flow-run id when inside a flow, so the warehouse and Prefect agree."""
    try:
        from prefect.runtime import flow_run

        run_id = flow_run.id
    except ImportError:
        run_id = None
    return str(run_id) if run_id else str(uuid.uuid4())


@dataclass
class RunRecord:
    """What the ``run`` view shows about one flow run."""

    flow: str
    parameters: dict[str, object]
    run_id: str = field(default_factory=current_run_id)
    started_at: datetime = field(default_factory=datetime.now)
    input_checksums: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    rulebook_hash: str | None = None

    def write(self, con: duckdb.DuckDBPyConnection, status: str, report: str) -> None:
        execute(
            con,
            read_sql("queries/insert_run_record.sql"),
            [
                self.run_id,
                self.flow,
                json.dumps(self.parameters, default=str, sort_keys=True),
                self.rulebook_hash,
                code_version(),
                json.dumps(self.input_checksums, sort_keys=True),
                self.started_at,
                # now, as started_at is taken: local time without a zone. DuckDB's
                # current_timestamp is the start of the write transaction, not the run's end
                datetime.now(),
                status,
                json.dumps(self.counts, sort_keys=True),
                report,
            ],
        )


def failure_recorded(flow_name: str) -> Callable[[FlowFunction], FlowFunction]:
    """A flow whose failure is recorded in the warehouse it was given (argument ``warehouse``):
    status ``failed`` and the reason as its report, written once the run's own writes are
    rolled back, so the ``run`` view lists every run and the data stays as it was. A run that
    recorded itself before failing (a refused load) keeps its record."""

    def decorate(function: FlowFunction) -> FlowFunction:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            started_at = datetime.now()
            arguments = signature.bind(*args, **kwargs)  # wrong arguments fail here, as before
            arguments.apply_defaults()
            try:
                return function(*args, **kwargs)
            except Exception as error:
                record_failure(flow_name, dict(arguments.arguments), started_at, error)
                raise

        # Prefect validates parameters from the signature, resolving string annotations in the
        # wrapper's module: give it the types themselves
        recorded.__signature__ = inspect.signature(function, eval_str=True)  # type: ignore[attr-defined]
        return recorded  # type: ignore[return-value]

    return decorate


def record_failure(
    flow_name: str, parameters: dict[str, Any], started_at: datetime, error: Exception
) -> None:
    warehouse = parameters.get("warehouse")
    if not warehouse or not Path(str(warehouse)).exists():
        return  # no warehouse to record it in (the run would have created it)
    run = RunRecord(flow=flow_name, parameters=parameters, started_at=started_at)
    reason = str(error).strip() or type(error).__name__
    try:
        with Warehouse(Path(str(warehouse))).transaction(
            create=False, purpose="to record the failed run"
        ) as con:
            recorded = execute(con, read_sql("queries/run_recorded.sql"), {"run_id": run.run_id})
            if not recorded:
                run.write(con, "failed", f"# {flow_name} failed\n\n{reason}\n")
    except Exception as second:  # the warehouse itself failed: the run's error is the one shown
        say(f"(the failure could not be recorded in {warehouse}: {second})")


def publish_markdown(report: str, key: str) -> None:
    """Store the run report as a Prefect markdown artifact (key: lowercase letters and dashes)."""
    from prefect.artifacts import create_markdown_artifact

    # the run is written by now and its report is in the warehouse: a Prefect server that
    # fails to take the artifact (a timeout on a busy machine) does not make the run a failure
    try:
        create_markdown_artifact(markdown=report, key=key, description="graduatoria run report")
    except Exception as error:  # any failure of the artifact store
        say(f"(the report was not stored as a Prefect artifact: {error}; the run table holds it)")


def artifact_key(*parts: str) -> str:
    """A Prefect artifact key (lowercase letters, digits and dashes) naming what a report is
    about: a system's recalculation, or a scenario's (which must not replace the official one)."""
    return "-".join(re.sub(r"[^a-z0-9]+", "-", part.lower()).strip("-") for part in parts)
