"""Random but realistic Elo Italia periods: hypothesis strategies and a plain seeded generator.

Both draw through a small ``Chooser`` so that one generator serves both: hypothesis shrinks every
choice towards its simplest value (fewer players, fewer tournaments, draws, no FIDE, no
forfeits), and ``random_period(seed)`` gives the same kind of periods without hypothesis.

A period has 2-40 players of every kind the engine must handle (on the previous list, FIDE-rated
at the start and possibly not at the close, re-entering from FIDE, new with or without a
registry category, foreign with an arbiter rating, with a registry K) and 1-13 tournaments
(round-robins, double round-robins, Swiss-like partial pairings with forfeits and byes, end dates
that tie so the start date and the id decide the order, ties for first place).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Protocol

import polars as pl
from hypothesis import strategies as st

from transforms.rulebook import EloEra, Rulebook, default_rulebook_path, parse_rulebook

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
}
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
# old FIDE minimum), drawn now and then so that off-by-one mistakes show up
EDGE_RATINGS = (2400, 2399, 1440, 1800, 1801, 2200, 1199, 1200)
EDGE_GAMES = (29, 30, 0, 31)
PERIOD_END = date(2010, 3, 15)


# --------------------------------------------------------------------------- choosers


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int: ...

    def chance(self, percent: int) -> bool:
        """True with about ``percent`` % probability; False is the simple (shrunk) value."""
        ...


class RandomChooser:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)

    def chance(self, percent: int) -> bool:
        return self.random.randrange(100) < percent


class DrawChooser:
    """Choices drawn by hypothesis, so that each one shrinks towards ``low`` / False."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - percent


# --------------------------------------------------------------------------- eras


def elo_italia_rulebook() -> Rulebook:
    path = default_rulebook_path("elo_italia")
    return parse_rulebook(path.read_bytes(), str(path))


def era_choices() -> list[tuple[str, EloEra]]:
    """The real eras that change the computation, then synthetic variants of the 2009 era."""
    book = elo_italia_rulebook()
    real = [
        ("2009-07-01 cap 400", book.era_at(date(2009, 7, 1))),
        ("1990-01-01 no cap, no groups", book.era_at(date(1990, 1, 1))),
        ("1998-06-01 groups, no cap", book.era_at(date(1998, 6, 1))),
        ("2006-04-01 cap 350", book.era_at(date(2006, 4, 1))),
        ("2021-01-01 K=0", book.era_at(date(2021, 1, 1))),
    ]
    base = real[0][1]
    synthetic = [
        ("2009 groups disabled", dataclasses.replace(base, groups_enabled=False)),
        ("2009 cap 0", dataclasses.replace(base, difference_cap=0)),
        ("2009 min_k 0", dataclasses.replace(base, group_min_k=0)),
        ("2009 cap 100, groups of 2", dataclasses.replace(base, difference_cap=100, group_size=2)),
        (
            "2009 no registry K",
            dataclasses.replace(base, k=dataclasses.replace(base.k, registry_override=False)),
        ),
    ]
    return real + synthetic


ERAS = era_choices()


def eras() -> st.SearchStrategy[tuple[str, EloEra]]:
    return st.sampled_from(ERAS)


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


@dataclass(frozen=True)
class RandomPeriod:
    players: pl.DataFrame
    entries: pl.DataFrame
    games: pl.DataFrame

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


def _rating(choose: Chooser, low: int, high: int) -> int:
    if choose.chance(15):
        edges = [rating for rating in EDGE_RATINGS if low <= rating <= high]
        return edges[choose.integer(0, len(edges) - 1)]
    return choose.integer(low, high)


def _games(choose: Chooser) -> int:
    if choose.chance(15):
        return EDGE_GAMES[choose.integer(0, len(EDGE_GAMES) - 1)]
    return choose.integer(0, 200)


def _player(choose: Chooser, pid: str, shape: Shape) -> dict[str, Any]:
    row: dict[str, Any] = {
        "player_id": pid,
        "list_rating": None,
        "on_list_as_fide": False,
        "total_games": 0,
        "fide_start": None,
        "fide_close": None,
        "category": None,
        "k_override": None,
        "arbiter_rating": None,
    }
    kinds = ["list", "new", "fide", "reentry", "foreign"]
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
    else:  # foreign, rated by the chief arbiter
        row["arbiter_rating"] = _rating(choose, 1200, 2400)
    if kind != "fide" and choose.chance(10):  # gains a FIDE rating at the close
        row["fide_close"] = choose.integer(1000, 2400)
    if shape.same_k is not None:
        row["k_override"] = shape.same_k
    elif choose.chance(10):
        row["k_override"] = K_OVERRIDES[choose.integer(0, len(K_OVERRIDES) - 1)]
    return row


def _shuffled(choose: Chooser, items: list[Any]) -> list[Any]:
    items = list(items)
    for index in range(len(items) - 1, 0, -1):
        other = choose.integer(0, index)
        items[index], items[other] = items[other], items[index]
    return items


RESULTS = (0.5, 1.0, 0.0)  # the first is what results shrink to


def _tournament(
    choose: Chooser,
    tid: str,
    pool: list[str],
    regular: set[str],
    entries: list[dict[str, Any]],
    games: list[dict[str, Any]],
) -> None:
    # participants: regulars join most tournaments (the groups rule), the others a few
    participants = [pid for pid in pool if choose.chance(85 if pid in regular else 30)]
    for pid in pool:
        if len(participants) >= 2:
            break
        if pid not in participants:
            participants.append(pid)
    points = dict.fromkeys(participants, 0.0)
    played: list[tuple[str, str, float]] = []

    def pair(white: str, black: str) -> None:
        if choose.chance(5):  # forfeit: a point on the crosstable, no game
            points[white if choose.chance(50) else black] += 1.0
            return
        result = RESULTS[choose.integer(0, 2)]
        points[white] += result
        points[black] += 1.0 - result
        played.append((white, black, result))

    style = choose.integer(0, 2) if len(participants) <= 12 else 2
    if style in (0, 1):  # round-robin, double when style 1
        for cycle in range(1 + (style == 1 and len(participants) <= 6)):
            for i, white in enumerate(participants):
                for black in participants[i + 1 :]:
                    if cycle == 0:
                        pair(white, black)
                    else:
                        pair(black, white)
    else:  # Swiss-like rounds: partial pairings, a bye for the odd player
        for _ in range(choose.integer(1, 7)):
            order = _shuffled(choose, participants)
            if len(order) % 2:
                points[order.pop()] += 1.0 if choose.chance(50) else 0.5
            for white, black in zip(order[::2], order[1::2], strict=True):
                pair(white, black)
    if choose.chance(5):  # withdrew before the first round: in the crosstable, no game
        late = participants[choose.integer(0, len(participants) - 1)]
        played = [game for game in played if late not in game[:2]]
        points[late] = 0.0
    if choose.chance(20) and len(participants) > 2:  # a tie for first place
        ranked = sorted(points.values(), reverse=True)
        runner_up = next(pid for pid in participants if points[pid] == ranked[1])
        points[runner_up] = ranked[0]

    # end dates on few distinct days, so that ties are common; the start date and id decide
    end: date | None = PERIOD_END - timedelta(days=7 * choose.integer(0, 4))
    start: date | None = end - timedelta(days=choose.integer(0, 2)) if end else None
    if choose.chance(4):
        start = None
    if choose.chance(3):
        end = None
    for pid in participants:
        entries.append(
            {
                "tournament_id": tid,
                "player_id": pid,
                "points": points[pid],
                "start_date": start,
                "end_date": end,
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
    n_players = choose.integer(shape.min_players, shape.max_players)
    ids = [f"P{number:03d}" for number in _shuffled(choose, list(range(n_players)))]
    players = [_player(choose, pid, shape) for pid in ids]
    regular = {pid for pid in ids if choose.chance(30)}
    n_tournaments = choose.integer(1, shape.max_tournaments)
    numbers = _shuffled(choose, list(range(1, n_tournaments + 1)))  # id order != date order
    entries: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    for number in numbers:
        _tournament(choose, f"T{number:02d}", ids, regular, entries, games)
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
