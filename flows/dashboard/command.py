"""``graduatoria dashboard``: start the Streamlit dashboard on the warehouse, read-only.

Standard library only (and :mod:`flows.console`): :mod:`flows.cli` may import this module at
its top, and ``--help`` must not pay for Streamlit, Polars or DuckDB. The dashboard runs as a
``streamlit run`` child process; this process waits for it, and stops it when it is stopped
itself (Ctrl-C, a SIGTERM) or dies (Linux: the child is told by the kernel), so no server is
left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from flows.console import show

APP = Path(__file__).resolve().with_name("app.py")
DEFAULT_PORT = 8501
DEFAULT_ADDRESS = "localhost"
# how long the dashboard gets to stop on its own before it is killed
STOP_SECONDS = 5.0
# Linux prctl: the signal a child receives when its parent dies
_PR_SET_PDEATHSIG = 1


def add_dashboard_parser(verbs: Any) -> argparse.ArgumentParser:
    """Add the ``dashboard`` verb to the command line's subparsers (``verbs``) and return its
    parser; the caller adds ``--warehouse`` (the file the dashboard reads)."""
    dashboard = verbs.add_parser(
        "dashboard",
        help="start the dashboard (Streamlit) on the warehouse, read-only",
        description="Starts a local web dashboard on the warehouse: lists of any system, date "
        "and revision (official or a what-if scenario), players, tournaments, the inbox's "
        "health and what-if scenarios against the official lists. It only reads the file, "
        "a moment per page: runs go on as usual, and what a run writes shows on the next "
        "refresh. Ctrl-C stops it.",
    )
    dashboard.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="PORT",
        help=f"the port it listens on (default: {DEFAULT_PORT})",
    )
    dashboard.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        metavar="HOST",
        help=f"the address it listens on (default: {DEFAULT_ADDRESS}, this computer only; "
        "0.0.0.0 opens it to the network: the lists hold players' personal data)",
    )
    return dashboard


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1 to 65535)")
    return port


def streamlit_command(warehouse: str, port: int, address: str = DEFAULT_ADDRESS) -> list[str]:
    """The ``streamlit run`` command line of the dashboard on ``warehouse``."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        address,
        # no usage statistics sent (the project never phones home), no reloading of the code
        # on edits (a server for analysts, not a development one)
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--",
        "--warehouse",
        warehouse,
    ]


def run_dashboard(args: argparse.Namespace) -> None:
    """Serve the dashboard on ``args.warehouse`` until Ctrl-C (KeyboardInterrupt is raised
    again once the server has stopped, for the command line to report)."""
    warehouse = Path(args.warehouse).resolve()
    if not warehouse.is_file():
        raise FileNotFoundError(
            f"no warehouse at {warehouse}: run an ingest (or `make run`, the demo) first"
        )
    address = getattr(args, "address", DEFAULT_ADDRESS)
    shown = "localhost" if address in ("0.0.0.0", "::") else address
    show(f"dashboard: http://{shown}:{args.port}/ on {warehouse} (read-only); Ctrl-C stops it")
    child = subprocess.Popen(
        streamlit_command(str(warehouse), args.port, address),
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,
    )
    with _terminate_on_sigterm(child):
        try:
            code = child.wait()
        finally:
            # Ctrl-C (the terminal sends SIGINT to Streamlit too) or a SIGTERM here: make sure
            # it has stopped before this process goes
            _stop(child)
    if code not in (0, -signal.SIGINT, -signal.SIGTERM):
        raise RuntimeError(f"the dashboard stopped with exit status {code} (see its output above)")


def _die_with_parent() -> None:
    """In the child, before Streamlit starts: the kernel sends it SIGTERM if this process dies
    (even by SIGKILL), so it is never orphaned. Best effort: without libc, Ctrl-C and SIGTERM
    still stop it."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


@contextlib.contextmanager
def _terminate_on_sigterm(child: subprocess.Popen[bytes]) -> Iterator[None]:
    """A SIGTERM to this process (a service manager stopping it) stops the dashboard too."""
    previous: Callable[[int, FrameType | None], Any] | int | None = signal.getsignal(signal.SIGTERM)

    def stop(signum: int, frame: FrameType | None) -> None:
        # only unwind: the wait this interrupts holds the child's lock, and the caller's
        # ``finally`` stops the child once it is released
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        # None: a handler not set from Python; the default is what it did
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
