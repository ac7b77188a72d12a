"""The replay's background publisher: list order, settled revisions, a bounded queue."""

import threading
from dataclasses import dataclass
from datetime import date
from types import SimpleNamespace

import duckdb
import polars as pl
import pytest

import flows.elo.recalculate as recalculate
from flows.publishing.revisions import WrittenList


@dataclass(frozen=True)
class Context:
    list_date: date
    previous_date: date | None
    previous_revision: int | None
    reference_ratings: object = None


def _publisher(
    monkeypatch, written: list, release: threading.Event
) -> recalculate.BackgroundPublisher:
    def write_list(con, run, context, published, report, rows, in_force, scores_held):
        release.wait(timeout=10)
        written.append(context)
        return WrittenList(7, True, published, context)

    monkeypatch.setattr(recalculate, "write_list", write_list)
    monkeypatch.setattr(recalculate, "publish_list", lambda closed: closed)
    monkeypatch.setattr(recalculate, "list_report", lambda context, facts, published: "")
    monkeypatch.setattr(recalculate, "diff_against", lambda *args: None)
    monkeypatch.setattr(recalculate, "newly_left_out", lambda *args: [])
    monkeypatch.setattr(recalculate, "say", lambda message: None)
    return recalculate.BackgroundPublisher(
        duckdb.connect(), run=None, scenario="official", in_force={}, total=4
    )


DATES = [date(2019, 1, 1), date(2019, 4, 1), date(2019, 7, 1), date(2019, 10, 1)]
# a closed list as the publisher reads it (publishing and the report are stubbed out)
CLOSED = SimpleNamespace(facts=None, rows=pl.DataFrame({"in_ranking": [True]}))


def test_lists_are_finished_in_order_with_the_revision_written_before(monkeypatch):
    written: list[Context] = []
    release = threading.Event()
    release.set()
    with _publisher(monkeypatch, written, release) as publisher:
        for before, day in zip([None, *DATES], DATES, strict=False):
            publisher.submit(Context(day, before, 3 if before is None else None), CLOSED)
    assert [item.context.list_date for item in publisher.results()] == DATES
    # the first list follows the revision read from the warehouse; the others the one written
    assert [context.previous_revision for context in written] == [3, 7, 7, 7]


def test_a_slow_writer_holds_the_computation_back(monkeypatch):
    written: list[Context] = []
    release = threading.Event()
    with _publisher(monkeypatch, written, release) as publisher:
        submitted = []

        def compute_and_submit() -> None:
            for day in DATES:
                publisher.submit(Context(day, None, None), CLOSED)
                submitted.append(day)

        main = threading.Thread(target=compute_and_submit)
        main.start()
        main.join(timeout=1)
        # the first list is being written; one more waits; the third is held back
        assert len(submitted) == recalculate.BackgroundPublisher.MAX_WAITING
        release.set()
        main.join(timeout=10)
        assert submitted == DATES
    assert len(written) == len(DATES)


def test_after_a_failure_no_later_list_is_written(monkeypatch):
    written: list[Context] = []
    release = threading.Event()
    release.set()
    publisher = _publisher(monkeypatch, written, release)
    write_list = recalculate.write_list

    def failing_on_the_second(con, run, context, *rest):
        if context.list_date == DATES[1]:
            raise OSError("disk full")
        return write_list(con, run, context, *rest)

    monkeypatch.setattr(recalculate, "write_list", failing_on_the_second)
    with pytest.raises(OSError, match="disk full"), publisher:
        for day in DATES:
            publisher.submit(Context(day, None, None), CLOSED)
        publisher.results()
    assert [context.list_date for context in written] == [DATES[0]]
