"""Output is not the run: ``graduatoria ingest … | head -1`` keeps the run's work and exits 0.

The command runs in this process with a stdout that behaves as ``head -1``'s pipe: it takes the
first line, then every write fails with a broken pipe (EPIPE), as writes to a pipe whose
reader has gone do. (A real pipe is tested in test_console.py; a subprocess would pay for a
Prefect server of its own.)"""

from __future__ import annotations

import io
import sys

import pytest

from flows.cli import main
from flows.warehouse import Warehouse
from tests.flows.helpers import shared_delivery

pytestmark = pytest.mark.usefixtures("prefect_server")


class HeadOne(io.TextIOBase):
    """stdout read by ``head -1``."""

    def __init__(self) -> None:
        super().__init__()
        self.taken = ""
        self.refused = 0

    def write(self, text: str) -> int:
        if "\n" in self.taken:
            self.refused += 1
            raise BrokenPipeError(32, "Broken pipe")
        self.taken += text
        return len(text)

    def isatty(self) -> bool:
        return False


def test_an_ingest_whose_reader_went_away_keeps_its_work_and_exits_0(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    shared_delivery(inbox / "2026-03")
    warehouse = tmp_path / "w.duckdb"
    head = HeadOne()
    monkeypatch.setattr(sys, "stdout", head)

    code = main(["ingest", str(inbox), "--warehouse", str(warehouse)])

    assert sys.stdout is not head  # closed once, then pointed at devnull
    sys.stdout.close()
    monkeypatch.undo()
    assert head.taken == f"ingest: 1 delivery found under {inbox}\n"
    assert head.refused == 1  # the second line found the reader gone; nothing after tried it
    assert code == 0
    with Warehouse(warehouse).reader() as con:
        runs = con.execute("SELECT flow, status FROM run").fetchall()
        accepted = con.execute(
            "SELECT count(*) FROM tournament WHERE status = 'accepted'"
        ).fetchone()[0]
    assert runs == [("ingest", "succeeded")]
    assert accepted == 7  # as test_every_shared_file_ingests_and_a_rerun_adds_nothing


def test_status_read_by_head_exits_0(tmp_path, monkeypatch):
    warehouse = tmp_path / "w.duckdb"
    with Warehouse(warehouse).transaction() as con:  # an empty warehouse, tables and views made
        con.execute("SELECT 1")
    head = HeadOne()
    monkeypatch.setattr(sys, "stdout", head)
    code = main(["status", "--warehouse", str(warehouse)])
    if sys.stdout is not head:
        sys.stdout.close()
    monkeypatch.undo()
    assert code == 0
    assert head.taken.startswith(f"Warehouse: {warehouse}")
