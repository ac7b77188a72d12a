"""The ``recalculate`` flow: replay list dates in order, each under the era in force then.

Each list is written as a new revision only where its content changes; old revisions stay in
``rating_list_revisions``. ``--stale`` replays from the earliest list whose inputs changed since
it was written (a corrected tournament, a merge, a registry load). A what-if ``scenario`` writes
beside the official lists, never over them. The whole replay is one write of the warehouse:
it goes to a staging copy that replaces the live file only when every list is written. A
replay of official lists that are all current computes none of them and writes only its run
record (:mod:`flows.publishing.current`).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import date

import duckdb
from prefect import flow

from flows.console import Progress, counted, phase, say
from flows.elo.history import StreamedHistory
from flows.elo.lists import as_previous
from flows.elo.periods import (
    facts_of,
    fsi_fingerprints,
    period_context,
    validity_in_force,
)
from flows.elo.report import list_report
from flows.elo.rulebook import FSI_SYSTEMS, load_rulebook
from flows.publishing.arguments import OFFICIAL, ListError, refuse_bad_scenario_name, replay_dates
from flows.publishing.context import PeriodContext, PreviousList, read_previous
from flows.publishing.current import (
    CurrentList,
    replay_unless_current,
    unchanged_replay,
)
from flows.publishing.refusals import refuse_a_range
from flows.publishing.replay import ReplayedList, finish_recalculation
from flows.publishing.revisions import (
    WrittenList,
    diff_against,
    newly_left_out,
    revisions_in_force,
    write_list,
)
from flows.publishing.staleness import stale_lists
from flows.runtime import RunRecord, failure_recorded
from flows.warehouse import ROW_GROUP_ROWS, BatchedInserts, Warehouse
from transforms.elo.lists import ClosedList, close_list, publish_list
from transforms.elo.rulebook import Rulebook
from transforms.lists.periods import cutoff_for

# Rows of the lists replayed are appended in batches of one DuckDB row group per table: a
# batch of lists appends several times faster than each list alone, and whole row groups leave
# the final checkpoint nothing to rewrite. Batches of 400,000 rows cost the same per row but
# left the writer idle for the first third of the national replay and about 1.2 s of appends
# after its last list; with one row group that tail is about 0.6 s (measured with
# bench/recalc_benchmark.py's history).
LIST_ROWS_PER_INSERT = ROW_GROUP_ROWS


class BackgroundPublisher:
    """Finishes each replayed list on one background thread, in list order, while the main
    thread computes the next ones: its notes and rankings (:func:`publish_list`), report,
    content hash and revision, its rows (appended in batches by :class:`BatchedInserts`) and
    its diff. On two cores this takes about a third of a list's work off the path of the
    replay.

    The next list is computed from this one's rows before its revision is settled (the revision
    depends on the content hash, computed here): the main thread passes the previous revision
    as None and it is filled in here from the list written just before. Works on its own
    cursor; its writes commit on their own, which is safe because a replay writes a staging
    copy that is dropped if it fails (:meth:`Warehouse.transaction`). At most
    ``MAX_WAITING`` computed lists wait, so a slow writer holds the computation back instead
    of piling lists up in memory. After a failure no later list is written: the failure
    reaches the main thread at its next submit or at :meth:`results`.
    """

    MAX_WAITING = 2

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        run: RunRecord,
        scenario: str,
        in_force: Mapping[date, tuple[int, str]],
        total: int,
    ) -> None:
        self.con = con.cursor()
        self.run = run
        self.scenario = scenario
        self.in_force = in_force
        self.total = total
        self.rows = BatchedInserts(self.con, flush_rows=LIST_ROWS_PER_INSERT, background=True)
        self.thread = ThreadPoolExecutor(max_workers=1)
        self.finished: list[Future[ReplayedList]] = []
        self.settled = 0  # lists at the head of ``finished`` known to be finished
        self.last: WrittenList | None = None
        self.progress = Progress(total)
        self.failure: BaseException | None = None
        # the eras whose expected scores this replay found or wrote (see write_list)
        self.scores_held: set[tuple[str, str, date]] = set()

    def __enter__(self) -> BackgroundPublisher:
        return self

    def __exit__(self, error_type: object, error: object, traceback: object) -> None:
        try:
            self.thread.shutdown(wait=True, cancel_futures=error_type is not None)
            self.rows.__exit__(error_type, error, traceback)
        finally:
            self.progress.close()
            self.con.close()

    def submit(self, context: PeriodContext, closed: ClosedList) -> None:
        """Queue a computed list (after waiting for all but the last few queued before)."""
        while len(self.finished) - self.settled >= self.MAX_WAITING:
            # also raises the first failure here, in the main thread
            self.finished[self.settled].result()
            self.settled += 1
        # in the flow run's context, so the progress lines also reach the run's log
        in_run = contextvars.copy_context()
        self.finished.append(self.thread.submit(in_run.run, self._finish, context, closed))

    def results(self) -> list[ReplayedList]:
        """Every list's outcome, in list order, once all are finished."""
        return [finished.result() for finished in self.finished]

    def _finish(self, context: PeriodContext, closed: ClosedList) -> ReplayedList:
        if self.failure is not None:
            raise ListError(f"not written: an earlier list failed ({self.failure})")
        try:
            return self._finish_one(context, closed)
        except BaseException as error:
            self.failure = error
            raise

    def _finish_one(self, context: PeriodContext, closed: ClosedList) -> ReplayedList:
        published = publish_list(closed)
        last = self.last
        if last is not None and context.previous_date == last.context.list_date:
            context = replace(context, previous_revision=last.revision)
        report = list_report(context, closed.facts, published)
        written = write_list(
            self.con,
            self.run,
            context,
            published,
            report,
            self.rows,
            self.in_force,
            self.scores_held,
        )
        self.last = written
        # a scenario's list is compared with the official one even when the replay left it
        compare = written.written or self.scenario != OFFICIAL
        diff = diff_against(self.con, self.run, written, self.scenario) if compare else None
        state = f"revision {written.revision}" if written.written else "unchanged"
        changed = f", {diff.height} players differ" if diff is not None and diff.height else ""
        self.progress.advance(f"{context.list_date}: {state}{changed}")
        left_out = newly_left_out(self.con, written) if self.scenario == OFFICIAL else []
        return ReplayedList.of(written, diff, left_out)


@flow(name="recalculate")
@failure_recorded("recalculate")
def recalculate_flow(
    system: str,
    warehouse: str,
    start: date | None = None,
    end: date | None = None,
    stale: bool = False,
    rulebook_path: str | None = None,
    scenario: str = OFFICIAL,
) -> dict[str, int]:
    """Replay every list date from ``start`` to ``end`` (or the stale ones) in order."""
    if system not in FSI_SYSTEMS:
        raise ListError(f"unknown system {system!r}; expected one of {', '.join(FSI_SYSTEMS)}")
    if stale and scenario != OFFICIAL:
        raise ListError("--stale replays official lists; a scenario names its own range")
    refuse_bad_scenario_name(scenario)
    rulebook = load_rulebook(system, rulebook_path)
    run = RunRecord(
        flow="recalculate",
        parameters={
            "system": system,
            "start": start,
            "end": end,
            "stale": stale,
            "rulebook": rulebook.source,
            "scenario": scenario,
        },
        rulebook_hash=rulebook.content_hash,
    )
    if stale:
        with Warehouse(warehouse).reader() as con:
            if not stale_lists(con, system, rulebook, fsi_fingerprints):
                # as for the draughts lists: nothing to replay is no run, and no staging copy
                say(f"recalculate: every {system} list is current; nothing to do")
                return {"lists": 0, "new_revisions": 0, "players_changed": 0}

    def unchanged(con: duckdb.DuckDBPyConnection) -> list[CurrentList] | None:
        return _unchanged_range(con, system, rulebook, start, end)

    def refuse(con: duckdb.DuckDBPyConnection) -> None:
        if start is not None and end is not None and not stale:
            dates = replay_dates(system, rulebook.era_at(start).calendar, start, end)
            refuse_a_range(con, system, scenario, dates, rulebook)

    began = time.perf_counter()
    return replay_unless_current(
        warehouse,
        run,
        system,
        scenario,
        stale,
        unchanged,
        lambda con: _replay(con, run, system, start, end, stale, rulebook, scenario, began),
        began,
        refuse,
    )


def _unchanged_range(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Rulebook,
    start: date | None,
    end: date | None,
) -> list[CurrentList] | None:
    """The official lists from ``start`` to ``end`` when a replay would leave every one as it
    is (None: it would write one, or refuse, saying why)."""
    if start is None or end is None:
        return None
    try:
        dates = replay_dates(system, rulebook.era_at(start).calendar, start, end)
    except (ListError, ValueError):  # no list date there, or no era in force: the run says it
        return None
    return unchanged_replay(con, system, rulebook, dates, fsi_fingerprints)


def _replay(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    start: date | None,
    end: date | None,
    stale: bool,
    rulebook: Rulebook,
    scenario: str,
    began: float,
) -> str:
    """Replay the list dates from ``start`` to ``end`` (or the stale ones), writing a new
    revision where a list changes, and record the run: its report."""
    if stale:
        found = stale_lists(con, system, rulebook, fsi_fingerprints)
        if not found:
            say(f"recalculate: every {system} list is current; nothing to do")
        start = found[0].list_date if found else None
        end = found[-1].list_date if found else None
    if start is None or end is None:
        if not stale:
            raise ListError("give --from and --to, or --stale")
        dates: list[date] = []
    else:
        dates = replay_dates(system, rulebook.era_at(start).calendar, start, end)
        refuse_a_range(con, system, scenario, dates, rulebook)
    say(
        f"recalculate: {counted(len(dates), f'{system} list date')} ({scenario}) "
        f"from {start} to {end}"
    )
    results: list[ReplayedList] = []
    if dates:
        with contextlib.ExitStack() as reading:
            with phase("recalculate: reading the history"):
                last_cutoff = cutoff_for(rulebook.era_at(dates[-1]).calendar, dates[-1])
                # read a period at a time, the next one while this one is computed
                history = reading.enter_context(
                    StreamedHistory(
                        con, system, rulebook.era_at(dates[0]).calendar, dates, last_cutoff
                    )
                )
                previous = read_previous(con, system, scenario, dates[0])
                played = history.played_before(dates[0], validity_in_force(rulebook))
                fingerprints = fsi_fingerprints(con, system, rulebook, dates)
                in_force = revisions_in_force(con, system, scenario)
            # each list is closed here and published (notes, rankings, report, revision, rows,
            # diff) on a background thread while the next lists are computed
            with BackgroundPublisher(con, run, scenario, in_force, len(dates)) as publisher:
                for list_date in dates:
                    context = period_context(
                        con, system, scenario, list_date, rulebook, previous, fingerprints
                    )
                    facts = facts_of(context, history, previous.rows, played)
                    # the pure part, called directly: a Prefect task per list cost more than
                    # the work of a small list, and a replay has nothing to retry
                    closed = close_list(facts, context.era, list_date)
                    publisher.submit(context, closed)
                    # its revision is not settled yet (see BackgroundPublisher)
                    previous = PreviousList(
                        list_date,
                        None,
                        scenario,
                        as_previous(context, closed.rows, revision=None),
                    )
                    played = facts.played_through
                results = publisher.results()
    return finish_recalculation(con, run, system, scenario, results, began)
