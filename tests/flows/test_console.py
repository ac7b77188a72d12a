"""What a command says while it works: progress bars on a terminal and plain lines in a pipe,
phases with their time, and a reader that goes away (``| head -1``) taken without an error."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator

import pytest

from flows import console
from flows.console import Progress, elapsed_text, phase, say, show


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    """A stdout that says it is a terminal, keeping everything written to it."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _no_open_line() -> Iterator[None]:
    # a test that fails midway must not leave the next one a line to end
    console._open_line_owner = None
    yield
    console._open_line_owner = None


def test_piped_progress_is_a_plain_line_per_item_with_the_time(capsys):
    clock = Clock()
    with Progress(3, clock=clock) as progress:
        assert not progress.terminal  # pytest's capture is no terminal
        for name in ("2019-04", "2019-05", "2019-06"):
            clock.now += 1.5
            progress.advance(f"{name}: parsed")
    assert capsys.readouterr().out.splitlines() == [
        "  [1/3] 2019-04: parsed (1.5 s)",
        "  [2/3] 2019-05: parsed (3.0 s)",
        "  [3/3] 2019-06: parsed (4.5 s)",
    ]


def test_piped_progress_of_many_items_writes_every_ten_per_cent(capsys):
    with Progress(95, "replaying", clock=Clock()) as progress:
        for _ in range(95):
            progress.advance()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10
    assert lines[0] == "  replaying [10/95] (0.0 s)"
    assert lines[-1] == "  replaying [95/95] (0.0 s)"
    assert "\r" not in "".join(lines)


def test_a_terminal_gets_one_line_redrawn_in_place(monkeypatch):
    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    clock = Clock()
    with Progress(4, clock=clock) as progress:
        assert progress.terminal
        progress.advance("a")
        clock.now += 0.01  # sooner than a redraw: not drawn
        progress.advance("b")
        clock.now += 1.0
        progress.advance("c")
        assert "\n" not in screen.getvalue()  # still the one line
        clock.now += 1.0
        progress.advance("d")
    drawn = screen.getvalue()
    assert drawn.endswith("\n") and drawn.count("\n") == 1
    frames = [frame.rstrip() for frame in drawn.rstrip("\n").split("\r")[1:]]
    assert frames == [
        "  [#####---------------] 1/4  25 % 0.0 s a",
        "  [###############-----] 3/4  75 % 1.0 s c",
        "  [####################] 4/4 100 % 2.0 s d",
    ]


def test_the_terminal_is_told_from_a_pipe(monkeypatch):
    monkeypatch.setattr(sys, "stdout", Terminal())
    assert Progress(2).terminal
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert not Progress(2).terminal
    monkeypatch.setattr(sys, "stdout", None)  # started with stdout closed
    assert not Progress(2).terminal


def test_a_line_said_during_a_bar_starts_on_a_line_of_its_own(monkeypatch):
    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    with Progress(2, clock=Clock()) as progress:
        progress.advance("a")
        say("waiting for another run to finish writing w.duckdb…")
        progress.advance("b")
    lines = screen.getvalue().split("\n")
    assert lines[1] == "waiting for another run to finish writing w.duckdb…"
    assert lines[2].startswith("\r  [####################] 2/2")


def test_a_bar_stopped_by_an_error_ends_its_line(monkeypatch):
    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    with pytest.raises(ValueError), Progress(5, clock=Clock()) as progress:
        progress.advance("a")
        raise ValueError("bad delivery")
    assert screen.getvalue().endswith("\n")


def test_a_phase_says_what_it_does_then_how_long_it_took(capsys):
    clock = Clock()
    with phase("reading the history", clock=clock):
        assert capsys.readouterr().out == "reading the history…"  # at once, before the work
        clock.now += 2.1
    assert capsys.readouterr().out == " 2.1 s\n"


def test_a_phase_interrupted_by_a_line_is_repeated_whole(capsys):
    clock = Clock()
    with phase("writing the tournaments", clock=clock):
        say("a warning")
        clock.now += 75
    assert capsys.readouterr().out == (
        "writing the tournaments…\na warning\nwriting the tournaments… 1 min 15 s\n"
    )


def test_a_phase_that_fails_says_so(capsys):
    clock = Clock()
    with pytest.raises(RuntimeError), phase("reading the files", clock=clock):
        clock.now += 0.3
        raise RuntimeError("disk")
    assert capsys.readouterr().out == "reading the files… stopped after 0.3 s\n"


def test_elapsed_times_read_naturally():
    assert elapsed_text(0.04) == "0.0 s"
    assert elapsed_text(59.94) == "59.9 s"
    assert elapsed_text(61) == "1 min 01 s"
    assert elapsed_text(3600) == "60 min 00 s"


class HeadOne(io.StringIO):
    """A stdout read by ``head -1``: it takes the first line, then its reader is gone."""

    def write(self, text: str) -> int:
        if "\n" in self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)

    def fileno(self) -> int:
        raise io.UnsupportedOperation("no file descriptor")


def test_a_reader_gone_away_is_no_error_and_the_rest_goes_nowhere(monkeypatch):
    head = HeadOne()
    monkeypatch.setattr(sys, "stdout", head)
    say("ingest: 1 deliveries found under inbox")
    say("  [1/1] 2026-03: parsed")  # the reader is gone: taken once, no error
    assert sys.stdout is not head  # a stand-in without a descriptor is replaced by devnull
    say("# Ingest run …")
    show("graduatoria: warehouse w.duckdb")
    with Progress(2) as progress:
        progress.advance()
        progress.advance()
    assert head.getvalue() == "ingest: 1 deliveries found under inbox\n"
    sys.stdout.close()  # the devnull file opened for it


def test_a_real_pipe_closed_by_its_reader_is_pointed_at_devnull(monkeypatch):
    reader, writer = os.pipe()
    os.close(reader)  # as head does after its first line
    stdout = os.fdopen(writer, "w", encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stdout)
    try:
        show("first line")  # EPIPE (Python ignores SIGPIPE): taken, not raised
        show("second line")
        assert sys.stdout is stdout
        # the descriptor itself now writes to devnull, so Python's flush at exit is quiet too
        assert os.fstat(writer).st_rdev == os.stat(os.devnull).st_rdev
        stdout.flush()
    finally:
        stdout.close()


def test_stderr_read_by_nobody_is_no_error_either(monkeypatch):
    head = HeadOne("already a line\n")
    monkeypatch.setattr(sys, "stderr", head)
    show("graduatoria: error: something", err=True)
    assert sys.stderr is not head
    sys.stderr.close()


def test_other_write_errors_are_not_hidden(monkeypatch):
    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stdout", Full())
    with pytest.raises(OSError, match="No space left"):
        show("a line")
