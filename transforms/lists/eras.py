"""Rulebook eras, shared by every system's rulebook: reading a TOML rulebook, merging each era
onto the one before, the calendar of list dates and cut-offs, and the era in force on a day.

A rulebook file (``data/rules/``) holds a list of eras; an era names only what changes and
inherits the rest from the era before it. Loading merges and checks every era once and refuses
an invalid rulebook with a message naming the era and the key. What an era holds is each
system's own (``transforms.elo.rulebook``, ``transforms.rubele.rulebook``).
"""

from __future__ import annotations

import copy
import hashlib
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

# The day a youth ranking reads a player's age on: 1 January of the list's year, or the list date
YOUTH_AGE_DAYS = ("year_start", "list_date")


class RulebookError(ValueError):
    """The rulebook cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Calendar:
    """List dates and their receipt cut-offs, as (month, day) pairs."""

    list_dates: tuple[tuple[int, int], ...]
    cutoffs: tuple[tuple[int, int], ...]


def era_in_force(system: str, eras: tuple[Any, ...], on: date) -> Any:
    """The era in force on ``on``: the latest one that started on or before it."""
    in_force = [era for era in eras if era.effective_from <= on]
    if not in_force:
        first = eras[0].effective_from
        raise RulebookError(f"{system}: no era in force on {on} (the first starts {first})")
    return in_force[-1]


def _merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


class EraReader:
    """Typed access to one merged era, with errors that name the era and the key."""

    # shared by every system's rulebook parser (``transforms/elo/rulebook.py``,
    # ``transforms/rubele/rulebook.py``)

    def __init__(self, values: dict[str, Any], where: str) -> None:
        self.values = values
        self.where = where
        self.read: set[str] = {"effective_from", "note"}

    def unread(self) -> list[str]:
        """The era's keys no parser asked for: misspelt or unknown names, which would
        otherwise be ignored while the analyst believes them in force."""

        def leaves(node: dict[str, Any], prefix: str) -> list[str]:
            found = []
            for key, value in node.items():
                path = f"{prefix}{key}"
                if isinstance(value, dict) and path not in self.read:
                    found += leaves(value, path + ".")
                elif path not in self.read:
                    found.append(path)
            return found

        return leaves(self.values, "")

    def fail(self, key: str, reason: str) -> RulebookError:
        return RulebookError(f"{self.where}: {key} {reason}")

    def get(self, key: str) -> Any:
        found, value = self._lookup(key)
        if not found:
            raise self.fail(key, "is missing")
        return value

    def has(self, key: str) -> bool:
        """Whether the era gives ``key`` (an optional rule: asking counts as reading it)."""
        return self._lookup(key)[0]

    def _lookup(self, key: str) -> tuple[bool, Any]:
        """(whether the dotted ``key`` is given, its value), noting that it was read."""
        self.read.add(key)
        node: Any = self.values
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return False, None
            node = node[part]
        return True, node

    def integer(self, key: str, minimum: int = 0, maximum: int = 10_000) -> int:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be a whole number, not {value!r}")
        if not minimum <= value <= maximum:
            raise self.fail(key, f"must be between {minimum} and {maximum}, not {value}")
        return value

    def flag(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def text(self, key: str) -> str:
        value = self.get(key)
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"must be non-empty text, not {value!r}")
        return value

    def choice(self, key: str, options: tuple[str, ...]) -> str:
        value = self.text(key)
        if value not in options:
            raise self.fail(key, f"must be one of {options}")
        return value

    def positive(self, key: str) -> float:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise self.fail(key, f"must be a positive number, not {value!r}")
        return float(value)

    def effective_from(self) -> date:
        value = self.values.get("effective_from")
        if not isinstance(value, date):
            raise self.fail("effective_from", "must be a date written YYYY-MM-DD")
        return value

    def calendar(self) -> Calendar:
        """``calendar.list_dates`` and their ``calendar.cutoffs``, as MM-DD pairs."""
        list_dates = month_days(self, "calendar.list_dates")
        cutoffs = month_days(self, "calendar.cutoffs")
        if len(list_dates) != len(cutoffs) or list(list_dates) != sorted(list_dates):
            raise self.fail("calendar", "needs one cut-off per list date, list dates in order")
        return Calendar(list_dates=list_dates, cutoffs=cutoffs)

    def categories_known(self, order: tuple[str, ...], tables: dict[str, dict[str, int]]) -> None:
        """Every table keyed by category names only categories of ``order``."""
        for key, table in tables.items():
            unknown = sorted(set(table) - set(order))
            if unknown:
                raise self.fail(key, f"names categories not in categories.order: {unknown}")

    def ratings(self, key: str, allow_empty: bool = False, maximum: int = 3500) -> dict[str, int]:
        value = self.get(key)
        if not isinstance(value, dict) or not (value or allow_empty):
            raise self.fail(key, "must be a table of category = rating")
        for category, rating in value.items():
            if isinstance(rating, bool) or not isinstance(rating, int) or not 0 < rating < maximum:
                raise self.fail(f"{key}.{category}", f"must be a rating, not {rating!r}")
        return dict(value)


def month_days(reader: EraReader, key: str) -> tuple[tuple[int, int], ...]:
    values = reader.get(key)
    if not isinstance(values, list) or not values:
        raise reader.fail(key, "must be a list of MM-DD")
    parsed = []
    for value in values:
        try:
            month, day = (int(part) for part in str(value).split("-"))
            date(2000, month, day)  # a leap year: 02-29 is a valid month-day
        except ValueError as error:
            raise reader.fail(key, f"has {value!r}, which is not MM-DD") from error
        parsed.append((month, day))
    return tuple(parsed)


@dataclass(frozen=True)
class ParsedEras:
    """A rulebook file read and its eras merged and built: what every system's parser shares."""

    system: str
    title: str
    eras: tuple[Any, ...]
    content_hash: str
    document: dict[str, Any]


def parse_eras(
    content: bytes,
    source: str,
    build: Callable[[EraReader, dict[str, Any], str], Any],
) -> ParsedEras:
    """Read a rulebook's TOML, merge each era onto the one before and ``build`` it (with a reader
    that names the era in its errors); checks the eras' dates are distinct and in order."""
    try:
        document = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RulebookError(f"{source}: not a readable TOML file: {error}") from error
    system = document.get("system")
    raw_eras = document.get("eras")
    if not isinstance(system, str) or not isinstance(raw_eras, list) or not raw_eras:
        raise RulebookError(f"{source}: needs `system` and at least one [[eras]]")
    tables = document.get("tables", {})
    eras = []
    merged: dict[str, Any] = {}
    for index, raw in enumerate(raw_eras):
        merged = _merge(merged, raw)
        merged["note"] = raw.get("note", "")
        where = f"{source}: era {index + 1} ({raw.get('effective_from', 'no date')})"
        reader = EraReader(merged, where)
        eras.append(build(reader, tables, system))
        unknown = reader.unread()
        if unknown:
            raise RulebookError(
                f"{where}: {', '.join(unknown)}: not a rule of this rulebook (a misspelt name, "
                "or one this version no longer reads): correct or remove it"
            )
    starts = [era.effective_from for era in eras]
    if starts != sorted(starts) or len(set(starts)) != len(starts):
        raise RulebookError(f"{source}: eras must have distinct effective_from dates, in order")
    # every list date and receipt window is read from one calendar: a replay across a change
    # of calendar would ask list dates of one era in another's (refused here, plainly, rather
    # than at the replay's first list date)
    changed = next((era for era in eras[1:] if era.calendar != eras[0].calendar), None)
    if changed is not None:
        raise RulebookError(
            f"{source}: the era from {changed.effective_from} changes the calendar (list dates "
            "or cut-offs): this version keeps one calendar for all eras of a system"
        )
    return ParsedEras(
        system=system,
        title=str(document.get("title", system)),
        eras=tuple(eras),
        content_hash=hashlib.sha256(content).hexdigest(),
        document=document,
    )


RULES_DIR = Path(__file__).resolve().parents[2] / "data" / "rules"


def default_rulebook_path(system: str) -> Path:
    return RULES_DIR / f"{system}.toml"
