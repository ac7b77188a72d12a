"""Rulebooks: every federation number as versioned data, in eras by effective date.

A rulebook file (TOML, ``data/rules/``) holds a list of eras; an era names only what changes
and inherits the rest from the era before it. Loading merges and checks every era once and
refuses an invalid rulebook with a message naming the era and the key. A list date is computed
under the era in force on that date; the file's content hash is stored with every list.
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

ROUNDING_MODES = ("half_away_from_zero",)
RATINGS_SNAPSHOTS = ("period_start", "list_date")
# Where a newcomer's entry rating may come from, in a rulebook's order of precedence (Elo Rapid)
ENTRY_SOURCES = ("fide_rapid", "fide_standard", "elo_italia")
CATEGORY_KINDS = ("national", "letters")
# The day a youth ranking reads a player's age on: 1 January of the list's year, or the list date
YOUTH_AGE_DAYS = ("year_start", "list_date")
# Which list dates count towards a provisional letter's "held at N list dates" (Elo Rapid):
# those where the rating is in the letter's band, or every list that shows the letter
LETTER_HELD_COUNTS = ("rating_in_band", "every_list")


class RulebookError(ValueError):
    """The rulebook cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Calendar:
    """List dates and their receipt cut-offs, as (month, day) pairs."""

    list_dates: tuple[tuple[int, int], ...]
    cutoffs: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class KSchedule:
    newcomer: int
    newcomer_below_games: int
    high: int
    high_from_rating: int
    default: int
    registry_override: bool
    everyone_zero: bool


@dataclass(frozen=True)
class Validity:
    """When a tournament counts for the list at all (Elo Rapid: 14 players, 6 rounds, members)."""

    min_players: int
    min_rounds: int
    all_members: bool  # every player a member of the federation for the tournament's year


@dataclass(frozen=True)
class Letters:
    """Elo Rapid letter bands: reached letters go up only, provisional until held enough."""

    enabled: bool
    bands: tuple[tuple[str, int], ...]  # (letter, lowest rating), highest band first
    definitive_after: int  # list dates at which the letter was held (as ``held_counts`` says)
    provisional_mark: str
    held_counts: str  # one of LETTER_HELD_COUNTS


@dataclass(frozen=True)
class EloEra:
    """The values of one era of an FSI Elo system, fully merged and checked."""

    system: str
    effective_from: date
    note: str
    calendar: Calendar
    entry_ratings: dict[str, int]
    theoretical_ratings: dict[str, int]
    unregistered_category: str
    entry_precedence: tuple[str, ...]  # ENTRY_SOURCES tried for a newcomer, after the arbiter
    arbiter_raises_listed: bool  # a later arbiter rating above the listed one replaces it
    ratings_snapshot: str  # which registry snapshot gives the ratings carried into games
    expected_bands: tuple[tuple[int, int], ...]  # (lowest |D|, expected score in hundredths)
    difference_cap: int  # 0 = no cap
    k: KSchedule
    groups_enabled: bool
    group_size: int
    group_min_k: int
    # a tournament where the player has no counted game (only unplayed ones) takes a place in
    # his order of tournaments, pushing the later ones into later groups
    group_counts_tournaments_without_games: bool
    rounding: str
    fide_holders_leave_list: bool  # §1.3/§1.5: FIDE-rated players are rated by FIDE only
    fide_minimum: int
    activity_months: int
    foreign_fide_tournaments: bool
    youth_age: int
    youth_age_on: str  # one of YOUTH_AGE_DAYS
    category_order: tuple[str, ...]
    category_thresholds: dict[str, int]
    categories_never_lowered: bool
    category_kind: str  # what the list's category column shows: national categories or letters
    letters: Letters | None
    validity: Validity

    @property
    def newcomer_ratings(self) -> dict[str, int]:
        """What a newcomer enters at by category (§1.2): the entry rating of his category, else
        (a player missing from the list with a national category) its theoretical rating."""
        return {**self.theoretical_ratings, **self.entry_ratings}


def era_in_force(system: str, eras: tuple[Any, ...], on: date) -> Any:
    """The era in force on ``on``: the latest one that started on or before it."""
    in_force = [era for era in eras if era.effective_from <= on]
    if not in_force:
        first = eras[0].effective_from
        raise RulebookError(f"{system}: no era in force on {on} (the first starts {first})")
    return in_force[-1]


@dataclass(frozen=True)
class Rulebook:
    system: str
    title: str
    eras: tuple[EloEra, ...]
    content_hash: str
    source: str

    def era_at(self, on: date) -> EloEra:
        return era_in_force(self.system, self.eras, on)


def size_rules_difference(given: Rulebook, applied: Rulebook) -> str | None:
    """Where ``given`` sets other tournament size rules (players, rounds) than ``applied``,
    the rulebook tournaments were checked against when they were ingested; None when nowhere.

    The size rules decide at ingest which tournaments are quarantined, so a list or a replay
    computed under ``given`` could not apply different ones: it would rate the tournaments
    ``applied`` let through, while its rulebook claims otherwise."""
    # the days both rulebooks have an era for: a rulebook may start later than the other
    first = max(given.eras[0].effective_from, applied.eras[0].effective_from)
    boundaries = sorted({era.effective_from for era in (*given.eras, *applied.eras)} | {first})
    for day in (day for day in boundaries if day >= first):
        ours, theirs = given.era_at(day).validity, applied.era_at(day).validity
        if (ours.min_players, ours.min_rounds) != (theirs.min_players, theirs.min_rounds):
            return (
                f"from {day} it asks {ours.min_players} players and {ours.min_rounds} rounds, "
                f"the ingest's rulebook {theirs.min_players} and {theirs.min_rounds}"
            )
    return None


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

    # shared by every system's rulebook parser (``transforms/rubele_rulebook.py``)

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


def _expected_bands(tables: dict[str, Any], name: str, reader: EraReader) -> tuple:
    if name not in tables:
        raise reader.fail("expected.table", f"names {name!r}, which is not in [tables]")
    bands = []
    previous_start, previous_score = -1, -1
    for index, band in enumerate(tables[name]):
        where = f"tables.{name}[{index}]"
        if not (isinstance(band, list) and len(band) == 2):
            raise RulebookError(f"{where} must be [lowest difference, expected score]")
        start, score = band
        hundredths = round(float(score) * 100)
        if abs(float(score) * 100 - hundredths) > 1e-9 or not 0 <= hundredths <= 100:
            raise RulebookError(f"{where}: {score} must be a score between 0 and 1, in hundredths")
        if (index == 0 and start != 0) or start <= previous_start or hundredths < previous_score:
            raise RulebookError(
                f"{where}: bands must start at 0, with rising differences and scores"
            )
        bands.append((int(start), hundredths))
        previous_start, previous_score = start, hundredths
    if not bands:
        raise RulebookError(f"tables.{name} is empty")
    return tuple(bands)


def _letters(reader: EraReader) -> Letters | None:
    if "letters" not in reader.values:
        return None
    raw_bands = reader.get("letters.bands")
    if not isinstance(raw_bands, list) or not raw_bands:
        raise reader.fail("letters.bands", "must be a list of [letter, lowest rating]")
    bands = []
    for band in raw_bands:
        if not (
            isinstance(band, list)
            and len(band) == 2
            and isinstance(band[0], str)
            and band[0]
            and isinstance(band[1], int)
            and not isinstance(band[1], bool)
        ):
            raise reader.fail("letters.bands", f'has {band!r}; write ["D", 1800]')
        bands.append((band[0], band[1]))
    lows = [low for _, low in bands]
    if lows != sorted(lows, reverse=True) or len(set(lows)) != len(lows) or lows[-1] != 0:
        raise reader.fail(
            "letters.bands", "must run from the highest band down to one starting at 0"
        )
    if len({letter for letter, _ in bands}) != len(bands):
        raise reader.fail("letters.bands", "names a letter twice")
    return Letters(
        enabled=reader.flag("letters.enabled"),
        bands=tuple(bands),
        definitive_after=reader.integer("letters.definitive_after", 1, 100),
        provisional_mark=reader.text("letters.provisional_mark"),
        held_counts=reader.choice("letters.held_counts", LETTER_HELD_COUNTS),
    )


def _entry_precedence(reader: EraReader) -> tuple[str, ...]:
    sources = reader.get("ratings.entry_precedence")
    if not isinstance(sources, list) or any(source not in ENTRY_SOURCES for source in sources):
        raise reader.fail("ratings.entry_precedence", f"must list some of {ENTRY_SOURCES}")
    if len(set(sources)) != len(sources):
        raise reader.fail("ratings.entry_precedence", "names a source twice")
    return tuple(sources)


def _era(reader: EraReader, tables: dict[str, Any], system: str) -> EloEra:
    order = tuple(reader.get("categories.order"))
    entry = reader.ratings("ratings.entry")
    theoretical = reader.ratings("ratings.theoretical")
    kind = reader.choice("categories.kind", CATEGORY_KINDS)
    thresholds = reader.ratings("categories.thresholds", allow_empty=kind == "letters")
    letters = _letters(reader)
    if (kind == "letters") != (letters is not None):
        raise reader.fail("letters", 'is needed exactly when categories.kind is "letters"')
    reader.categories_known(
        order,
        {
            "ratings.entry": entry,
            "ratings.theoretical": theoretical,
            "categories.thresholds": thresholds,
        },
    )
    unregistered = reader.text("ratings.unregistered_category")
    if unregistered not in theoretical:
        raise reader.fail("ratings.unregistered_category", "must have a theoretical rating")
    return EloEra(
        system=system,
        effective_from=reader.effective_from(),
        note=str(reader.values.get("note", "")),
        calendar=reader.calendar(),
        entry_ratings=entry,
        theoretical_ratings=theoretical,
        unregistered_category=unregistered,
        entry_precedence=_entry_precedence(reader),
        arbiter_raises_listed=reader.flag("ratings.arbiter_raises_listed"),
        ratings_snapshot=reader.choice("registry.ratings_snapshot", RATINGS_SNAPSHOTS),
        expected_bands=_expected_bands(tables, reader.text("expected.table"), reader),
        difference_cap=reader.integer("expected.difference_cap", 0, 3000),
        k=KSchedule(
            newcomer=reader.integer("k.newcomer", 0, 100),
            newcomer_below_games=reader.integer("k.newcomer_below_games", 0, 10_000),
            high=reader.integer("k.high", 0, 100),
            high_from_rating=reader.integer("k.high_from_rating", 0, 3500),
            default=reader.integer("k.default", 0, 100),
            registry_override=reader.flag("k.registry_override"),
            everyone_zero=reader.flag("k.everyone_zero"),
        ),
        groups_enabled=reader.flag("groups.enabled"),
        group_size=reader.integer("groups.size", 1, 100),
        group_min_k=reader.integer("groups.min_k", 0, 100),
        group_counts_tournaments_without_games=reader.flag(
            "groups.count_tournaments_without_games"
        ),
        rounding=reader.choice("rounding.mode", ROUNDING_MODES),
        fide_holders_leave_list=reader.flag("fide.holders_leave_list"),
        fide_minimum=reader.integer("fide.minimum", 1, 3000),
        activity_months=reader.integer("flags.activity_months", 1, 240),
        foreign_fide_tournaments=reader.flag("flags.foreign_fide_tournaments"),
        youth_age=reader.integer("flags.youth_age", 1, 100),
        youth_age_on=reader.choice("flags.youth_age_on", YOUTH_AGE_DAYS),
        category_order=order,
        category_thresholds=thresholds,
        categories_never_lowered=reader.flag("categories.never_lowered"),
        category_kind=kind,
        letters=letters,
        validity=Validity(
            min_players=reader.integer("validity.min_players", 0, 10_000),
            min_rounds=reader.integer("validity.min_rounds", 0, 1_000),
            all_members=reader.flag("validity.all_members"),
        ),
    )


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


def parse_rulebook(content: bytes, source: str = "<memory>") -> Rulebook:
    """Parse and check an FSI Elo rulebook; raises RulebookError naming the era and key."""
    parsed = parse_eras(
        content, source, lambda reader, tables, system: _era(reader, tables, system)
    )
    return Rulebook(
        system=parsed.system,
        title=parsed.title,
        eras=parsed.eras,
        content_hash=parsed.content_hash,
        source=source,
    )


RULES_DIR = Path(__file__).resolve().parents[1] / "data" / "rules"


def default_rulebook_path(system: str) -> Path:
    return RULES_DIR / f"{system}.toml"
