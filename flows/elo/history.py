"""The history a run of FSI list dates reads, a few periods at a time.

A replay used to read the whole history (every entry and game up to its last list date) into
memory before its first list: about 0.5 GB per million games, 2.2 GB at national scale, and
growing with every year kept. Here the list dates are grouped into reads of about
``READ_ROUNDS`` rounds (a few periods at national scale, one where periods are larger), each
read by a query on the tournaments received in its window, and the next read is made on a
thread while the lists of this one are computed: a replay holds one read or two, whatever
the length of the history. (One sorted stream of the whole history would scan the tables
once, but DuckDB held about a gigabyte to sort it.) The registry's snapshots, a few rows per
player and year, are read at once.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date

import duckdb
import polars as pl

from flows.warehouse import query_frame, read_sql
from transforms.elo.lists import (
    PeriodSlice,
    entries_with_rounds,
    fide_losses,
    keyed_period,
    last_played,
    rated_entries,
)
from transforms.elo.rulebook import Validity
from transforms.lists.eras import Calendar
from transforms.lists.periods import assign_list_dates

# List dates a read of the history takes: a year of quarterly lists, some 300,000 rows of
# rounds at national scale (tens of megabytes). Each read costs a fixed part (its queries,
# the join to the replay's tournaments, the period keys) beside the rows it returns, so
# fewer, larger reads cost less time and more memory; a year of lists is about a third of the
# time of a read per list date.
LIST_DATES_PER_READ = 4


# Every row id of a table (a read whose tournaments' rows are not located scans them all).
ALL_ROWS = (0, 2**63 - 1)


@dataclass(frozen=True)
class HistoryRead:
    """Consecutive list dates read by one query each of entries and rounds: the receipts
    after ``after`` up to ``up_to``. ``located`` gives, for the entry and the game tables,
    the range of row ids the tournaments' rows lie between and how many there are (none:
    not located, the read scans every row)."""

    list_dates: tuple[date, ...]
    after: date
    up_to: date
    located: dict[str, tuple[int, int, int]] = field(default_factory=dict)


def located(reads: list[HistoryRead], tables: dict[str, pl.DataFrame]) -> list[HistoryRead]:
    """``reads`` with the range of row ids and the number of rows of their tournaments in each
    table (``tables``: table name to received_on, first_row, last_row, rows; one row per
    tournament)."""
    found = []
    for read in reads:
        where: dict[str, tuple[int, int, int]] = {}
        for table, rows in tables.items():
            mine = rows.filter(pl.col("received_on").is_between(read.after, read.up_to, "right"))
            if mine.height == 0:
                where[table] = (0, -1, 0)
                continue
            first, last = mine.get_column("first_row").min(), mine.get_column("last_row").max()
            where[table] = (int(first), int(last), int(mine.get_column("rows").sum()))  # type: ignore[arg-type]
        found.append(replace(read, located=where))
    return found


def plan_reads(
    last_receipts: pl.DataFrame,
    after: date = date.min,
    list_dates_per_read: int = LIST_DATES_PER_READ,
) -> list[HistoryRead]:
    """Group consecutive list dates (``last_receipts``: list_date, received_on, the last
    receipt each takes) into reads of ``list_dates_per_read``, the first of them taking the
    receipts after ``after``."""
    ordered = last_receipts.sort("list_date")
    days = ordered.get_column("list_date").to_list()
    receipts = ordered.get_column("received_on").to_list()
    reads = []
    for first in range(0, len(days), list_dates_per_read):
        last = min(first + list_dates_per_read, len(days)) - 1
        start = receipts[first - 1] if first else after
        reads.append(HistoryRead(tuple(days[first : last + 1]), start, receipts[last]))
    return reads


class SnapshotReads:
    """Dated snapshots (of the registry, or of its memberships) read one at a time when a list
    date asks for the one in force: a replay holds two or three, not every year's."""

    KEEP = 3  # a list date reads the snapshots of its ratings day and its own date

    def __init__(
        self, con: duckdb.DuckDBPyConnection, queries: str, window: dict[str, date]
    ) -> None:
        self.con = con
        self.query = read_sql(f"queries/lists/{queries}_of.sql")
        dates = query_frame(con, read_sql(f"queries/lists/{queries}_dates.sql"), window)
        self.dates = dates.get_column("as_of").to_list()
        self.read: dict[date, pl.DataFrame] = {}
        self.empty = query_frame(con, self.query, {"as_of": date.min})

    def at(self, on: date) -> pl.DataFrame:
        """The latest snapshot on or before ``on``; empty if none."""
        index = bisect_right(self.dates, on) - 1
        if index < 0:
            return self.empty
        as_of = self.dates[index]
        if as_of not in self.read:
            while len(self.read) >= self.KEEP:
                del self.read[min(self.read)]
            self.read[as_of] = query_frame(self.con, self.query, {"as_of": as_of})
        return self.read[as_of]


class StreamedHistory:
    """An FSI system's history up to a replay's last list date, read as the replay asks for it:
    the earlier periods' participations once (:meth:`played_before`), then each list date's
    slice in order (:meth:`period`), the next read made on a thread meanwhile.

    Implements :class:`transforms.elo.lists.PeriodSource`; each list date's slice is handed
    out once, in order."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        system: str,
        calendar: Calendar,
        list_dates: Sequence[date],
        up_to: date,
        list_dates_per_read: int = LIST_DATES_PER_READ,
    ) -> None:
        window = {"system": system, "up_to": up_to}
        receipts = assign_list_dates(
            query_frame(con, read_sql("queries/lists/history_receipts.sql"), window), calendar
        ).drop_nulls("list_date")
        last_receipts = receipts.group_by("list_date").agg(pl.col("received_on").max())
        self.last_receipts: dict[date, date] = dict(last_receipts.iter_rows())
        first = list_dates[0] if list_dates else up_to
        earlier = last_receipts.filter(pl.col("list_date") < first)
        # the reads are made on a cursor of their own, which sees what is committed: every
        # tournament (a list run writes none before it reads them)
        self.cursor = con.cursor()
        # the replay's tournaments, found once: each read joins them instead of the view of
        # latest versions, which would go through every version of every system each time
        self.cursor.register(
            "replay_tournament",
            query_frame(
                self.cursor, read_sql("queries/lists/history_tournaments.sql"), window
            ).to_arrow(),
        )
        rows = {
            kind: query_frame(
                self.cursor,
                read_sql("queries/lists/history_rows.sql").format(table=f"tournament_{kind}"),
            )
            for kind in ("entry", "game")
        }
        self.earlier = located(
            plan_reads(earlier, list_dates_per_read=list_dates_per_read), {"entry": rows["entry"]}
        )
        # the replay's first read starts after the last receipt of the earlier lists
        start = max(earlier.get_column("received_on"), default=date.min)
        self.reads = located(
            plan_reads(
                last_receipts.filter(pl.col("list_date") >= first), start, list_dates_per_read
            ),
            rows,
        )
        # a list reads the snapshot of its own date, however late after its cut-off
        snapshots = {"day": list_dates[-1] if list_dates else up_to}
        self.registry = SnapshotReads(con, "registry_snapshot", snapshots)
        self.memberships = SnapshotReads(con, "membership_snapshot", snapshots)
        self.fide_losses = fide_losses(
            query_frame(con, read_sql("queries/lists/registry_fide_history.sql"), snapshots)
        )
        quarantined = assign_list_dates(
            query_frame(con, read_sql("queries/lists/history_quarantined.sql"), window), calendar
        )
        self.quarantined = {
            key[0]: part.drop("list_date")
            for key, part in quarantined.partition_by("list_date", as_dict=True).items()
        }
        self.empty_quarantined = quarantined.drop("list_date").clear()
        nothing = {table: (0, -1, 0) for table in ("entry", "game")}
        self.nothing = self._keyed(self._read(HistoryRead((), date.min, date.min, nothing)))
        self.reader = ThreadPoolExecutor(max_workers=1)
        self.ahead: Future[dict[date, PeriodSlice]] | None = None
        self.next_read = 0
        self.slices: dict[date, PeriodSlice] = {}
        self.handed_out: date | None = None

    def __enter__(self) -> StreamedHistory:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the reading thread and close the cursor."""
        self.reader.shutdown(wait=True, cancel_futures=True)
        self.cursor.unregister("replay_tournament")
        self.cursor.close()

    def played_before(
        self, list_date: date, validity_at: Callable[[date], Validity] | None = None
    ) -> pl.DataFrame:
        """(player_id, played_on) of the tournaments the lists before the replay's first list
        date rated (as :meth:`transforms.elo.lists.SplitHistory.played_before`): only their
        entries are read, a few list dates at a time."""
        played = last_played(self.nothing[0])
        for read in self.earlier:
            entries = self._entries(read)
            for day in read.list_dates:
                mine = self._of(entries, read, day)
                if validity_at is not None:
                    mine = rated_entries(mine, self.memberships.at(day), validity_at(day))
                played = last_played(played, mine)
        return played

    def period(self, list_date: date) -> PeriodSlice:
        """The tournaments ``list_date`` takes, keyed for the engine."""
        if self.handed_out is not None and list_date <= self.handed_out:
            raise ValueError(f"the history was read past {list_date} already")
        self.handed_out = list_date
        while list_date not in self.slices and self._read_more():
            pass
        part = self.slices.pop(list_date, None)
        if part is None:
            part = PeriodSlice(*self.nothing, self._quarantined(list_date))
        # the slices of earlier dates a replay skipped go too
        for day in [day for day in self.slices if day < list_date]:
            del self.slices[day]
        return part

    def _read_more(self) -> bool:
        """Take the next read's slices (made ahead on the thread), and start the one after."""
        if self.ahead is None:
            if self.next_read >= len(self.reads):
                return False
            self.ahead = self.reader.submit(self._slices, self.reads[self.next_read])
            self.next_read += 1
        self.slices.update(self.ahead.result())
        self.ahead = None
        if self.next_read < len(self.reads):
            self.ahead = self.reader.submit(self._slices, self.reads[self.next_read])
            self.next_read += 1
        return True

    def _slices(self, read: HistoryRead) -> dict[date, PeriodSlice]:
        entries, rounds = self._read(read)
        return {
            day: PeriodSlice(
                *self._keyed((self._of(entries, read, day), self._of(rounds, read, day))),
                self._quarantined(day),
            )
            for day in read.list_dates
        }

    def _keyed(self, read: tuple[pl.DataFrame, pl.DataFrame]) -> tuple[pl.DataFrame, pl.DataFrame]:
        return keyed_period(*entries_with_rounds(*read))

    def _of(self, frame: pl.DataFrame, read: HistoryRead, day: date) -> pl.DataFrame:
        """The rows of ``frame`` (one read's) that list date ``day`` takes."""
        index = read.list_dates.index(day)
        after = read.after if index == 0 else self._last_receipt(read, index - 1)
        return frame.filter(
            (pl.col("received_on") > after)
            & (pl.col("received_on") <= self._last_receipt(read, index))
        )

    def _last_receipt(self, read: HistoryRead, index: int) -> date:
        return self.last_receipts[read.list_dates[index]]

    def _quarantined(self, day: date) -> pl.DataFrame:
        return self.quarantined.get(day, self.empty_quarantined)

    def _located(self, read: HistoryRead, table: str, query: str) -> pl.DataFrame:
        """The rows of ``query`` for ``read``, looked for within the row ids of ``table`` that
        its tournaments span."""
        first, last, count = read.located.get(table, (*ALL_ROWS, -1))
        window = {"after": read.after, "up_to": read.up_to, "first_row": first, "last_row": last}
        rows = query_frame(self.cursor, read_sql(f"queries/lists/{query}.sql"), window)
        if count >= 0 and rows.height != count:
            # the row ids moved since they were located (the tables are only appended to, so
            # this should not happen): read the whole table rather than miss a row
            return self._located(replace(read, located={}), table, query)
        return rows

    def _entries(self, read: HistoryRead) -> pl.DataFrame:
        return self._located(read, "entry", "period_entries")

    def _read(self, read: HistoryRead) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The entries and every round of the tournaments ``read`` takes."""
        return self._entries(read), self._located(read, "game", "period_games")
