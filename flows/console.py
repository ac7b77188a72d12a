"""What a command says to the analyst: progress lines, phases, progress bars and counted nouns.

The lowest room of the flows: the warehouse's lock notice and every flow print through it.

Output is not the run: a reader that goes away (``graduatoria ingest … | head -1``) must never
fail a run, nor roll back what it wrote. Every write here goes through :func:`show`, which
takes a closed pipe once and from then on sends the stream to ``os.devnull`` (as Python's
documentation advises: https://docs.python.org/3/library/signal.html#note-on-sigpipe).

Standard library only: :mod:`flows.cli` imports this module at its top, and ``--help`` must
not pay for Polars, DuckDB or Prefect.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TextIO

# a progress bar and a phase leave their line open (no newline yet) while they work, and are
# its owner; anything else written meanwhile ends that line first, so two messages never share
# one. The lock keeps lines whole when a background thread reports (recalculate publishes
# lists on one).
_lock = threading.RLock()
_open_line_owner: object | None = None
# set when standard output carries a command's data (``export --out -``): its own lines then
# go to stderr, so that what a pipe reads is the data alone
_lines_to_stderr = False


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 list date``, ``2 list dates``: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def say(message: str) -> None:
    """A progress line for the analyst on stdout, also kept in the Prefect run's log."""
    show(message)
    _log(message)


def show(message: str, *, err: bool = False, end: str = "\n") -> None:
    """Write ``message`` to stdout (or stderr) now; a reader that went away is no error.

    The command-line's own lines (the warehouse it used, its one-line errors) print through
    this too, so a closed pipe never turns a run that succeeded into a failure."""
    with _lock:
        _end_open_line()
        _write(message + end, err=err)


def _end_open_line() -> None:
    global _open_line_owner
    if _open_line_owner is not None:
        _write("\n", err=False)
        _open_line_owner = None


def is_terminal() -> bool:
    """Whether stdout is a terminal (where a line can be redrawn in place), not a pipe or file."""
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def elapsed_text(seconds: float) -> str:
    """``0.4 s``, ``12.3 s``, ``2 min 05 s``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


@contextmanager
def phase(label: str, clock: Callable[[], float] = time.perf_counter) -> Iterator[None]:
    """``reading the history… 2.1 s``: the label when a phase starts, its time when it ends.

    The label is written without a newline at once, so the analyst sees what the command is
    doing while it does it; the time completes the line. If something else is written in
    between (a warning), the phase's line is repeated whole with its time at the end."""
    global _open_line_owner
    began = clock()
    owner = object()
    with _lock:
        show(f"{label}…", end="")
        _open_line_owner = owner
    outcome = ""
    try:
        yield
    except BaseException:
        outcome = "stopped after "  # the error follows on its own line
        raise
    finally:
        took = elapsed_text(clock() - began)
        with _lock:
            if _open_line_owner is owner:
                _write(f" {outcome}{took}\n", err=False)
                _open_line_owner = None
            else:
                _end_open_line()
                _write(f"{label}… {outcome}{took}\n", err=False)
        _log(f"{label}… {outcome}{took}")


class Progress:
    """Progress through ``total`` items: on a terminal one line redrawn in place (a bar, the
    count, the share done, the time so far and the latest item); piped or in a file, plain
    lines (every item up to :attr:`EVERY_ITEM_UP_TO` items, beyond that every 10 %, and the
    last), which are also the lines kept in the Prefect run's log.

    Use as a context manager, calling :meth:`advance` once per item done::

        with Progress(len(deliveries), "parsing") as progress:
            for delivery in deliveries:
                ...
                progress.advance(f"{delivery.folder.name}: parsed")
    """

    EVERY_ITEM_UP_TO = 20
    BAR_WIDTH = 20
    # a terminal line redrawn more often than this is flicker, and costs time on a long list
    REDRAW_SECONDS = 0.1

    def __init__(
        self,
        total: int,
        label: str = "",
        *,
        terminal: bool | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.total = max(total, 0)
        self.label = label
        self.done = 0
        self.terminal = is_terminal() if terminal is None else terminal
        self._clock = clock
        self._began = clock()
        self._drawn_at: float | None = None
        self._last_step = 0  # the last 10 % step a plain line was written for
        self._item = ""

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, item: str = "") -> None:
        """One more item done; ``item`` says which (and how it went)."""
        self.done += 1
        self._item = item
        if self.terminal:
            now = self._clock()
            due = self._drawn_at is None or now - self._drawn_at >= self.REDRAW_SECONDS
            if due or self.done >= self.total:
                self._draw(now)
            if self._plain_line_due():
                _log(self._plain_line())
        elif self._plain_line_due():
            say(self._plain_line())

    def close(self) -> None:
        """End the bar's line on a terminal (with the final count), whatever happened."""
        if not self.terminal:
            return
        with _lock:
            if self._drawn_at is not None and self.done < self.total:
                self._draw(self._clock())  # stopped early: show where
            if _open_line_owner is self:
                _end_open_line()

    def _plain_line_due(self) -> bool:
        if self.total <= self.EVERY_ITEM_UP_TO or self.done >= self.total:
            return True
        step = self.done * 10 // self.total
        if step > self._last_step:
            self._last_step = step
            return True
        return False

    def _elapsed(self) -> str:
        return elapsed_text(self._clock() - self._began)

    def _plain_line(self) -> str:
        label = f"{self.label} " if self.label else ""
        item = f" {self._item}" if self._item else ""
        return f"  {label}[{self.done}/{self.total}]{item} ({self._elapsed()})"

    def _draw(self, now: float) -> None:
        global _open_line_owner
        self._drawn_at = now
        share = self.done / self.total if self.total else 1.0
        filled = min(self.BAR_WIDTH, int(share * self.BAR_WIDTH))
        bar = "#" * filled + "-" * (self.BAR_WIDTH - filled)
        label = f"{self.label} " if self.label else ""
        item = f" {self._item}" if self._item else ""
        # the count as wide as the total, so the line does not shift as it grows
        count = f"{self.done:>{len(str(self.total))}}/{self.total}"
        took = elapsed_text(now - self._began)
        text = f"  {label}[{bar}] {count} {int(share * 100):3d} % {took}{item}"
        # one line, never wrapped: a wrapped line cannot be redrawn with a carriage return
        width = max(shutil.get_terminal_size().columns - 1, 20)
        with _lock:
            if _open_line_owner is not self:
                _end_open_line()  # another's line (a phase's label), or a line of its own
            _write("\r" + text[:width].ljust(width), err=False)
            _open_line_owner = self


def _log(message: str) -> None:
    # imported here: a command that runs no flow never loads Prefect (seconds), and Prefect's
    # settings must be configured before its first import (flows.runtime). A command that has
    # not imported Prefect is in no flow run: nothing to log to
    if "prefect" not in sys.modules:
        return
    try:
        from prefect.exceptions import MissingContextError
        from prefect.logging import get_run_logger

        get_run_logger().info(message)
    except (ImportError, MissingContextError):
        pass


def keep_stdout_for_data() -> None:
    """From now on the command's own lines (progress, what it did, the warehouse it used) go
    to stderr: standard output carries the data :func:`write_data` writes."""
    global _lines_to_stderr
    _lines_to_stderr = True


def write_data(content: bytes) -> None:
    """Write ``content`` to standard output as it is; a reader that went away is no error."""
    stream: TextIO | None = sys.stdout
    if stream is None:
        return
    try:
        stream.flush()
        binary = getattr(stream, "buffer", None)
        if binary is None:  # a test's text stand-in
            stream.write(content.decode("utf-8"))
        else:
            binary.write(content)
            binary.flush()
    except OSError as error:
        if not _reader_went_away(error):
            raise
        silence(err=False)


def _write(text: str, *, err: bool) -> None:
    """Write and flush ``text``; a closed pipe is taken once, then the stream is silenced."""
    to_stderr = err or _lines_to_stderr
    stream: TextIO | None = sys.stderr if to_stderr else sys.stdout
    if stream is None:  # started with the stream closed (``>&-``): nobody to tell
        return
    try:
        stream.write(text)
        stream.flush()
    except OSError as error:
        if not _reader_went_away(error):
            raise
        silence(err=to_stderr)


def _reader_went_away(error: OSError) -> bool:
    return isinstance(error, BrokenPipeError) or error.errno in (errno.EPIPE, errno.ESHUTDOWN)


def silence(*, err: bool = False) -> None:
    """Send stdout (or stderr) to ``os.devnull`` from now on: its reader went away.

    The stream's file descriptor is pointed at ``os.devnull`` when it has one, so what is still
    buffered, Python's flush at exit and any child process write nowhere instead of failing
    again ("Exception ignored … BrokenPipeError" after the command ended); a stream without
    one (a test's stand-in) is replaced by a ``os.devnull`` file."""
    name = "stderr" if err else "stdout"
    stream = getattr(sys, name)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        setattr(sys, name, open(devnull, "w", encoding="utf-8"))  # noqa: SIM115 (kept open)
        return
    os.dup2(devnull, descriptor)
    os.close(devnull)
