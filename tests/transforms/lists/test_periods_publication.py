"""When a list is published by the schedule: the day after each cut-off, as cron expressions,
and which list a run of a given day publishes."""

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import Calendar, default_rulebook_path
from transforms.lists.periods import (
    cutoff_for,
    last_closed_list,
    list_dates_between,
    publication_crons,
    receipt_window,
)
from transforms.rubele.rulebook import parse_rubele_rulebook

FSI = parse_rulebook(default_rulebook_path("elo_italia").read_bytes()).eras[0].calendar
DRAUGHTS = (
    parse_rubele_rulebook(default_rulebook_path("rubele_italiana").read_bytes()).eras[0].calendar
)


def _fires_on(crons: list[str], year: int) -> list[date]:
    """The days of ``year`` on which any of these crons fires (minute 0 of a fixed hour, a
    day of the month and a list of months, every weekday: the only form the schedule uses)."""
    days = set()
    for cron in crons:
        minute, _hour, day, months, weekday = cron.split()
        assert (minute, weekday) == ("0", "*")
        days |= {date(year, int(month), int(day)) for month in months.split(",")}
    return sorted(days)


def test_the_fsi_calendar_publishes_the_day_after_each_cutoff():
    assert publication_crons(FSI) == ["0 6 16 3,6,9,12 *"]
    assert publication_crons(FSI, hour=7) == ["0 7 16 3,6,9,12 *"]


def test_the_draughts_calendar_publishes_on_the_first_of_january_and_july():
    # cut-offs 31 Dec and 30 Jun: the days after are in the next month, and the next year
    assert DRAUGHTS.cutoffs == ((12, 31), (6, 30))
    assert publication_crons(DRAUGHTS) == ["0 6 1 1,7 *"]


def test_cutoffs_on_different_days_need_one_cron_per_day_of_the_month():
    calendar = Calendar(
        list_dates=((1, 1), (4, 1), (7, 1), (10, 1)),
        cutoffs=((12, 15), (3, 20), (6, 30), (9, 15)),
    )
    # ordered by the day of the month; months in order within a cron
    assert publication_crons(calendar) == ["0 6 1 7 *", "0 6 16 9,12 *", "0 6 21 3 *"]
    assert _fires_on(publication_crons(calendar), 2019) == [
        date(2019, 3, 21),
        date(2019, 7, 1),
        date(2019, 9, 16),
        date(2019, 12, 16),
    ]


def test_a_cutoff_at_the_end_of_february_is_followed_by_the_first_of_march():
    calendar = Calendar(list_dates=((3, 1), (9, 1)), cutoffs=((2, 28), (8, 31)))
    assert publication_crons(calendar) == ["0 6 1 3,9 *"]
    # in a leap year the run comes a day late, and still publishes the list of 1 March
    assert last_closed_list(calendar, date(2020, 3, 1)) == date(2020, 3, 1)
    assert last_closed_list(calendar, date(2019, 3, 1)) == date(2019, 3, 1)


def test_an_hour_outside_the_day_is_refused():
    with pytest.raises(ValueError, match="hour 24"):
        publication_crons(FSI, hour=24)


def test_a_run_publishes_the_list_whose_window_just_closed():
    assert last_closed_list(FSI, date(2019, 3, 16)) == date(2019, 4, 1)
    assert last_closed_list(FSI, date(2019, 6, 16)) == date(2019, 7, 1)
    assert last_closed_list(FSI, date(2019, 9, 16)) == date(2019, 10, 1)
    assert last_closed_list(FSI, date(2019, 12, 16)) == date(2020, 1, 1)  # next year's list
    assert last_closed_list(DRAUGHTS, date(2020, 1, 1)) == date(2020, 1, 1)
    assert last_closed_list(DRAUGHTS, date(2020, 7, 1)) == date(2020, 7, 1)


def test_a_run_on_a_cutoff_day_or_late_never_takes_an_open_window():
    # on the cut-off itself the window of 1 April is still open: the last closed is 1 January
    assert last_closed_list(FSI, date(2019, 3, 15)) == date(2019, 1, 1)
    # a run that comes days late (the process was down) still publishes the list of 1 April
    assert last_closed_list(FSI, date(2019, 3, 31)) == date(2019, 4, 1)
    assert last_closed_list(FSI, date(2019, 6, 15)) == date(2019, 4, 1)
    assert last_closed_list(DRAUGHTS, date(2020, 6, 30)) == date(2020, 1, 1)


@pytest.mark.parametrize("calendar", [FSI, DRAUGHTS], ids=["fsi", "draughts"])
def test_every_cron_day_publishes_the_list_whose_cutoff_was_the_day_before(calendar):
    for year in (2019, 2020):
        fired = _fires_on(publication_crons(calendar), year)
        lists = list_dates_between(calendar, date(year - 1, 1, 1), date(year + 1, 12, 31))
        closing = {cutoff_for(calendar, day) + timedelta(days=1): day for day in lists}
        assert fired == sorted(day for day in closing if day.year == year)
        assert [last_closed_list(calendar, day) for day in fired] == [closing[d] for d in fired]


@given(st.dates(min_value=date(1995, 1, 1), max_value=date(2040, 12, 31)))
def test_the_list_of_any_day_has_closed_and_is_the_latest_closed(day):
    for calendar in (FSI, DRAUGHTS):
        published = last_closed_list(calendar, day)
        assert receipt_window(calendar, published)[1] < day
        following = list_dates_between(
            calendar, published + timedelta(days=1), published + timedelta(days=400)
        )[0]
        assert cutoff_for(calendar, following) >= day
