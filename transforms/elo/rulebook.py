"""The FSI Elo rulebook: every federation number of Elo Italia and Elo Rapid as versioned data,
in eras by effective date (read through :mod:`transforms.lists.eras`).

A list date is computed under the era in force on that date; the file's content hash is stored
with every list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from transforms.lists.eras import (
    YOUTH_AGE_DAYS,
    Calendar,
    EraReader,
    RulebookError,
    era_in_force,
    parse_eras,
)
from transforms.lists.periods import list_dates_between

# How the period sum (and a group's carried sum) becomes a whole number [DEFAULT the first]
ROUNDING_MODES = ("half_away_from_zero", "half_even", "toward_zero")
# How a player's expected points in a tournament are reckoned [DEFAULT "table"]: the FIDE table
# game by game; the table once at the difference from the average of the opponents (FIDE's
# older method); or the unrounded logistic 1 / (1 + 10^(-D/400)) game by game
EXPECTED_METHODS = ("table", "average_opponent", "logistic")
# The columns that order a player's tournaments within a period (§1.4), the id last
ORDER_COLUMNS = ("end_date", "start_date", "tournament_id")
# The conditions a line of the K schedule may have (none: the line always applies)
K_CONDITIONS = ("registry", "games_below", "rating_at_least", "rating_below")
RATINGS_SNAPSHOTS = ("period_start", "list_date")
# Where a newcomer's entry rating may come from, in a rulebook's order of precedence (Elo Rapid)
ENTRY_SOURCES = ("fide_rapid", "fide_standard", "elo_italia")
CATEGORY_KINDS = ("national", "letters")
# Which list dates count towards a provisional letter's "held at N list dates" (Elo Rapid):
# those where the rating is in the letter's band, or every list that shows the letter
LETTER_HELD_COUNTS = ("rating_in_band", "every_list")


@dataclass(frozen=True)
class KRule:
    """One line of the K schedule: when it applies, and the K it gives."""

    condition: str | None  # one of K_CONDITIONS; None: always
    threshold: int | None  # the games or the rating of the condition
    k: int | None  # None for "registry": the registry's own K

    def describe(self) -> str:
        """Where a K given by this line comes from, for the variation notes."""
        if self.condition == "registry":
            return "the registry's K"
        if self.condition == "games_below":
            return f"fewer than {self.threshold} counted games before the period"
        if self.condition == "rating_at_least":
            return f"rating {self.threshold} or more"
        if self.condition == "rating_below":
            return f"rating below {self.threshold}"
        return "the era's K"


@dataclass(frozen=True)
class KSchedule:
    """The K of a player for a period: the first line whose condition holds (the last line
    has none). Conditions read the frozen rating and the counted games before the period."""

    rules: tuple[KRule, ...]

    @property
    def registry_override(self) -> bool:
        """Whether a per-player K in the registry can win."""
        return any(rule.condition == "registry" for rule in self.rules)

    @property
    def everyone_zero(self) -> bool:
        """Whether every player's K is 0 (the federation stopped computing the list)."""
        return all(rule.k == 0 for rule in self.rules)


@dataclass(frozen=True)
class TimeControlRange:
    """The time per player a system rates (§1.0): base time plus 60 times the increment per
    move, in minutes; None: no upper bound."""

    min_minutes: int
    max_minutes: int | None

    def describe(self) -> str:
        if self.max_minutes is None:
            return f"at least {self.min_minutes} minutes per player"
        return f"{self.min_minutes} to {self.max_minutes} minutes per player"


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
    # the chief arbiter may give a foreign newcomer a rating of his choice (§1.2); where not
    # (Elo Rapid, §2) a delivered arbiter rating is no entry source, only a warning
    arbiter_entry: bool
    arbiter_range: tuple[int, int]  # the lowest and highest rating an arbiter may give
    country: str  # the federation's country code: its players are "national"
    time_control: TimeControlRange
    tournament_order: tuple[str, ...]  # ORDER_COLUMNS ordering a player's tournaments (§1.4)
    expected_method: str  # one of EXPECTED_METHODS
    winner_protection: bool  # a first place turns a negative variation into 0
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


@dataclass(frozen=True)
class Rulebook:
    system: str
    title: str
    eras: tuple[EloEra, ...]
    content_hash: str
    source: str

    def era_at(self, on: date) -> EloEra:
        return era_in_force(self.system, self.eras, on)

    def fide_reentry_rating(self, lost_on: date) -> int:
        """The rating a player re-enters at when a registry snapshot of ``lost_on`` shows him
        without the FIDE rating he had (§1.5): the FIDE minimum - 1 in force at the first list
        date that reads that snapshot (a snapshot older than the rulebook: its first era)."""
        calendar = self.eras[0].calendar
        list_date = list_dates_between(calendar, lost_on, lost_on + timedelta(days=400))[0]
        era = self.eras[0] if list_date < self.eras[0].effective_from else self.era_at(list_date)
        return era.fide_minimum - 1


def ingest_rules_difference(given: Rulebook, applied: Rulebook) -> str | None:
    """Where ``given`` sets other ingest rules (tournament size, time control, arbiter
    ratings) than ``applied``, the rulebook tournaments were checked against when they were
    ingested; None when nowhere.

    These rules decide at ingest which tournaments are quarantined and which arbiter ratings
    are kept, so a list or a replay computed under ``given`` could not apply different ones: it
    would rate what ``applied`` let through, while its rulebook claims otherwise."""
    # the days both rulebooks have an era for: a rulebook may start later than the other
    first = max(given.eras[0].effective_from, applied.eras[0].effective_from)
    boundaries = sorted({era.effective_from for era in (*given.eras, *applied.eras)} | {first})
    for day in (day for day in boundaries if day >= first):
        ours, theirs = given.era_at(day), applied.era_at(day)
        for ingest_rule in _INGEST_RULES:
            difference = ingest_rule(ours, theirs)
            if difference is not None:
                return f"from {day} {difference}"
    return None


def _size_difference(ours: EloEra, theirs: EloEra) -> str | None:
    mine, other = ours.validity, theirs.validity
    if (mine.min_players, mine.min_rounds) == (other.min_players, other.min_rounds):
        return None
    return (
        f"it asks {mine.min_players} players and {mine.min_rounds} rounds, "
        f"the ingest's rulebook {other.min_players} and {other.min_rounds}"
    )


def _time_control_difference(ours: EloEra, theirs: EloEra) -> str | None:
    if ours.time_control == theirs.time_control:
        return None
    return (
        f"it rates {ours.time_control.describe()}, "
        f"the ingest's rulebook {theirs.time_control.describe()}"
    )


def _arbiter_difference(ours: EloEra, theirs: EloEra) -> str | None:
    if (ours.arbiter_entry, ours.arbiter_range, ours.country) == (
        theirs.arbiter_entry,
        theirs.arbiter_range,
        theirs.country,
    ):
        return None
    return (
        "it takes arbiter ratings (entry, range or national federation) otherwise than the "
        "ingest's rulebook"
    )


_INGEST_RULES = (_size_difference, _time_control_difference, _arbiter_difference)


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


def _k_schedule(reader: EraReader) -> KSchedule:
    """``k.schedule``: a list of lines such as ``{ games_below = 30, k = 30 }``, ``{ registry =
    true }`` or ``{ k = 15 }``; the first whose condition holds gives the K."""
    key = "k.schedule"
    lines = reader.get(key)
    if not isinstance(lines, list) or not lines:
        raise reader.fail(key, "must be a list of lines such as { games_below = 30, k = 30 }")
    rules = []
    for index, line in enumerate(lines):
        where = f"{key}[{index}]"
        if not isinstance(line, dict):
            raise reader.fail(where, f"must be a table such as {{ k = 15 }}, not {line!r}")
        unknown = sorted(set(line) - {*K_CONDITIONS, "k"})
        conditions = [name for name in K_CONDITIONS if name in line]
        if unknown or len(conditions) > 1:
            raise reader.fail(
                where, f"takes k and at most one of {K_CONDITIONS}, not {sorted(line)}"
            )
        condition = conditions[0] if conditions else None
        if condition == "registry":
            if line["registry"] is not True or "k" in line:
                raise reader.fail(where, "is written { registry = true }: the registry gives K")
            rules.append(KRule("registry", None, None))
            continue
        k = line.get("k")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 100:
            raise reader.fail(where, f"needs k, a whole number from 0 to 100, not {k!r}")
        threshold = line.get(condition) if condition else None
        if condition and (
            isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0
        ):
            raise reader.fail(where, f"{condition} must be a whole number, not {threshold!r}")
        rules.append(KRule(condition, threshold, k))
    if rules[-1].condition is not None:
        raise reader.fail(key, "must end with a line without condition, such as { k = 15 }")
    if any(rule.condition is None for rule in rules[:-1]):
        raise reader.fail(
            key, "has a line without condition before its last: the lines after it never apply"
        )
    return KSchedule(rules=tuple(rules))


def _arbiter_range(reader: EraReader) -> tuple[int, int]:
    lowest = reader.integer("ratings.arbiter_lowest", 1, 3500)
    highest = reader.integer("ratings.arbiter_highest", 1, 3500)
    if highest < lowest:
        raise reader.fail("ratings.arbiter_highest", f"is below arbiter_lowest ({lowest})")
    return lowest, highest


def _time_control(reader: EraReader) -> TimeControlRange:
    lowest = reader.integer("time_control.min_minutes", 0, 10_000)
    highest = reader.integer("time_control.max_minutes", 0, 10_000)
    if highest and highest < lowest:
        raise reader.fail("time_control.max_minutes", f"is below min_minutes ({lowest})")
    return TimeControlRange(min_minutes=lowest, max_minutes=highest or None)


def _tournament_order(reader: EraReader) -> tuple[str, ...]:
    order = reader.get("order.by")
    if (
        not isinstance(order, list)
        or not order
        or any(column not in ORDER_COLUMNS for column in order)
        or len(set(order)) != len(order)
        or order[-1] != "tournament_id"
    ):
        raise reader.fail(
            "order.by", f"must list distinct columns of {ORDER_COLUMNS}, ending with tournament_id"
        )
    return tuple(order)


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
        arbiter_entry=reader.flag("ratings.arbiter_entry"),
        arbiter_range=_arbiter_range(reader),
        country=reader.text("federation.country"),
        time_control=_time_control(reader),
        tournament_order=_tournament_order(reader),
        expected_method=reader.choice("expected.method", EXPECTED_METHODS),
        winner_protection=reader.flag("winner_protection.enabled"),
        ratings_snapshot=reader.choice("registry.ratings_snapshot", RATINGS_SNAPSHOTS),
        expected_bands=_expected_bands(tables, reader.text("expected.table"), reader),
        difference_cap=reader.integer("expected.difference_cap", 0, 3000),
        k=_k_schedule(reader),
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
