"""Runs that would change nothing, found before they copy the warehouse.

A list run (a quarterly, a replay of a range) writes through a staging copy of the whole
warehouse (:meth:`flows.warehouse.Warehouse.transaction`). When every list it would compute is
current, computed again it would come out the same: the run finds that out on a read-only
session of the live file, computes nothing, and writes only its run record.

A list is current when it is not stale (its inputs' fingerprint and rulebook are those it was
written with, and it was computed from the revision in force before it) and the last official
run that wrote or checked it ran the same code (:func:`code_digest`). The code counts because
a correction of the rules' code changes lists without making them stale (their inputs did not
change), and the way to bring it in is a replay of a range (CHANGELOG.md): a run under other
code than the one that last computed a list always computes it.

The run record still goes through the staging copy: nothing else may write the live file. A
read-write connection on it, however short, locks out every dashboard that opens it meanwhile
(DuckDB lets no reader in beside a writer), and dashboards must be able to read at any time
(docs/OPERATIONS.md). What the run saves is the reading and computing of its lists.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl

import schemas
import transforms
from flows.console import counted, say
from flows.publishing.arguments import OFFICIAL
from flows.publishing.staleness import Fingerprints, StaleList, stale_lists
from flows.runtime import RunRecord, artifact_key, publish_markdown
from flows.warehouse import SQL_DIR, Warehouse, execute, pending_migrations, query_frame, read_sql

# the run records' input checksum naming the code that computed or checked their lists
CODE_KEY = "code of the lists"
Verdict = TypeVar("Verdict")


def inputs_key(system: str, list_date: date) -> str:
    """The run records' input checksum naming the inputs of one list (their fingerprint)."""
    return f"inputs of the {system} list of {list_date}"


@functools.cache
def code_digest() -> str:
    """A hash of the code that computes a list: every Python file of ``flows``, ``transforms``
    and ``schemas``, every SQL file, and the Polars and DuckDB versions (a list's content hash
    changes with Polars'). Any edit counts, even one that changes no list: such a run computes
    its lists once more, and finds them unchanged. About 3 ms, once per process."""
    digest = hashlib.sha256(f"polars {pl.__version__} duckdb {duckdb.__version__}".encode())
    flows_dir = Path(__file__).resolve().parents[1]
    roots = [flows_dir, Path(transforms.__file__).parent, Path(schemas.__file__).parent]
    files = [(root, path) for root in roots for path in sorted(root.rglob("*.py"))]
    files += [(SQL_DIR, path) for path in sorted(SQL_DIR.rglob("*.sql"))]
    for root, path in files:
        digest.update(f"{root.name}/{path.relative_to(root).as_posix()}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def list_checksums(system: str, inputs: Iterable[tuple[date, str]]) -> dict[str, str]:
    """A list run's input checksums: the fingerprint of the inputs of each list it wrote or
    checked (list date, fingerprint), and the code that did it."""
    checksums = {inputs_key(system, list_date): inputs_hash for list_date, inputs_hash in inputs}
    return {**checksums, CODE_KEY: code_digest()}


@dataclass(frozen=True)
class CurrentList:
    """An official list that a run would leave as it is: the revision in force and the
    fingerprint of its inputs (the same as now)."""

    list_date: date
    revision: int
    inputs_hash: str


def read_only_verdict(
    warehouse: str, check: Callable[[duckdb.DuckDBPyConnection], Verdict | None]
) -> Verdict | None:
    """``check`` on a read-only session of the live file (no copy, no writer lock), or None
    when the file cannot be read so: missing, written by an earlier version (the run's write
    upgrades it first), or held by a program that writes to it (the run's transaction refuses
    to start, saying which)."""
    path = Warehouse(warehouse).path
    if not path.exists():
        return None
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return None
    try:
        if pending_migrations(con):
            return None
        return check(con)
    finally:
        con.close()


def current_lists(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Any,  # any system's rulebook: content_hash
    dates: Sequence[date],
    stale: list[StaleList],
) -> list[CurrentList] | None:
    """The official lists of ``dates`` (in order) when a run computing them again under
    ``rulebook`` would leave every one as it is; None when it would write or refuse one.

    ``stale``: the system's stale lists (:func:`flows.publishing.staleness.stale_lists`). A
    stale list at or before the last date changes it or a list it follows; a date with no
    list, or an imported one, is written or refused; a list last computed by other code is
    computed again."""
    if not dates or any(item.list_date <= dates[-1] for item in stale):
        return None
    in_force = {
        row["list_date"]: row
        for row in query_frame(
            con,
            read_sql("queries/lists/current_revisions.sql"),
            {"system": system, "scenario": OFFICIAL},
        ).iter_rows(named=True)
    }
    found = []
    for list_date in dates:
        row = in_force.get(list_date)
        if row is None or row["source"] != "computed":
            return None
        # a list written under another rulebook than the run's (a replay under a rulebook
        # given by path): stale_lists reads the system's own
        if row["rulebook_hash"] != rulebook.content_hash or row["inputs_hash"] is None:
            return None
        found.append(CurrentList(list_date, row["revision"], row["inputs_hash"]))
    codes = dict(
        execute(
            con,
            read_sql("queries/lists/last_list_code.sql"),
            {
                "system": system,
                "list_dates": list(dates),
                "keys": [inputs_key(system, list_date) for list_date in dates],
                "code_path": f'$."{CODE_KEY}"',
            },
        )
    )
    if any(codes.get(list_date) != code_digest() for list_date in dates):
        return None
    return found


def unchanged_replay(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Any,
    dates: Sequence[date],
    fingerprints: Fingerprints,
) -> list[CurrentList] | None:
    """The official lists of a replay of ``dates`` when it would leave every one as it is
    (None: it would write one, or refuse)."""
    return current_lists(
        con, system, rulebook, dates, stale_lists(con, system, rulebook, fingerprints)
    )


def record_unchanged_replay(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    lists: list[CurrentList],
    began: float,
) -> str:
    """The report and run record of a replay of official lists that were all current (inside
    its transaction); the counts are a replay's that wrote nothing new."""
    seconds = time.perf_counter() - began
    # the table of a replay that computed these lists and found each unchanged
    # (flows.publishing.replay), so every recalculation's report reads the same
    lines = [
        f"# Recalculation of {system} ({OFFICIAL})",
        "",
        f"- list dates replayed: 0 of {len(lists)} in {seconds:.1f} s: every one is current "
        "(its inputs, rulebook and code are those it was last computed with)",
        "- new revisions: 0",
        "- differences are against the revision it supersedes",
        "",
        "| list date | revision | players differing | ratings changed | categories changed "
        "| overall positions changed | entered / left | largest rating difference |",
        "|---|---|---|---|---|---|---|---|",
        *(
            f"| {item.list_date} | {item.revision} (unchanged) | 0 | 0 | 0 | 0 | 0 / 0 | |"
            for item in lists
        ),
    ]
    report = "\n".join(lines) + "\n"
    run.input_checksums = list_checksums(
        system, ((item.list_date, item.inputs_hash) for item in lists)
    )
    run.counts = {"lists": len(lists), "new_revisions": 0, "players_changed": 0}
    run.write(con, "succeeded", report)
    return report


def nothing_to_replay(system: str, lists: list[CurrentList]) -> str:
    """What a replay that changes nothing says instead of a line per list date."""
    return (
        f"recalculate: {counted(len(lists), f'{system} list date')} ({OFFICIAL}) from "
        f"{lists[0].list_date} to {lists[-1].list_date}: every one current (same inputs, "
        "rulebook and code), none replayed"
    )


def replay_unless_current(
    warehouse: str,
    run: RunRecord,
    system: str,
    scenario: str,
    stale: bool,
    unchanged: Callable[[duckdb.DuckDBPyConnection], list[CurrentList] | None],
    replay: Callable[[duckdb.DuckDBPyConnection], str],
    began: float,
    refuse: Callable[[duckdb.DuckDBPyConnection], None] | None = None,
) -> dict[str, int]:
    """A replay (``replay``: the report of a run that computes), or, when every official list
    of the range is current (``unchanged``), only the run's record: found on a read-only
    session before the warehouse is copied, and checked again under the writer lock, where a
    run that wrote in between may have changed them. ``refuse`` raises, on that session, for a
    range the replay would refuse (``replay`` refuses it again): a refused run takes neither
    the standby nor a copy. Publishes and prints the report; returns the run's counts."""

    # a stale replay or a scenario's computes its lists whatever they hold
    may_be_current = not stale and scenario == OFFICIAL

    def verdict(con: duckdb.DuckDBPyConnection) -> list[CurrentList] | None:
        if refuse is not None:
            refuse(con)
        return unchanged(con) if may_be_current else None

    asked = refuse is not None or may_be_current
    current = read_only_verdict(warehouse, verdict) if asked else None
    with Warehouse(warehouse).transaction(create=False) as con:
        if current is not None:
            current = unchanged(con)
        if current is not None:
            say(nothing_to_replay(system, current))
            report = record_unchanged_replay(con, run, system, current, began)
        else:
            report = replay(con)
    scenario_part = () if scenario == OFFICIAL else ("scenario", scenario)
    publish_markdown(report, key=artifact_key(system, *scenario_part, "recalculation"))
    say(report)
    return run.counts
