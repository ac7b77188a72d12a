"""The project's lasting local Prefect server: started once, then found and reused.

Without ``PREFECT_API_URL`` every Prefect flow call starts a temporary server subprocess
(about 10 s), and a command killed with SIGKILL leaves it running. Instead the first command
that needs Prefect starts ``prefect server start`` in the background, detached from the
command (its own session, output to a log file), and records it in
``$PREFECT_HOME/graduatoria-server.json``; later commands check that record and point
``PREFECT_API_URL`` at it. Its UI, at the recorded address, shows every run.

- A user's own server (``PREFECT_API_URL`` in the environment or in the active profile of
  ``$PREFECT_HOME/profiles.toml``) is used as it is: nothing is started.
- ``GRADUATORIA_PREFECT_SERVER=ephemeral`` (tests, CI) turns all of this off: Prefect starts
  its temporary server per process, as it does by default.
- A record is trusted only if its process is alive, is a ``prefect server start`` that carries
  this project's mark in its environment (``GRADUATORIA_LASTING_SERVER_OF=$PREFECT_HOME``,
  which a recycled pid or a user's own server does not carry), answers ``GET <api>/health``
  and runs the installed Prefect version. A dead or foreign pid is forgotten (never signalled);
  a server of ours that is outdated or hung is stopped, then replaced.
- Starting is serialised by ``flock`` on ``$PREFECT_HOME/graduatoria-server.lock``: two commands
  started together end with one server. The lock holder records the server right after
  spawning it, before it answers: a command killed while the server starts leaves a recorded
  server that the next command waits for and reuses. A server of ours that no record names
  (a command killed between spawn and record, or a record deleted by hand) is adopted when it
  answers, stopped otherwise.

Prefect is never imported here: reading the record, and the read-only verbs that call
``server_status``, cost milliseconds (the health checks use ``urllib``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from flows.console import say

if TYPE_CHECKING:
    import argparse

MODE_VARIABLE = "GRADUATORIA_PREFECT_SERVER"
LASTING = "lasting"
EPHEMERAL = "ephemeral"
# set in the server's environment only: what tells our server from any other process
MARK_VARIABLE = "GRADUATORIA_LASTING_SERVER_OF"
# set beside PREFECT_API_URL when ensure_server sets it (children inherit both): that address
# is ours to check and replace, not a user's own server
OWN_URL_VARIABLE = "GRADUATORIA_LASTING_SERVER_URL"
TIMEOUT_VARIABLE = "GRADUATORIA_PREFECT_SERVER_TIMEOUT"

RECORD_NAME = "graduatoria-server.json"
LOCK_NAME = "graduatoria-server.lock"
LOG_NAME = "graduatoria-server.log"
HOST = "127.0.0.1"
# measured on 2 cores: about 3 s with a database, 7-10 s on an empty PREFECT_HOME
# (migrations); a busy machine can take several times that
STARTUP_TIMEOUT = 90.0
STOP_TIMEOUT = 15.0
HEALTH_TIMEOUT = 2.0
PATIENT_HEALTH_TIMEOUT = 10.0

# offline and quiet, for the server and for the commands (flows.runtime): telemetry that
# cannot reach its host logs errors
OFFLINE_ENVIRONMENT = {"DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


@dataclass(frozen=True)
class ServerRecord:
    """What ``$PREFECT_HOME/graduatoria-server.json`` holds about the lasting server."""

    pid: int
    port: int
    url: str  # the API address, for PREFECT_API_URL (the UI is the same without /api)
    prefect_version: str
    started_at: str  # local time with its offset, ISO 8601
    python: str
    log: str

    @property
    def ui_url(self) -> str:
        return self.url.removesuffix("/api")

    def age_seconds(self) -> float:
        try:
            started = datetime.fromisoformat(self.started_at)
        except ValueError:
            return float("inf")
        if started.tzinfo is None:  # a record edited by hand: local time
            started = started.astimezone()
        return (datetime.now().astimezone() - started).total_seconds()


class Verdict(Enum):
    """What to do with a recorded server."""

    REUSE = "reuse"  # ours, answering, the installed version
    WAIT = "wait"  # ours, not answering yet, still within its startup time
    STOP = "stop"  # ours but outdated or hung: stop it, then start another
    FORGET = "forget"  # dead, or a process that is not ours: drop the record, signal nothing


def judge(
    record: ServerRecord,
    *,
    ours: bool,
    answering: bool,
    running_version: str | None,
    installed_version: str,
    startup_timeout: float = STARTUP_TIMEOUT,
) -> Verdict:
    """The decision about a recorded server, from what was observed of it."""
    if not ours:
        return Verdict.FORGET
    if record.prefect_version != installed_version:
        return Verdict.STOP
    if answering:
        # a server that answers but reports another version was upgraded under its feet
        if running_version is not None and running_version != installed_version:
            return Verdict.STOP
        return Verdict.REUSE
    if record.age_seconds() < startup_timeout:
        return Verdict.WAIT
    return Verdict.STOP


# --- settings ---------------------------------------------------------------------------


def server_mode() -> str:
    mode = os.environ.get(MODE_VARIABLE, "").strip().lower() or LASTING
    if mode not in (LASTING, EPHEMERAL):
        raise ValueError(f"{MODE_VARIABLE}={mode!r}: give {LASTING!r} (default) or {EPHEMERAL!r}")
    return mode


def prefect_home() -> Path:
    """The project's PREFECT_HOME (flows.runtime sets it), else Prefect's own default."""
    return Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser().resolve()


def installed_prefect_version() -> str:
    # from the package metadata: importing prefect for its __version__ costs seconds
    return metadata.version("prefect")


def startup_timeout() -> float:
    text = os.environ.get(TIMEOUT_VARIABLE)
    return float(text) if text else STARTUP_TIMEOUT


def _record_path(home: Path) -> Path:
    return home / RECORD_NAME


def user_api_url(home: Path | None = None) -> str | None:
    """The user's own server: PREFECT_API_URL from the environment, or from the active profile.

    The address an earlier ``ensure_server`` of this process (or of a parent command) set, or
    the recorded server's (copied into a profile from its log), is ours, checked as such.
    """
    home = home or prefect_home()
    url = os.environ.get("PREFECT_API_URL") or _profile_api_url(home)
    if url is None or url == os.environ.get(OWN_URL_VARIABLE):
        return None
    record = read_record(home)
    return None if record is not None and url == record.url else url


def _profile_api_url(home: Path) -> str | None:
    path = Path(os.environ.get("PREFECT_PROFILES_PATH") or home / "profiles.toml").expanduser()
    try:
        profiles = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active") or "ephemeral"
    profile = profiles.get("profiles", {})
    profile = profile.get(active) if isinstance(profile, dict) else None
    url = profile.get("PREFECT_API_URL") if isinstance(profile, dict) else None
    return str(url) if url else None


# --- the record -------------------------------------------------------------------------


def read_record(home: Path | None = None) -> ServerRecord | None:
    """The recorded server, or None when there is none or it cannot be read."""
    path = _record_path(home or prefect_home())
    try:
        data = json.loads(path.read_text())
        return ServerRecord(
            pid=int(data["pid"]),
            port=int(data["port"]),
            url=str(data["url"]),
            prefect_version=str(data["prefect_version"]),
            started_at=str(data["started_at"]),
            python=str(data.get("python", "")),
            log=str(data.get("log", "")),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_record(home: Path, record: ServerRecord) -> None:
    # written whole then renamed: a reader never sees half a record, even after a SIGKILL
    path = _record_path(home)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with temporary.open("w") as file:
        json.dump(asdict(record), file, indent=2)
        file.write("\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def _remove_record(home: Path) -> None:
    _record_path(home).unlink(missing_ok=True)


# --- processes --------------------------------------------------------------------------


def _proc(pid: int, name: str) -> bytes | None:
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes()
    except OSError:
        return None


def _cmdline(pid: int) -> list[str] | None:
    raw = _proc(pid, "cmdline")
    if raw is not None:
        return [part.decode(errors="replace") for part in raw.split(b"\0") if part]
    if Path("/proc").is_dir():
        return None  # gone, or not ours to read
    try:  # no /proc (macOS): ps gives the command line as one string
        text = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return text.split() or None


def _environment_value(pid: int, name: str) -> str | None:
    raw = _proc(pid, "environ")
    if raw is None:
        return None
    prefix = f"{name}=".encode()
    for entry in raw.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode(errors="replace")
    return None


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not; another user's does)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive, and not ours
    stat = _proc(pid, "stat")
    # a zombie answers signal 0 but is dead: its state follows the parenthesised name
    return not (stat is not None and stat.rsplit(b")", 1)[-1].split()[:1] == [b"Z"])


def _is_server_command(command: list[str]) -> bool:
    """``python -m prefect server start …`` or ``prefect server start …``."""
    for index, part in enumerate(command):
        if Path(part).name == "prefect":
            return command[index + 1 : index + 3] == ["server", "start"]
    return False


def _port_of(command: list[str]) -> int | None:
    if "--port" in command[:-1]:
        with contextlib.suppress(ValueError):
            return int(command[command.index("--port") + 1])
    return None


def is_our_server(pid: int, home: Path, port: int | None = None) -> bool:
    """The process is a Prefect server this project started (on ``port``, if given)."""
    if not process_alive(pid):
        return False
    command = _cmdline(pid)
    if not command or not _is_server_command(command):
        return False
    if port is not None and _port_of(command) != port:
        return False
    if Path("/proc").is_dir():
        return _environment_value(pid, MARK_VARIABLE) == str(home)
    return True  # no /proc to read the mark from: the command line is all there is


def our_servers(home: Path) -> list[int]:
    """Every live Prefect server carrying this project's mark, recorded or not."""
    if not Path("/proc").is_dir():
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and is_our_server(int(entry.name), home):
            found.append(int(entry.name))
    return sorted(found)


def _terminate(pid: int, timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM to the server's process group (its own session), then SIGKILL if it lingers."""

    def send(signal_number: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal_number)
            else:
                os.kill(pid, signal_number)

    send(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process_alive(pid):
            return
        _reap(pid)
        time.sleep(0.1)
    send(signal.SIGKILL)
    deadline = time.monotonic() + 5
    while process_alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.05)


def _reap(pid: int) -> None:
    # a server this process started is its child: collect it once dead, or it stays a zombie
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


# --- the API ----------------------------------------------------------------------------


def _get_json(url: str, timeout: float = HEALTH_TIMEOUT) -> object:
    # the local server only: no proxy from the environment may stand in between
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=timeout) as response:
        return json.loads(response.read())


def answers(url: str, timeout: float = HEALTH_TIMEOUT) -> bool:
    """``GET <api>/health`` answers ``true`` (Prefect 3's health check)."""
    try:
        return _get_json(f"{url}/health", timeout) is True
    except (OSError, ValueError):
        return False


def server_version(url: str) -> str | None:
    """The Prefect version a server runs (``GET <api>/admin/version``)."""
    try:
        version = _get_json(f"{url}/admin/version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def _assess(record: ServerRecord, home: Path, patience: float = HEALTH_TIMEOUT) -> Verdict:
    ours = is_our_server(record.pid, home, record.port)
    answering = ours and answers(record.url, patience)
    return judge(
        record,
        ours=ours,
        answering=answering,
        running_version=server_version(record.url) if answering else None,
        installed_version=installed_prefect_version(),
        startup_timeout=startup_timeout(),
    )


# --- talking ----------------------------------------------------------------------------


def _progress(message: str) -> None:
    # say() imports Prefect (to log into a flow run), and Prefect reads its settings once, at
    # import: before PREFECT_API_URL is set that import would leave the command on a
    # temporary server. Until then a plain line.
    if "PREFECT_API_URL" in os.environ or "prefect" in sys.modules:
        say(message)
    else:
        print(message, flush=True)


# --- the lock ---------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(home: Path, timeout: float) -> Iterator[None]:
    """One command at a time checks, starts or stops the server of a project.

    ``flock`` is released by the kernel when its holder dies, SIGKILL included: a killed
    command never leaves the lock held. The descriptor is not inherited by the server
    (Python opens files non-inheritable), so the server does not hold it either.
    """
    home.mkdir(parents=True, exist_ok=True)
    with (home / LOCK_NAME).open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _progress("waiting for another graduatoria command starting the Prefect server…")
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(
                            f"another command has held {home / LOCK_NAME} for {timeout:.0f} s "
                            "(starting or stopping the local Prefect server)"
                        ) from None
                    time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# --- starting ---------------------------------------------------------------------------


def _free_port(preferred: int | None) -> int:
    """The previous server's port when free (the UI keeps its address), else any free one."""
    for port in ([preferred] if preferred else []) + [0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((HOST, port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise OSError("no free port on 127.0.0.1")


# this venv's Prefect, whatever ``prefect`` the PATH finds
PREFECT_SERVER_START = (sys.executable, "-m", "prefect", "server", "start")


def server_environment(home: Path) -> dict[str, str]:
    """The server's environment: the command's, offline and quiet, with this project's mark."""
    environment = dict(os.environ)
    # an inherited API address would become the UI's (PREFECT_UI_API_URL defaults to it)
    for name in ("PREFECT_API_URL", "PREFECT_UI_API_URL", MODE_VARIABLE, OWN_URL_VARIABLE):
        environment.pop(name, None)
    environment.update(OFFLINE_ENVIRONMENT)
    environment.update(
        {
            "PREFECT_HOME": str(home),
            MARK_VARIABLE: str(home),
            # its log file holds warnings and errors only (a command's level is CRITICAL)
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
        }
    )
    return environment


def _launch(home: Path, port: int) -> subprocess.Popen[bytes]:
    log = home / LOG_NAME
    with log.open("wb") as output:  # the current server's log only
        return subprocess.Popen(
            [*PREFECT_SERVER_START, "--host", HOST, "--port", str(port), "--analytics-off"],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=server_environment(home),
            # its own session: no terminal's Ctrl-C or hang-up reaches it, and it outlives
            # the command that started it
            start_new_session=True,
            # not the command's folder: a prefect.toml or .env there is not the server's
            cwd=home,
        )


def _wait_until_answering(
    url: str, pid: int, deadline: float, process: subprocess.Popen[bytes] | None = None
) -> bool:
    while time.monotonic() < deadline:
        if process is not None:
            if process.poll() is not None:
                return False
        elif not process_alive(pid):
            return False
        if answers(url):
            return True
        time.sleep(0.25)
    return False


def _log_tail(home: Path, lines: int = 15) -> str:
    try:
        text = (home / LOG_NAME).read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def _start(home: Path, preferred_port: int | None) -> ServerRecord:
    first_time = not (home / "prefect.db").exists()
    timeout = startup_timeout()
    began = time.monotonic()
    # two attempts: the free port can be taken between probing it and the server binding it
    for attempt in (1, 2):
        port = _free_port(preferred_port if attempt == 1 else None)
        url = f"http://{HOST}:{port}/api"
        process = _launch(home, port)
        record = ServerRecord(
            pid=process.pid,
            port=port,
            url=url,
            prefect_version=installed_prefect_version(),
            started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
            python=sys.executable,
            log=str(home / LOG_NAME),
        )
        # recorded before it answers: a command killed from here on leaves a server the
        # next command finds (and waits for), never an unknown one
        _write_record(home, record)
        _point_at(url)
        if attempt == 1:
            expected = 10 if first_time else 5
            _progress(
                f"starting the local Prefect server ({'first time: ' if first_time else ''}"
                f"about {expected} s; it then stays up for the next commands)…"
            )
        if _wait_until_answering(url, process.pid, began + timeout, process):
            break
        exited = process.poll() is not None
        if not exited:
            _terminate(process.pid)
        _remove_record(home)
        _point_at(None)
        if not exited or attempt == 2:
            raise RuntimeError(
                "the local Prefect server did not "
                + (f"answer within {timeout:.0f} s" if not exited else "start")
                + f" (its log: {home / LOG_NAME}; {TIMEOUT_VARIABLE} gives it longer)\n"
                + _log_tail(home)
            )
    _progress(
        f"the local Prefect server is up after {time.monotonic() - began:.0f} s: "
        f"{record.ui_url} shows every run (`graduatoria server stop` stops it)"
    )
    # the server outlives this command on purpose: Popen must not warn that it still runs
    process.returncode = 0
    return record


def _adopt(home: Path, pid: int) -> ServerRecord | None:
    """An unrecorded server of ours that answers with the installed version, as the record."""
    command = _cmdline(pid) or []
    port = _port_of(command)
    if port is None:
        return None
    url = f"http://{HOST}:{port}/api"
    version = installed_prefect_version()
    if not answers(url) or server_version(url) != version:
        return None
    record = ServerRecord(
        pid=pid,
        port=port,
        url=url,
        prefect_version=version,
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        python=command[0] if command else "",
        log=str(home / LOG_NAME),
    )
    _write_record(home, record)
    return record


def _settle(home: Path) -> ServerRecord:
    """Under the lock: the one server of the project, reused, adopted or started."""
    record = read_record(home)
    usable: ServerRecord | None = None
    if record is not None:
        # patient here: a server busy with another command's writes must not be taken for hung
        verdict = _assess(record, home, patience=PATIENT_HEALTH_TIMEOUT)
        if verdict is Verdict.WAIT:
            _progress("the local Prefect server is starting (another command started it)…")
            _point_at(record.url)
            remaining = startup_timeout() - record.age_seconds()
            if _wait_until_answering(record.url, record.pid, time.monotonic() + remaining):
                verdict = _assess(record, home)
            else:
                verdict = Verdict.STOP if process_alive(record.pid) else Verdict.FORGET
        if verdict is Verdict.REUSE:
            usable = record
        elif verdict is Verdict.STOP:
            _progress(f"replacing the local Prefect server (pid {record.pid}): outdated or hung")
            _terminate(record.pid)
            _remove_record(home)
        else:
            _remove_record(home)  # dead or not ours: nothing to signal
    # never two servers for one project: any other server carrying our mark goes
    for pid in our_servers(home):
        if usable is not None and pid == usable.pid:
            continue
        adopted = _adopt(home, pid) if usable is None else None
        if adopted is not None:
            usable = adopted
        else:
            _terminate(pid)
    if usable is not None:
        return usable
    return _start(home, record.port if record is not None else None)


def _point_at(url: str | None) -> None:
    """PREFECT_API_URL for this process (and its children), marked as ours."""
    if url is None:
        if os.environ.get("PREFECT_API_URL") == os.environ.get(OWN_URL_VARIABLE):
            os.environ.pop("PREFECT_API_URL", None)
        os.environ.pop(OWN_URL_VARIABLE, None)
        return
    os.environ["PREFECT_API_URL"] = url
    os.environ[OWN_URL_VARIABLE] = url


def _use(record: ServerRecord) -> str:
    _point_at(record.url)
    return record.url


def ensure_server() -> str | None:
    """The API address this command's flows use, with ``PREFECT_API_URL`` set to it.

    Call before Prefect is imported (its settings are read once, at import). Returns None
    under ``GRADUATORIA_PREFECT_SERVER=ephemeral``: Prefect then starts its temporary server.
    """
    if server_mode() == EPHEMERAL:
        return None
    home = prefect_home()
    own = user_api_url(home)
    if own is not None:
        return own
    # the usual case, without the lock: a recorded server that answers
    record = read_record(home)
    if record is not None and _assess(record, home) is Verdict.REUSE:
        return _use(record)
    with _locked(home, timeout=2 * startup_timeout() + STOP_TIMEOUT):
        return _use(_settle(home))


# --- the ``server`` verb ----------------------------------------------------------------


def start_server() -> str:
    """``graduatoria server start``: the lasting server running, and where."""
    mode_note = _not_lasting_note()
    if mode_note is not None:
        return mode_note
    before = read_record()
    url = ensure_server()
    record = read_record()
    if record is None or url != record.url:
        return f"Prefect server: {url}"
    fresh = before is None or before.pid != record.pid
    state = "started" if fresh else "already running"
    return f"local Prefect server {state}: {record.ui_url} (pid {record.pid})"


def stop_server() -> str:
    """``graduatoria server stop``: the lasting server stopped and its record removed."""
    mode_note = _not_lasting_note()
    if mode_note is not None:
        return mode_note
    home = prefect_home()
    with _locked(home, timeout=2 * startup_timeout() + STOP_TIMEOUT):
        record = read_record(home)
        stopped = []
        if record is not None and is_our_server(record.pid, home, record.port):
            _terminate(record.pid)
            stopped.append(record.pid)
        for pid in our_servers(home):
            _terminate(pid)
            stopped.append(pid)
        _remove_record(home)
    _point_at(None)
    if not stopped:
        return "no lasting Prefect server was running" + (
            " (a stale record was removed)" if record is not None else ""
        )
    pids = ", ".join(str(pid) for pid in stopped)
    return f"local Prefect server stopped (pid {pids})"


def server_status() -> str:
    """``graduatoria server status``: lines for the analyst (no lock, no Prefect import)."""
    mode_note = _not_lasting_note()
    if mode_note is not None:
        return mode_note
    home = prefect_home()
    record = read_record(home)
    if record is None:
        return (
            "no lasting Prefect server (the next command that runs a flow starts one; "
            "`graduatoria server start` starts it now)"
        )
    if not is_our_server(record.pid, home, record.port):
        return (
            f"no lasting Prefect server: the record names pid {record.pid}, which is no longer "
            "the server (the next command that runs a flow replaces it)"
        )
    answering = answers(record.url)
    version = server_version(record.url) if answering else None
    state = "running" if answering else "not answering (starting, or hung)"
    lines = [
        f"local Prefect server: {state}",
        f"  UI:       {record.ui_url}",
        f"  API:      {record.url}",
        f"  pid:      {record.pid}",
        f"  prefect:  {version or record.prefect_version}",
        f"  started:  {record.started_at} (up {_duration(record.age_seconds())})",
        f"  log:      {record.log}",
    ]
    installed = installed_prefect_version()
    if (version or record.prefect_version) != installed:
        lines.append(f"  (Prefect {installed} is installed: the next command replaces it)")
    return "\n".join(lines)


def _not_lasting_note() -> str | None:
    if server_mode() == EPHEMERAL:
        return (
            f"{MODE_VARIABLE}={EPHEMERAL}: each command starts Prefect's temporary server; "
            "no lasting server is used"
        )
    url = user_api_url()
    if url is not None:
        return f"PREFECT_API_URL is set: commands use {url}; graduatoria starts no server"
    return None


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return f"{int(seconds)} s"
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes:02d} min"
    return f"{hours // 24} days"


SERVER_ACTIONS = {"start": start_server, "stop": stop_server, "status": server_status}


def server_command(action: str) -> str:
    """``graduatoria server start|stop|status``: what to print."""
    try:
        run = SERVER_ACTIONS[action]
    except KeyError:
        raise ValueError(f"server {action!r}: give one of {', '.join(SERVER_ACTIONS)}") from None
    return run()


def server_verb(args: argparse.Namespace) -> None:
    """The ``server`` verb of flows.cli (``args.action``: start, stop or status)."""
    say(server_command(args.action))
