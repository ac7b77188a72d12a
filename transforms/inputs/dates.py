"""Reading the many date spellings found in chess tournament files.

Pure helpers, no IO. Two flavours:

* :func:`read_date` / :func:`resolve_period` for the handful of header dates of one
  tournament (scalar Python, the caller loops over a few header lines at most);
* :func:`birth_date_exprs` for a whole column of birth dates (vectorised Polars).

Policy, shared by both: a date is only returned when exactly one calendar reading
exists. Anything else is ``None`` plus a status the caller turns into a warning;
nothing is ever guessed.

Spellings and how they are read:

=========================  ======================================================
``2024/01/01``,            year first, 4-digit year (``/``, ``.`` or ``-``)
``2008-06-07``
``24/09/2010``,            day first, 4-digit year: the European / FIDE convention;
``25.02.2011``,            month-first (US) files are not recognised as such
``28. 07. 2005``           (spaces around separators are ignored)
``20100924``               compact year-month-day
``May 10, 2020``,          an English month name or its 3-letter abbreviation
``10 May 2020``            (lichess exports), month first or day first, any case,
                           with or without comma
``11.09.26``               all parts two digits: day-month-year, year-month-day and
                           month-day-year are all tried; more than one valid
                           reading is *ambiguous* (see :func:`resolve_period`, which
                           settles it with the file's other dates)
``1987``, ``1987/00/00``   year only (month or day 0 means "unknown"); birth dates
                           also ``1987.  .`` and ``1987/  /  `` (the blanks of a form)
blank, ``    .  .``        blank
=========================  ======================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import pairwise
from typing import Literal

import polars as pl
import polars.selectors as cs

__all__ = [
    "DateReading",
    "birth_date_exprs",
    "read_date",
    "resolve_period",
    "two_digit_year",
    "with_birth_dates",
]

Status = Literal["blank", "ok", "year_only", "ambiguous", "invalid", "unreadable"]

# Two-digit years: chess result files exist since the 1990s, so 70-99 are read as 19xx
# and 00-69 as 20xx. Only used when the text itself gives no century.
_PIVOT = 70

_SEP = r"[./\-]"
_YMD4 = re.compile(rf"^(\d{{4}}){_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})$")
_DMY4 = re.compile(rf"^(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}(\d{{4}})$")
_SHORT = re.compile(rf"^(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_YEAR = re.compile(r"^(\d{4})$")
# English month names (lichess writes "May 10, 2020"): the full name or its first three letters
# ("sept" too), any case, an optional dot after an abbreviation
_MONTHS = {
    name: number
    for number, full in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"],
        start=1,
    )
    for name in (full, full[:3])
} | {"sept": 9}  # fmt: skip
_MONTH = r"([A-Za-z]+)\.?"
_NAMED_MDY = re.compile(rf"^{_MONTH}\s*(\d{{1,2}}),?\s*(\d{{4}})$")
_NAMED_DMY = re.compile(rf"^(\d{{1,2}})[\s.\-/]*{_MONTH},?[\s.\-/]*(\d{{4}})$")
# The three readings of an all-two-digit spelling, in the order they are tried.
PATTERNS = ("dmy", "ymd", "mdy")
# Blank spellings: only separators, spaces and zeros (e.g. "    .  .", "0000/00/00").
_BLANKISH = re.compile(r"^[\s./\-0]*$")


def two_digit_year(yy: int) -> int:
    """Century for a two-digit year (see ``_PIVOT``)."""
    return 1900 + yy if yy >= _PIVOT else 2000 + yy


def _real_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


@dataclass(frozen=True)
class DateReading:
    """Every calendar reading of one date text.

    ``candidates`` holds ``(pattern, date)`` pairs; the pattern name ("ymd", "dmy",
    "mdy") matters only for two-digit spellings, where it lets :func:`resolve_period`
    insist that start and end were written the same way.
    """

    text: str
    status: Status
    candidates: tuple[tuple[str, date], ...] = ()
    year: int | None = None

    @property
    def value(self) -> date | None:
        """The date, when exactly one distinct reading exists."""
        dates = {d for _, d in self.candidates}
        return next(iter(dates)) if len(dates) == 1 else None

    @property
    def two_digit(self) -> bool:
        """Whether every part is one or two digits (``11.09.26``): the spelling whose pattern
        one program uses for all the dates of a line, so they are read together."""
        return bool(_SHORT.match(re.sub(r"\s+", "", self.text)))

    def reading(self, pattern: str) -> date | None:
        """The date under one pattern ("dmy", "ymd", "mdy"), if that pattern gives one."""
        return next((d for name, d in self.candidates if name == pattern), None)


def read_date(text: str | None) -> DateReading:
    """All readings of ``text``; see the module docstring for the spellings."""
    raw = "" if text is None else text
    if named := _named_month(raw):
        return named
    # "28. 07. 2005": spaces around separators carry no meaning.
    s = re.sub(r"\s+", "", raw)
    if _BLANKISH.match(s):
        return DateReading(raw, "blank")

    if m := _YMD4.match(s) or _COMPACT.match(s):
        y, mo, d = (int(g) for g in m.groups())
        return _single(raw, "ymd", y, mo, d)
    if m := _DMY4.match(s):
        d, mo, y = (int(g) for g in m.groups())
        return _single(raw, "dmy", y, mo, d)
    if m := _YEAR.match(s):
        return DateReading(raw, "year_only", year=int(m.group(1)))
    if m := _SHORT.match(s):
        a, b, c = (int(g) for g in m.groups())
        readings = (
            ("dmy", two_digit_year(c), b, a),
            ("ymd", two_digit_year(a), b, c),
            ("mdy", two_digit_year(c), a, b),
        )
        cands = tuple(
            (name, d) for name, y, mo, dd in readings if (d := _real_date(y, mo, dd)) is not None
        )
        if not cands:
            return DateReading(raw, "invalid")
        status: Status = "ok" if len({d for _, d in cands}) == 1 else "ambiguous"
        return DateReading(raw, status, cands)
    return DateReading(raw, "unreadable")


def _named_month(raw: str) -> DateReading | None:
    """``May 10, 2020`` or ``10 May 2020``; None when the text names no English month."""
    s = raw.strip()
    if m := _NAMED_MDY.match(s):
        month, day, year = m.group(1), m.group(2), m.group(3)
        name = "mdy"
    elif m := _NAMED_DMY.match(s):
        day, month, year = m.group(1), m.group(2), m.group(3)
        name = "dmy"
    else:
        return None
    number = _MONTHS.get(month.lower())
    if number is None:
        return DateReading(raw, "unreadable")
    return _single(raw, name, int(year), number, int(day))


def _single(raw: str, name: str, y: int, mo: int, d: int) -> DateReading:
    if mo == 0 or d == 0:
        # "1987/00/00": the FIDE way of saying only the year is known.
        return DateReading(raw, "year_only", year=y)
    real = _real_date(y, mo, d)
    if real is None:
        return DateReading(raw, "invalid", year=y)
    return DateReading(raw, "ok", ((name, real),), year=y)


def resolve_period(
    start: DateReading, end: DateReading, rounds: Sequence[DateReading] = ()
) -> tuple[date | None, date | None]:
    """Start and end dates, using the file's other dates to settle two-digit ambiguity.

    A side that already has one reading is kept as is. When a side is ambiguous, only the
    readings that keep ``start <= end`` survive (if both sides are ambiguous, both must also
    use the same pattern, since one program wrote both lines). ``rounds`` are the round dates
    of the TRF ``132`` line, in round order: one program wrote the line, so its two-digit
    dates share one pattern, and the rounds are played in order between start and end; a
    reading of a side survives only if some pattern of the line keeps that order. Round dates
    that fit no reading of the sides at all are not used (a line the program filled wrongly
    must not undo what start and end settle). A side is resolved only if exactly one distinct
    date survives; otherwise it stays ``None``.
    """
    if start.status != "ambiguous" and end.status != "ambiguous":
        return start.value, end.value

    both_ambiguous = start.status == "ambiguous" and end.status == "ambiguous"

    def options(side: DateReading, pattern: str | None) -> list[date | None]:
        # an ambiguous side: its readings (under the pattern both sides share); any other: its
        # date, or None, which orders nothing
        if side.status != "ambiguous":
            return [side.value]
        return [d for name, d in side.candidates if pattern is None or name == pattern]

    pairs = {
        (sd, ed)
        for pattern in (PATTERNS if both_ambiguous else (None,))
        for sd in options(start, pattern)
        for ed in options(end, pattern)
        if sd is None or ed is None or sd <= ed
    }
    sequences = _round_sequences(rounds)
    with_rounds = {
        (sd, ed)
        for sd, ed in pairs
        for days in sequences
        if (sd is None or not days or sd <= days[0]) and (ed is None or not days or days[-1] <= ed)
    }
    if with_rounds:
        pairs = with_rounds
    s_val = start.value if start.status != "ambiguous" else _only({sd for sd, _ in pairs})
    e_val = end.value if end.status != "ambiguous" else _only({ed for _, ed in pairs})
    return s_val, e_val


def _round_sequences(rounds: Sequence[DateReading]) -> list[list[date]]:
    """The readings of a line of round dates that are in round order: one per pattern its
    two-digit dates may share (dates with a four-digit year have their one reading; blank or
    unreadable ones say nothing)."""
    sequences = []
    for pattern in PATTERNS:
        days: list[date] = []
        for reading in rounds:
            if reading.two_digit:
                day = reading.reading(pattern)
                if day is None:  # not a date in this pattern: the line is not written in it
                    break
                days.append(day)
            elif reading.value is not None:
                days.append(reading.value)
        else:
            if days and all(a <= b for a, b in pairwise(days)):
                sequences.append(days)
    return sequences


def _only(values: set[date]) -> date | None:
    return next(iter(values)) if len(values) == 1 else None


def birth_date_exprs(text: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Vectorised reading of a column of birth dates.

    Returns ``(birth_date, birth_year, status)`` expressions: a ``pl.Date`` that is
    non-null only for a full real date, a ``pl.Int32`` year whenever the year can be
    read, and a status string among ``"blank"``, ``"ok"``, ``"year_only"``,
    ``"invalid"`` (year readable but not a real day, e.g. 1987/02/30) and
    ``"unreadable"``.

    Birth dates have a four-digit year in every spelling seen in TRF files, so there
    is no two-digit ambiguity here: a two-digit spelling is reported as unreadable. A year
    whose day and month are zero or left blank (``1975/00/00``, ``1975.  .``) is
    ``"year_only"``: the year is read.

    Each expression holds the whole reading (its regular expressions run once for each of
    them): :func:`with_birth_dates` adds the three columns reading the text once.
    """
    spelt = _birth_text(text)
    year, month, day = _birth_parts(**_birth_patterns(spelt))
    return _birth_values(_birth_blank(spelt), year, month, day, _full_date(year, month, day))


def with_birth_dates(
    frame: pl.DataFrame, text: pl.Expr, date: str, year: str, status: str
) -> pl.DataFrame:
    """``frame`` with the columns ``date``, ``year`` and ``status`` of
    :func:`birth_date_exprs`, each step of the reading run once (its regular expressions over
    a national delivery's 80,000 lines are most of the time a TRF batch takes)."""
    spelt = pl.col("_birth_text")
    parts = [pl.col(f"_birth_{name}") for name in ("year", "month", "day")]
    reading = (
        frame.with_columns(_birth_text(text).alias("_birth_text"))
        .with_columns(
            _birth_blank(spelt).alias("_birth_blank"),
            *(
                expression.alias(f"_birth_{name}")
                for name, expression in _birth_patterns(spelt).items()
            ),
        )
        .with_columns(
            expression.alias(f"_birth_{name}")
            for name, expression in zip(
                ("year", "month", "day"),
                _birth_parts(**{name: pl.col(f"_birth_{name}") for name in ("ymd", "dmy", "only")}),
                strict=True,
            )
        )
        .with_columns(_full_date(*parts).alias("_birth_full"))
    )
    values = _birth_values(pl.col("_birth_blank"), *parts, pl.col("_birth_full"))
    return reading.with_columns(
        values[0].alias(date), values[1].alias(year), values[2].alias(status)
    ).drop(cs.starts_with("_birth_"))


def _birth_text(text: pl.Expr) -> pl.Expr:
    return text.fill_null("").str.replace_all(r"\s+", "")


def _birth_blank(spelt: pl.Expr) -> pl.Expr:
    return spelt.str.contains(r"^[./\-0]*$")


def _birth_patterns(spelt: pl.Expr) -> dict[str, pl.Expr]:
    """The spellings a birth date is read in (whitespace already gone)."""
    return {
        "ymd": spelt.str.extract_groups(rf"^(\d{{4}}){_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})$"),
        "dmy": spelt.str.extract_groups(rf"^(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}(\d{{4}})$"),
        # the year alone: "1975", or the year in a form whose day and month are left blank or
        # zero ("1975.  .", "1975/  /  ", "  .  .1975"; whitespace is gone by now)
        "only": spelt.str.extract(r"^(?:0*[./\-]+)*(\d{4})(?:[./\-]+0*)*$", 1),
    }


def _birth_parts(ymd: pl.Expr, dmy: pl.Expr, only: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Year, month and day, from the spellings' captures."""

    def part(struct: pl.Expr, idx: int) -> pl.Expr:
        return struct.struct.field(str(idx)).cast(pl.Int32, strict=False)

    year = pl.coalesce(part(ymd, 1), part(dmy, 3), only.cast(pl.Int32, strict=False))
    month = pl.coalesce(part(ymd, 2), part(dmy, 2))
    day = pl.coalesce(part(ymd, 3), part(dmy, 1))
    return year, month, day


def _has_parts(month: pl.Expr, day: pl.Expr) -> pl.Expr:
    return month.is_not_null() & (month != 0) & (day != 0)


def _full_date(year: pl.Expr, month: pl.Expr, day: pl.Expr) -> pl.Expr:
    iso = pl.format(
        "{}-{}-{}",
        year.cast(pl.String).str.zfill(4),
        month.cast(pl.String).str.zfill(2),
        day.cast(pl.String).str.zfill(2),
    )
    return pl.when(_has_parts(month, day)).then(iso.str.to_date("%Y-%m-%d", strict=False))


def _birth_values(
    blank: pl.Expr, year: pl.Expr, month: pl.Expr, day: pl.Expr, full: pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    status = (
        pl.when(blank)
        .then(pl.lit("blank"))
        .when(year.is_null())
        .then(pl.lit("unreadable"))
        .when(~_has_parts(month, day))
        .then(pl.lit("year_only"))
        .when(full.is_null())
        .then(pl.lit("invalid"))
        .otherwise(pl.lit("ok"))
    )
    birth_date = pl.when(~blank).then(full).cast(pl.Date)
    birth_year = pl.when(~blank).then(year).cast(pl.Int32)
    return birth_date, birth_year, status
