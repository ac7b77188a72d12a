"""A tournament's time control, read from its text, and the time per player it gives.

Pure: one short function over one string per tournament (no loop over games or players).

RULES.md §1.0 classifies a time control by the **time per player**: the base times of all its
stages plus 60 times the increment per move (FIDE's convention, a game of 60 moves), in
minutes. Counted here in whole seconds, so a range check is exact:

* every stage's base time counts, a first "moves/time" stage included (``40/120+30``: 120
  minutes for 40 moves, then the increment: 120 + 30 = 150 minutes);
* the increment is counted over the first 60 moves, stage by stage: one increment for the
  whole game (the written forms) is 60 times it; in the TRF-26 encoding, where each stage has
  its own, a stage for 40 moves counts 40 of its increments and the next stage the other 20;
  a last stage with a number of moves repeats (the PGN convention);
* a coloured control (TRF-26 ``W300-B240``) gives White's and Black's times.

Two readers, one per way of writing it:

:func:`read_encoded` reads the TRF-26 encoding of line 222 (``d[:d]`` or ``Wd[:d]-Bd[:d]``,
each ``d`` being ``S``, ``S+I``, ``M/S`` or ``M/S+I``: S seconds, I seconds per move, M moves),
e.g. ``5400+30``, ``40/6000+30:900+30``.

:func:`read_written` reads the forms arbiters write on line 122 (and in the manifest's
``time_control``), in English, Italian or with the usual marks:

* a time with a unit is a stage: ``90'``, ``90 min``, ``90 minuti``, ``2h``, ``2 ore``,
  ``1h30``, ``1:30`` (hours and minutes), ``1.5 h``; ``G/60`` and ``SD/30`` (game in,
  sudden death) are stages in minutes;
* seconds are the increment: ``30"``, ``30''``, ``30 s``, ``30 sec``, ``30 secondi``,
  with or without ``per move``, ``a mossa``, ``from move 1``;
* a number without unit is minutes, except after ``+`` (``90+30``, ``15+10``, ``40/120+30``,
  ``90'+30``), after ``inc``/``increment``/``bonus`` or before ``per move``, where it is the
  increment in seconds; after a comma or ``then`` it is a further stage (``40/120, 60``:
  120 minutes for 40 moves, then 60);
* moves: ``40/120`` (moves/minutes), ``90'/40`` and ``100'x40`` (time for moves),
  ``40 moves in 90 minutes``, ``90 min/40 moves``; of two numbers without unit around a
  slash the larger is the time (``90/40`` is 90 minutes for 40 moves);
* ``1:30`` is hours and minutes (a first number under 10), ``15:00`` minutes and seconds;
* words that only describe (``all moves in``, ``for the rest of the game``, ``per player``,
  ``rapid``, ``fine partita``...) are passed over.

Anything else makes the text unreadable (``None``), never half read: a word not listed, two
different increments, a stage of more than :data:`MOST_MINUTES_WITHOUT_UNIT` minutes written
without a unit (``5400+30`` is the TRF-26 encoding in seconds, not 90 hours), a delay
(``d5``), a template such as ``moves/time, increment``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "FIDE_GAME_MOVES",
    "Stage",
    "TimeControl",
    "describe_minutes",
    "read_encoded",
    "read_written",
]

# FIDE's convention: a time control is classified on a game of 60 moves (RULES.md §1.0)
FIDE_GAME_MOVES = 60
# a stage written without a unit above this many minutes is no stage an arbiter writes (the
# TRF-26 encoding counts seconds: "5400+30"); the text is not read rather than misread
MOST_MINUTES_WITHOUT_UNIT = 240


@dataclass(frozen=True)
class Stage:
    """One stage of a time control: a base time, for some moves or the rest of the game."""

    seconds: int
    moves: int | None  # None: the rest of the game
    increment: int  # seconds added per move during the stage


@dataclass(frozen=True)
class TimeControl:
    """A time control read: its stages (both players', or White's when ``black`` is set)."""

    stages: tuple[Stage, ...]
    black: tuple[Stage, ...] | None = None  # a coloured control: Black's stages

    @property
    def seconds_per_player(self) -> tuple[int, ...]:
        """The time per player in seconds (RULES.md §1.0): one value, or White's and Black's."""
        sides = (self.stages,) if self.black is None else (self.stages, self.black)
        return tuple(_seconds(stages) for stages in sides)

    def describe(self) -> str:
        """``120 minutes per player``, or ``5 minutes for White and 4 for Black``."""
        times = [describe_minutes(seconds) for seconds in self.seconds_per_player]
        if len(times) == 1:
            return f"{times[0]} minutes per player"
        return f"{times[0]} minutes for White and {times[1]} for Black"


def describe_minutes(seconds: int) -> str:
    """Seconds as minutes: ``120``, or ``90.5`` when not whole."""
    minutes = Fraction(seconds, 60)
    if minutes.denominator == 1:
        return str(minutes.numerator)
    return f"{float(minutes):.2f}".rstrip("0").rstrip(".")


def _seconds(stages: tuple[Stage, ...]) -> int:
    base = sum(stage.seconds for stage in stages)
    counted, increments = 0, 0
    for stage in stages:
        left = FIDE_GAME_MOVES - counted
        moves = left if stage.moves is None else min(stage.moves, left)
        increments += moves * stage.increment
        counted += moves
    # a last stage for a number of moves repeats (the PGN reading of "40/7200")
    increments += (FIDE_GAME_MOVES - counted) * stages[-1].increment
    return base + increments


# ------------------------------------------------------------------------ TRF-26 line 222

_PERIOD = re.compile(r"^(?:(\d{1,4})/)?(\d{1,6})(?:\+(\d{1,4}))?$")
_COLOURED = re.compile(r"^W(.+)-B(.+)$", re.IGNORECASE)


def read_encoded(text: str | None) -> TimeControl | None:
    """The TRF-26 encoded time control (line 222), or None when it is not in that form."""
    if not text or not text.strip():
        return None
    compact = text.strip()
    coloured = _COLOURED.match(compact)
    if coloured:
        white, black = _periods(coloured.group(1)), _periods(coloured.group(2))
        if white is None or black is None:
            return None
        return TimeControl(stages=white, black=black)
    stages = _periods(compact)
    return TimeControl(stages=stages) if stages else None


def _periods(text: str) -> tuple[Stage, ...] | None:
    stages = []
    for period in text.split(":"):
        found = _PERIOD.match(period.strip())
        if not found:
            return None
        moves, seconds, increment = found.groups()
        if moves is not None and int(moves) == 0:
            return None
        stages.append(
            Stage(
                seconds=int(seconds),
                moves=int(moves) if moves is not None else None,
                increment=int(increment or 0),
            )
        )
    if not stages or sum(stage.seconds for stage in stages) == 0:
        return None
    return tuple(stages)


# ------------------------------------------------------------------------ written forms

_HOURS = ("hours", "hour", "hrs", "hr", "h", "ore", "ora", "stunden", "stunde", "std", "heures")
_MINUTES = (
    "minutes", "minute", "minuti", "minuto", "minuten", "minutos", "mins", "min", "mn", "m",
)  # fmt: skip
_SECONDS = (
    "seconds", "second", "secondi", "secondo", "sekunden", "segundos", "secondes", "secs",
    "sec", "sek", "seg", "s",
)  # fmt: skip
_MOVES = ("moves", "move", "mosse", "mossa", "züge", "zuege", "zug", "coups", "coup", "jugadas")
_UNITS = {
    **dict.fromkeys(_HOURS, "hours"),
    **dict.fromkeys(_MINUTES, "minutes"),
    **dict.fromkeys(_SECONDS, "seconds"),
    **dict.fromkeys(_MOVES, "moves"),
    "'": "minutes",
    '"': "seconds",
}
_WORD_UNITS = "|".join(
    sorted((re.escape(unit) for unit in _UNITS if unit.isalpha()), key=len, reverse=True)
)
_LEXEME = re.compile(
    # a decimal only with its unit ("1.5 h", "1,5 ore"): "40/120,60" is two numbers
    rf"(?P<decimal>\d+[.,]\d+)\s*(?P<decimal_unit>(?:{_WORD_UNITS})(?![^\W\d_])|['\"])"
    rf"|(?P<clock>\d{{1,2}}:\d{{2}}(?::\d{{2}})?)(?!\d)"
    rf"|(?P<number>\d+)(?:\s*(?P<unit>(?:{_WORD_UNITS})(?![^\W\d_])|['\"]))?"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<symbol>\S)"
)
# phrases saying the increment runs from the first move, or is per move: the "1" of "from
# move 1" is no time, and "per move" marks the number before it as the increment
_FROM_MOVE_ONE = re.compile(
    r"\b(?:starting\s+)?from\s+(?:the\s+)?(?:move\s*(?:n[o.]?\s*)?1|first\s+move)\b"
    r"|\b(?:a\s+partire\s+)?dall?a\s+(?:prima\s+mossa|mossa\s*(?:n\.?\s*)?1)\b"
    r"|\bab\s+(?:dem\s+)?(?:ersten\s+zug|zug\s+1)\b"
)
_PER_MOVE = re.compile(
    r"\s*/\s*(?:move|mossa|zug|coup)\b"
    r"|\b(?:for\s+)?(?:per|each|a|ogni|pro|par)\s+(?:move|mossa|zug|coup)\b"
)
# words that only describe: passed over
_FILLERS = frozenset((
    "all", "in", "the", "for", "of", "rest", "game", "games", "to", "finish", "end", "per",
    "player", "players", "each", "a", "al", "alla", "le", "la", "il", "di", "del", "della",
    "tutte", "tutta", "partita", "fine", "giocatore", "giocatori", "testa", "rapid", "blitz",
    "standard", "classical", "classic", "rapido", "lampo", "semilampo", "normal", "lenta",
    "sudden", "death", "ko", "qpf", "quickplay", "quick", "play", "für", "fuer", "den",
    "partie", "je", "spieler", "pour", "reste", "de", "control", "controllo", "tempo",
    "riflessione", "cadenza", "rate",
))  # fmt: skip
# "time" is not among them: alone, it is the template word of "moves/time, increment"
_PLUS = frozenset({"+", "&", "plus", "and", "e", "più", "piu", "und", "et", "y", "with", "con"})
_THEN = frozenset({",", ";", "then", "poi", "dann", "puis", "followed", "by", "quindi"})
_INCREMENT = frozenset(
    {"inc", "incr", "increment", "increments", "incremento", "incrementi", "bonus", "fischer"}
)
_GAME_IN = frozenset({"g", "sd", "game", "gamein"})
_IGNORED_SYMBOLS = frozenset({"(", ")", "."})


@dataclass(frozen=True)
class _Item:
    # time, bare (a number without unit), seconds, moves, plus, then, slash, by (an "x"),
    # per_move, increment, game (G/, SD/)
    kind: str
    value: Fraction = Fraction(0)
    hours: bool = False  # a time written in hours ("1h30": the 30 is its minutes)


def _normalised(text: str) -> str:
    text = text.lower()
    for mark in "’‘´`′":
        text = text.replace(mark, "'")
    for mark in "″“”":
        text = text.replace(mark, '"')
    text = text.replace("''", '"').replace("×", "x")
    text = _FROM_MOVE_ONE.sub(" ", text)
    return _PER_MOVE.sub(" permove ", text)


def _items(text: str) -> list[_Item] | None:
    """The text as a list of items, or None at the first thing that is not understood."""
    items: list[_Item] = []
    for found in _LEXEME.finditer(_normalised(text)):
        kind = found.lastgroup
        if found.group("decimal"):
            value = Fraction(found.group("decimal").replace(",", "."))
            unit = _UNITS[found.group("decimal_unit")]
            if unit not in ("hours", "minutes"):
                return None
            minutes = value * 60 if unit == "hours" else value
            items.append(_Item("time", minutes, hours=unit == "hours"))
        elif found.group("clock"):
            parts = [int(part) for part in found.group("clock").split(":")]
            if len(parts) == 3 or parts[0] < 10:  # h:mm(:ss); "15:00" is minutes and seconds
                hours, minutes, seconds = [*parts, 0][:3]
                total = Fraction(hours * 60 + minutes) + Fraction(seconds, 60)
            else:
                total = Fraction(parts[0]) + Fraction(parts[1], 60)
            items.append(_Item("time", total))
        elif found.group("number"):
            value = Fraction(int(found.group("number")))
            unit = _UNITS.get(found.group("unit") or "")
            if unit == "hours":
                items.append(_Item("time", value * 60, hours=True))
            elif unit == "minutes":
                items.append(_Item("time", value))
            elif unit == "seconds":
                items.append(_Item("seconds", value))
            elif unit == "moves":
                items.append(_Item("moves", value))
            else:
                items.append(_Item("bare", value))
        elif kind == "word":
            word = found.group("word")
            if word == "permove":
                items.append(_Item("per_move"))
            elif word in _INCREMENT:
                items.append(_Item("increment"))
            elif word in _GAME_IN:
                items.append(_Item("game"))
            elif word == "x":
                items.append(_Item("by"))
            elif word in _PLUS:
                items.append(_Item("plus"))
            elif word in _THEN:
                items.append(_Item("then"))
            elif word in _MOVES or word in _FILLERS:
                continue  # "all moves in 90 minutes": moves without a number only describe
            else:
                return None
        else:
            symbol = found.group("symbol")
            if symbol == "/":
                items.append(_Item("slash"))
            elif symbol in _PLUS:
                items.append(_Item("plus"))
            elif symbol in _THEN:
                items.append(_Item("then"))
            elif symbol in _IGNORED_SYMBOLS:
                continue
            else:
                return None
    return items


def read_written(text: str | None) -> TimeControl | None:
    """A time control as arbiters write it (TRF line 122, the manifest), or None when the
    text cannot be read whole (see the module's grammar)."""
    if not text or not text.strip():
        return None
    items = _items(text)
    if not items:
        return None
    stages: list[tuple[Fraction, int | None]] = []  # (minutes, moves)
    increments: set[Fraction] = set()
    joined_by: str | None = "then"  # what joins the next item to the one before
    moves_ahead: int | None = None  # "40 moves in 90 minutes": the moves of the next stage
    index = 0

    def kind_at(position: int) -> str | None:
        return items[position].kind if 0 <= position < len(items) else None

    while index < len(items):
        item = items[index]
        step = 1
        if item.kind in ("plus", "then"):
            joined_by = item.kind
            index += 1
            continue
        if item.kind in ("time", "game"):
            if item.kind == "game":
                # G/60, SD/30, "game in 60": the number is the stage's minutes
                step = 2 if kind_at(index + 1) == "slash" else 1
                if kind_at(index + step) not in ("bare", "time"):
                    return None
                minutes = items[index + step].value
                step += 1
            else:
                minutes = item.value
                # "1h30": minutes written after the hours, without a joining word
                if (
                    item.hours
                    and kind_at(index + 1) in ("bare", "time")
                    and not items[index + 1].hours
                    and items[index + 1].value < 60
                    and kind_at(index + 2) not in ("slash", "by", "per_move", "moves")
                ):
                    minutes += items[index + 1].value
                    step = 2
            moves, moves_ahead = moves_ahead, None
            # "90'/40", "100'x40", "90 min/40 moves": the moves of this stage
            if kind_at(index + step) in ("slash", "by") and kind_at(index + step + 1) in (
                "bare",
                "moves",
            ):
                if moves is not None:
                    return None
                moves = int(items[index + step + 1].value)
                step += 2
            stages.append((minutes, moves))
        elif item.kind == "bare":
            after, then = kind_at(index + 1), kind_at(index + 2)
            if after in ("slash", "by") and then in ("bare", "time"):
                other = items[index + 2]
                if then == "bare" and item.value > other.value:
                    # 90/40: the larger number is the time (a stage has fewer moves than
                    # minutes)
                    minutes, moves_given = item.value, other.value
                else:
                    # 40/120, 40/2h, 40x90': moves, then their time
                    minutes, moves_given = other.value, item.value
                if then == "bare" and minutes > MOST_MINUTES_WITHOUT_UNIT:
                    return None
                stages.append((minutes, int(moves_given)))
                step = 3
            elif joined_by == "plus" or kind_at(index - 1) == "increment" or after == "per_move":
                if not stages and joined_by == "plus":
                    return None  # "+30" with nothing before it
                increments.add(item.value)
            else:
                if item.value > MOST_MINUTES_WITHOUT_UNIT:
                    return None
                stages.append((item.value, moves_ahead))
                moves_ahead = None
        elif item.kind == "seconds":
            increments.add(item.value)
        elif item.kind == "moves":
            if kind_at(index + 1) in ("time", "bare") and moves_ahead is None:
                moves_ahead = int(item.value)  # "40 moves in 90 minutes"
            elif stages and stages[-1][1] is None and joined_by is None:
                stages[-1] = (stages[-1][0], int(item.value))  # "90 minutes for 40 moves"
            else:
                return None
        elif item.kind not in ("per_move", "increment") and not (
            # "30'/fine partita": a slash before words that only describe
            item.kind == "slash" and kind_at(index + 1) in ("plus", "then", None)
        ):
            # a slash or an "x" between things that are not moves and time ("per move" and an
            # increment's word are read with the number beside them)
            return None
        joined_by = None
        index += step
    if not stages or moves_ahead is not None or len(increments) > 1:
        return None
    increment = next(iter(increments), Fraction(0))
    seconds = [minutes * 60 for minutes, _ in stages]
    if any(value.denominator != 1 for value in [*seconds, increment]) or sum(seconds) == 0:
        return None
    return TimeControl(
        stages=tuple(
            Stage(seconds=int(value), moves=moves, increment=int(increment))
            for value, (_, moves) in zip(seconds, stages, strict=True)
        )
    )
