"""The ``recalculate`` flow: replay list dates in order, each under the era in force then.

Each list is written as a new revision only where its content changes; old revisions stay in
``rating_list_revisions``. ``--stale`` replays from the earliest list whose inputs changed since
it was written (a corrected tournament, a merge, a registry load). A what-if ``scenario`` writes
beside the official lists, never over them. The whole replay is one write of the warehouse:
it goes to a staging copy that replaces the live file only when every list is written.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

import duckdb
import polars as pl
from prefect import flow

from flows.lists import (
    FSI_SYSTEMS,
    OFFICIAL,
    ListError,
    PeriodContext,
    WrittenList,
    as_previous,
    diff_against,
    facts_of,
    fsi_fingerprints,
    inputs_checksums,
    load_history,
    load_rulebook,
    period_context,
    read_previous,
    refuse_a_scenario_on_another_rulebook,
    refuse_bad_scenario_name,
    refuse_imported_dates,
    replay_dates,
    revisions_in_force,
    validity_in_force,
    write_list,
)
from flows.report import list_report, recalculation_report
from flows.runtime import (
    RunRecord,
    artifact_key,
    counted,
    failure_recorded,
    publish_markdown,
    say,
)
from flows.warehouse import (
    ROW_GROUP_ROWS,
    BatchedInserts,
    Warehouse,
    execute,
    query_frame,
    read_sql,
)
from transforms.elo.lists import ClosedList, close_list, publish_list, split_history
from transforms.elo.rulebook import Rulebook
from transforms.lists.notes import first_named
from transforms.lists.periods import cutoff_for, receipt_window

# Rows of the lists replayed are appended in batches of one DuckDB row group per table: a
# batch of lists appends several times faster than each list alone, and whole row groups leave
# the final checkpoint nothing to rewrite. Batches of 400,000 rows cost the same per row but
# left the writer idle for the first third of the national replay and about 1.2 s of appends
# after its last list; with one row group that tail is about 0.6 s (measured with
# bench/recalc_benchmark.py's history).
LIST_ROWS_PER_INSERT = ROW_GROUP_ROWS


@dataclass(frozen=True)
class StaleList:
    list_date: date
    reason: str


def fsi_fingerprint(
    con: duckdb.DuckDBPyConnection, system: str, rulebook: Rulebook, list_date: date
) -> str:
    """What an FSI list of ``list_date`` would be computed from, now."""
    return fsi_fingerprints(con, system, rulebook, [list_date])[list_date]


def stale_lists(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Rulebook | Any,
    fingerprint: Callable[[duckdb.DuckDBPyConnection, str, Any, date], str] = fsi_fingerprint,
) -> list[StaleList]:
    """Official lists whose inputs or rulebook changed since written, or computed from a
    revision of the list before that is no longer in force, and every later one up to the next
    imported list (``fingerprint`` says what a list would read now: FSI or draughts inputs)."""
    current = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": OFFICIAL},
    )
    in_force = dict(current.select("list_date", "revision").rows())
    stale: list[StaleList] = []
    before: date | None = None  # the list in force before this one
    for row in current.iter_rows(named=True):
        list_date, source = row["list_date"], row["source"]
        before, list_before = list_date, before
        if source == "imported":
            if stale:
                break  # an imported list is a given: the lists after it follow it, not these
            continue  # nor is it a computation to check
        if stale:
            stale.append(StaleList(list_date, f"follows the stale list of {stale[0].list_date}"))
            continue
        previous = row["previous_list_date"]
        if previous != list_before:
            # published before the list that now precedes it (a first list from nothing)
            stale.append(
                StaleList(
                    list_date,
                    f"it was computed from {f'the list of {previous}' if previous else 'no list'}"
                    f", but the list of {list_before} now precedes it",
                )
            )
        elif previous in in_force and in_force[previous] != row["previous_revision"]:
            stale.append(
                StaleList(
                    list_date,
                    f"it was computed from revision {row['previous_revision']} of the list of "
                    f"{previous}, which revision {in_force[previous]} has replaced",
                )
            )
        elif fingerprint(con, system, rulebook, list_date) != row["inputs_hash"]:
            changed = _inputs_changed_since(con, system, rulebook, list_date, row["created_at"])
            stale.append(StaleList(list_date, f"its inputs changed since it was written{changed}"))
        elif row["rulebook_hash"] != rulebook.content_hash:
            stale.append(StaleList(list_date, "the rulebook changed since it was written"))
    return stale


# tournaments named in a stale list's reason, at most
NAMED_CHANGES = 5


def _inputs_changed_since(
    con: duckdb.DuckDBPyConnection,
    system: str,
    rulebook: Rulebook | Any,
    list_date: date,
    written_at: datetime,
) -> str:
    """What the status can name of the inputs a stale list gained: the tournaments with a new
    version, the merges of their players and the registry snapshots loaded since it was
    written ("" when none: the list another system's newcomers read changed, say)."""
    _, up_to = receipt_window(rulebook.era_at(list_date).calendar, list_date)
    tournaments, new_tournaments, merges, snapshots = execute(
        con,
        read_sql("queries/lists/inputs_changed_since.sql"),
        {"system": system, "written_at": written_at, "up_to": up_to, "list_date": list_date},
    )[0]
    named = [
        f"{what} {first_named(ids, NAMED_CHANGES)}"
        for what, ids in (("new versions of", tournaments), ("new tournaments", new_tournaments))
        if ids
    ]
    if merges:
        named.append(f"{counted(merges, 'merge')} recorded")
    if snapshots:
        dates = ", ".join(str(day) for day in snapshots)
        named.append(f"the registry snapshot{'s' if len(snapshots) > 1 else ''} of {dates} loaded")
    return f": {', '.join(named)}" if named else ""


def finish_recalculation(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    scenario: str,
    results: list[tuple[WrittenList, pl.DataFrame | None]],
    began: float,
) -> str:
    """The report and counts of a replay, recorded with its run (inside its transaction)."""
    report = recalculation_report(system, scenario, results, time.perf_counter() - began)
    run.input_checksums = inputs_checksums([written for written, _ in results])
    run.counts = {
        "lists": len(results),
        "new_revisions": sum(1 for written, _ in results if written.written),
        "players_changed": sum(d.height for _, d in results if d is not None),
    }
    run.write(con, "succeeded", report)
    return report


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
        self.finished: list[Future[tuple[WrittenList, pl.DataFrame | None]]] = []
        self.settled = 0  # lists at the head of ``finished`` known to be finished
        self.last: WrittenList | None = None
        self.done = 0
        self.failure: BaseException | None = None

    def __enter__(self) -> BackgroundPublisher:
        return self

    def __exit__(self, error_type: object, error: object, traceback: object) -> None:
        try:
            self.thread.shutdown(wait=True, cancel_futures=error_type is not None)
            self.rows.__exit__(error_type, error, traceback)
        finally:
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

    def results(self) -> list[tuple[WrittenList, pl.DataFrame | None]]:
        """Every list's outcome, in list order, once all are finished."""
        return [finished.result() for finished in self.finished]

    def _finish(
        self, context: PeriodContext, closed: ClosedList
    ) -> tuple[WrittenList, pl.DataFrame | None]:
        if self.failure is not None:
            raise ListError(f"not written: an earlier list failed ({self.failure})")
        try:
            return self._finish_one(context, closed)
        except BaseException as error:
            self.failure = error
            raise

    def _finish_one(
        self, context: PeriodContext, closed: ClosedList
    ) -> tuple[WrittenList, pl.DataFrame | None]:
        published = publish_list(closed)
        last = self.last
        if last is not None and context.previous_date == last.context.list_date:
            context = replace(context, previous_revision=last.revision)
        report = list_report(context, closed.facts, published)
        written = write_list(
            self.con, self.run, context, published, report, self.rows, self.in_force
        )
        self.last = written
        # a scenario's list is compared with the official one even when the replay left it
        compare = written.written or self.scenario != OFFICIAL
        diff = diff_against(self.con, self.run, written, self.scenario) if compare else None
        state = f"revision {written.revision}" if written.written else "unchanged"
        changed = f", {diff.height} players differ" if diff is not None and diff.height else ""
        self.done += 1
        say(f"  [{self.done}/{self.total}] {context.list_date}: {state}{changed}")
        return written, diff


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
            if not stale_lists(con, system, rulebook):
                # as for the draughts lists: nothing to replay is no run, and no staging copy
                say(f"recalculate: every {system} list is current; nothing to do")
                return {"lists": 0, "new_revisions": 0, "players_changed": 0}
    began = time.perf_counter()
    with Warehouse(warehouse).transaction(create=False) as con:
        if stale:
            found = stale_lists(con, system, rulebook)
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
            refuse_imported_dates(con, system, dates)
            refuse_a_scenario_on_another_rulebook(con, system, scenario, dates[0], rulebook)
        say(
            f"recalculate: {counted(len(dates), f'{system} list date')} ({scenario}) "
            f"from {start} to {end}"
        )
        results: list[tuple[WrittenList, pl.DataFrame | None]] = []
        if dates:
            last_cutoff = cutoff_for(rulebook.era_at(dates[-1]).calendar, dates[-1])
            history = split_history(
                load_history(con, system, last_cutoff, dates[-1]),
                rulebook.era_at(dates[0]).calendar,
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
                    facts = facts_of(context, history, previous, played)
                    # the pure part, called directly: a Prefect task per list cost more than
                    # the work of a small list, and a replay has nothing to retry
                    closed = close_list(facts, context.era, list_date)
                    publisher.submit(context, closed)
                    previous = as_previous(context, closed.rows, revision=None)
                    played = facts.played_through
            results = publisher.results()
        report = finish_recalculation(con, run, system, scenario, results, began)
    scenario_part = () if scenario == OFFICIAL else ("scenario", scenario)
    publish_markdown(report, key=artifact_key(system, *scenario_part, "recalculation"))
    say(report)
    return run.counts
