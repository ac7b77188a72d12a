"""The standby: a run writes in the live file's previous generation brought up to date, and the
result is the same as writing in a copy of the whole file, or it copies."""

import os
import re
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows import warehouse as warehouse_module
from flows.runtime import record_failure
from flows.warehouse import APPEND_ONLY_TABLES, Warehouse, catch_up

REPO_ROOT = Path(__file__).resolve().parents[2]


def _contents(path: Path) -> dict[str, object]:
    """Every table's rows in storage order, and the sequences' positions."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [
            row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        ]
        found: dict[str, object] = {
            table: con.execute(
                f"SELECT * EXCLUDE (applied_at) FROM {table} ORDER BY rowid"
                if table == "schema_migration"
                else f"SELECT * FROM {table} ORDER BY rowid"
            ).fetchall()
            for table in tables
        }
        found["sequences"] = con.execute(
            "SELECT sequence_name, last_value FROM duckdb_sequences() ORDER BY 1"
        ).fetchall()
        return found
    finally:
        con.close()


# one write run each: appends to big tables, edits of small ones, a sequence drawn (fixed
# times, so that two warehouses given the same writes hold the same rows)
def _add_problem(con: duckdb.DuckDBPyConnection, n: int) -> None:
    con.execute(
        "INSERT INTO input_problem (problem_id, severity, run_id, source, file_name, line_no,"
        " reason, recorded_at) VALUES (?, 'error', 'r', 'trf', 'f.trf', ?, 'a reason',"
        " TIMESTAMP '2026-01-01 10:00')",
        [f"p{n}", n],
    ).fetchall()


def _merge(con: duckdb.DuckDBPyConnection, n: int) -> None:
    con.execute(
        "INSERT INTO player_merge VALUES (?, ?, '', 'r', TIMESTAMP '2026-01-01 10:00')"
        " ON CONFLICT (provisional_id) DO UPDATE SET player_id = excluded.player_id",
        [f"P-{n % 3}", str(n)],
    ).fetchall()


def _registry_load(con: duckdb.DuckDBPyConnection, n: int) -> None:
    con.execute(
        "INSERT INTO registry_load VALUES (nextval('registry_load_seq'), DATE '2020-01-01', ?,"
        " ?, 1, 1, 'r', TIMESTAMP '2026-01-01 10:00')",
        [f"h{n}", f"m{n}"],
    ).fetchall()


def _forget_merges(con: duckdb.DuckDBPyConnection, n: int) -> None:
    con.execute("DELETE FROM player_merge").fetchall()


WRITES = {
    "problem": _add_problem,
    "merge": _merge,
    "registry load": _registry_load,
    "forget merges": _forget_merges,
}


def _run(warehouse: Warehouse, writes: list[str], n: int) -> None:
    with warehouse.transaction() as con:
        for offset, name in enumerate(writes):
            WRITES[name](con, n * 10 + offset)


def _always_copying(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        warehouse_module.Standby, "take_up_to_date", lambda self, live, staging: None
    )


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    runs=st.lists(
        st.lists(st.sampled_from(sorted(WRITES)), min_size=0, max_size=3), min_size=1, max_size=6
    )
)
def test_writing_in_the_standby_gives_what_writing_in_a_copy_gives(tmp_path_factory, runs):
    folder = tmp_path_factory.mktemp("standby")
    with_standby = Warehouse(folder / "w.duckdb")
    copied = Warehouse(folder / "copied.duckdb")
    used = []
    for n, writes in enumerate(runs):
        with pytest.MonkeyPatch.context() as patch:
            _always_copying(patch)
            _run(copied, writes, n)
        _run(with_standby, writes, n)
        used.append(with_standby.staged_from)
        assert _contents(with_standby.path) == _contents(copied.path)
    assert used == ["new", "copy", *["standby"] * (len(runs) - 2)][: len(runs)]


def test_a_run_on_the_standby_copies_nothing_and_keeps_the_file_it_replaced(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    for n in range(3):
        _run(warehouse, ["problem", "registry load"], n)
    assert warehouse.staged_from == "standby"
    standby = tmp_path / ".w.duckdb.standby"
    # the previous generation: two runs' problems, not three
    con = duckdb.connect(str(standby), read_only=True)
    assert con.execute("SELECT count(*) FROM input_problem").fetchone()[0] == 2
    con.close()
    assert stat.S_IMODE(standby.stat().st_mode) == 0o600
    assert _contents(warehouse.path)["sequences"] == [
        ("fid_registry_load_seq", None),
        ("registry_load_seq", 3),
    ]


def test_a_program_still_reading_the_previous_generation_makes_the_run_copy(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    _run(warehouse, ["problem"], 0)
    _run(warehouse, ["problem"], 1)
    # a dashboard opens the live file, which the next run replaces (it becomes the standby)
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import duckdb, sys
con = duckdb.connect({str(warehouse.path)!r}, read_only=True)
print(con.execute("SELECT count(*) FROM input_problem").fetchone()[0], flush=True)
sys.stdin.readline()
print(con.execute("SELECT count(*) FROM input_problem").fetchone()[0], flush=True)
""",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout.readline().strip() == "2"
    _run(warehouse, ["problem"], 2)
    assert warehouse.staged_from == "standby"
    # the file it reads is now the standby: the next run must not write in it
    _run(warehouse, ["problem"], 3)
    assert warehouse.staged_from == "copy"
    out, _ = reader.communicate("\n", timeout=60)
    assert out.strip() == "2"  # it read what it opened, undisturbed
    assert _contents(warehouse.path)["input_problem"].__len__() == 4
    _run(warehouse, ["problem"], 4)
    assert warehouse.staged_from == "standby"


def test_a_connection_of_this_process_on_the_previous_generation_makes_the_run_copy(
    tmp_path, capsys
):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    _run(warehouse, ["problem"], 0)
    assert capsys.readouterr().out == ""  # a new warehouse: nothing to copy, nothing to say
    _run(warehouse, ["problem"], 1)
    # the second write copies (the first left no standby), and says so
    assert re.fullmatch(
        r"writing in a copy of w\.duckdb \(\d+ MB\): there is no standby beside it \(the file "
        r"a run's swap replaces becomes the standby: a new warehouse has none until its second "
        r"write is done, and a run that fails drops the one it took\)\n",
        capsys.readouterr().out,
    )
    with warehouse.reader() as reader:
        _run(warehouse, ["problem"], 2)  # the file the reader has becomes the standby
        assert capsys.readouterr().out == ""  # written in the standby: a normal run
        _run(warehouse, ["problem"], 3)
        assert warehouse.staged_from == "copy"
        assert "this process still reads the standby" in capsys.readouterr().out
        assert reader.execute("SELECT count(*) FROM input_problem").fetchone()[0] == 2


def test_a_write_by_another_program_between_runs_makes_the_run_copy(tmp_path, capsys):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    _run(warehouse, ["problem"], 0)
    _run(warehouse, ["problem"], 1)
    con = duckdb.connect(str(warehouse.path))
    _add_problem(con, 99)
    con.close()
    capsys.readouterr()
    _run(warehouse, ["problem"], 2)
    assert warehouse.staged_from == "copy"
    assert "the warehouse or its standby changed since the last run's swap" in (
        capsys.readouterr().out
    )
    problems = [row[0] for row in _contents(warehouse.path)["input_problem"]]
    assert problems == ["p0", "p10", "p99", "p20"]


def test_a_failed_run_drops_the_standby_and_the_next_copies(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    for n in range(3):
        _run(warehouse, ["problem"], n)
    before = warehouse.path.read_bytes()
    with pytest.raises(RuntimeError), warehouse.transaction() as con:
        _add_problem(con, 50)
        raise RuntimeError("stopped half-way")
    assert warehouse.path.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["w.duckdb", "w.duckdb.lock"]
    _run(warehouse, ["problem"], 3)
    assert warehouse.staged_from == "copy"
    assert len(_contents(warehouse.path)["input_problem"]) == 4


def test_status_says_where_the_next_run_writes(tmp_path):
    from flows.status import status_text

    warehouse = Warehouse(tmp_path / "w.duckdb")
    _run(warehouse, ["problem"], 0)
    status = status_text(str(warehouse.path))
    assert re.search(
        r"Writes:\n  the next run copies the warehouse \(\d+ MB\): there is no standby", status
    )
    _run(warehouse, ["problem"], 1)
    assert re.search(
        r"Writes:\n  the next run writes in the standby \.w\.duckdb\.standby \(\d+ MB beside",
        status_text(str(warehouse.path)),
    )
    con = duckdb.connect(str(warehouse.path))
    _add_problem(con, 99)
    con.close()
    assert "the next run copies the warehouse" in status_text(str(warehouse.path))
    assert "changed since the last run's swap" in status_text(str(warehouse.path))


def test_status_says_a_killed_run_took_the_standby(tmp_path, capsys):
    from flows.status import status_text

    warehouse = Warehouse(tmp_path / "w.duckdb")
    _run(warehouse, ["problem"], 0)
    _run(warehouse, ["problem"], 1)
    # as a run killed while it wrote in the standby it had taken leaves it (a process that
    # has ended, so its file is a leftover)
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    taken = tmp_path / f".w.duckdb.staging-{ended.stdout.strip()}"
    (tmp_path / ".w.duckdb.standby").rename(taken)
    assert "a run that stopped half-way (killed, or the machine down) had taken it" in (
        status_text(str(warehouse.path))
    )
    capsys.readouterr()
    _run(warehouse, ["problem"], 2)
    assert not taken.exists()
    # and the run that copies says so too, not that warehouses get a standby at a first write
    assert (
        "there is no standby beside it: a run that stopped half-way (killed, or the machine "
        "down) had taken it; what it left was removed" in capsys.readouterr().out
    )
    assert "the next run writes in the standby" in status_text(str(warehouse.path))


def test_the_record_of_a_failed_run_says_why_it_copies(tmp_path, capsys):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    for n in range(3):
        _run(warehouse, ["problem"], n)
    capsys.readouterr()
    with pytest.raises(RuntimeError), warehouse.transaction() as con:
        _add_problem(con, 50)
        raise RuntimeError("stopped half-way")
    assert capsys.readouterr().out == ""  # the failed run had taken the standby: nothing said
    record_failure(
        "quarterly", {"warehouse": str(warehouse.path)}, datetime(2026, 1, 1), RuntimeError("x")
    )
    said = capsys.readouterr().out
    assert said.startswith("writing in a copy of w.duckdb (")
    assert " MB) to record the failed run: there is no standby beside it (" in said
    assert len(_contents(warehouse.path)["input_problem"]) == 3


def _two_generations(tmp_path: Path) -> tuple[duckdb.DuckDBPyConnection, duckdb.DuckDBPyConnection]:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    _run(warehouse, ["problem", "problem"], 0)
    earlier = tmp_path / "earlier.duckdb"
    earlier.write_bytes(warehouse.path.read_bytes())
    _run(warehouse, ["problem", "merge"], 1)
    return duckdb.connect(str(earlier)), duckdb.connect(str(warehouse.path), read_only=True)


def test_catching_up_refuses_a_standby_whose_rows_differ_from_the_live_ones(tmp_path):
    standby, live = _two_generations(tmp_path)
    standby.execute("UPDATE input_problem SET reason = 'edited' WHERE problem_id = 'p1'")
    assert catch_up(standby, live) is False


def test_catching_up_refuses_a_standby_with_rows_the_live_file_lacks(tmp_path):
    standby, live = _two_generations(tmp_path)
    for n in range(5):
        _add_problem(standby, 100 + n)
    assert catch_up(standby, live) is False


def test_catching_up_refuses_an_append_only_table_with_a_row_deleted(tmp_path):
    standby, live = _two_generations(tmp_path)
    standby.execute("DELETE FROM input_problem WHERE problem_id = 'p0'")
    _add_problem(standby, 7)  # as many rows again, one of them elsewhere
    assert catch_up(standby, live) is False


def test_catching_up_refuses_another_schema(tmp_path):
    standby, live = _two_generations(tmp_path)
    standby.execute("ALTER TABLE input_problem ADD COLUMN note VARCHAR")
    assert catch_up(standby, live) is False


def test_catching_up_makes_the_earlier_generation_equal(tmp_path):
    standby, live = _two_generations(tmp_path)
    assert catch_up(standby, live) is True
    standby.close()
    live.close()
    assert _contents(tmp_path / "earlier.duckdb") == _contents(tmp_path / "w.duckdb")


# --- the tables the standby appends to are only appended to ----------------------------------

_WRITES_TO = re.compile(
    r"\b(?:UPDATE|DELETE\s+FROM|INSERT\s+OR\s+REPLACE\s+INTO|MERGE\s+INTO|TRUNCATE(?:\s+TABLE)?"
    r"|DROP\s+TABLE(?:\s+IF\s+EXISTS)?|ALTER\s+TABLE)\s+([a-z_][a-z0-9_]*)",
    re.IGNORECASE,
)
_UPSERT_INTO = re.compile(
    r"\bINSERT\s+INTO\s+([a-z_][a-z0-9_]*)[^;]*?ON\s+CONFLICT[^;]*?DO\s+UPDATE", re.IGNORECASE
)
# "ON CONFLICT ... DO UPDATE SET x" is an upsert, read by the pattern above, not an UPDATE
_NOT_A_TABLE = {"set"}


def _statements_outside_migrations() -> list[Path]:
    sources = [
        path for path in (REPO_ROOT / "sql").rglob("*.sql") if "migrations" not in path.parts
    ]
    sources += [
        path
        for folder in ("flows", "transforms", "schemas")
        for path in (REPO_ROOT / folder).rglob("*.py")
    ]
    return sources


def test_nothing_but_a_migration_changes_or_removes_rows_of_an_append_only_table():
    changed = {
        (path.relative_to(REPO_ROOT).as_posix(), table.lower())
        for path in _statements_outside_migrations()
        for pattern in (_WRITES_TO, _UPSERT_INTO)
        for table in pattern.findall(path.read_text(encoding="utf-8"))
        if table.lower() in APPEND_ONLY_TABLES
    }
    assert changed == set()


def test_the_scan_for_changing_statements_finds_them():
    text = (
        "UPDATE tournament_game SET x = 1; delete from list_entry where 1;\n"
        "INSERT INTO player_merge VALUES (1) ON CONFLICT DO NOTHING;\n"
        "INSERT INTO raw_file VALUES (1) ON CONFLICT (sha256) DO UPDATE SET x = 2"
    )
    found = {
        t
        for p in (_WRITES_TO, _UPSERT_INTO)
        for t in p.findall(text)
        if t.lower() not in _NOT_A_TABLE
    }
    assert found == {"tournament_game", "list_entry", "raw_file"}


def test_every_append_only_table_exists():
    warehouse = Warehouse(Path(os.environ.get("TMPDIR", "/tmp")) / f"tables-{os.getpid()}.duckdb")
    try:
        with warehouse.transaction():
            pass
        tables = set(_contents(warehouse.path)) - {"sequences"}
        assert tables >= APPEND_ONLY_TABLES
    finally:
        for path in warehouse.path.parent.glob(f"*tables-{os.getpid()}.duckdb*"):
            path.unlink()


def test_a_second_writer_let_in_by_a_deleted_lock_file_never_writes_in_the_first_ones_file(
    tmp_path,
):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    for n in range(2):
        _run(warehouse, ["problem"], n)
    # the first writer takes the standby and stops half-way, its transaction open
    first = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import sys
from flows.warehouse import Warehouse
warehouse = Warehouse({str(warehouse.path)!r})
with warehouse.transaction() as con:
    con.execute("INSERT INTO player_merge VALUES ('P-FIRST', '1', '', 'r', now())").fetchall()
    print(warehouse.staged_from, flush=True)
    sys.stdin.readline()
""",
        ],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert first.stdout.readline().strip() == "standby"
    warehouse.lock_path.unlink()  # someone tidies the folder
    _run(warehouse, ["merge"], 7)  # a second writer gets in
    assert warehouse.staged_from == "copy"
    _, errors = first.communicate("\n", timeout=60)
    # the first one finds the live file changed and gives up; the second one's write stands
    assert first.returncode != 0 and "another program wrote" in errors
    merges = [row[0] for row in _contents(warehouse.path)["player_merge"]]
    assert merges == ["P-1"]
    assert len(_contents(warehouse.path)["input_problem"]) == 2
