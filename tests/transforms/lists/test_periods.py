import itertools
from datetime import date

import polars as pl

from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import default_rulebook_path
from transforms.lists.periods import (
    assign_list_dates,
    cutoff_for,
    first_list_taking,
    is_list_date,
    list_dates_between,
    previous_list_date,
    receipt_window,
)

CALENDAR = parse_rulebook(default_rulebook_path("elo_italia").read_bytes()).eras[0].calendar


def test_cutoffs_of_each_list_date():
    assert cutoff_for(CALENDAR, date(2020, 1, 1)) == date(2019, 12, 15)
    assert cutoff_for(CALENDAR, date(2020, 4, 1)) == date(2020, 3, 15)
    assert cutoff_for(CALENDAR, date(2020, 7, 1)) == date(2020, 6, 15)
    assert cutoff_for(CALENDAR, date(2020, 10, 1)) == date(2020, 9, 15)
    assert not is_list_date(CALENDAR, date(2020, 5, 1))


def test_the_list_that_takes_a_receipt_date():
    assert first_list_taking(CALENDAR, date(2019, 6, 15)) == date(2019, 7, 1)  # the cut-off
    assert first_list_taking(CALENDAR, date(2019, 6, 16)) == date(2019, 10, 1)
    assert first_list_taking(CALENDAR, date(2019, 12, 16)) == date(2020, 4, 1)


def test_windows_chain_without_gaps():
    assert previous_list_date(CALENDAR, date(2020, 1, 1)) == date(2019, 10, 1)
    assert receipt_window(CALENDAR, date(2020, 1, 1)) == (date(2019, 9, 15), date(2019, 12, 15))
    dates = list_dates_between(CALENDAR, date(2019, 1, 1), date(2020, 12, 31))
    assert len(dates) == 8
    for earlier, later in itertools.pairwise(dates):
        assert receipt_window(CALENDAR, later)[0] == cutoff_for(CALENDAR, earlier)


def test_a_tournament_goes_to_the_period_of_its_receipt():
    received = pl.DataFrame(
        {
            "received_on": [
                date(2019, 12, 15),
                date(2019, 12, 16),
                date(2020, 3, 15),
                date(2020, 3, 16),
                date(2019, 9, 30),
            ]
        }
    )
    assigned = assign_list_dates(received, CALENDAR)["list_date"].to_list()
    assert assigned == [
        date(2020, 1, 1),  # on the cut-off: still counts
        date(2020, 4, 1),  # the day after: next period
        date(2020, 4, 1),
        date(2020, 7, 1),
        date(2020, 1, 1),
    ]
