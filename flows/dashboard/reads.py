"""What the dashboard reads: short read-only sessions on the warehouse, cached briefly.

Every read opens the file read-only, runs its query and closes it (:meth:`Warehouse.reader`),
so a run never waits for the dashboard, and a run's atomic swap (``os.replace`` of the file it
wrote) shows on the next request. Results are cached by the file's identity (inode, mtime and
size): a swap puts a new file at the path, so the next request misses the cache at once; the
time limit bounds memory and how long a rulebook edit (which staleness reads, and which does
not touch the file) takes to show.

The SQL is in ``sql/queries/dashboard/``; no Prefect here (the pages must load without it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from flows.publishing.unrated import unrated_tournaments
from flows.status import published_systems, stale_of
from flows.warehouse import (
    Warehouse,
    WarehouseError,
    has_relation,
    pending_migrations,
    query_frame,
    read_sql,
)

# what `graduatoria` reads when --warehouse is not given (flows/cli.py says the same)
WAREHOUSE_VARIABLE = "GRADUATORIA_WAREHOUSE"
DEFAULT_WAREHOUSE = "data/warehouse/graduatoria.duckdb"
# a cached result is dropped after this long even if the file did not change
CACHE_SECONDS = 120
# a program that opens the file read-write (the duckdb CLI's default) keeps every reader out;
# a run's own read-only hold does not. Retried this long before the page says so
LOCKED_RETRY_SECONDS = 2.0

OFFICIAL = "official"
SYSTEM_LABELS = {
    "elo_italia": "Elo Italia (FSI, standard)",
    "elo_rapid": "Elo Rapid (FSI, rapid)",
    "rubele_italiana": "Dama italiana (FID, Elo-Rubele)",
    "rubele_internazionale": "Dama internazionale (FID, Elo-Rubele)",
}


class DashboardError(RuntimeError):
    """The warehouse cannot be read right now; the message says why, for the page to show."""


def system_label(system: str) -> str:
    return SYSTEM_LABELS.get(system, system)


def warehouse_path() -> Path:
    """The warehouse this dashboard reads: ``-- --warehouse FILE`` after ``streamlit run``'s
    own options (what ``graduatoria dashboard`` passes), else $GRADUATORIA_WAREHOUSE, else the
    command line's default; absolute, as the process's folder does not change."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--warehouse")
    given, _ = parser.parse_known_args(sys.argv[1:])
    chosen = given.warehouse or os.environ.get(WAREHOUSE_VARIABLE, "").strip() or DEFAULT_WAREHOUSE
    return Path(chosen).resolve()


def file_stamp(path: Path) -> tuple[int, int, int]:
    """The file's identity for the cache: a swap gives a new inode, a write a new mtime."""
    try:
        stat = os.stat(path)
    except FileNotFoundError as error:
        raise DashboardError(
            f"No warehouse at {path}: run an ingest or `make run` (the demo) first, or start "
            "the dashboard with --warehouse FILE"
        ) from error
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


@contextmanager
def session(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """One short read-only session (:meth:`Warehouse.reader`); a program holding the file for
    writing is waited for briefly, then named."""
    deadline = time.monotonic() + LOCKED_RETRY_SECONDS
    while True:
        stack = ExitStack()
        try:
            con = stack.enter_context(Warehouse(path).reader())
            break
        except WarehouseError as error:
            raise DashboardError(str(error)) from error
        except duckdb.Error as error:
            if "Could not set lock" not in str(error):
                raise
            if time.monotonic() > deadline:
                raise DashboardError(
                    f"the warehouse {path} is open in a program that can write to it (a "
                    "duckdb client opened read-write?): close it, or open it read-only, and "
                    "refresh"
                ) from error
            time.sleep(0.1)
    with stack:
        yield con


@st.cache_data(ttl=CACHE_SECONDS, max_entries=512, show_spinner=False)
def _query(
    path: str, stamp: tuple[int, int, int], name: str, params: tuple[tuple[str, Any], ...]
) -> pl.DataFrame:
    del stamp  # part of the cache key only
    with session(Path(path)) as con:
        return query_frame(con, read_sql(f"queries/dashboard/{name}.sql"), dict(params) or None)


def query(name: str, **params: Any) -> pl.DataFrame:
    """The rows of ``sql/queries/dashboard/NAME.sql`` with its ``$params``."""
    path = warehouse_path()
    return _query(str(path), file_stamp(path), name, tuple(sorted(params.items())))


@st.cache_data(ttl=CACHE_SECONDS, max_entries=64, show_spinner=False)
def _relations(path: str, stamp: tuple[int, int, int], names: tuple[str, ...]) -> dict[str, bool]:
    del stamp
    with session(Path(path)) as con:
        return {name: has_relation(con, name) for name in names}


def has_view(name: str) -> bool:
    """Whether the warehouse has the view (or table) ``name``: one written by an earlier
    version lacks what later code adds until the next run writes it."""
    path = warehouse_path()
    return _relations(str(path), file_stamp(path), (name,))[name]


@st.cache_data(ttl=CACHE_SECONDS, max_entries=16, show_spinner=False)
def _pending(path: str, stamp: tuple[int, int, int]) -> list[str]:
    del stamp
    with session(Path(path)) as con:
        return pending_migrations(con)


def pending() -> list[str]:
    """Migrations the next run will apply: until then some pages may lack columns."""
    path = warehouse_path()
    return _pending(str(path), file_stamp(path))


@st.cache_data(ttl=CACHE_SECONDS, max_entries=16, show_spinner="Checking which lists are stale…")
def _stale(path: str, stamp: tuple[int, int, int]) -> pl.DataFrame:
    del stamp
    rows: list[dict[str, Any]] = []
    with session(Path(path)) as con:
        # what `graduatoria status` says, from the same functions
        for system in published_systems(con):
            rows += [
                {"system": system, "list_date": item.list_date, "reason": item.reason}
                for item in stale_of(con, system)
            ]
    return pl.DataFrame(
        rows, schema={"system": pl.Utf8, "list_date": pl.Date, "reason": pl.Utf8}, orient="row"
    )


def stale_lists() -> pl.DataFrame:
    """Official lists a replay would change, with why (``graduatoria status``'s list)."""
    path = warehouse_path()
    return _stale(str(path), file_stamp(path))


@st.cache_data(ttl=CACHE_SECONDS, max_entries=16, show_spinner=False)
def _unrated(path: str, stamp: tuple[int, int, int]) -> pl.DataFrame:
    del stamp
    with session(Path(path)) as con:
        return unrated_tournaments(con)


def unrated() -> pl.DataFrame:
    """Accepted tournaments no list will rate (view ``unrated_tournament``)."""
    path = warehouse_path()
    return _unrated(str(path), file_stamp(path))


@st.cache_data(ttl=CACHE_SECONDS, max_entries=32, show_spinner=False)
def _problems_query(path: str, stamp: tuple[int, int, int], name: str) -> pl.DataFrame:
    """One of `graduatoria problems`' own queries (``sql/queries/problems/NAME.sql``), for
    every system, delivery and tournament."""
    del stamp
    with session(Path(path)) as con:
        return query_frame(
            con,
            read_sql(f"queries/problems/{name}.sql"),
            {"tournament": None, "system": None, "delivery": None},
        )


def problem_tournaments() -> pl.DataFrame:
    """Quarantined and withdrawn tournaments (latest versions), with their first reason."""
    path = warehouse_path()
    return _problems_query(str(path), file_stamp(path), "tournaments")


def set_aside() -> pl.DataFrame:
    """Tournaments accepted at ingest that a list in force set aside, with its reason."""
    path = warehouse_path()
    return _problems_query(str(path), file_stamp(path), "set_aside")
