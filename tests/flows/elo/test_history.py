"""How a replay cuts its history into reads (flows/elo/history.py)."""

from datetime import date

import polars as pl

from flows.elo.history import HistoryRead, plan_reads

LAST_RECEIPTS = pl.DataFrame(
    {
        "list_date": [date(2019, 7, 1), date(2019, 4, 1), date(2019, 10, 1), date(2020, 1, 1)],
        "received_on": [date(2019, 6, 15), date(2019, 3, 10), date(2019, 9, 14), date(2019, 12, 1)],
    }
)


def test_consecutive_list_dates_are_read_together_and_each_read_starts_where_the_last_ended():
    assert plan_reads(LAST_RECEIPTS, list_dates_per_read=3) == [
        HistoryRead(
            (date(2019, 4, 1), date(2019, 7, 1), date(2019, 10, 1)), date.min, date(2019, 9, 14)
        ),
        HistoryRead((date(2020, 1, 1),), date(2019, 9, 14), date(2019, 12, 1)),
    ]


def test_the_first_read_of_a_replay_starts_after_the_lists_before_it():
    later = LAST_RECEIPTS.filter(pl.col("list_date") >= date(2019, 10, 1))
    assert plan_reads(later, date(2019, 6, 15), list_dates_per_read=4) == [
        HistoryRead((date(2019, 10, 1), date(2020, 1, 1)), date(2019, 6, 15), date(2019, 12, 1))
    ]


def test_no_list_date_no_read():
    assert plan_reads(LAST_RECEIPTS.clear()) == []
