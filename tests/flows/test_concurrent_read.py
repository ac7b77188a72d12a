"""A dashboard reading while a flow writes: no error, and never a half-written state."""

import subprocess
import sys
import time

import pytest

from flows.warehouse import Warehouse
from tests.flows.helpers import REPO_ROOT, shared_delivery

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_a_reader_process_polls_without_error_during_ingests(tmp_path):
    from flows.elo.ingest import ingest_flow

    warehouse = tmp_path / "w.duckdb"
    # an empty warehouse exists before the reader starts
    with Warehouse(warehouse).transaction() as con:
        con.execute("SELECT 1").fetchall()
    inbox = tmp_path / "inbox"
    rows = shared_delivery(inbox / "2026-03")
    stop, out = tmp_path / "stop", tmp_path / "polls.txt"
    reader = subprocess.Popen(
        [sys.executable, "-m", "tests.flows.reader_probe", str(warehouse), str(stop), str(out)],
        cwd=REPO_ROOT,
    )
    try:
        time.sleep(1.0)
        ingest_flow(str(inbox), str(warehouse))
        # a corrected delivery of every tournament: a second swap under the reader
        second = shared_delivery(inbox / "2026-06")
        for row in second:
            path = inbox / "2026-06" / row["file"]
            path.write_bytes(path.read_bytes() + b"\n")
        ingest_flow(str(inbox), str(warehouse))
        time.sleep(1.0)
    finally:
        stop.touch()
        reader.wait(timeout=30)
    polls = out.read_text(encoding="utf-8").splitlines()
    errors = [line for line in polls if not line.startswith("ok ")]
    versions_seen = [int(line.split()[1]) for line in polls if line.startswith("ok ")]
    assert errors == []
    assert len(polls) > 50
    # only committed states are ever visible, in order: nothing, one version each, two each
    assert set(versions_seen) <= {0, len(rows), 2 * len(rows)}
    assert versions_seen == sorted(versions_seen)
    assert versions_seen[0] == 0 and versions_seen[-1] == 2 * len(rows)
