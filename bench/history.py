"""A national-scale synthetic history of FSI Elo Italia, written straight into a warehouse.

The benchmark measures recalculation, not parsing: tournaments, entries and one row per player
per round go directly into the warehouse tables, as an ingest would leave them, together with
one registry snapshot per year (1 January). Everything derives from one seed.

How the history is drawn (all vectorised with Polars; the only Python loops run over years,
rounds and tournaments, never over games):

- **Players** join and leave: a cohort is already registered in the first year, the others join
  uniformly later; each stays an exponential number of years. A hidden strength (juniors improve
  for a few years) drives results and, through its running maximum, the national category. A
  strength-biased share of the players holds a FIDE standard rating for part of their span (some
  gain it later, some lose it).
- **Tournaments**: a fixed number per year, 20-150 players, 5-9 rounds (larger ones tend to
  have more rounds), ending on a uniform day of the year, received 0-40 days later. The last
  year stops early enough that every receipt falls on or before 15 September: the lists fed run
  from 1 April of the first year to 1 October of the last.
- **Participants** come from the players active that year: a random subset of the pool, each
  player kept with their own activity probability, shuffled and cut into consecutive tournaments
  (one tournament never spans two shuffles, so nobody plays twice in one tournament).
- **Swiss rounds**: each round the players of a tournament are ranked by points with random
  ties and paired 1-2, 3-4, ...; with an odd count the lowest-scored player who has had the
  fewest byes gets a ``U`` bye (1 point, not played). Repeated pairings are not avoided. Colours
  are random; the result follows the Elo expected score of the hidden strengths (white +35) with
  a draw share peaking at equal strength; a few pairings are forfeits (``+``/``-``).

Random numbers come from a counter-based generator (splitmix64 over the row's keys, in Polars
UInt64 arithmetic), so a value depends only on the seed and on what it is for (player, year,
tournament, round...): stable whatever the order or chunking of the computation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl

from flows.warehouse import (
    STORAGE_CONFIG,
    apply_migrations,
    execute,
    fsync_file,
    insert_frame,
)
from synthetic.chess import FEMALE_NAMES, MALE_NAMES, SURNAMES

RUN_ID = "bench-history"
SYSTEM = "elo_italia"
PLACEHOLDER_SHA256 = "0" * 64

# Shape of the population (calibrated on the default size, see the module docstring).
MEAN_SPAN_YEARS = 6.0  # years a player stays, on average
JUNIOR_SHARE = 0.3
WOMEN_SHARE = 0.12
STRONG_SHARE = 0.03
MIN_ACTIVITY = 0.15  # chance of a player's being drawn into one shuffle of the year's pool
FIDE_LATER_SHARE = 0.4  # of FIDE holders: gain the rating after joining
FIDE_LOSE_SHARE = 0.15  # of FIDE holders: lose it later
FIDE_TYPE_FACTOR = 1.25  # FIDE-type players per registry-snapshot holder (some not yet/no more)
# Results.
WHITE_EDGE = 35.0
DRAW_PEAK = 0.43  # draw probability between equal strengths; 4E(1-E) times this otherwise
FORFEIT_RATE = 0.004
CLUB_SHARE = 0.25  # tournaments played one round a week

CATEGORY_FLOORS: tuple[tuple[str, int], ...] = (
    ("M", 2300),
    ("CM", 2000),
    ("1N", 1800),
    ("2N", 1600),
    ("3N", 1500),
    ("1S", 1420),
    ("2S", 1360),
)
CITIES: tuple[str, ...] = (
    "Roma", "Milano", "Napoli", "Torino", "Palermo", "Genova", "Bologna", "Firenze", "Bari",
    "Catania", "Venezia", "Verona", "Messina", "Padova", "Trieste", "Brescia", "Parma",
    "Taranto", "Prato", "Modena", "Reggio Emilia", "Perugia", "Livorno", "Ravenna", "Cagliari",
    "Foggia", "Rimini", "Salerno", "Ferrara", "Sassari", "Latina", "Monza", "Siracusa",
    "Pescara", "Bergamo", "Trento", "Vicenza", "Terni", "Bolzano", "Novara", "Ancona", "Udine",
)  # fmt: skip
EVENTS: tuple[str, ...] = (
    "Open", "Festival", "Torneo Sociale", "Memorial", "Campionato Provinciale", "Weekend",
)  # fmt: skip


@dataclass(frozen=True)
class HistorySize:
    """How much history to draw; the defaults are national scale."""

    players: int = 40_000
    first_year: int = 1998  # lists 1998-04-01 .. 2020-10-01: 23 years of quarterly periods
    last_year: int = 2020
    tournaments_per_year: int = 480
    min_players: int = 20
    max_players: int = 150
    min_rounds: int = 5
    max_rounds: int = 9
    fide_share: float = 0.3  # about this share of a registry snapshot holds a FIDE rating

    def __post_init__(self) -> None:
        if self.players < 2 or self.tournaments_per_year < 1:
            raise ValueError("need at least 2 players and 1 tournament a year")
        if self.last_year < self.first_year:
            raise ValueError("last_year is before first_year")
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError("need 2 <= min_players <= max_players")
        if not 1 <= self.min_rounds <= self.max_rounds:
            raise ValueError("need 1 <= min_rounds <= max_rounds")
        if not 0.0 <= self.fide_share <= 1.0:
            raise ValueError("fide_share is a share between 0 and 1")

    @property
    def years(self) -> range:
        return range(self.first_year, self.last_year + 1)


SMALL = HistorySize(players=2_000, last_year=2000, tournaments_per_year=40)


@dataclass(frozen=True)
class HistorySummary:
    players: int  # in the last registry snapshot
    tournaments: int
    games: int  # pairings played over the board, each counted once
    entries: int  # tournament_entry rows
    game_rows: int  # tournament_game rows (one per player per round)
    byes: int
    forfeits: int  # forfeited pairings, each counted once
    draw_share: float  # of the games played
    fide_share: float  # of the players in the last registry snapshot holding a FIDE rating
    registry_loads: int
    list_dates: int  # quarterly list dates fed by the receipts
    first_list: date
    last_list: date
    seconds: float

    def lines(self) -> list[str]:
        return [f"{name}: {value}" for name, value in asdict(self).items()]


# --- counter-based random numbers ------------------------------------------------------------

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB

Key = str | int  # a column of non-negative integers, or a constant


def _u64(value: int) -> pl.Expr:
    return pl.lit(value & _MASK, dtype=pl.UInt64)


_GOLDEN_LIT = _u64(_GOLDEN)
_ROUNDS = ((_u64(1 << 30), _u64(_MUL1)), (_u64(1 << 27), _u64(_MUL2)))
_SHIFT_LAST = _u64(1 << 31)
_SHIFT_FLOAT = _u64(1 << 11)


def _mix_int(x: int) -> int:
    """splitmix64's finaliser on a Python int."""
    x &= _MASK
    x = ((x ^ (x >> 30)) * _MUL1) & _MASK
    x = ((x ^ (x >> 27)) * _MUL2) & _MASK
    return x ^ (x >> 31)


class _Random:
    """Uniform and normal variates as pure functions of (seed, stream, keys).

    Computed eagerly, one small step at a time: a splitmix64 round refers to its input twice,
    so written as one nested expression its tree would double at every step.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def uniform(self, frame: pl.DataFrame, stream: int, *keys: Key) -> pl.Series:
        """One value in [0, 1) per row of ``frame``."""
        x = pl.col("x")
        start = _mix_int(_mix_int(self.seed) + stream * _GOLDEN)
        work = frame.select(
            *(pl.col(k).cast(pl.Int64).cast(pl.UInt64).alias(f"k{i}") for i, k in enumerate(keys)
              if isinstance(k, str)),
            x=pl.repeat(_u64(start), pl.len()),
        )  # fmt: skip
        for i, key in enumerate(keys):
            value = pl.col(f"k{i}") if isinstance(key, str) else _u64(key)
            work = work.with_columns(x=x + value * _GOLDEN_LIT)
            for shift, multiplier in _ROUNDS:
                work = work.with_columns(x=x.xor(x // shift) * multiplier)
            work = work.with_columns(x=x.xor(x // _SHIFT_LAST))
        return work.select((x // _SHIFT_FLOAT).cast(pl.Float64) * 2.0**-53).to_series()

    def normal(self, frame: pl.DataFrame, stream: int, *keys: Key) -> pl.Series:
        """One standard normal value per row (Box-Muller)."""
        radius = (-2.0 * (1.0 - self.uniform(frame, stream, *keys, 0)).log()).sqrt()
        return radius * (2.0 * math.pi * self.uniform(frame, stream, *keys, 1)).cos()

    def add(self, frame: pl.DataFrame, **draws: tuple[Key, ...]) -> pl.DataFrame:
        """Add uniform columns: ``name=(stream, key, ...)``."""
        return frame.with_columns(
            self.uniform(frame, stream, *keys).alias(name)
            for name, (stream, *keys) in draws.items()
        )

    def add_normal(self, frame: pl.DataFrame, **draws: tuple[Key, ...]) -> pl.DataFrame:
        """Add standard normal columns: ``name=(stream, key, ...)``."""
        return frame.with_columns(
            self.normal(frame, stream, *keys).alias(name) for name, (stream, *keys) in draws.items()
        )


def _between(uniform: str, low: int | pl.Expr, high: int | pl.Expr) -> pl.Expr:
    """A uniform integer in [low, high] from a uniform column."""
    low_expr = low if isinstance(low, pl.Expr) else pl.lit(low, pl.Int64)
    high_expr = high if isinstance(high, pl.Expr) else pl.lit(high, pl.Int64)
    span = (high_expr - low_expr + 1).cast(pl.Float64)
    return low_expr + (pl.col(uniform) * span).floor().cast(pl.Int64)


def _pick(names: tuple[str, ...], uniform: str) -> pl.Expr:
    """The name at a uniform draw of column ``uniform`` (null stays null)."""
    number = (pl.col(uniform) * len(names)).floor().cast(pl.Int64).clip(upper_bound=len(names) - 1)
    return pl.lit(pl.Series(names)).gather(number)


# One stream per purpose, so that no two draws share their numbers.
(
    S_SEX, S_SURNAME, S_GIVEN, S_SECOND, S_SECOND_GIVEN, S_COHORT, S_JOIN, S_SPAN, S_JUNIOR,
    S_AGE, S_BIRTH_DAY, S_STRONG, S_BASE, S_SLOPE, S_ACTIVITY, S_FIDE_SCORE, S_FIDE_LATER,
    S_FIDE_GAIN, S_FIDE_LOSE, S_FIDE_LOSE_YEAR, S_FIDE_NOISE, S_CATEGORY_NOISE, S_T_PLAYERS,
    S_T_ROUNDS, S_T_END, S_T_CLUB, S_T_LENGTH, S_T_RECEIPT, S_T_CITY, S_T_EVENT, S_DRAWN,
    S_SHUFFLE, S_SEEDING, S_PAIRING, S_COLOR, S_RESULT, S_FORFEIT,
) = range(1, 38)  # fmt: skip


# --- players and registry ----------------------------------------------------------------------


def _players(size: HistorySize, rnd: _Random) -> pl.DataFrame:
    """One row per player: identity and the parameters of their whole history."""
    n_years = len(size.years)
    cohort_share = 1.0 / (1.0 + (n_years - 1) / MEAN_SPAN_YEARS)
    players = pl.DataFrame({"idx": pl.int_range(size.players, eager=True, dtype=pl.Int64)})
    players = rnd.add(
        players,
        u_sex=(S_SEX, "idx"),
        u_surname=(S_SURNAME, "idx"),
        u_given=(S_GIVEN, "idx"),
        u_second=(S_SECOND, "idx"),
        u_second_given=(S_SECOND_GIVEN, "idx"),
        u_cohort=(S_COHORT, "idx"),
        u_join=(S_JOIN, "idx"),
        u_span=(S_SPAN, "idx"),
        u_junior=(S_JUNIOR, "idx"),
        u_age=(S_AGE, "idx"),
        u_birth_day=(S_BIRTH_DAY, "idx"),
        u_strong=(S_STRONG, "idx"),
        u_activity=(S_ACTIVITY, "idx"),
        u_fide_later=(S_FIDE_LATER, "idx"),
        u_fide_gain=(S_FIDE_GAIN, "idx"),
        u_fide_lose=(S_FIDE_LOSE, "idx"),
        u_fide_lose_year=(S_FIDE_LOSE_YEAR, "idx"),
    )
    players = rnd.add_normal(
        players,
        base_noise=(S_BASE, "idx"),
        slope_noise=(S_SLOPE, "idx"),
        fide_noise=(S_FIDE_SCORE, "idx"),
        category_noise=(S_CATEGORY_NOISE, "idx"),
    )
    junior = pl.col("junior")
    later_join = _between("u_join", min(size.first_year + 1, size.last_year), size.last_year)
    players = players.with_columns(
        player_id=(pl.col("idx") + 100_001).cast(pl.String),
        sex=pl.when(pl.col("u_sex") < WOMEN_SHARE).then(pl.lit("F")).otherwise(pl.lit("M")),
        join=pl.when(pl.col("u_cohort") < cohort_share)
        .then(pl.lit(size.first_year, pl.Int64))
        .otherwise(later_join),
        span=1 + (-MEAN_SPAN_YEARS * (1.0 - pl.col("u_span")).log()).floor().cast(pl.Int64),
        junior=pl.col("u_junior") < JUNIOR_SHARE,
        activity=MIN_ACTIVITY + (1.0 - MIN_ACTIVITY) * pl.col("u_activity"),
        # Zipf-like: a few surnames are very common.
        surname=pl.lit(pl.Series(SURNAMES)).gather(
            (pl.col("u_surname") ** 2 * len(SURNAMES)).floor().cast(pl.Int64)
        ),
    )
    players = players.with_columns(
        leave=pl.min_horizontal(pl.col("join") + pl.col("span") - 1, pl.lit(size.last_year)),
        age_at_join=pl.when(junior)
        .then(8.0 + 10.0 * pl.col("u_age"))
        .otherwise(18.0 + 55.0 * pl.col("u_age") ** 1.5),
        base=pl.when(junior)
        .then(1250.0 + 150.0 * pl.col("base_noise"))
        .when(pl.col("u_strong") < STRONG_SHARE)
        .then(2150.0 + 150.0 * pl.col("base_noise"))
        .otherwise(1550.0 + 220.0 * pl.col("base_noise")),
        slope=pl.when(junior)
        .then((70.0 + 30.0 * pl.col("slope_noise")).clip(lower_bound=0.0))
        .otherwise(8.0 * pl.col("slope_noise")),
        first=pl.when(pl.col("sex") == "F")
        .then(_pick(FEMALE_NAMES, "u_given"))
        .otherwise(_pick(MALE_NAMES, "u_given")),
        second=pl.when(pl.col("u_second") >= 0.25)
        .then(None)
        .when(pl.col("sex") == "F")
        .then(_pick(FEMALE_NAMES, "u_second_given"))
        .otherwise(_pick(MALE_NAMES, "u_second_given")),
    )
    # FIDE: the strongest at joining (with noise) hold a rating for part of their span.
    fide_types = round(size.players * min(1.0, size.fide_share * FIDE_TYPE_FACTOR))
    fide_gain = pl.col("join") + _between("u_fide_gain", 0, pl.col("leave") - pl.col("join"))
    players = players.with_columns(
        grow_years=pl.when(junior)
        .then((22.0 - pl.col("age_at_join")).ceil().cast(pl.Int64))
        .otherwise(10),
        birth_date=pl.date(pl.col("join"), 1, 1)
        - pl.duration(days=(pl.col("age_at_join") * 365.25).floor().cast(pl.Int64))
        - pl.duration(days=_between("u_birth_day", 0, 180)),
        fide_type=(pl.col("base") + 200.0 * pl.col("fide_noise"))
        .rank("ordinal", descending=True)
        .cast(pl.Int64)
        <= fide_types,
        fide_gain=pl.when(pl.col("u_fide_later") < FIDE_LATER_SHARE)
        .then(fide_gain)
        .otherwise(pl.col("join")),
        name=pl.when(pl.col("second").is_null() | (pl.col("second") == pl.col("first")))
        .then(pl.format("{}, {}", "surname", "first"))
        .otherwise(pl.format("{}, {} {}", "surname", "first", "second")),
    )
    lose_year = (
        pl.col("fide_gain")
        + 1
        + _between("u_fide_lose_year", 0, pl.col("leave") - pl.col("fide_gain") - 1)
    )
    players = players.with_columns(
        fide_lose=pl.when(
            (pl.col("u_fide_lose") < FIDE_LOSE_SHARE) & (pl.col("leave") > pl.col("fide_gain"))
        ).then(lose_year),
        fide_id=pl.when(pl.col("fide_type")).then(pl.col("idx") + 800_001),
        category_offset=40.0 * pl.col("category_noise"),
    )
    return players.select(
        "idx", "player_id", "name", "sex", "birth_date", "join", "leave", "activity", "base",
        "slope", "grow_years", "fide_type", "fide_gain", "fide_lose", "fide_id", "category_offset",
    )  # fmt: skip


def _strength(at: pl.Expr) -> pl.Expr:
    """Hidden strength in year ``at``: juniors grow for a few years, adults drift."""
    grown = pl.min_horizontal((at - pl.col("join")).clip(lower_bound=0), pl.col("grow_years"))
    return (pl.col("base") + pl.col("slope") * grown).clip(800.0, 2750.0)


def _fide_floor(year: pl.Expr) -> pl.Expr:
    """FIDE rating floor on 1 January of ``year`` (RULES 1.5: 1801, 1200 from 2009-07-01,
    1000 from 2012-07-01)."""
    return pl.when(year <= 2009).then(1801).when(year <= 2012).then(1200).otherwise(1000)


def _category(rating: pl.Expr) -> pl.Expr:
    expr = pl.when(rating >= CATEGORY_FLOORS[0][1]).then(pl.lit(CATEGORY_FLOORS[0][0]))
    for category, floor in CATEGORY_FLOORS[1:]:
        expr = expr.when(rating >= floor).then(pl.lit(category))
    return expr.otherwise(pl.lit("NC"))


def _snapshot(players: pl.DataFrame, year: int, rnd: _Random) -> pl.DataFrame:
    """Every player registered by 1 January of ``year``, as the registry has them then (a
    player who left keeps what they had in their last year), plus their strength then."""
    at = pl.col("at")
    snapshot = players.filter(pl.col("join") <= year).with_columns(
        at=pl.min_horizontal(pl.lit(year, pl.Int64), pl.col("leave"))
    )
    snapshot = rnd.add_normal(snapshot, fide_noise=(S_FIDE_NOISE, "idx", "at"))
    holds = (
        pl.col("fide_type")
        & (pl.col("fide_gain") <= at)
        & (pl.col("fide_lose").is_null() | (at < pl.col("fide_lose")))
    )
    fide_rating = (pl.col("strength") + 40.0 * pl.col("fide_noise")).round().cast(pl.Int64)
    return snapshot.with_columns(
        strength=_strength(at), first_strength=_strength(pl.col("join"))
    ).with_columns(
        fide_id=pl.when(pl.col("fide_type") & (pl.col("fide_gain") <= at)).then("fide_id"),
        fide_standard=pl.when(holds).then(pl.max_horizontal(fide_rating, _fide_floor(at))),
        category=_category(
            pl.max_horizontal("strength", "first_strength") + pl.col("category_offset")
        ),
        active=pl.col("leave") >= year,
    )


def _registry_rows(
    snapshot: pl.DataFrame, load_id: int, year: int
) -> tuple[pl.DataFrame, pl.DataFrame]:
    registry = snapshot.select(
        pl.lit(load_id).alias("load_id"),
        "player_id",
        "name",
        "sex",
        "birth_date",
        pl.lit("ITA").alias("country"),
        "fide_id",
        "fide_standard",
        "category",
    )
    memberships = (
        snapshot.select(
            pl.lit(load_id).alias("load_id"),
            "player_id",
            year=pl.int_ranges("join", pl.min_horizontal("leave", pl.lit(year)) + 1),
        )
        .explode("year")
        .drop_nulls("year")
    )
    return registry, memberships


# --- tournaments --------------------------------------------------------------------------------


def _tournaments(size: HistorySize, year: int, first_t: int, rnd: _Random) -> pl.DataFrame:
    """The tournaments ending in ``year``; ``t`` numbers them across the whole history."""
    last_receipt = date(size.last_year, 9, 15)
    first_end = date(year, 1, 1)
    last_end = min(date(year, 12, 31), last_receipt - timedelta(days=40))
    if last_end < first_end:
        raise ValueError(f"no room for tournaments in {year}: receipts must end by {last_receipt}")
    spread = (size.max_players - size.min_players) or 1
    frame = pl.DataFrame(
        {"t": pl.int_range(first_t, first_t + size.tournaments_per_year, eager=True)}
    )
    frame = rnd.add(
        frame,
        u_players=(S_T_PLAYERS, "t"),
        u_rounds=(S_T_ROUNDS, "t"),
        u_end=(S_T_END, "t"),
        u_club=(S_T_CLUB, "t"),
        u_length=(S_T_LENGTH, "t"),
        u_receipt=(S_T_RECEIPT, "t"),
        u_city=(S_T_CITY, "t"),
        u_event=(S_T_EVENT, "t"),
    )
    frame = frame.with_columns(
        number=pl.col("t") - first_t + 1,
        n=_between("u_players", size.min_players, size.max_players),
    ).with_columns(
        # Larger tournaments tend to have more rounds.
        rounds=(
            size.min_rounds
            + (
                (0.5 * pl.col("u_rounds") + 0.5 * (pl.col("n") - size.min_players) / spread)
                * (size.max_rounds - size.min_rounds + 1)
            )
            .floor()
            .cast(pl.Int64)
        ).clip(upper_bound=size.max_rounds),
        end_date=pl.lit(first_end)
        + pl.duration(days=_between("u_end", 0, (last_end - first_end).days)),
        city=_pick(CITIES, "u_city"),
        event=_pick(EVENTS, "u_event"),
    )
    days = (
        pl.when(pl.col("u_club") < CLUB_SHARE)
        .then(7 * (pl.col("rounds") - 1))
        .otherwise((pl.col("rounds") + 1) // 2 - 1 + _between("u_length", 0, 1))
    )
    number = pl.col("number").cast(pl.String).str.zfill(4)
    return frame.select(
        "t",
        "number",
        "n",
        "rounds",
        "end_date",
        "city",
        tournament_id=pl.format("BENCH-{}-{}", pl.lit(year), number),
        start_date=pl.col("end_date") - pl.duration(days=days),
        received_on=pl.col("end_date") + pl.duration(days=_between("u_receipt", 0, 40)),
        name=pl.format("{} {} {}", "event", "city", pl.lit(year)),
    )


def _shuffle(pool: pl.DataFrame, year: int, number: int, full: bool, rnd: _Random) -> pl.Series:
    """One shuffle of the year's pool: every player (``full``) or each with their activity."""
    if not full:
        pool = pool.filter(rnd.uniform(pool, S_DRAWN, year, number, "idx") < pool["activity"])
    order = rnd.uniform(pool, S_SHUFFLE, year, number, "idx")
    return pool.get_column("idx").gather(order.arg_sort())


def _entries(
    snapshot: pl.DataFrame, tournaments: pl.DataFrame, year: int, rnd: _Random
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Participants of the year's tournaments, with start numbers by strength (noisy).

    Returns the tournaments (sizes capped by the pool) and one row per participant.
    """
    pool = snapshot.filter(pl.col("active")).select("idx", "activity")
    tournaments = tournaments.with_columns(pl.col("n").clip(upper_bound=pool.height)).filter(
        pl.col("n") >= 2
    )
    parts: list[pl.Series] = []
    starts: list[int] = []
    total = used = capacity = start_of_part = 0
    shuffles = 0
    for n in tournaments.get_column("n").to_list():
        if used + n > capacity:  # a tournament never spans two shuffles
            part = _shuffle(pool, year, shuffles, False, rnd)
            shuffles += 1
            if part.len() < n:
                part = _shuffle(pool, year, shuffles, True, rnd)
                shuffles += 1
            parts.append(part)
            start_of_part, capacity, used = total, part.len(), 0
            total += capacity
        starts.append(start_of_part + used)
        used += n
    stream = pl.concat(parts) if parts else pl.Series("idx", [], dtype=pl.Int64)
    slots = (
        tournaments.select("t", "n", "rounds", start=pl.Series(starts, dtype=pl.Int64))
        .with_columns(slot=pl.int_ranges(0, "n"))
        .explode("slot")
    )
    slots = slots.select("t", "n", "rounds", idx=stream.gather(slots["start"] + slots["slot"]))
    entries = slots.join(snapshot, on="idx", how="left")
    entries = rnd.add_normal(entries, seeding=(S_SEEDING, "t", "idx"))
    seeding = pl.col("strength") + 100.0 * pl.col("seeding")
    entries = entries.with_columns(
        sn=seeding.rank("ordinal", descending=True).over("t").cast(pl.Int64)
    )
    return tournaments, entries


_WHITE_CODES = {2: "1", 1: "=", 0: "0"}
_BLACK_CODES = {2: "0", 1: "=", 0: "1"}


def _play(
    entries: pl.DataFrame, max_rounds: int, rnd: _Random
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Swiss rounds for all the tournaments of ``entries`` at once.

    Returns one row per player per round (scores in half points, ``score2``) and the entries'
    points in half points (``points2``).
    """
    state = entries.select(
        "t", "sn", "n", "rounds", "strength", points2=pl.lit(0, pl.Int64), byes=pl.lit(0, pl.Int64)
    )
    rows: list[pl.DataFrame] = []
    for r in range(1, max_rounds + 1):
        live = state.filter(pl.col("rounds") >= r)
        if live.height == 0:
            break
        live = rnd.add(live, draw=(S_PAIRING, "t", "sn", r))
        # With an odd count, the lowest scorer among those with the fewest byes sits out.
        bye_order = pl.col("byes") * 64 + pl.col("points2") + pl.col("draw")
        live = live.with_columns(
            bye=(pl.col("n") % 2 == 1) & (bye_order.rank("ordinal").over("t") == 1)
        )
        byes = live.filter("bye").select(
            "t",
            start_number="sn",
            opponent=pl.lit(None, pl.Int64),
            color=pl.lit(None, pl.String),
            result_code=pl.lit("U"),
            score2=pl.lit(2, pl.Int64),
            kind=pl.lit("bye"),
            played=pl.lit(False),
        )
        # The others by points, random within a score group, paired 1-2, 3-4, ...
        order = pl.col("draw") - pl.col("points2")
        paired = live.filter(~pl.col("bye")).with_columns(
            position=order.rank("ordinal").over("t").cast(pl.Int64) - 1
        )
        paired = paired.with_columns(pair=pl.col("position") // 2, side=pl.col("position") % 2)
        first = paired.filter(pl.col("side") == 0).select("t", "pair", a="sn", s_a="strength")
        second = paired.filter(pl.col("side") == 1).select("t", "pair", b="sn", s_b="strength")
        pairs = first.join(second, on=["t", "pair"])
        pairs = rnd.add(
            pairs,
            u_color=(S_COLOR, "t", "pair", r),
            u=(S_RESULT, "t", "pair", r),
            u_forfeit=(S_FORFEIT, "t", "pair", r),
        )
        a_white = pl.col("u_color") < 0.5
        pairs = pairs.with_columns(
            white=pl.when(a_white).then("a").otherwise("b"),
            black=pl.when(a_white).then("b").otherwise("a"),
            s_w=pl.when(a_white).then("s_a").otherwise("s_b"),
            s_b=pl.when(a_white).then("s_b").otherwise("s_a"),
            forfeit=pl.col("u_forfeit") < FORFEIT_RATE,
        ).with_columns(
            expected=1.0
            / (1.0 + pl.lit(10.0).pow((pl.col("s_b") - pl.col("s_w") - WHITE_EDGE) / 400.0))
        )
        u, expected = pl.col("u"), pl.col("expected")
        half_draw = DRAW_PEAK * 2.0 * expected * (1.0 - expected)
        forfeit = pl.col("forfeit")
        pairs = pairs.with_columns(
            white2=pl.when(forfeit)
            .then(pl.when(u < 0.5).then(2).otherwise(0))
            .when(u < expected - half_draw)
            .then(2)
            .when(u < expected + half_draw)
            .then(1)
            .otherwise(0)
            .cast(pl.Int64)
        )
        white_wins = pl.col("white2") == 2
        kind = pl.when(forfeit).then(pl.lit("forfeit")).otherwise(pl.lit("played"))
        white_rows = pairs.select(
            "t",
            start_number="white",
            opponent="black",
            color=pl.lit("w"),
            result_code=pl.when(forfeit)
            .then(pl.when(white_wins).then(pl.lit("+")).otherwise(pl.lit("-")))
            .otherwise(pl.col("white2").replace_strict(_WHITE_CODES, return_dtype=pl.String)),
            score2="white2",
            kind=kind,
            played=~forfeit,
        )
        black_rows = pairs.select(
            "t",
            start_number="black",
            opponent="white",
            color=pl.lit("b"),
            result_code=pl.when(forfeit)
            .then(pl.when(white_wins).then(pl.lit("-")).otherwise(pl.lit("+")))
            .otherwise(pl.col("white2").replace_strict(_BLACK_CODES, return_dtype=pl.String)),
            score2=2 - pl.col("white2"),
            kind=kind,
            played=~forfeit,
        )
        round_rows = pl.concat([white_rows, black_rows, byes]).with_columns(
            round=pl.lit(r, pl.Int64)
        )
        rows.append(round_rows)
        gained = round_rows.select(
            "t",
            sn="start_number",
            gained2="score2",
            got_bye=(pl.col("kind") == "bye").cast(pl.Int64),
        )
        state = (
            state.join(gained, on=["t", "sn"], how="left")
            .with_columns(
                points2=pl.col("points2") + pl.col("gained2").fill_null(0),
                byes=pl.col("byes") + pl.col("got_bye").fill_null(0),
            )
            .drop("gained2", "got_bye")
        )
    games = pl.concat(rows)
    return games, state.select("t", "sn", "points2")


# --- writing ---------------------------------------------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def list_date_for(received_on: date) -> date:
    """The Elo Italia list a receipt date feeds (cut-offs 15 Mar, 15 Jun, 15 Sep, 15 Dec)."""
    for cutoff_month, list_month in ((3, 4), (6, 7), (9, 10)):
        if (received_on.month, received_on.day) <= (cutoff_month, 15):
            return date(received_on.year, list_month, 1)
    if (received_on.month, received_on.day) <= (12, 15):
        return date(received_on.year + 1, 1, 1)
    return date(received_on.year + 1, 4, 1)


@dataclass
class _Tally:
    tournaments: int = 0
    games: int = 0
    draws: int = 0
    entries: int = 0
    game_rows: int = 0
    byes: int = 0
    forfeits: int = 0


def _write_year(
    con: duckdb.DuckDBPyConnection,
    tournaments: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    points: pl.DataFrame,
    seed: int,
    now: datetime,
    tally: _Tally,
) -> None:
    ids = tournaments.select("t", "tournament_id")
    played = games.filter(pl.col("played") & (pl.col("color") == "w"))
    played_games = played.group_by("t").agg(played_games=pl.len())
    version = tournaments.join(played_games, on="t", how="left").select(
        "tournament_id",
        version=pl.lit(1, pl.Int32),
        version_key=pl.Series(
            [_sha256(f"{RUN_ID}:{seed}:{tid}") for tid in tournaments["tournament_id"]]
        ),
        status=pl.lit("accepted"),
        system=pl.lit(SYSTEM),
        file_name=pl.col("tournament_id") + ".trf",
        file_sha256=pl.lit(PLACEHOLDER_SHA256),
        manifest_sha256=pl.lit(PLACEHOLDER_SHA256),
        manifest_line=pl.col("number").cast(pl.Int32),
        received_on="received_on",
        start_date="start_date",
        end_date="end_date",
        time_control=pl.lit("90+30"),
        name="name",
        city="city",
        federation=pl.lit("ITA"),
        rounds=pl.col("rounds").cast(pl.Int32),
        players=pl.col("n").cast(pl.Int32),
        played_games=pl.col("played_games").fill_null(0).cast(pl.Int32),
        format=pl.lit("bench"),
        encoding=pl.lit("utf-8"),
        is_team=pl.lit(False),
        run_id=pl.lit(RUN_ID),
        ingested_at=pl.lit(now),
    )
    entry = (
        entries.join(points, on=["t", "sn"], how="left")
        .join(ids, on="t", how="left")
        .with_columns(
            rank=(pl.col("sn") - pl.col("points2") * 10_000)
            .rank("ordinal")
            .over("t")
            .cast(pl.Int32)
        )
        .select(
            "tournament_id",
            version=pl.lit(1, pl.Int32),
            start_number=pl.col("sn").cast(pl.Int32),
            name="name",
            sex="sex",
            birth_date="birth_date",
            birth_year=pl.col("birth_date").dt.year().cast(pl.Int32),
            federation=pl.lit("ITA"),
            fide_id="fide_id",
            national_id="player_id",
            rating_in_file=pl.col("fide_standard").cast(pl.Int32),
            points=pl.col("points2").fill_null(0) / 2.0,
            rank="rank",
            player_id="player_id",
            match_method=pl.lit("national_id"),
        )
    )
    game = games.join(ids, on="t", how="left").select(
        "tournament_id",
        version=pl.lit(1, pl.Int32),
        start_number=pl.col("start_number").cast(pl.Int32),
        round=pl.col("round").cast(pl.Int32),
        opponent=pl.col("opponent").cast(pl.Int32),
        color="color",
        result_code="result_code",
        score=pl.col("score2") / 2.0,
        kind="kind",
        played="played",
    )
    insert_frame(con, "tournament_version", version)
    insert_frame(con, "tournament_entry", entry)
    insert_frame(con, "tournament_game", game)
    tally.tournaments += version.height
    tally.games += played.height
    tally.draws += played.filter(pl.col("result_code") == "=").height
    tally.entries += entry.height
    tally.game_rows += game.height
    tally.byes += games.filter(pl.col("kind") == "bye").height
    tally.forfeits += games.filter((pl.col("kind") == "forfeit") & (pl.col("color") == "w")).height


def write_history(
    warehouse: Path, size: HistorySize = HistorySize(), seed: int = 1998, *, replace: bool = False
) -> HistorySummary:
    """Draw the history and write it into a new warehouse file, a year at a time.

    Each year is drawn and committed on its own, so what the generator holds is one year's
    draw (plus DuckDB's buffers), not the whole history: drawn in one transaction, 16x the
    national federation (110M game rows) needed more than 23 GB. The file is written as
    ``<file>.partial`` and renamed into place only when complete, so an interrupted draw never
    leaves a file that looks finished. Refuses an existing file unless ``replace`` (then it is
    replaced once the new one is complete).
    """
    began = time.perf_counter()
    path = Path(warehouse)
    if path.exists() and not replace:
        raise FileExistsError(f"{path} exists; the benchmark history needs a new warehouse")
    partial = path.with_name(path.name + ".partial")
    _remove_with_wal(partial)  # left by a draw that was interrupted
    rnd = _Random(seed)
    now = datetime.now()
    players = _players(size, rnd)
    tally = _Tally()
    receipts: set[date] = set()
    last_snapshot = players.head(0)
    next_t = 0
    # A plain connection, not Warehouse.transaction(): that copies the whole file per write,
    # and nobody reads a history that is still being drawn.
    con = duckdb.connect(str(partial), config=STORAGE_CONFIG)
    try:
        with _committed(con):
            apply_migrations(con)
        for load_id, year in enumerate(size.years, start=1):
            with _committed(con):
                snapshot = _snapshot(players, year, rnd)
                registry, memberships = _registry_rows(snapshot, load_id, year)
                load = pl.DataFrame(
                    {
                        "load_id": [load_id],
                        "as_of": [date(year, 1, 1)],
                        "players_sha256": [_sha256(f"{RUN_ID}:{seed}:{year}:players")],
                        "memberships_sha256": [_sha256(f"{RUN_ID}:{seed}:{year}:memberships")],
                        "players": [registry.height],
                        "memberships": [memberships.height],
                        "run_id": [RUN_ID],
                        "loaded_at": [now],
                    }
                )
                insert_frame(con, "registry_load", load)
                insert_frame(con, "registry_player", registry)
                insert_frame(con, "registry_membership", memberships)

                tournaments = _tournaments(size, year, next_t, rnd)
                next_t += tournaments.height
                tournaments, entries = _entries(snapshot, tournaments, year, rnd)
                if tournaments.height:
                    games, points = _play(entries, size.max_rounds, rnd)
                    _write_year(con, tournaments, entries, games, points, seed, now, tally)
                    receipts.update(tournaments.get_column("received_on").unique().to_list())
                last_snapshot = snapshot
        lists = sorted({list_date_for(day) for day in receipts})
        counts = {
            "players": last_snapshot.height,
            "tournaments": tally.tournaments,
            "games": tally.games,
            "entries": tally.entries,
            "game_rows": tally.game_rows,
        }
        with _committed(con):
            # Keep the registry's load sequence ahead of the loads written here.
            execute(con, f"SELECT max(nextval('registry_load_seq')) FROM range({len(size.years)})")
            execute(
                con,
                "INSERT INTO run_record (run_id, flow, parameters, started_at, ended_at, status, "
                "counts, report) VALUES (?, ?, ?, ?, current_timestamp, 'succeeded', ?, ?)",
                [
                    RUN_ID,
                    "bench.history",
                    json.dumps({"seed": seed, **asdict(size)}),
                    now,
                    json.dumps(counts),
                    "synthetic benchmark history (bench/history.py); not real data",
                ],
            )
        execute(con, "CHECKPOINT")  # everything in the file, no log beside it
    except BaseException:
        con.close()
        _remove_with_wal(partial)
        raise
    con.close()
    fsync_file(partial)
    # a log left beside the file being replaced would be replayed into the new one
    _wal_of(path).unlink(missing_ok=True)
    partial.replace(path)
    holders = last_snapshot.filter(pl.col("fide_standard").is_not_null()).height
    return HistorySummary(
        players=last_snapshot.height,
        tournaments=tally.tournaments,
        games=tally.games,
        entries=tally.entries,
        game_rows=tally.game_rows,
        byes=tally.byes,
        forfeits=tally.forfeits,
        draw_share=round(tally.draws / tally.games, 4) if tally.games else 0.0,
        fide_share=round(holders / last_snapshot.height, 4) if last_snapshot.height else 0.0,
        registry_loads=len(size.years),
        list_dates=len(lists),
        first_list=lists[0] if lists else date(size.first_year, 4, 1),
        last_list=lists[-1] if lists else date(size.first_year, 4, 1),
        seconds=round(time.perf_counter() - began, 2),
    )


@contextmanager
def _committed(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction on ``con``: committed if the block returns, rolled back otherwise."""
    execute(con, "BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        with suppress(duckdb.Error):  # the block's own error is the one to report
            execute(con, "ROLLBACK")
        raise
    execute(con, "COMMIT")


def _wal_of(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _remove_with_wal(path: Path) -> None:
    for candidate in (path, _wal_of(path)):
        candidate.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.history",
        description="Write a synthetic FSI Elo Italia history into a new warehouse file.",
    )
    parser.add_argument("out", type=Path, help="the warehouse file to create (.duckdb)")
    parser.add_argument("--small", action="store_true", help="2,000 players, 3 years, 40 a year")
    parser.add_argument("--seed", type=int, default=1998)
    parser.add_argument("--replace", action="store_true", help="delete OUT first if it exists")
    args = parser.parse_args(argv)
    size = SMALL if args.small else HistorySize()
    try:
        summary = write_history(args.out, size, args.seed, replace=args.replace)
    except FileExistsError as error:
        print(f"error: {error} (use --replace)", file=sys.stderr)
        return 2
    for line in summary.lines():
        print(line)
    print(f"warehouse: {args.out} ({args.out.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
