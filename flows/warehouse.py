"""The DuckDB warehouse: migrations, atomic write transactions, short read-only sessions.

DuckDB lets one read-write process lock out every reader, so a flow never writes the live file.
It copies it, writes and checkpoints the copy, then swaps it in with ``os.replace``: dashboards
keep reading the old file until the swap and the new one after, and a failed run leaves the live
file untouched (see STACK-NOTES.md, "Locking").

Other programs may open the live file too. A run keeps a read-only DuckDB connection on it from
before the copy until after the swap: DuckDB's shared lock lets dashboards in and keeps out any
client that would open it read-write (the duckdb CLI's default), whose commits the swap would
otherwise drop; a run refuses to start while such a client has it open. A ``.wal`` left beside
the live file by a client that did not close it (a crash) holds committed changes: the run folds
it into the file before copying, so nothing is lost and no old log lies beside the new file.

The copy costs the whole file, so a run keeps the file it replaced as a *standby*
(``.warehouse.duckdb.standby``): the next run brings that older generation up to date with what
the run before it added (the tables here are appended to, bar a few small ones that are copied
whole) and writes in it, so a run costs what it and its predecessor changed, not the size of the
warehouse. The standby is used only when both files are exactly as the last swap left them
(``.warehouse.duckdb.standby.json`` records them) and nobody holds it open; otherwise the run
copies the live file as before.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

import duckdb
import polars as pl

from flows.console import say

if TYPE_CHECKING:
    import pyarrow as pa

SQL_DIR = Path(__file__).resolve().parents[1] / "sql"
MIGRATIONS_DIR = SQL_DIR / "migrations"
VIEWS_FILE = SQL_DIR / "views.sql"

# Written files stay readable by DuckDB 1.5 and later 1.x clients (many BI connectors still
# are 1.x). Not older: under v1.1.0 DuckDB no longer refuses a write-ahead log left by another
# file (its checkpoint iteration), and would replay it into the warehouse
# (tests/flows/test_warehouse_safety.py).
STORAGE_CONFIG = {"storage_compatibility_version": "v1.5.0"}

# A second run waiting this long for the writer lock says why it is not starting.
LOCK_NOTICE_SECONDS = 1.0
# How long a run keeps trying to fold a left-over write-ahead log into the live file while
# dashboards' read-only opens hold it (each for a few milliseconds at a time).
FOLD_WAIT_SECONDS = 10.0


class WarehouseError(RuntimeError):
    """The warehouse file cannot be opened or migrated."""


# a line ``-- include queries/fragments/NAME.sql`` stands for that file's text: a part that
# several queries share (an expression, a subquery) is written once
SQL_INCLUDE = re.compile(r"^[ \t]*--[ \t]*include[ \t]+(\S+\.sql)[ \t]*$", re.MULTILINE)


def read_sql(name: str) -> str:
    """Return the text of a SQL file kept under ``sql/`` (SQL lives there, not in Python),
    with the files its ``-- include`` lines name in their place."""
    text = (SQL_DIR / name).read_text(encoding="utf-8")
    return SQL_INCLUDE.sub(lambda line: read_sql(line.group(1)), text)


def migration_files() -> list[Path]:
    return sorted(MIGRATIONS_DIR.glob("*.sql"))


def apply_migrations(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply, in order, the migrations not applied yet; recreate the views. Idempotent."""
    execute(
        con,
        "CREATE TABLE IF NOT EXISTS schema_migration "
        "(name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL)",
    )
    applied = {row[0] for row in execute(con, "SELECT name FROM schema_migration")}
    newly_applied = []
    for path in migration_files():
        if path.name in applied:
            continue
        execute(con, path.read_text(encoding="utf-8"))
        execute(con, "INSERT INTO schema_migration VALUES (?, current_timestamp)", [path.name])
        newly_applied.append(path.name)
    execute(con, VIEWS_FILE.read_text(encoding="utf-8"))
    return newly_applied


class Warehouse:
    """A DuckDB file written only through :meth:`transaction` and read through :meth:`reader`."""

    # runs written into a live file by this process (the CLI tells an interrupted run that
    # had already written one from one that had not)
    swaps_done = 0

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path).resolve()
        # how the last write began: "standby" (the previous generation brought up to date),
        # "copy" (a copy of the whole live file) or "new" (no warehouse yet)
        self.staged_from: str | None = None

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def exists(self) -> bool:
        return self.path.exists()

    @property
    def wal_path(self) -> Path:
        return _wal_path(self.path)

    @contextmanager
    def transaction(
        self, create: bool = True, purpose: str = ""
    ) -> Iterator[duckdb.DuckDBPyConnection]:
        """One all-or-nothing write: the live file changes only if the block returns normally.

        ``create=False`` refuses to start a new warehouse (for edits that only make sense on
        data already loaded, such as a merge). ``purpose`` (``"to record the failed run"``)
        is said with the copy of the live file, when the write cannot use the standby.
        """
        if not create and not self.path.exists():
            raise WarehouseError(f"no warehouse at {self.path}: run an ingest first")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a+") as lock:
            # Writers queue behind each other; readers never take this lock.
            _lock_writers(lock, self.path)
            # whoever left these is dead or finished: every writer holds the lock
            stopped = _remove_leftover_staging(self.path)
            standby = Standby(self.path, after_a_stopped_run=stopped)
            # this run's own file (the standby, taken, or a copy): a second writer let in by a
            # lock file deleted under this one writes in a file of its own
            staging = self.path.with_name(f".{self.path.name}.staging-{os.getpid()}")
            live: _LiveFile | None = None
            writeback: Future[None] | None = None
            con: duckdb.DuckDBPyConnection | None = None
            # the staging file and its WAL hold the same people's data as the live file: no
            # one may read them whom the live file keeps out
            umask = os.umask(0o022)
            os.umask(umask)
            try:
                live = self._claim_live_file()
                if live is not None:
                    os.umask(umask | (0o077 & ~live.stat.st_mode))
                    con = standby.take_up_to_date(live, staging)
                self.staged_from = "standby" if con is not None else "copy" if live else "new"
                if con is None:
                    standby.discard()
                    _remove_database_files(staging)
                    if live is not None:
                        # slower than the standby and the same in the end: said, not hidden
                        say(
                            f"writing in a copy of {self.path.name} "
                            f"({live.stat.st_size / 2**20:,.0f} MB)"
                            f"{' ' + purpose if purpose else ''}: "
                            f"{standby.passed_over or 'its standby was not taken'}"
                        )
                        live.copy_to(staging)
                        writeback = _start_writeback(staging)
                    con = _open_staging(staging, self.path)
                # migrations first, committed in the staging file (still all-or-nothing: the
                # file is dropped on failure), so every connection to it sees the schema
                execute(con, "BEGIN TRANSACTION")
                apply_migrations(con)
                execute(con, "COMMIT")
                execute(con, "BEGIN TRANSACTION")
                yield con
                execute(con, "COMMIT")
                execute(con, "CHECKPOINT")
                con.close()
                _finish_writeback(writeback)
                if live is not None:
                    live.give_permissions_to(staging)
                fsync_file(staging)
                self._check_nobody_else_wrote(live)
                aside = standby.set_aside(live)
                os.replace(staging, self.path)
                Warehouse.swaps_done += 1
                standby.keep(aside)
            except BaseException:
                # whatever stopped the run (a disk full during the copy, Ctrl-C): the live
                # file is untouched and the staging file goes
                if con is not None:
                    con.close()
                _finish_writeback(writeback)
                _remove_database_files(staging)
                raise
            finally:
                os.umask(umask)
                if live is not None:
                    live.release()

    def _claim_live_file(self) -> _LiveFile | None:
        """Hold the live file for the run (None when there is none yet), its WAL folded in.

        Called under the writer lock. Refuses (WarehouseError) while another program has the
        file open read-write, or when a WAL lies there without its database."""
        if not self.path.exists():
            if self.wal_path.exists():
                raise WarehouseError(
                    f"{self.wal_path} is there without {self.path.name}: it holds changes to a "
                    "database file that is missing; move it away (or restore the file) and run "
                    "again"
                )
            return None
        deadline = time.monotonic() + FOLD_WAIT_SECONDS
        while True:
            if self.wal_path.exists():
                fold_error = _fold_wal(self.path)
                if fold_error is not None and not _is_lock_conflict(fold_error):
                    raise WarehouseError(
                        f"cannot write {self.wal_path.name} (changes left by a program that did "
                        f"not close the warehouse) into {self.path}: {_first_line(fold_error)}"
                    ) from fold_error
            live = _LiveFile.open(self.path)
            if not self.wal_path.exists():
                return live
            # the fold could not take the file (a dashboard's read-only open held it at that
            # instant, or a client wrote a new WAL since): try again, briefly
            live.release()
            if time.monotonic() > deadline:
                raise WarehouseError(
                    f"cannot write {self.wal_path.name} (changes left by a program that did not "
                    f"close the warehouse) into {self.path}: other programs kept the file open "
                    f"for {FOLD_WAIT_SECONDS:g} s; close them and run again"
                )
            time.sleep(0.02)

    def _check_nobody_else_wrote(self, live: _LiveFile | None) -> None:
        """Last check before the swap: it must not drop another program's file or its WAL.

        The run's read-only connection keeps other programs from writing, so this only
        catches what slipped past it (a writer in this very process, a file created meanwhile).
        """
        if self.wal_path.exists() or (live is not None and live.changed()):
            raise WarehouseError(
                f"another program wrote to {self.path} during the run: this run's changes "
                "were not applied (they would have replaced its); close it and run again"
            )
        if live is None and self.path.exists():
            raise WarehouseError(
                f"another program created {self.path} during the run: this run's changes "
                "were not applied; run again"
            )

    @contextmanager
    def reader(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A short read-only session on the live file (what a dashboard does per request)."""
        if not self.path.exists():
            raise WarehouseError(f"no warehouse at {self.path}: run an ingest first")
        con = duckdb.connect(str(self.path), read_only=True)
        try:
            yield con
        finally:
            con.close()


def execute(
    con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None
) -> list[tuple]:
    """Run a statement and read its result to the end.

    DuckDB 2 refuses any further work on a connection while a result is half-read, so every
    statement in this project goes through here, :func:`scalar` or :func:`query_frame`.
    """
    return con.execute(sql, params if params is not None else []).fetchall()


def has_relation(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the warehouse has a table or view ``name``: a read-only session on a warehouse
    written by an earlier version lacks what later migrations add (the next write adds it)."""
    return bool(
        execute(
            con,
            "SELECT 1 FROM duckdb_tables() WHERE table_name = $name "
            "UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $name",
            {"name": name},
        )
    )


def pending_migrations(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The migrations the next write will apply first: what a read-only session on a warehouse
    written by an earlier version cannot read yet (none on one this version wrote)."""
    if not has_relation(con, "schema_migration"):
        return [path.name for path in migration_files()]
    applied = {row[0] for row in execute(con, "SELECT name FROM schema_migration")}
    return [path.name for path in migration_files() if path.name not in applied]


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> object:
    """The first value of the first row, or None when there is no row."""
    rows = execute(con, sql, params)
    return rows[0][0] if rows else None


def query_frame(
    con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None
) -> pl.DataFrame:
    """Run a query and return a Polars frame (DuckDB 2: fetch through Arrow, never half-read)."""
    return con.sql(sql, params=params).pl()


def insert_frame(
    con: duckdb.DuckDBPyConnection,
    table: str,
    frame: pl.DataFrame,
    table_columns_only: bool = False,
) -> int:
    """Append a frame to a table by column name; returns the number of rows written.

    ``table_columns_only`` leaves out the frame's working columns that the table does not
    store, so the table's DDL stays the one list of what is kept.
    """
    if frame.height == 0:
        return 0
    if table_columns_only:
        stored = {row[0] for row in execute(con, f"DESCRIBE {table}")}
        frame = frame.select([name for name in frame.columns if name in stored])
    insert_arrow(con, table, frame.to_arrow())
    return frame.height


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, rows: pa.Table) -> None:
    """Append Arrow rows to a table by column name (the columns the rows have)."""
    columns = ", ".join(f'"{name}"' for name in rows.column_names)
    with registered(con, "_incoming_frame", rows):
        execute(con, f"INSERT INTO {table} ({columns}) SELECT {columns} FROM _incoming_frame")


@contextmanager
def registered(
    con: duckdb.DuckDBPyConnection, name: str, rows: pa.Table | pl.DataFrame
) -> Iterator[None]:
    """``rows`` readable as the relation ``name`` by ``con``'s statements during the block."""
    con.register(name, rows.to_arrow() if isinstance(rows, pl.DataFrame) else rows)
    try:
        yield
    finally:
        # after a failed statement the transaction refuses everything, unregistering too: the
        # statement's own error is the one to report
        with contextlib.suppress(duckdb.Error):
            con.unregister(name)


# DuckDB's row group size (its default, which the warehouse keeps). A batch appends whole row
# groups only, keeping the rest for the next one: appends that left part-filled row groups
# behind made the final checkpoint rewrite them (0.8 s of the national replay's 17-19 s, against
# 0.17 s with whole row groups; measured with bench/recalc_benchmark.py's history).
ROW_GROUP_ROWS = 122_880


class BatchedInserts:
    """Rows for the warehouse's tables, appended in large batches.

    DuckDB appends one frame of a few hundred thousand rows several times faster than the same
    rows in many small frames, so a recalculation of many lists keeps their rows here and
    writes them when ``flush_rows`` are waiting (as many whole row groups as there are; the
    rest waits for the next batch), and everything at :meth:`flush` (always before its
    transaction commits). ``flush_rows=0`` writes every frame at once.

    With ``background`` the batches are appended by one writer thread on its own connection
    to the same (staging) file while the caller computes the next lists: DuckDB and Polars
    both release the GIL, so on two cores the appends mostly overlap the computation. Use it
    as a context manager, so the writer is always stopped before the connection closes; its
    appends commit on their own, which is safe only because a failed run drops the staging
    copy they went to (:meth:`Warehouse.transaction`).
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        flush_rows: int = 0,
        background: bool = False,
        row_group_rows: int = ROW_GROUP_ROWS,
    ) -> None:
        self.con = con
        self.flush_rows = flush_rows
        self.row_group_rows = row_group_rows
        self.waiting: dict[str, list[pl.DataFrame]] = {}
        self.stored: dict[str, set[str]] = {}
        self.writer = ThreadPoolExecutor(max_workers=1) if background else None
        self.writer_con = con.cursor() if background else None
        self.pending: list[Future[int]] = []
        self.threads_before: int | None = None
        if background:
            # one DuckDB thread while the writer runs beside the computation: an append is
            # mostly serial anyway, and on two cores a second DuckDB thread only competes
            # with Polars (with one thread the appended blocks also leave the final
            # checkpoint nothing to compress again: a recalculation ran about 10 % faster)
            self.threads_before = int(scalar(con, "SELECT current_setting('threads')"))
            execute(con, "SET threads = 1")

    def __enter__(self) -> BatchedInserts:
        return self

    def __exit__(self, error_type: object, error: object, traceback: object) -> None:
        try:
            if error_type is None:
                self.flush()
        finally:
            self.close()

    def add(self, table: str, frame: pl.DataFrame, table_columns_only: bool = False) -> int:
        """Queue ``frame`` for ``table`` (see :func:`insert_frame`); returns its row count."""
        if frame.height == 0:
            return 0
        if table_columns_only:
            if table not in self.stored:
                self.stored[table] = {row[0] for row in execute(self.con, f"DESCRIBE {table}")}
            frame = frame.select([name for name in frame.columns if name in self.stored[table]])
        self.waiting.setdefault(table, []).append(frame)
        if sum(part.height for part in self.waiting[table]) >= self.flush_rows:
            self._write(table, aligned=self.flush_rows > 0)
        return frame.height

    def flush(self) -> None:
        """Write everything waiting and wait for the writer (raising its error, if any)."""
        for table in list(self.waiting):
            self._write(table)
        pending, self.pending = self.pending, []
        for write in pending:
            write.result()

    def close(self) -> None:
        """Stop the writer thread (dropping writes not started) and close its connection."""
        if self.writer is not None and self.writer_con is not None:
            self.writer.shutdown(wait=True, cancel_futures=True)
            self.writer_con.close()
            self.writer = self.writer_con = None
        if self.threads_before is not None:
            execute(self.con, f"SET threads = {self.threads_before}")
            self.threads_before = None

    def _write(self, table: str, aligned: bool = False) -> None:
        parts = self.waiting.pop(table, [])
        if not parts:
            return
        frame = pl.concat(parts, how="vertical_relaxed")
        if aligned:
            whole = frame.height - frame.height % self.row_group_rows
            if frame.height > whole:
                self.waiting[table] = [frame.slice(whole)]
            frame = frame.slice(0, whole)
            if frame.height == 0:
                return
        if self.writer is None:
            insert_frame(self.con, table, frame)
            return
        failed = [write for write in self.pending if write.done() and write.exception()]
        if failed:
            failed[0].result()  # stop at the first failed append
        self.pending.append(self.writer.submit(insert_frame, self.writer_con, table, frame))


def _wal_path(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _remove_database_files(path: Path) -> None:
    for candidate in (path, _wal_path(path)):
        candidate.unlink(missing_ok=True)


def _lock_writers(lock: IO[str], path: Path) -> None:
    """Take the writer lock, saying so once when another run keeps it more than a moment."""
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    deadline = time.monotonic() + LOCK_NOTICE_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.02)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
    say(f"waiting for another run to finish writing {path}…")
    fcntl.flock(lock, fcntl.LOCK_EX)


def _remove_leftover_staging(path: Path) -> bool:
    """Remove the staging copies (and their WALs) of runs that were killed or lost power;
    whether there were any.

    Called under the writer lock, so no living run owns any of them."""
    leftovers = _leftover_staging(path)
    for leftover in leftovers:
        leftover.unlink(missing_ok=True)
    return bool(leftovers)


def _leftover_staging(path: Path) -> list[Path]:
    """The staging files (copies, taken standbys, their WALs) beside ``path`` whose run is no
    longer running: it was killed or lost power."""
    prefix = f".{path.name}.staging-"
    found = []
    with os.scandir(path.parent) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and not entry.is_dir(follow_symlinks=False):
                # a lock file deleted under a running writer lets a second one in: the first
                # one's copy is still its own while its process lives
                owner = entry.name.removeprefix(prefix).split(".")[0]
                if not (owner.isdigit() and _is_running(int(owner))):
                    found.append(Path(entry.path))
    return found


def _is_running(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process's own copy can only be a leftover of an earlier run
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


def _is_lock_conflict(error: duckdb.Error) -> bool:
    """DuckDB could not open the file because another connection holds it."""
    message = str(error)
    return "Could not set lock" in message or "different configuration" in message


def _fold_wal(path: Path) -> duckdb.Error | None:
    """Write a left-over WAL into its database file (open read-write, CHECKPOINT, close).

    Returns DuckDB's error when the file could not be taken (the caller retries)."""
    try:
        con = duckdb.connect(str(path), config=STORAGE_CONFIG)
    except duckdb.Error as error:
        return error
    try:
        execute(con, "CHECKPOINT")
    except duckdb.Error as error:
        return error
    finally:
        con.close()
    return None


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else repr(error)


class _LiveFile:
    """The live file, held for a run: a read-only DuckDB connection (whose shared lock keeps
    read-write clients out until :meth:`release`) and a descriptor to copy it through.

    DuckDB's locks are POSIX record locks, which a process loses on *every* descriptor of the
    file the moment it closes *any* one: opening and closing the file to copy it (as
    ``shutil.copyfile`` does) would drop the lock. The descriptor stays open until release.
    """

    def __init__(self, path: Path, fd: int, con: duckdb.DuckDBPyConnection) -> None:
        self.path = path
        self.fd = fd
        self.con = con
        self.stat = os.fstat(fd)

    @classmethod
    def open(cls, path: Path) -> _LiveFile:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            con = duckdb.connect(str(path), read_only=True)
        except duckdb.Error as error:
            os.close(fd)
            if _is_lock_conflict(error):
                raise WarehouseError(
                    f"the warehouse {path} is open in another program that can write to it"
                    f"{_holder(error)}: close it (dashboards should open the file read-only) "
                    "and run again"
                ) from error
            raise WarehouseError(f"cannot open warehouse {path}: {_first_line(error)}") from error
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, con)

    def copy_to(self, target: Path) -> None:
        """Copy the held file to ``target`` through the open descriptor (sendfile, as
        ``shutil.copyfile`` does on Linux)."""
        size = self.stat.st_size
        with open(target, "wb") as out:
            offset = 0
            try:
                while offset < size:
                    sent = os.sendfile(out.fileno(), self.fd, offset, size - offset)
                    if sent == 0:
                        break
                    offset += sent
            except OSError as error:
                if offset or error.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    raise
                while chunk := os.pread(self.fd, 1 << 20, offset):
                    out.write(chunk)
                    offset += len(chunk)

    def give_permissions_to(self, target: Path) -> None:
        """The live file's mode, and its owner and group where permitted, on ``target``:
        a swap must not take read access from a dashboard's account or open a private file."""
        with contextlib.suppress(OSError):
            try:
                os.chown(target, self.stat.st_uid, self.stat.st_gid)
            except PermissionError:
                os.chown(target, -1, self.stat.st_gid)  # a group the writer belongs to
        # after chown, which clears the set-id bits
        os.chmod(target, self.stat.st_mode & 0o7777)

    def changed(self) -> bool:
        """The path no longer names the file as it was when it was claimed."""
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return True
        return (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) != (
            self.stat.st_dev,
            self.stat.st_ino,
            self.stat.st_size,
            self.stat.st_mtime_ns,
        )

    def release(self) -> None:
        self.con.close()
        os.close(self.fd)


def _holder(error: duckdb.Error) -> str:
    """The program and PID that DuckDB's lock-conflict message names, as " (name, PID n)"."""
    found = re.search(r"Conflicting lock is held in (.+?) \(PID (\d+)\)", str(error))
    return f" ({Path(found.group(1)).name}, PID {found.group(2)})" if found else ""


def fsync_file(path: Path) -> None:
    """Put a file's written pages on disk (a directory's: its renames and removals)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _start_writeback(copy: Path) -> Future[None]:
    """Put a fresh staging copy on disk in the background, while the flow reads and computes.

    Copying the live file leaves hundreds of MB of dirty pages; on ext4 the first commit that
    syncs DuckDB's write-ahead log waits for them, stalling every thread that writes (about
    0.7 s in the middle of the national replay, measured with strace). Synced here, off the
    flow's path, they are clean by then."""
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="staging-writeback")
    try:
        return worker.submit(fsync_file, copy)
    finally:
        worker.shutdown(wait=False)


def _finish_writeback(writeback: Future[None] | None) -> None:
    """Wait for :func:`_start_writeback` (its file is about to be replaced or removed); an
    error there is the final sync's to report, as the copy is synced again before the swap."""
    if writeback is not None:
        writeback.exception()


def _open_staging(staging: Path, live_path: Path) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(str(staging), config=STORAGE_CONFIG)
    except duckdb.Error as error:
        raise WarehouseError(f"cannot open warehouse {live_path}: {_first_line(error)}") from error


# The tables that nothing updates or deletes from (tests/flows/test_warehouse_standby.py reads
# sql/ and flows/ to hold them to it): the standby catches up on them by appending the rows the
# live file has past its own. Every other table is small and is copied whole when it changed.
APPEND_ONLY_TABLES = frozenset(
    {
        "tournament_entry",
        "tournament_game",
        "registry_player",
        "registry_membership",
        "fid_registry_player",
        "fid_registry_membership",
        "player_match",
        "input_problem",
        "raw_file",
        "expected_score",
        "list_entry",
        "list_variation",
        "list_ranking",
        "list_diff",
        "list_reconciliation_player",
    }
)

FileIdentity = tuple[int, int, int, int]


def _identity(stat: os.stat_result) -> FileIdentity:
    """What tells one state of a file from another: its inode, size and last write."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


class Standby:
    """The live file's previous generation, kept beside it to be written in by the next run.

    After a swap the file it replaced is one run behind the live one. The next run brings it
    up to date (:func:`catch_up`: the rows the live file has past its own, the small tables
    that changed, the sequences) and writes in it instead of in a copy of the whole file.
    It is trusted only when both files are exactly as the last swap left them (their inode,
    size and last write are recorded beside them) and no connection of this process has it
    open (another process's would make DuckDB refuse to open it read-write); otherwise the run
    copies the live file. A run that stops half-way drops it, like the copy before it.
    """

    def __init__(self, live_path: Path, after_a_stopped_run: bool = False) -> None:
        self.live_path = live_path
        # the run writing now removed what a run that stopped half-way left (maybe the
        # standby it had taken): why the standby is missing, where it is
        self.after_a_stopped_run = after_a_stopped_run
        self.path = live_path.with_name(f".{live_path.name}.standby")
        self.record_path = live_path.with_name(f".{live_path.name}.standby.json")
        # why the last :meth:`take_up_to_date` returned None (the run copies the live file)
        self.passed_over: str | None = None

    def take_up_to_date(self, live: _LiveFile, staging: Path) -> duckdb.DuckDBPyConnection | None:
        """Take the standby as this run's ``staging`` file (a rename: no other writer can take
        it then) and return a read-write connection to it made equal to ``live``; None when it
        cannot be trusted or taken (the caller copies the live file then, and
        :attr:`passed_over` says why)."""
        self.passed_over = self.untrusted(live.stat)
        if self.passed_over is not None:
            return None
        # from here on the standby changes: a run that stops now leaves it unrecorded
        self._forget()
        try:
            os.replace(self.path, staging)
            con = duckdb.connect(str(staging), config=STORAGE_CONFIG)
        except (OSError, duckdb.Error) as error:
            # another program still reads it (it was the live file until the swap)
            self.passed_over = f"the standby could not be opened ({_first_line(error)})"
            return None
        try:
            if catch_up(con, live.con):
                return con
            self.passed_over = (
                "the standby's tables are not an earlier state of the live file's "
                "(a table was rewritten, or the schema differs)"
            )
        except duckdb.Error as error:
            self.passed_over = f"the standby could not be brought up to date ({_first_line(error)})"
        con.close()
        return None

    def discard(self) -> None:
        """Forget the standby and remove it (a copy of the live file takes its place)."""
        self._forget()
        _remove_database_files(self.path)

    def set_aside(self, live: _LiveFile | None) -> Path | None:
        """Give the live file a second name before the swap replaces it, so that it can become
        the next standby (None: there is none, or the file system has no hard links)."""
        if live is None:
            return None
        aside = self.live_path.with_name(f".{self.live_path.name}.staging-{os.getpid()}.previous")
        aside.unlink(missing_ok=True)
        try:
            os.link(self.live_path, aside)
        except OSError:
            return None
        return aside

    def keep(self, aside: Path | None) -> None:
        """After the swap: the file it replaced becomes the standby, recorded with the new live
        file. The swap is done; nothing here may fail the run (without a standby, the next run
        copies)."""
        if aside is None:
            return
        try:
            os.replace(aside, self.path)
            # no longer what dashboards read: only this account needs it
            os.chmod(self.path, 0o600)
            record = {
                "live": _identity(os.stat(self.live_path)),
                "standby": _identity(os.stat(self.path)),
            }
            written = self.record_path.with_name(self.record_path.name + f".{os.getpid()}")
            written.write_text(json.dumps(record), encoding="utf-8")
            fsync_file(written)
            os.replace(written, self.record_path)
            fsync_file(self.live_path.parent)  # its renames and removals
        except OSError:
            with contextlib.suppress(OSError):
                self.discard()

    def untrusted(self, live: os.stat_result) -> str | None:
        """Why the next write cannot be made in the standby (None: it can), the live file
        being as ``live`` says: the standby is missing, or either file is not as the last swap
        left it, or this process still has it open."""
        try:
            record = json.loads(self.record_path.read_text(encoding="utf-8"))
            standby = os.stat(self.path)
        except (OSError, ValueError):
            # the first write to a warehouse copies it (the standby is made by that swap), and
            # a run that failed after taking the standby dropped it, or was killed with it
            if self.after_a_stopped_run:
                return (
                    "there is no standby beside it: a run that stopped half-way (killed, or "
                    "the machine down) had taken it; what it left was removed"
                )
            if _leftover_staging(self.live_path):
                return (
                    "there is no standby beside it: a run that stopped half-way (killed, or "
                    "the machine down) had taken it, and the next run removes what it left"
                )
            return (
                "there is no standby beside it (the file a run's swap replaces becomes the "
                "standby: a new warehouse has none until its second write is done, and a run "
                "that fails drops the one it took)"
            )
        if (
            not isinstance(record, dict)
            or _wal_path(self.path).exists()
            or record.get("live") != list(_identity(live))
            or record.get("standby") != list(_identity(standby))
        ):
            return (
                "the warehouse or its standby changed since the last run's swap (another "
                "program wrote in one of them, or a file was restored)"
            )
        if _open_in_this_process(self.path):
            return "this process still reads the standby (it was the live file until the swap)"
        return None

    def _forget(self) -> None:
        if self.record_path.exists():
            self.record_path.unlink()
            fsync_file(self.live_path.parent)  # its renames and removals


def _open_in_this_process(path: Path) -> bool:
    """Whether a descriptor of this process has the file open (a DuckDB connection that read
    it when it was live). Record locks do not keep a process from itself, so this is asked
    directly; where it cannot be (no /proc), the answer is yes."""
    try:
        target = os.stat(path)
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return True
    for descriptor in descriptors:
        try:
            held = os.stat(f"/proc/self/fd/{descriptor}")
        except OSError:
            continue
        if (held.st_dev, held.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


def catch_up(standby: duckdb.DuckDBPyConnection, live: duckdb.DuckDBPyConnection) -> bool:
    """Make ``standby`` hold what ``live`` holds, assuming it is an earlier state of it.

    Returns False, leaving ``standby`` half done, when the two turn out not to be one history
    (another schema, rows missing or changed where only appends were expected): the caller
    then copies the live file instead. Every table is checked after it is brought up to date.
    """
    if _schema(standby) != _schema(live):
        return False
    for (table,) in execute(live, read_sql("queries/warehouse_tables.sql")):
        if table in APPEND_ONLY_TABLES:
            done = _append_missing_rows(standby, live, table)
        else:
            done = _copy_if_changed(standby, live, table)
        if not done:
            return False
    return _advance_sequences(standby, live)


def _schema(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return execute(con, read_sql("queries/warehouse_schema.sql"))


def _append_missing_rows(
    standby: duckdb.DuckDBPyConnection, live: duckdb.DuckDBPyConnection, table: str
) -> bool:
    """Append the rows ``live`` has past the standby's own; the rows both have must sit at the
    same places (no gaps in either: nothing deletes from these tables)."""
    held = int(scalar(standby, f"SELECT count(*) FROM {table}"))
    total = int(scalar(live, f"SELECT count(*) FROM {table}"))
    if held > total or not _dense(standby, table, held) or not _dense(live, table, total):
        return False
    if held and _row_hash(standby, table, held - 1) != _row_hash(live, table, held - 1):
        return False
    if held == total:
        return True
    delta = live.sql(
        f"SELECT * FROM {table} WHERE rowid >= $first ORDER BY rowid", params={"first": held}
    ).to_arrow_table()
    insert_arrow(standby, table, delta)
    return _fingerprint(standby, table, held) == _fingerprint(live, table, held)


def _fingerprint(con: duckdb.DuckDBPyConnection, table: str, first: int = 0) -> list[tuple]:
    """The count and the sum of the hashes of a table's rows from row id ``first`` on."""
    return execute(
        con,
        f"SELECT count(*), sum(hash(x)) FROM (SELECT * FROM {table} WHERE rowid >= $first) x",
        {"first": first},
    )


def _dense(con: duckdb.DuckDBPyConnection, table: str, rows: int) -> bool:
    """Whether the table's ``rows`` rows have the row ids 0 … rows - 1 (none is ``rows`` or
    more: a scan of the last row group, where a full one would read them all)."""
    beyond = f"SELECT count(*) FROM {table} WHERE rowid >= $rows"
    return scalar(con, beyond, {"rows": rows}) == 0


def _row_hash(con: duckdb.DuckDBPyConnection, table: str, row: int) -> object:
    return scalar(con, f"SELECT hash(x) FROM {table} x WHERE rowid = $row", {"row": row})


def _copy_if_changed(
    standby: duckdb.DuckDBPyConnection, live: duckdb.DuckDBPyConnection, table: str
) -> bool:
    """Replace a small table's rows with the live ones when they differ."""
    expected = _fingerprint(live, table)
    if _fingerprint(standby, table) == expected:
        return True
    execute(standby, f"DELETE FROM {table}")
    insert_arrow(standby, table, live.sql(f"SELECT * FROM {table}").to_arrow_table())
    return _fingerprint(standby, table) == expected


def _advance_sequences(standby: duckdb.DuckDBPyConnection, live: duckdb.DuckDBPyConnection) -> bool:
    """Draw from the standby's sequences as many values as the live ones drew since."""
    sequences = read_sql("queries/warehouse_sequences.sql")
    held = {name: (last, step) for name, last, step in execute(standby, sequences)}
    for name, last, step in execute(live, sequences):
        if name not in held or held[name][0] == last:
            continue
        before = held[name][0]
        if last is None or step != 1 or (before is not None and before > last):
            return False
        draws = last - before if before is not None else last - _first_value(standby, name) + 1
        execute(standby, f"SELECT max(nextval('{name}')) FROM range({draws})")
    return execute(standby, sequences) == execute(live, sequences)


def _first_value(con: duckdb.DuckDBPyConnection, name: str) -> int:
    return int(
        scalar(
            con, "SELECT start_value FROM duckdb_sequences() WHERE sequence_name = $n", {"n": name}
        )
    )
