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
``11.09.26``               all parts two digits: day-month-year, year-month-day and
                           month-day-year are all tried; more than one valid
                           reading is *ambiguous* (see :func:`resolve_period`)
``1987``, ``1987/00/00``   year only (month or day 0 means "unknown")
blank, ``    .  .``        blank
=========================  ======================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

import polars as pl

__all__ = [
    "DateReading",
    "birth_date_exprs",
    "read_date",
    "resolve_period",
    "two_digit_year",
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


def read_date(text: str | None) -> DateReading:
    """All readings of ``text``; see the module docstring for the spellings."""
    raw = "" if text is None else text
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


def _single(raw: str, name: str, y: int, mo: int, d: int) -> DateReading:
    if mo == 0 or d == 0:
        # "1987/00/00": the FIDE way of saying only the year is known.
        return DateReading(raw, "year_only", year=y)
    real = _real_date(y, mo, d)
    if real is None:
        return DateReading(raw, "invalid", year=y)
    return DateReading(raw, "ok", ((name, real),), year=y)


def resolve_period(start: DateReading, end: DateReading) -> tuple[date | None, date | None]:
    """Start and end dates, using ``start <= end`` to settle two-digit ambiguity.

    A side that already has one reading is kept as is. When a side is ambiguous, only
    the readings that keep ``start <= end`` survive (if both sides are ambiguous, both
    must also use the same pattern, since one program wrote both lines). The side is
    resolved only if exactly one distinct date survives; otherwise it stays ``None``.
    """
    if start.status != "ambiguous" and end.status != "ambiguous":
        return start.value, end.value
    if not start.candidates or not end.candidates:
        # Nothing to compare the ambiguous side with.
        return start.value, end.value

    both_ambiguous = start.status == "ambiguous" and end.status == "ambiguous"
    pairs = [
        (sd, ed)
        for sn, sd in start.candidates
        for en, ed in end.candidates
        if sd <= ed and (sn == en or not both_ambiguous)
    ]
    s_opts = {sd for sd, _ in pairs}
    e_opts = {ed for _, ed in pairs}
    # A side that was read unambiguously keeps its value even if the other side is odd.
    s_val = start.value if start.status != "ambiguous" else _only(s_opts)
    e_val = end.value if end.status != "ambiguous" else _only(e_opts)
    return s_val, e_val


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
    is no two-digit ambiguity here: a two-digit spelling is reported as unreadable.
    """
    s = text.fill_null("").str.replace_all(r"\s+", "")
    ymd = s.str.extract_groups(rf"^(\d{{4}}){_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})$")
    dmy = s.str.extract_groups(rf"^(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}(\d{{4}})$")
    only = s.str.extract(r"^(\d{4})$", 1)

    def part(struct: pl.Expr, idx: int) -> pl.Expr:
        return struct.struct.field(str(idx)).cast(pl.Int32, strict=False)

    year = pl.coalesce(part(ymd, 1), part(dmy, 3), only.cast(pl.Int32, strict=False))
    month = pl.coalesce(part(ymd, 2), part(dmy, 2))
    day = pl.coalesce(part(ymd, 3), part(dmy, 1))
    iso = pl.format(
        "{}-{}-{}",
        year.cast(pl.String).str.zfill(4),
        month.cast(pl.String).str.zfill(2),
        day.cast(pl.String).str.zfill(2),
    )
    has_parts = month.is_not_null() & (month != 0) & (day != 0)
    full = pl.when(has_parts).then(iso.str.to_date("%Y-%m-%d", strict=False))
    blank = s.str.contains(r"^[./\-0]*$")
    status = (
        pl.when(blank)
        .then(pl.lit("blank"))
        .when(year.is_null())
        .then(pl.lit("unreadable"))
        .when(~has_parts)
        .then(pl.lit("year_only"))
        .when(full.is_null())
        .then(pl.lit("invalid"))
        .otherwise(pl.lit("ok"))
    )
    birth_date = pl.when(~blank).then(full).cast(pl.Date)
    birth_year = pl.when(~blank).then(year).cast(pl.Int32)
    return birth_date, birth_year, status
