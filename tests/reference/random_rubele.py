"""Random but realistic Elo-Rubele histories: hypothesis strategies and a plain seeded generator.

Same design as ``random_periods.py`` (and its ``Chooser``): ``random_history(seed)`` gives
histories without hypothesis, ``histories()`` draws the same choices from hypothesis. Players
and tournaments are lists of independent elements (a tournament names its participants by index
modulo the number of players), so that hypothesis can delete a player or a tournament and
shrink a failure to a handful of rows; every other choice shrinks towards the simple case
(draws, 100 % validity, every pairing counted, the base era).

A history has players entering at every kind of capital (below the 500 minimum, on and around
the thresholds 2000 / 3000 / 3900) and tournaments spread over the eras of the rulebooks (from
dama italiana's start on 1987-01-01, the later of the two variants', before and after the
minimum of 1994-01-16, before and after the Q term of 2022-01-01, the effective dates
themselves), valid at 100 % or 50 %, overlapping in time, often ending on the same day (the
start date, possibly missing, and the id decide), with round-robins and Swiss-like rounds where
some pairings do not count and some participants have no counted game. A few "regular" players
join most tournaments, so that players carry their capital through many tournaments and waves.
One player in three is known to have held a capital 300 above his own (a higher capital on an
earlier list), which the first-time rescaling reads (the default), and the pairings that do not
count are forfeits or withdrawals with a winner (the games carry their kind), so that the
rulebooks' non-default settings (``ALTERNATIVE_RULEBOOKS``) have something to act on.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import polars as pl
from hypothesis import strategies as st

from tests.reference.random_periods import Chooser, DrawChooser, Named, RandomChooser
from transforms.lists.eras import default_rulebook_path
from transforms.rubele.rulebook import RubeleRulebook, parse_rubele_rulebook

CAPITAL_SCHEMA: dict[str, Any] = {"player_id": pl.Utf8, "capital": pl.Int32}
# a generated history's capitals also say what each player is known to have reached
REACHED_CAPITAL_SCHEMA: dict[str, Any] = CAPITAL_SCHEMA | {"reached": pl.Int32}
TOURNAMENT_SCHEMA: dict[str, Any] = {
    "tournament_id": pl.Utf8,
    "start_date": pl.Date,
    "end_date": pl.Date,
    "validity": pl.Int32,
}
ENTRY_SCHEMA: dict[str, Any] = {"tournament_id": pl.Utf8, "player_id": pl.Utf8}
GAME_SCHEMA: dict[str, Any] = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "opponent_id": pl.Utf8,
    "points": pl.Float64,
}
# a generated history's games: every pairing with its kind (the rulebook picks the counted ones)
KIND_GAME_SCHEMA: dict[str, Any] = GAME_SCHEMA | {"kind": pl.Utf8}
REACHED_ABOVE = 300  # one player in three has held his capital + this before the history

# capitals on the edges of the rules, drawn now and then: the thresholds of both variants and
# their neighbours, the minimum, the hand-checked cases, the debutants' entry capitals
EDGE_CAPITALS = (
    3000,
    3900,
    2000,
    2999,
    3001,
    3899,
    3901,
    1999,
    2001,
    500,
    499,
    501,
    560,
    2950,
    1950,
    3100,
    1500,
    2200,
    1000,
    5200,
)
# end dates are epoch + 7 x week: the first shrinks to the base era; then one inside the era
# of the minimum and one inside that of Q; the others straddle the minimum (1994-01-16) and the
# Q term (2022-01-01) and land on the effective dates themselves, the last starts on dama
# italiana's first day (a tournament before a variant's start is refused: see
# test_reference.py)
EPOCHS = (
    date(1990, 3, 4),
    date(2010, 3, 7),
    date(2023, 3, 5),
    date(1993, 12, 19),
    date(2021, 12, 4),
    date(1987, 1, 1),
)
RESULTS = (0.5, 1.0, 0.0)  # the first is what results shrink to


# --------------------------------------------------------------------------- rulebooks


def rubele_rulebook(variant: str) -> RubeleRulebook:
    path = default_rulebook_path(f"rubele_{variant}")
    return parse_rubele_rulebook(path.read_bytes(), str(path))


def banded(rulebook: RubeleRulebook) -> RubeleRulebook:
    """The same rulebook with the example banded conversion table in every era."""
    bands = (
        (0, 0.5),
        (100, 0.53),
        (200, 0.56),
        (300, 0.58),
        (400, 0.61),
        (500, 0.64),
        (700, 0.69),
        (1000, 0.76),
        (1400, 0.84),
        (2000, 0.92),
        (3000, 0.98),
    )
    eras = tuple(
        dataclasses.replace(era, expected_mode="banded", expected_bands=bands)
        for era in rulebook.eras
    )
    return dataclasses.replace(rulebook, eras=eras, content_hash=rulebook.content_hash + "-banded")


def edited_rulebook(variant: str, edits: list[tuple[str, str]]) -> RubeleRulebook:
    """The shipped rulebook with text replacements (each must apply once), parsed: the edits go
    through the rulebook's own checks."""
    path = default_rulebook_path(f"rubele_{variant}")
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return parse_rubele_rulebook(text.encode(), f"{path.name} (edited)")


def era_change(variant: str, effective_from: str, tables: str) -> tuple[str, str]:
    """An edit adding TOML ``tables`` to the era starting on ``effective_from``, after its
    ``note`` line (a table header must come after the era's own keys)."""
    text = default_rulebook_path(f"rubele_{variant}").read_text(encoding="utf-8")
    start = text.index(f"effective_from = {effective_from}\n")
    note_end = text.index("\n", text.index("note = ", start)) + 1
    head = text[start:note_end]
    return head, head + tables


def alternative_rulebooks() -> list[tuple[str, RubeleRulebook]]:
    """Every non-default setting, switched on and off across eras, so that the era boundaries of
    the random histories cross them."""
    italiana = edited_rulebook(
        "italiana",
        [
            (
                'by = ["end_date", "start_date", "tournament_id"]',
                'by = ["start_date", "end_date", "tournament_id"]',
            ),
            ('upward = "first"', 'upward = "every"'),
            ("downward = false", "downward = true"),
            ('factor_stage = "before_rescaling"', 'factor_stage = "after_rescaling"'),
            ("difference_cap = 0 ", "difference_cap = 700 "),
            ("counted_for_loser = []", 'counted_for_loser = ["forfeit"]'),
            ('scale = "one"', 'scale = "fid"'),
            era_change(
                "italiana",
                "1994-01-16",
                '  [eras.rescaling]\n  upward = "first"\n  [eras.validity]\n  factor_on_q = true\n'
                '  [eras.points]\n  scale = "one"\n',
            ),
            era_change(
                "italiana",
                "2022-01-01",
                "  [eras.rescaling]\n  downward = false\n"
                '  [eras.games]\n  counted_for_loser = ["forfeit", "withdrawn"]\n'
                '  [eras.capital]\n  rounding = "half_down"\n',
            ),
        ],
    )
    internazionale = edited_rulebook(
        "internazionale",
        [
            (
                'by = ["end_date", "start_date", "tournament_id"]',
                'by = ["end_date", "tournament_id"]',
            ),
            ('upward = "first"', 'upward = "every"'),
            ("factor_on_q = false", "factor_on_q = true"),
            ("difference_cap = 0 ", "difference_cap = 400 "),
            ("counted_for_loser = []", 'counted_for_loser = ["withdrawn"]'),
            ('rounding = "half_up"', 'rounding = "half_down"'),
            era_change(
                "internazionale",
                "2022-01-01",
                '  [eras.rescaling]\n  downward = true\n  [eras.points]\n  scale = "fid"\n',
            ),
        ],
    )
    return [
        ("italiana alternative", italiana),
        ("internazionale alternative banded", banded(internazionale)),
    ]


def rulebook_choices() -> list[tuple[str, RubeleRulebook]]:
    italiana = rubele_rulebook("italiana")
    internazionale = rubele_rulebook("internazionale")
    return [
        ("italiana", italiana),
        ("internazionale", internazionale),
        ("italiana banded", banded(italiana)),
        ("internazionale banded", banded(internazionale)),
        *alternative_rulebooks(),
    ]


RULEBOOKS = rulebook_choices()


class NamedRulebook(Named):
    """A rulebook drawn by hypothesis."""

    def __init__(self, name: str, rulebook: RubeleRulebook) -> None:
        super().__init__(name)
        self.rulebook = rulebook


def rulebooks() -> st.SearchStrategy[NamedRulebook]:
    return st.sampled_from([NamedRulebook(name, book) for name, book in RULEBOOKS])


# --------------------------------------------------------------------------- histories


@dataclass(frozen=True)
class HistoryShape:
    """What a generated history may contain."""

    min_players: int = 2
    max_players: int = 30
    min_tournaments: int = 1
    max_tournaments: int = 12
    max_index: int = 39  # participants are named by an index modulo the number of players
    max_regulars: int = 6  # the first players drawn as regulars join most tournaments
    max_joining: int = 12  # participants drawn besides the regulars
    max_week: int = 5  # end dates are epoch + 7 x week


DEFAULT_SHAPE = HistoryShape()


class RandomHistory:
    """The four input frames of one run: ``capitals, tournaments, entries, games``."""

    def __init__(
        self,
        capitals: pl.DataFrame,
        tournaments: pl.DataFrame,
        entries: pl.DataFrame,
        games: pl.DataFrame,
    ) -> None:
        self.capitals = capitals
        self.tournaments = tournaments
        self.entries = entries
        self.games = games

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        return self.capitals, self.tournaments, self.entries, self.games

    def __iter__(self) -> Iterator[pl.DataFrame]:
        return iter(self.frames())

    def __repr__(self) -> str:
        """Every row, so that a shrunk failing example can be read (and pasted) in full."""

        def rows(frame: pl.DataFrame) -> str:
            return "".join(f"\n    {row}," for row in frame.iter_rows())

        parts = [
            f"\n  {name} {frame.columns}:{rows(frame)}"
            for name, frame in zip(
                ("capitals", "tournaments", "entries", "games"), self.frames(), strict=True
            )
        ]
        return f"RandomHistory({''.join(parts)}\n)"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis' pretty-printer
        printer.text(repr(self))


def _capital(choose: Chooser) -> int:
    if choose.chance(35):
        return EDGE_CAPITALS[choose.integer(0, len(EDGE_CAPITALS) - 1)]
    if choose.chance(10):  # near the minimum
        return choose.integer(200, 700)
    return choose.integer(200, 5500)


@dataclass(frozen=True)
class _Plan:
    """One tournament, drawn independently of the players (indices are taken modulo n)."""

    number: int
    joining: list[int]  # participants besides the regulars
    absent: list[int]  # regulars who skip this one
    swiss: bool  # Swiss-like rounds instead of a round-robin
    double: bool  # a double round-robin (small fields)
    rounds: int
    pairing_seed: int
    results: list[int]  # per pairing, index into RESULTS; missing = a draw
    dropped: list[int]  # pairings that do not count (forfeit, withdrawal): no game
    withdrawn: int | None  # a participant left before playing: no counted game
    streak: int | None  # the n-th weakest participant (by input capital) wins every game
    slump: int | None  # the n-th weakest participant loses every game (the minimum)
    half: bool  # valid at 50 %
    epoch: int
    week: int
    start_back: int
    no_start: bool


def _plan(choose: Chooser, shape: HistoryShape) -> _Plan:
    def index(c: Chooser) -> int:
        return c.integer(0, shape.max_index)

    return _Plan(
        number=choose.integer(0, max(99, 2 * shape.max_tournaments - 1)),
        joining=choose.repeat(index, 0, shape.max_joining),
        absent=choose.repeat(index, 0, 3),
        swiss=choose.chance(35),
        double=choose.chance(15),
        rounds=choose.integer(1, 11),
        pairing_seed=choose.integer(0, 2**16),
        results=choose.repeat(lambda c: c.integer(0, 2), 0, 60),
        dropped=choose.repeat(lambda c: c.integer(0, 60), 0, 3),
        withdrawn=index(choose) if choose.chance(8) else None,
        streak=choose.integer(0, 3) if choose.chance(15) else None,
        slump=choose.integer(0, 3) if choose.chance(15) else None,
        half=choose.chance(25),
        epoch=choose.integer(0, len(EPOCHS) - 1),
        week=choose.integer(0, shape.max_week),
        start_back=choose.integer(3, 30) if choose.chance(20) else choose.integer(0, 2),
        no_start=choose.chance(8),
    )


def _tournament(
    plan: _Plan,
    tid: str,
    ids: list[str],
    capitals: list[int],
    regulars: list[int],
    rows: dict[str, list[Any]],
) -> None:
    n = len(ids)
    absent = {i % n for i in plan.absent}
    chosen = {i for i in regulars if i not in absent} | {i % n for i in plan.joining}
    for i in range(n):  # at least two players
        if len(chosen) >= 2:
            break
        chosen.add(i)
    participants = [ids[i] for i in sorted(chosen)]

    played: list[tuple[str, str, float, str]] = []
    dropped = set(plan.dropped)
    pairing_number = 0

    weakest = sorted(sorted(chosen), key=lambda i: capitals[i])
    winner = None if plan.streak is None else ids[weakest[plan.streak % len(weakest)]]
    loser = None if plan.slump is None else ids[weakest[plan.slump % len(weakest)]]

    def pair(white: str, black: str) -> None:
        nonlocal pairing_number
        number, pairing_number = pairing_number, pairing_number + 1
        if number in dropped:  # not played: a forfeit or a withdrawal, won by either side
            kind = "forfeit" if number % 3 else "withdrawn"
            played.append((white, black, float((number + plan.pairing_seed) % 2), kind))
            return
        result = RESULTS[plan.results[number]] if number < len(plan.results) else RESULTS[0]
        if black == winner or white == loser:
            result = 0.0
        if white == winner or black == loser:
            result = 1.0
        played.append((white, black, result, "played"))

    if plan.swiss or len(participants) > 10:  # partial pairings, a bye for the odd player
        shuffler = random.Random(plan.pairing_seed)
        for _ in range(plan.rounds):
            order = list(participants)
            shuffler.shuffle(order)
            if len(order) % 2:
                order.pop()
            for white, black in zip(order[::2], order[1::2], strict=True):
                pair(white, black)
    else:  # round-robin, double for small fields
        for cycle in range(1 + (plan.double and len(participants) <= 7)):
            for i, white in enumerate(participants):
                for black in participants[i + 1 :]:
                    if cycle == 0:
                        pair(white, black)
                    else:
                        pair(black, white)
    if plan.withdrawn is not None:  # in the entries, no counted game
        late = participants[plan.withdrawn % len(participants)]
        played = [game for game in played if late not in game[:2]]

    end = EPOCHS[plan.epoch] + timedelta(days=7 * plan.week)
    start = end - timedelta(days=plan.start_back)
    rows["tournaments"].append(
        {
            "tournament_id": tid,
            "start_date": None if plan.no_start else start,
            "end_date": end,
            "validity": 50 if plan.half else 100,
        }
    )
    rows["entries"] += [{"tournament_id": tid, "player_id": pid} for pid in participants]
    for white, black, result, kind in played:
        rows["games"] += [
            {"tournament_id": tid, "player_id": white, "opponent_id": black, "points": result},
            {"tournament_id": tid, "player_id": black, "opponent_id": white, "points": 1 - result},
        ]
        rows["kinds"] += [kind, kind]


def build_history(choose: Chooser, shape: HistoryShape = DEFAULT_SHAPE) -> RandomHistory:
    players = choose.repeat(
        lambda c: (_capital(c), c.chance(30)), max(2, shape.min_players), shape.max_players
    )
    ids = [f"P{number:03d}" for number in range(len(players))]
    starting = [capital for capital, _ in players]
    regulars = [i for i, (_, regular) in enumerate(players) if regular][: shape.max_regulars]
    plans = choose.repeat(
        lambda c: _plan(c, shape), max(1, shape.min_tournaments), shape.max_tournaments
    )
    id_count = max(100, 2 * shape.max_tournaments, 2 * len(plans))
    width = len(str(id_count - 1))
    rows: dict[str, list[Any]] = {"tournaments": [], "entries": [], "games": [], "kinds": []}
    used: set[int] = set()
    for plan in plans:
        number = plan.number
        while number in used:  # distinct ids, in an order unrelated to the dates
            number = (number + 1) % id_count
        used.add(number)
        _tournament(plan, f"T{number:0{width}d}", ids, starting, regulars, rows)
    # derived from what was drawn, not drawn: the histories of a seed stay what they were
    capitals = [
        {
            "player_id": pid,
            "capital": capital,
            "reached": capital + REACHED_ABOVE if index % 3 == 0 else None,
        }
        for index, (pid, (capital, _)) in enumerate(zip(ids, players, strict=True))
    ]
    games = pl.DataFrame(rows["games"], schema=GAME_SCHEMA, orient="row").with_columns(
        pl.Series("kind", rows["kinds"], dtype=pl.Utf8)
    )
    return RandomHistory(
        capitals=pl.DataFrame(capitals, schema=REACHED_CAPITAL_SCHEMA, orient="row"),
        tournaments=pl.DataFrame(rows["tournaments"], schema=TOURNAMENT_SCHEMA, orient="row"),
        entries=pl.DataFrame(rows["entries"], schema=ENTRY_SCHEMA, orient="row"),
        games=games,
    )


def random_history(
    seed: int,
    players: int | None = None,
    tournaments: int | None = None,
    regulars: int | None = None,
) -> RandomHistory:
    """A history from a plain seed, without hypothesis.

    With ``players`` and ``tournaments`` it has exactly that many (for benchmarks: every player
    index can be drawn, end dates spread over more weeks); otherwise the default shape's sizes.
    ``regulars`` caps the players who join most tournaments (the default shape's 6 make the
    number of waves close to the number of tournaments; 0 gives few, shallow waves).
    """
    shape = DEFAULT_SHAPE
    if regulars is not None:
        shape = dataclasses.replace(shape, max_regulars=regulars)
    if players is not None:
        shape = dataclasses.replace(
            shape, min_players=players, max_players=players, max_index=max(0, players - 1)
        )
    if tournaments is not None:
        shape = dataclasses.replace(
            shape,
            min_tournaments=tournaments,
            max_tournaments=tournaments,
            max_week=max(DEFAULT_SHAPE.max_week, tournaments // 20),
        )
    return build_history(RandomChooser(seed), shape)


@st.composite
def histories(
    draw: Callable[[st.SearchStrategy[Any]], Any], shape: HistoryShape = DEFAULT_SHAPE
) -> RandomHistory:
    return build_history(DrawChooser(draw), shape)
