"""Rating periods: list dates, receipt cut-offs, and which period a tournament belongs to.

A tournament belongs to a period by its date of receipt, not the date it was played: one
received after a cut-off goes to the next period (RULES.md §1.1). A list is published the day
after its cut-off, when its receipt window has closed (:func:`publication_crons`,
:func:`last_closed_list`).
"""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl

from transforms.lists.eras import Calendar


def _on(year: int, month_day: tuple[int, int]) -> date:
    month, day = month_day
    return date(year, month, day)


def is_list_date(calendar: Calendar, day: date) -> bool:
    return (day.month, day.day) in calendar.list_dates


def cutoff_for(calendar: Calendar, list_date: date) -> date:
    """The last receipt date counted for the list published on ``list_date``."""
    if not is_list_date(calendar, list_date):
        raise ValueError(f"{list_date} is not a list date of the calendar")
    index = calendar.list_dates.index((list_date.month, list_date.day))
    cutoff = calendar.cutoffs[index]
    # a cut-off later in the calendar year than its list date (15 Dec for 1 Jan) is last year's
    year = list_date.year - 1 if cutoff > calendar.list_dates[index] else list_date.year
    return _on(year, cutoff)


def list_dates_between(calendar: Calendar, first: date, last: date) -> list[date]:
    """Every list date from ``first`` to ``last``, both included, in order."""
    return [
        day
        for year in range(first.year, last.year + 1)
        for month_day in calendar.list_dates
        if first <= (day := _on(year, month_day)) <= last
    ]


def previous_list_date(calendar: Calendar, list_date: date) -> date:
    earlier = list_dates_between(calendar, list_date - timedelta(days=400), list_date)
    return earlier[-2]


def receipt_window(calendar: Calendar, list_date: date) -> tuple[date, date]:
    """(after, up_to): tournaments received after the first and up to the second date count."""
    return cutoff_for(calendar, previous_list_date(calendar, list_date)), cutoff_for(
        calendar, list_date
    )


def first_list_taking(calendar: Calendar, received_on: date) -> date:
    """The list date whose window takes a tournament received on ``received_on``."""
    return next(
        day
        for day in list_dates_between(calendar, received_on, received_on + timedelta(days=400))
        if cutoff_for(calendar, day) >= received_on
    )


def assign_list_dates(received: pl.DataFrame, calendar: Calendar) -> pl.DataFrame:
    """Add ``list_date``: the first list whose cut-off is on or after ``received_on``."""
    if received.height == 0:
        return received.with_columns(pl.lit(None, dtype=pl.Date).alias("list_date"))
    days = received.get_column("received_on").drop_nulls()
    first, last = days.min(), days.max()
    dates = list_dates_between(calendar, first, last + timedelta(days=400))  # type: ignore[operator]
    cutoffs = pl.DataFrame(
        {"list_date": dates, "cutoff": [cutoff_for(calendar, day) for day in dates]}
    ).sort("cutoff")
    return (
        received.with_row_index("_order")
        .sort("received_on")
        .join_asof(cutoffs, left_on="received_on", right_on="cutoff", strategy="forward")
        .sort("_order")
        .drop("_order", "cutoff")
    )


def ratings_day(calendar: Calendar, ratings_snapshot: str, list_date: date) -> date:
    """The day whose registry snapshot gives the ratings carried into the period's games."""
    if ratings_snapshot == "period_start":
        return previous_list_date(calendar, list_date)
    return list_date


def _day_after(month_day: tuple[int, int]) -> tuple[int, int]:
    """The (month, day) after a cut-off, in a common year: a cron cannot name a day that only
    leap years have, so a cut-off on 28 or 29 February is followed by 1 March."""
    month, day = month_day
    following = date(2001, month, min(day, 28) if month == 2 else day) + timedelta(days=1)
    return following.month, following.day


def publication_crons(calendar: Calendar, hour: int = 6) -> list[str]:
    """Cron expressions firing at ``hour`` on the day after each cut-off of the calendar: one
    per day of the month those days fall on (15 Dec, 15 Mar, 15 Jun, 15 Sep give
    ``0 6 16 3,6,9,12 *``; 31 Dec and 30 Jun give ``0 6 1 1,7 *``), ordered by that day.

    A cron names days of the month and months, not dates: cut-offs whose following days differ
    need one cron each, grouped by the day of the month so that a deployment carries as few
    schedules as it can. After a 28 February cut-off the run comes on 1 March in a leap year
    too, a day late; :func:`last_closed_list` still gives it the list whose window closed.
    """
    if not 0 <= hour <= 23:
        raise ValueError(f"hour {hour} is not an hour of the day (0-23)")
    months_by_day: dict[int, set[int]] = {}
    for cutoff in calendar.cutoffs:
        month, day = _day_after(cutoff)
        months_by_day.setdefault(day, set()).add(month)
    return [
        f"0 {hour} {day} {','.join(str(month) for month in sorted(months))} *"
        for day, months in sorted(months_by_day.items())
    ]


def last_closed_list(calendar: Calendar, day: date) -> date:
    """The list whose receipt window closed last before ``day``: the latest list date whose
    cut-off is earlier than ``day`` (on 16 March, the list of 1 April, cut-off 15 March).

    A run on the day after a cut-off publishes that cut-off's list; a run that comes late (the
    process was down, a 28 February cut-off in a leap year) still finds the same list until the
    next cut-off has passed, and never a list whose window is still open."""
    # the first list still taking a tournament received on ``day`` is the one whose window is
    # open that day; the list before it is the last to have closed
    return previous_list_date(calendar, first_list_taking(calendar, day))
