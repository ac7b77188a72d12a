"""The FSI Elo rulebook: every federation number of Elo Italia and Elo Rapid as versioned data,
in eras by effective date (read through :mod:`transforms.lists.eras`).

A list date is computed under the era in force on that date; the file's content hash is stored
with every list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from transforms.lists.eras import (
    YOUTH_AGE_DAYS,
    Calendar,
    EraReader,
    RulebookError,
    era_in_force,
    parse_eras,
)

ROUNDING_MODES = ("half_away_from_zero",)
RATINGS_SNAPSHOTS = ("period_start", "list_date")
# Where a newcomer's entry rating may come from, in a rulebook's order of precedence (Elo Rapid)
ENTRY_SOURCES = ("fide_rapid", "fide_standard", "elo_italia")
CATEGORY_KINDS = ("national", "letters")
# Which list dates count towards a provisional letter's "held at N list dates" (Elo Rapid):
# those where the rating is in the letter's band, or every list that shows the letter
LETTER_HELD_COUNTS = ("rating_in_band", "every_list")


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
