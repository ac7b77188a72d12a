"""Random but realistic Elo Italia periods: hypothesis strategies and a plain seeded generator.

Both draw through a small ``Chooser`` so that one generator serves both: ``random_period(seed)``
gives periods without hypothesis, and ``periods()`` draws the same choices from hypothesis.
Players and tournaments are drawn as lists whose elements do not depend on each other (a
tournament names its participants by index modulo the number of players), so that hypothesis
can delete a player or a tournament and shrink a failure to a handful of rows; every other
choice shrinks towards the simple case (draws, no FIDE, no forfeit, no tie).

A period has 2-40 players of every kind the engine must handle (on the previous list, FIDE-rated
at the start and possibly not at the close, re-entering from FIDE, delisted by FIDE before the
period and carrying a ``fide_reentry_rating`` (some of them with an arbiter, entry or category
rating it must win over, some never playing), new with or without a registry category or
counted games, foreign with an arbiter rating, with a registry K) and 1-13 tournaments
(round-robins, double round-robins, Swiss-like partial pairings with forfeits and byes, end dates
that tie and start dates that do not follow them, missing dates, so that every column of a
tournament order decides something, ties for first place). "Regular" players join most
tournaments, so that many play more than 4 (the groups rule).

Eras: the real eras of both rulebooks and fixed variants of them (one per rulebook value the
computation reads), and random eras (``random_era``): a real era with, each drawn
independently, a random K schedule (registry lines anywhere, rating ladders, game thresholds),
rounding mode, tournament order, expected-score method, winner protection, arbiter entry,
difference cap and groups. ``eras()`` draws a random era most of the time (60-70 %).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Protocol, TypeVar

import polars as pl
from hypothesis import strategies as st

from transforms.elo.rulebook import (
    EXPECTED_METHODS,
    ROUNDING_MODES,
    EloEra,
    KRule,
    KSchedule,
    Rulebook,
    parse_rulebook,
)
from transforms.lists.eras import default_rulebook_path

T = TypeVar("T")

PLAYER_SCHEMA: dict[str, Any] = {
    "player_id": pl.Utf8,
    "list_rating": pl.Int32,
    "on_list_as_fide": pl.Boolean,
    "total_games": pl.Int32,
    "fide_start": pl.Int32,
    "fide_close": pl.Int32,
    "category": pl.Utf8,
    "k_override": pl.Int32,
    "arbiter_rating": pl.Int32,
    "entry_rating": pl.Int32,  # Elo Rapid: a newcomer's rating taken from another list
    "entry_basis": pl.Utf8,
    # delisted by FIDE at or before the period's start snapshot, not on the previous list: the
    # rating he re-entered at, set by the flow (null when not applicable)
    "fide_reentry_rating": pl.Int32,
}
ENTRY_SOURCES = ("fide_rapid", "fide_standard", "elo_italia")
ENTRY_SCHEMA: dict[str, Any] = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "points": pl.Float64,
    "start_date": pl.Date,
    "end_date": pl.Date,
}
GAME_SCHEMA: dict[str, Any] = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "opponent_id": pl.Utf8,
    "score": pl.Float64,
}

CATEGORIES = ("NC", "2S", "1S", "3N", "2N", "1N", "CM", "M")
K_OVERRIDES = (15, 10, 20, 19, 25, 30, 40)  # 19 and 20 straddle the groups' minimum K
# values on the edges of the rules (K from 2400, newcomers below 30 games, entry ratings, the
# FIDE minimums), drawn now and then so that off-by-one mistakes show up
EDGE_RATINGS = (2400, 2399, 1440, 1800, 1801, 2200, 1199, 1200)
EDGE_GAMES = (29, 30, 0, 31)
# the re-entry values of the FIDE minimums of every era (1801, 1200, 1000, 1400), whichever
# era is being computed: the player re-entered when he was delisted
REENTRY_RATINGS = (1199, 1800, 999, 1399)
PERIOD_END = date(2010, 3, 15)
MAX_INDEX = 39  # participants are named by an index modulo the number of players


# --------------------------------------------------------------------------- choosers


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int: ...

    def chance(self, percent: int) -> bool:
        """True with about ``percent`` % probability; False is the simple (shrunk) value."""
        ...

    def repeat(self, element: Callable[[Chooser], T], low: int, high: int) -> list[T]:
        """A list of ``low``..``high`` independent elements."""
        ...


class RandomChooser:
    def __init__(self, seed: int | random.Random) -> None:
        self.random = seed if isinstance(seed, random.Random) else random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)

    def chance(self, percent: int) -> bool:
        return self.random.randrange(100) < percent

    def repeat(self, element: Callable[[Chooser], T], low: int, high: int) -> list[T]:
        return [element(self) for _ in range(self.random.randint(low, high))]


class DrawChooser:
    """Choices drawn by hypothesis, so that each one shrinks towards ``low`` / False / []."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def repeat(self, element: Callable[[Chooser], T], low: int, high: int) -> list[T]:
        @st.composite
        def one(draw: Callable[[st.SearchStrategy[Any]], Any]) -> T:
            return element(DrawChooser(draw))

        # hypothesis keeps lists short; a drawn floor (shrinking to ``low``) lets the upper
        # range be reached often, while elements can still be deleted one by one
        floor = self.draw(st.integers(low, low + (high - low) // 4))
        return self.draw(st.lists(one(), min_size=floor, max_size=high))


# --------------------------------------------------------------------------- eras


def elo_italia_rulebook() -> Rulebook:
    path = default_rulebook_path("elo_italia")
    return parse_rulebook(path.read_bytes(), str(path))


def elo_rapid_rulebook() -> Rulebook:
    path = default_rulebook_path("elo_rapid")
    return parse_rulebook(path.read_bytes(), str(path))


class Named:
    """A value drawn by hypothesis, printed by name only in a failing example."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis' pretty-printer
        printer.text(repr(self))


class NamedEra(Named):
    """An era drawn by hypothesis."""

    def __init__(self, name: str, era: EloEra) -> None:
        super().__init__(name)
        self.era = era


def _schedule(*lines: tuple[str | None, int | None, int | None]) -> KSchedule:
    return KSchedule(rules=tuple(KRule(*line) for line in lines))


def _pick(choose: Chooser, values: tuple[T, ...] | list[T]) -> T:
    """One of ``values``; shrinks towards the first."""
    return values[choose.integer(0, len(values) - 1)]


# The K schedule of the brief's example: a ladder of rating bands
K_LADDER = _schedule(("rating_at_least", 2200, 10), ("rating_at_least", 1800, 20), (None, None, 25))
# A registry K that newcomers' K beats, and a line by rating below
K_REGISTRY_SECOND = _schedule(
    ("games_below", 30, 30), ("registry", None, None), ("rating_below", 1600, 40), (None, None, 15)
)
ORDERS: tuple[tuple[str, ...], ...] = (
    ("end_date", "start_date", "tournament_id"),  # the shipped order first
    ("start_date", "end_date", "tournament_id"),
    ("end_date", "tournament_id"),
    ("start_date", "tournament_id"),
    ("tournament_id",),
)


def era_choices() -> list[tuple[str, EloEra]]:
    """The real eras that change the computation, then fixed variants: of the 2009 era, one per
    rulebook value the computation reads, and a few mixed ones."""
    real = real_eras()
    base = real[0][1]
    old = real[2][1]  # 1998: groups, no cap
    rapid = real[5][1]

    def variant(era: EloEra, **changes: Any) -> EloEra:
        return dataclasses.replace(era, **changes)

    no_registry = _schedule(*((r.condition, r.threshold, r.k) for r in base.k.rules[1:]))
    synthetic = [
        ("2009 groups disabled", variant(base, groups_enabled=False)),
        ("2009 cap 0", variant(base, difference_cap=0)),
        ("2009 min_k 0", variant(base, group_min_k=0)),
        ("2009 cap 100, groups of 2", variant(base, difference_cap=100, group_size=2)),
        (
            "2009 groups of 2 counting tournaments without games",
            variant(base, group_size=2, group_counts_tournaments_without_games=True),
        ),
        ("2009 no registry K", variant(base, k=no_registry)),
        # one per value of issue 30
        ("2009 K ladder 2200:10 1800:20 else 25", variant(base, k=K_LADDER)),
        ("2009 K registry after newcomers", variant(base, k=K_REGISTRY_SECOND, group_min_k=0)),
        ("2009 half_even", variant(base, rounding="half_even")),
        ("2009 toward_zero", variant(base, rounding="toward_zero")),
        ("2009 order start, end, id", variant(base, tournament_order=ORDERS[1])),
        ("2009 order id, groups of 2", variant(base, tournament_order=ORDERS[4], group_size=2)),
        ("2009 average opponent", variant(base, expected_method="average_opponent")),
        ("1998 average opponent, no cap", variant(old, expected_method="average_opponent")),
        ("2009 logistic", variant(base, expected_method="logistic")),
        (
            "1998 logistic, no cap, half_even",
            variant(old, expected_method="logistic", rounding="half_even"),
        ),
        ("2009 no winner protection", variant(base, winner_protection=False)),
        ("2009 no arbiter entry", variant(base, arbiter_entry=False)),
        ("rapid 2009 with arbiter entry", variant(rapid, arbiter_entry=True)),
        (
            "rapid 2009 logistic, toward_zero, K ladder, order start",
            variant(
                rapid,
                expected_method="logistic",
                rounding="toward_zero",
                k=K_LADDER,
                tournament_order=ORDERS[3],
            ),
        ),
    ]
    return real + synthetic


def real_eras() -> list[tuple[str, EloEra]]:
    """The real eras of both rulebooks that change the computation (the 2009 one first)."""
    book = elo_italia_rulebook()
    rapid = elo_rapid_rulebook()
    return [
        ("2009-07-01 cap 400", book.era_at(date(2009, 7, 1))),
        ("1990-01-01 no cap, no groups", book.era_at(date(1990, 1, 1))),
        ("1998-06-01 groups, no cap", book.era_at(date(1998, 6, 1))),
        ("2006-04-01 cap 350", book.era_at(date(2006, 4, 1))),
        ("2021-01-01 K=0", book.era_at(date(2021, 1, 1))),
        ("rapid 2009-07-01 cap 400", rapid.era_at(date(2009, 7, 1))),
        ("rapid 1990-01-01 no cap", rapid.era_at(date(1990, 1, 1))),
    ]


ERAS = era_choices()
REAL_ERAS = real_eras()

# --------------------------------------------------------------------------- random eras

K_VALUES = (15, 10, 20, 19, 25, 30, 40, 0)  # 19 and 20 straddle the groups' minimum K
GAMES_THRESHOLDS = (30, 0, 1, 10, 29, 31, 60)
RATING_THRESHOLDS = (2400, 1440, 1460, 1600, 1800, 1801, 2000, 2200, 2399)
CAPS = (400, 0, 100, 200, 350)


def _rating_threshold(choose: Chooser) -> int:
    if choose.chance(70):
        return _pick(choose, RATING_THRESHOLDS)
    return choose.integer(1000, 2600)


def _k_line(choose: Chooser) -> KRule:
    """One conditional line of a K schedule (the registry's among them)."""
    condition = _pick(choose, ("games_below", "rating_at_least", "rating_below", "registry"))
    if condition == "registry":
        return KRule("registry", None, None)
    if condition == "games_below":
        return KRule(condition, _pick(choose, GAMES_THRESHOLDS), _pick(choose, K_VALUES))
    return KRule(condition, _rating_threshold(choose), _pick(choose, K_VALUES))


def random_k_schedule(choose: Chooser) -> KSchedule:
    """A K schedule as an analyst might write one: a rating ladder (at least / below), the
    shipped shape with other numbers, or any lines in any order (some never reached); a
    registry line anywhere half of the time; always a last line without condition."""
    style = choose.integer(0, 3)
    lines: list[KRule]
    if style == 0:  # the shipped shape, other numbers
        lines = [
            KRule("games_below", _pick(choose, GAMES_THRESHOLDS), _pick(choose, K_VALUES)),
            KRule("rating_at_least", _rating_threshold(choose), _pick(choose, K_VALUES)),
        ]
    elif style == 1:  # a ladder of rating_at_least lines, highest band first
        ratings = sorted({_rating_threshold(choose) for _ in range(choose.integer(1, 3))})
        lines = [KRule("rating_at_least", r, _pick(choose, K_VALUES)) for r in ratings[::-1]]
    elif style == 2:  # a ladder of rating_below lines, lowest band first
        ratings = sorted({_rating_threshold(choose) for _ in range(choose.integer(1, 3))})
        lines = [KRule("rating_below", r, _pick(choose, K_VALUES)) for r in ratings]
    else:
        lines = choose.repeat(_k_line, 0, 4)
    if choose.chance(50):
        lines.insert(choose.integer(0, len(lines)), KRule("registry", None, None))
    lines.append(KRule(None, None, _pick(choose, K_VALUES)))
    return KSchedule(rules=tuple(lines))


def describe_k(schedule: KSchedule) -> str:
    def line(rule: KRule) -> str:
        if rule.condition == "registry":
            return "registry"
        if rule.condition is None:
            return str(rule.k)
        sign = {"games_below": "games<", "rating_at_least": ">=", "rating_below": "<"}
        return f"{sign[rule.condition]}{rule.threshold}:{rule.k}"

    return "[" + ", ".join(line(rule) for rule in schedule.rules) + "]"


def random_era(choose: Chooser) -> NamedEra:
    """A real era with its values redrawn, each independently (each shrinks to the real one)."""
    name, era = _pick(choose, REAL_ERAS)
    changes: dict[str, Any] = {}
    notes = [name]
    if choose.chance(60):
        changes["k"] = random_k_schedule(choose)
        notes.append(f"K {describe_k(changes['k'])}")
    rounding = _pick(choose, ROUNDING_MODES)
    if rounding != era.rounding:
        changes["rounding"] = rounding
        notes.append(rounding)
    order = _pick(choose, ORDERS)
    if order != era.tournament_order:
        changes["tournament_order"] = order
        notes.append("order " + ",".join(order))
    method = _pick(choose, EXPECTED_METHODS)
    if method != era.expected_method:
        changes["expected_method"] = method
        notes.append(method)
    if choose.chance(35):
        changes["winner_protection"] = not era.winner_protection
        notes.append(f"winner protection {changes['winner_protection']}")
    if choose.chance(30):
        changes["arbiter_entry"] = not era.arbiter_entry
        notes.append(f"arbiter entry {changes['arbiter_entry']}")
    if choose.chance(25):
        changes["difference_cap"] = _pick(choose, CAPS)
        notes.append(f"cap {changes['difference_cap']}")
    if choose.chance(25):
        changes["groups_enabled"] = True
        changes["group_size"] = _pick(choose, (4, 2, 3))
        changes["group_min_k"] = _pick(choose, (20, 0, 25))
        changes["group_counts_tournaments_without_games"] = choose.chance(30)
        notes.append(
            f"groups of {changes['group_size']} from K {changes['group_min_k']}"
            + (" counting empty" if changes["group_counts_tournaments_without_games"] else "")
        )
    return NamedEra(" | ".join(notes), dataclasses.replace(era, **changes))


def random_eras(seed: int, count: int) -> list[NamedEra]:
    """``count`` random eras from a plain seed, without hypothesis."""
    choose = RandomChooser(random.Random(f"eras {seed}"))
    return [random_era(choose) for _ in range(count)]


@st.composite
def eras(draw: Callable[[st.SearchStrategy[Any]], Any]) -> NamedEra:
    """A random era about 70 % of the time, else one of the fixed ones (shrinks to these)."""
    choose = DrawChooser(draw)
    if choose.chance(70):
        return random_era(choose)
    name, era = ERAS[choose.integer(0, len(ERAS) - 1)]
    return NamedEra(name, era)


# --------------------------------------------------------------------------- periods


@dataclass(frozen=True)
class Shape:
    """What a generated period may contain."""

    min_players: int = 2
    max_players: int = 40
    max_tournaments: int = 13
    allow_fide: bool = True  # players FIDE-rated at the start
    same_k: int | None = None  # every player gets this registry K


DEFAULT_SHAPE = Shape()


class RandomPeriod:
    """The three input frames of one period."""

    def __init__(self, players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame) -> None:
        self.players = players
        self.entries = entries
        self.games = games

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        return self.players, self.entries, self.games

    def __repr__(self) -> str:
        """Every row, so that a shrunk failing example can be read (and pasted) in full."""

        def rows(frame: pl.DataFrame) -> str:
            return "".join(f"\n    {row}," for row in frame.iter_rows())

        return (
            f"RandomPeriod(\n  players {self.players.columns}:{rows(self.players)}"
            f"\n  entries {self.entries.columns}:{rows(self.entries)}"
            f"\n  games {self.games.columns}:{rows(self.games)}\n)"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis' pretty-printer
        printer.text(repr(self))


def _rating(choose: Chooser, low: int, high: int) -> int:
    if choose.chance(15):
        edges = [rating for rating in EDGE_RATINGS if low <= rating <= high]
        return edges[choose.integer(0, len(edges) - 1)]
    return choose.integer(low, high)


def _games(choose: Chooser) -> int:
    if choose.chance(15):
        return EDGE_GAMES[choose.integer(0, len(EDGE_GAMES) - 1)]
    return choose.integer(0, 200)


def _player(choose: Chooser, shape: Shape) -> dict[str, Any]:
    """One player's row (without id), whether he is a regular (joins most tournaments) and
    whether he is idle (joins none)."""
    row: dict[str, Any] = {
        "list_rating": None,
        "on_list_as_fide": False,
        "total_games": 0,
        "fide_start": None,
        "fide_close": None,
        "category": None,
        "k_override": None,
        "arbiter_rating": None,
        "entry_rating": None,
        "entry_basis": None,
        "fide_reentry_rating": None,
    }
    idle = False
    kinds = ["list", "new", "fide", "reentry", "foreign", "delisted"]
    if not shape.allow_fide:
        kinds.remove("fide")
    kind = kinds[choose.integer(0, len(kinds) - 1)]
    if kind == "list":
        row["list_rating"] = _rating(choose, 1000, 2600)
        row["total_games"] = _games(choose)
        row["category"] = CATEGORIES[choose.integer(0, len(CATEGORIES) - 1)]
        if choose.chance(10):  # a foreign player on the list, re-assigned by an arbiter
            row["arbiter_rating"] = choose.integer(1200, 2400)
            if choose.chance(25):  # re-assigned at exactly the rating held: no change
                row["arbiter_rating"] = row["list_rating"]
            row["category"] = None
    elif kind == "new":
        if choose.chance(70):
            row["category"] = CATEGORIES[choose.integer(0, len(CATEGORIES) - 1)]
        if choose.chance(50):  # Elo Rapid: enters with a rating from another list
            row["entry_rating"] = _rating(choose, 1000, 2600)
            row["entry_basis"] = ENTRY_SOURCES[choose.integer(0, len(ENTRY_SOURCES) - 1)]
        if choose.chance(30):  # no counted games known: null, read as 0
            row["total_games"] = None
    elif kind == "fide":
        row["fide_start"] = _rating(choose, 1000, 2700)
        row["on_list_as_fide"] = choose.chance(80)
        row["total_games"] = _games(choose)
        row["category"] = CATEGORIES[choose.integer(0, len(CATEGORIES) - 1)]
        if not choose.chance(20):  # 20 %: delisted by FIDE during the period
            row["fide_close"] = row["fide_start"] + choose.integer(-60, 60)
    elif kind == "reentry":
        row["on_list_as_fide"] = True
        row["total_games"] = _games(choose)
        row["category"] = CATEGORIES[choose.integer(0, len(CATEGORIES) - 1)]
        if choose.chance(15):  # the flow would not set both; the previous list wins
            row["fide_reentry_rating"] = _pick(choose, REENTRY_RATINGS)
    elif kind == "delisted":  # delisted by FIDE before the period, not on the previous list
        row["fide_reentry_rating"] = (
            _pick(choose, REENTRY_RATINGS) if choose.chance(60) else choose.integer(1000, 1800)
        )
        row["total_games"] = _games(choose) if choose.chance(70) else None
        if choose.chance(60):
            row["category"] = CATEGORIES[choose.integer(0, len(CATEGORIES) - 1)]
        if choose.chance(35):  # each of these would apply if the re-entry did not
            row["arbiter_rating"] = _rating(choose, 1200, 2400)
        if choose.chance(35):
            row["entry_rating"] = _rating(choose, 1000, 2600)
            row["entry_basis"] = ENTRY_SOURCES[choose.integer(0, len(ENTRY_SOURCES) - 1)]
        idle = choose.chance(40)  # re-enters whether or not he plays
    else:  # foreign, rated by the chief arbiter
        row["arbiter_rating"] = _rating(choose, 1200, 2400)
        if choose.chance(30):  # Elo Rapid without arbiter entry: enters from another list
            row["entry_rating"] = _rating(choose, 1000, 2600)
            row["entry_basis"] = ENTRY_SOURCES[choose.integer(0, len(ENTRY_SOURCES) - 1)]
    if kind != "fide" and choose.chance(10):  # gains a FIDE rating at the close
        row["fide_close"] = choose.integer(1000, 2400)
    if shape.same_k is not None:
        row["k_override"] = shape.same_k
    elif choose.chance(10):
        row["k_override"] = K_OVERRIDES[choose.integer(0, len(K_OVERRIDES) - 1)]
    row["_regular"] = choose.chance(30)
    row["_idle"] = idle
    return row


@dataclass(frozen=True)
class _Plan:
    """One tournament, drawn independently of the players (indices are taken modulo n)."""

    number: int
    joining: list[int]  # participants besides the regulars
    absent: list[int]  # regulars who skip this one
    style: int  # 0 round-robin, 1 double round-robin, 2 Swiss-like rounds
    rounds: int
    pairing_seed: int
    results: list[int]  # per pairing, index into RESULTS; missing = a draw
    forfeits: list[int]  # pairings that were not played (a point to one side)
    withdrawn: int | None  # entered, then left before playing
    tie_for_first: bool
    end_week: int
    start_back: int
    no_start: bool
    no_end: bool


def _plan(choose: Chooser) -> _Plan:
    def index(c: Chooser) -> int:
        return c.integer(0, MAX_INDEX)

    return _Plan(
        number=choose.integer(0, 99),
        joining=choose.repeat(index, 0, 16),
        absent=choose.repeat(index, 0, 4),
        style=choose.integer(0, 2),
        rounds=choose.integer(1, 7),
        pairing_seed=choose.integer(0, 2**16),
        results=choose.repeat(lambda c: c.integer(0, 2), 0, 120),
        forfeits=choose.repeat(lambda c: c.integer(0, 120), 0, 3),
        withdrawn=index(choose) if choose.chance(5) else None,
        tie_for_first=choose.chance(20),
        end_week=choose.integer(0, 4),
        # mostly short tournaments (ties on the end date, the start date decides), some long
        # ones that start before others that end earlier (end first and start first differ)
        start_back=choose.integer(0, 2) if not choose.chance(40) else choose.integer(3, 24),
        no_start=choose.chance(10),
        no_end=choose.chance(8),
    )


RESULTS = (0.5, 1.0, 0.0)  # the first is what results shrink to


def _tournament(
    plan: _Plan,
    tid: str,
    ids: list[str],
    regular: list[str],
    idle: set[str],
    entries: list[dict[str, Any]],
    games: list[dict[str, Any]],
) -> None:
    n = len(ids)
    absent = {ids[i % n] for i in plan.absent} | idle
    chosen = {pid for pid in regular if pid not in absent} | {ids[i % n] for i in plan.joining}
    participants = [pid for pid in ids if pid in chosen and pid not in idle]
    # at least two players: idle ones only when the others are not enough
    for pid in sorted(ids, key=lambda pid: pid in idle):
        if len(participants) >= 2:
            break
        if pid not in participants:
            participants.append(pid)
    points = dict.fromkeys(participants, 0.0)
    played: list[tuple[str, str, float]] = []
    forfeits = set(plan.forfeits)
    pairing_number = 0

    def pair(white: str, black: str) -> None:
        nonlocal pairing_number
        number, pairing_number = pairing_number, pairing_number + 1
        if number in forfeits:  # a point on the crosstable, no game
            points[white if number % 2 else black] += 1.0
            return
        result = RESULTS[plan.results[number]] if number < len(plan.results) else RESULTS[0]
        points[white] += result
        points[black] += 1.0 - result
        played.append((white, black, result))

    style = plan.style if len(participants) <= 12 else 2
    if style in (0, 1):  # round-robin, double when style 1 (small fields only)
        for cycle in range(1 + (style == 1 and len(participants) <= 6)):
            for i, white in enumerate(participants):
                for black in participants[i + 1 :]:
                    if cycle == 0:
                        pair(white, black)
                    else:
                        pair(black, white)
    else:  # Swiss-like rounds: partial pairings, a bye for the odd player
        shuffler = random.Random(plan.pairing_seed)
        for _ in range(plan.rounds):
            order = list(participants)
            shuffler.shuffle(order)
            if len(order) % 2:
                points[order.pop()] += 1.0 if shuffler.random() < 0.5 else 0.5
            for white, black in zip(order[::2], order[1::2], strict=True):
                pair(white, black)
    if plan.withdrawn is not None:  # in the crosstable, no game
        late = participants[plan.withdrawn % len(participants)]
        played = [game for game in played if late not in game[:2]]
        points[late] = 0.0
    if plan.tie_for_first and len(participants) > 2:
        ranked = sorted(points.values(), reverse=True)
        runner_up = next(pid for pid in participants if points[pid] == ranked[1])
        points[runner_up] = ranked[0]

    # end dates on few distinct days, so that ties are common; the start date and id decide
    end = PERIOD_END - timedelta(days=7 * plan.end_week)
    start = end - timedelta(days=plan.start_back)
    for pid in participants:
        entries.append(
            {
                "tournament_id": tid,
                "player_id": pid,
                "points": points[pid],
                "start_date": None if plan.no_start else start,
                "end_date": None if plan.no_end else end,
            }
        )
    for white, black, result in played:
        games.append(
            {"tournament_id": tid, "player_id": white, "opponent_id": black, "score": result}
        )
        games.append(
            {"tournament_id": tid, "player_id": black, "opponent_id": white, "score": 1 - result}
        )


def build_period(choose: Chooser, shape: Shape = DEFAULT_SHAPE) -> RandomPeriod:
    rows = choose.repeat(lambda c: _player(c, shape), max(2, shape.min_players), shape.max_players)
    ids = [f"P{number:03d}" for number in range(len(rows))]
    regular = [pid for pid, row in zip(ids, rows, strict=True) if row.pop("_regular")]
    idle = {pid for pid, row in zip(ids, rows, strict=True) if row.pop("_idle")}
    players = [{"player_id": pid, **row} for pid, row in zip(ids, rows, strict=True)]
    plans = choose.repeat(_plan, 1, shape.max_tournaments)
    entries: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    used: set[int] = set()
    for plan in plans:
        number = plan.number
        while number in used:  # distinct ids, in an order unrelated to the dates
            number = (number + 1) % 100
        used.add(number)
        _tournament(plan, f"T{number:02d}", ids, regular, idle, entries, games)
    return RandomPeriod(
        players=pl.DataFrame(players, schema=PLAYER_SCHEMA, orient="row"),
        entries=pl.DataFrame(entries, schema=ENTRY_SCHEMA, orient="row"),
        games=pl.DataFrame(games, schema=GAME_SCHEMA, orient="row"),
    )


def random_period(seed: int, shape: Shape = DEFAULT_SHAPE) -> RandomPeriod:
    """A period from a plain seed, without hypothesis."""
    return build_period(RandomChooser(seed), shape)


@st.composite
def periods(
    draw: Callable[[st.SearchStrategy[Any]], Any], shape: Shape = DEFAULT_SHAPE
) -> RandomPeriod:
    return build_period(DrawChooser(draw), shape)
