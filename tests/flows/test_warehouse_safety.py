"""The swap against the world outside the flow, without Prefect: other programs' write-ahead logs
and read-write opens, interrupted runs, the live file's permissions, a run's end time, a second
writer waiting its turn."""

import errno
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from flows import warehouse as warehouse_module
from flows.runtime import RunRecord
from flows.warehouse import Warehouse, WarehouseError

REPO_ROOT = Path(__file__).resolve().parents[2]


def _merge(con: duckdb.DuckDBPyConnection, provisional_id: str) -> None:
    con.execute(
        "INSERT INTO player_merge VALUES (?, '1', '', 'r1', now())", [provisional_id]
    ).fetchall()


def _merges(path: Path, read_only: bool = True) -> list[str]:
    con = duckdb.connect(str(path), read_only=read_only)
    try:
        return [
            row[0]
            for row in con.execute("SELECT provisional_id FROM player_merge ORDER BY 1").fetchall()
        ]
    finally:
        con.close()


def _warehouse(tmp_path: Path) -> Warehouse:
    """A warehouse holding one merge, P-A."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        _merge(con, "P-A")
    return warehouse


def _python(code: str, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT, text=True, **options)


@contextmanager
def _holding(path: Path, open_options: str, then: str = "") -> Iterator[subprocess.Popen]:
    """Another program holding the file open (``open_options`` for ``duckdb.connect``, after
    running ``then``) for the time of the block; it closes the file and exits after it."""
    program = _python(
        f"""
import duckdb, sys
con = duckdb.connect({str(path)!r}, {open_options})
{then}
print("holding", flush=True)
sys.stdin.readline()
con.close()
""",
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
    )
    try:
        assert program.stdout is not None and program.stdout.readline().strip() == "holding"
        yield program
    finally:
        program.communicate("\n", timeout=60)


def _crash_after_commit(path: Path, provisional_id: str) -> None:
    """A client (the duckdb CLI, a notebook) opens the file read-write, commits a merge and is
    killed before it closes: the commit is only in ``<file>.wal``."""
    client = _python(
        f"""
import duckdb, os, signal
con = duckdb.connect({str(path)!r})
con.execute("SET wal_autocheckpoint = '1GB'")
con.execute("INSERT INTO player_merge VALUES ({provisional_id!r}, '9', '', 'r0', now())")
os.kill(os.getpid(), signal.SIGKILL)
"""
    )
    assert client.wait(timeout=60) == -signal.SIGKILL
    wal = path.with_name(path.name + ".wal")
    assert wal.exists() and wal.stat().st_size > 0


def _files(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir())


# a run that replaced a live file keeps it, and a record of both files, for the next run
WITH_STANDBY = [".w.duckdb.standby", ".w.duckdb.standby.json", "w.duckdb", "w.duckdb.lock"]


# --- someone else's write-ahead log, someone else's read-write connection ---------------------


def test_a_crashed_clients_wal_is_folded_in_and_never_left_beside_the_new_file(tmp_path):
    warehouse = _warehouse(tmp_path)
    _crash_after_commit(warehouse.path, "P-CLIENT")
    with warehouse.transaction() as con:
        # the run works on the state the client committed
        assert [
            row[0]
            for row in con.execute("SELECT provisional_id FROM player_merge ORDER BY 1").fetchall()
        ] == [
            "P-A",
            "P-CLIENT",
        ]
        _merge(con, "P-FLOW")
    assert _files(tmp_path) == WITH_STANDBY
    assert _merges(warehouse.path) == ["P-A", "P-CLIENT", "P-FLOW"]
    assert _merges(warehouse.path, read_only=False) == ["P-A", "P-CLIENT", "P-FLOW"]


def test_a_dashboard_holding_the_file_while_a_wal_is_folded_makes_the_run_wait(tmp_path):
    warehouse = _warehouse(tmp_path)
    _crash_after_commit(warehouse.path, "P-CLIENT")
    # a read-only open (a dashboard's request) holds DuckDB's shared lock for a moment
    dashboard = _python(
        f"""
import duckdb, time
con = duckdb.connect({str(warehouse.path)!r}, read_only=True)
print("open", flush=True)
time.sleep(0.7)
con.close()
""",
        stdout=subprocess.PIPE,
    )
    assert dashboard.stdout.readline().strip() == "open"
    with warehouse.transaction() as con:
        _merge(con, "P-FLOW")
    assert dashboard.wait(timeout=60) == 0
    assert _files(tmp_path) == WITH_STANDBY
    assert _merges(warehouse.path) == ["P-A", "P-CLIENT", "P-FLOW"]


def test_a_wal_that_cannot_be_folded_in_time_stops_the_run_with_a_plain_message(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(warehouse_module, "FOLD_WAIT_SECONDS", 0.3, raising=False)
    warehouse = _warehouse(tmp_path)
    _crash_after_commit(warehouse.path, "P-CLIENT")
    with (
        _holding(warehouse.path, "read_only=True"),
        pytest.raises(WarehouseError) as caught,
        warehouse.transaction() as con,
    ):
        _merge(con, "P-FLOW")
    message = str(caught.value)
    assert "\n" not in message and str(warehouse.path) in message and "w.duckdb.wal" in message
    # nothing lost: the next run, with the file free, folds it
    with warehouse.transaction():
        pass
    assert _merges(warehouse.path) == ["P-A", "P-CLIENT"]


def test_a_run_refuses_to_start_while_another_program_has_the_file_open_read_write(tmp_path):
    warehouse = _warehouse(tmp_path)
    committing = (
        "con.execute(\"INSERT INTO player_merge VALUES ('P-CLIENT', '9', '', 'r0', now())\")"
    )
    with (
        _holding(warehouse.path, "", committing) as client,
        pytest.raises(WarehouseError) as caught,
        warehouse.transaction() as con,
    ):
        _merge(con, "P-FLOW")
    message = str(caught.value)
    assert "\n" not in message
    assert str(warehouse.path) in message and "close it" in message
    assert client.returncode == 0
    # the client's committed merge is kept; the refused run wrote nothing
    assert _merges(warehouse.path) == ["P-A", "P-CLIENT"]
    assert _files(tmp_path) == ["w.duckdb", "w.duckdb.lock"]


def test_a_read_write_client_cannot_open_the_file_while_a_run_writes(tmp_path):
    warehouse = _warehouse(tmp_path)
    with warehouse.transaction() as con:
        _merge(con, "P-FLOW")
        # after the copy: a client that wrote now would see its commit dropped by the swap
        client = _python(
            f"""
import duckdb
con = duckdb.connect({str(warehouse.path)!r})
con.execute("INSERT INTO player_merge VALUES ('P-CLIENT', '9', '', 'r0', now())")
con.close()
""",
            stderr=subprocess.PIPE,
        )
        _, error = client.communicate(timeout=60)
        assert client.returncode != 0
        assert "Could not set lock" in error
        # dashboards still read
        assert _merges(warehouse.path) == ["P-A"]
    assert _merges(warehouse.path) == ["P-A", "P-FLOW"]


def test_a_wal_appearing_during_the_run_stops_the_swap(tmp_path):
    warehouse = _warehouse(tmp_path)
    before = warehouse.path.read_bytes()
    with pytest.raises(WarehouseError, match="during the run"), warehouse.transaction() as con:
        _merge(con, "P-FLOW")
        (tmp_path / "w.duckdb.wal").write_bytes(b"someone else's log")
    assert warehouse.path.read_bytes() == before
    assert _files(tmp_path) == ["w.duckdb", "w.duckdb.lock", "w.duckdb.wal"]


def test_a_wal_without_its_database_is_refused(tmp_path):
    (tmp_path / "w.duckdb.wal").write_bytes(b"a log whose database was moved away")
    with (
        pytest.raises(WarehouseError, match=r"without w\.duckdb"),
        Warehouse(tmp_path / "w.duckdb").transaction(),
    ):
        pass
    assert _files(tmp_path) == ["w.duckdb.lock", "w.duckdb.wal"]


def test_a_stale_wal_of_an_older_file_is_reported_and_left_alone(tmp_path):
    warehouse = _warehouse(tmp_path)
    _crash_after_commit(warehouse.path, "P-CLIENT")
    # the main file moves on without its log (what the swap used to do)
    other = tmp_path / "other.duckdb"
    shutil.copyfile(warehouse.path, other)
    con = duckdb.connect(str(other))
    _merge(con, "P-OTHER")
    con.execute("CHECKPOINT")
    con.close()
    os.replace(other, warehouse.path)
    files, wal = warehouse.path.read_bytes(), (tmp_path / "w.duckdb.wal").read_bytes()
    with (
        pytest.raises(WarehouseError, match="checkpoint iteration") as caught,
        warehouse.transaction(),
    ):
        pass
    assert "\n" not in str(caught.value)
    assert warehouse.path.read_bytes() == files
    assert (tmp_path / "w.duckdb.wal").read_bytes() == wal


# --- interrupted runs ------------------------------------------------------------------------


@pytest.mark.parametrize("failure", ["disk full", "Ctrl-C"])
def test_a_copy_that_fails_half_way_leaves_no_staging_file(tmp_path, monkeypatch, failure):
    warehouse = _warehouse(tmp_path)
    before = warehouse.path.read_bytes()

    def half_a_copy(out_fd, in_fd, offset, count):
        os.write(out_fd, b"\0" * 4096)  # part of the file made it to the staging copy
        if failure == "disk full":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "sendfile", half_a_copy)
    expected = OSError if failure == "disk full" else KeyboardInterrupt
    with pytest.raises(expected), warehouse.transaction() as con:
        _merge(con, "P-FLOW")
    monkeypatch.undo()
    assert warehouse.path.read_bytes() == before
    assert _files(tmp_path) == ["w.duckdb", "w.duckdb.lock"]


def test_the_next_run_removes_what_a_killed_run_left(tmp_path):
    warehouse = _warehouse(tmp_path)
    killed = _python(
        f"""
import os, signal
from flows.warehouse import Warehouse
with Warehouse({str(warehouse.path)!r}).transaction() as con:
    con.execute("INSERT INTO player_merge VALUES ('P-KILLED', '9', '', 'r0', now())")
    os.kill(os.getpid(), signal.SIGKILL)
"""
    )
    assert killed.wait(timeout=60) == -signal.SIGKILL
    # and one from a run whose staging copy had a log of its own
    (tmp_path / ".w.duckdb.staging-999999").write_bytes(b"half a copy")
    (tmp_path / ".w.duckdb.staging-999999.wal").write_bytes(b"its log")
    left = [name for name in _files(tmp_path) if name.startswith(".w.duckdb.staging-")]
    assert f".w.duckdb.staging-{killed.pid}" in left and len(left) >= 3
    with warehouse.transaction() as con:
        _merge(con, "P-FLOW")
    assert warehouse.staged_from == "copy"
    assert _files(tmp_path) == WITH_STANDBY
    assert _merges(warehouse.path) == ["P-A", "P-FLOW"]


# --- the live file's permissions -------------------------------------------------------------


def _another_group() -> int | None:
    """A group this process may give a file, other than its own."""
    if os.geteuid() == 0:
        return 4242
    others = [group for group in os.getgroups() if group != os.getegid()]
    return others[0] if others else None


@pytest.mark.parametrize("mode", [0o640, 0o600, 0o664], ids=oct)
def test_the_swap_keeps_the_live_files_mode_and_group(tmp_path, mode):
    warehouse = _warehouse(tmp_path)
    group = _another_group()
    if group is not None:
        os.chown(warehouse.path, -1, group)
    os.chmod(warehouse.path, mode)
    umask = os.umask(0o022)
    try:
        with warehouse.transaction() as con:
            _merge(con, "P-FLOW")
    finally:
        os.umask(umask)
    after = warehouse.path.stat()
    assert stat.S_IMODE(after.st_mode) == mode
    if group is not None:
        assert after.st_gid == group
    assert _merges(warehouse.path) == ["P-A", "P-FLOW"]


def test_the_staging_file_is_as_private_as_the_live_file(tmp_path):
    warehouse = _warehouse(tmp_path)
    os.chmod(warehouse.path, 0o600)
    umask = os.umask(0o022)
    try:
        with warehouse.transaction() as con:
            _merge(con, "P-FLOW")
            copies = [path for path in tmp_path.iterdir() if ".staging-" in path.name]
            modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in copies}
    finally:
        os.umask(umask)
    assert copies and all(mode & 0o077 == 0 for mode in modes.values()), modes
    assert os.umask(0o022) == 0o022  # and the process's own umask is back


def test_a_living_writers_staging_copy_is_left_to_it(tmp_path):
    # the lock file deleted under a running writer lets another in: the first one's copy (a
    # living process's) stays, a dead one's goes
    warehouse = _warehouse(tmp_path)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / f".w.duckdb.staging-{alive.pid}").write_bytes(b"a run's copy")
        (tmp_path / ".w.duckdb.staging-999999").write_bytes(b"a dead run's copy")
        with warehouse.transaction() as con:
            _merge(con, "P-FLOW")
        assert f".w.duckdb.staging-{alive.pid}" in _files(tmp_path)
        assert ".w.duckdb.staging-999999" not in _files(tmp_path)
    finally:
        alive.kill()
        alive.wait()


# --- the run record's end, a second writer ---------------------------------------------------


def test_the_run_record_ends_when_the_run_ends(tmp_path):
    warehouse = _warehouse(tmp_path)
    run = RunRecord(flow="probe", parameters={}, run_id="probe-run")
    with warehouse.transaction() as con:
        time.sleep(1.2)  # the run's work
        run.write(con, "succeeded", "")
        written = datetime.now()
    with warehouse.reader() as con:
        started, ended = con.execute(
            "SELECT started_at, ended_at FROM run_record WHERE run_id = 'probe-run'"
        ).fetchone()
    assert started == run.started_at
    # local time without a zone, as started_at
    assert abs((written - ended).total_seconds()) < 1
    assert (ended - started).total_seconds() >= 1.2


def test_a_second_writer_says_it_is_waiting(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(warehouse_module, "LOCK_NOTICE_SECONDS", 0.2, raising=False)
    warehouse = _warehouse(tmp_path)
    assert capsys.readouterr().out == ""  # no wait, no word
    other_run = open(warehouse.lock_path, "a+")  # noqa: SIM115 (released by the timer)
    fcntl.flock(other_run, fcntl.LOCK_EX)
    threading.Timer(1.0, other_run.close).start()
    started = time.monotonic()
    with warehouse.transaction() as con:
        _merge(con, "P-FLOW")
    assert time.monotonic() - started >= 0.9
    out = capsys.readouterr().out
    assert out.count("waiting for another run to finish writing") == 1
    assert str(warehouse.path) in out
    assert _merges(warehouse.path) == ["P-A", "P-FLOW"]
