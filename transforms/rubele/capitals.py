"""The FID Elo-Rubele capital update (RULES.md §3), vectorised by waves of tournaments.

The capital changes after every tournament, so tournaments are sequential; but two tournaments
without a common player do not affect each other. Tournaments are put in **waves**: a
tournament's wave is one more than the latest wave of any of its players' previous
tournaments (in the rulebook's order, ``order.by``), so no player appears twice in a wave and
each player's tournaments keep their order. A whole wave is one set of Polars operations.

Per participant p of tournament t, over his counted games (RULES.md §3; every choice below
marked "era" is a key of the era's rulebook):
``PA = Σ PA(n)`` (d capped at ``expected.difference_cap`` when it has one; each PA(n) taken to
12 decimals, as whole pico-points, so that the sum is exact and does not depend on the order of
the games), ``D = (PO − PA) × w`` (w = 1 on the 1 / ½ / 0 points scale, 2 on the FID's 2 / 1 / 0:
``points.scale``), ``V = S × D × f`` (f the validity factor; 1 here when the era applies it after
the rescaling), ``X = CI + V``, the upward threshold rescaling
``X = T + (X − T) × S_new / S_old`` at each threshold crossed (every time, or only the first time
the player passes it: ``rescaling.upward``), the downward one ``X = T − (T − X) × S_new / S_old``
when the era has it, ``X = CI + (X − CI) × f`` when the factor comes after the rescaling, then
``+ Q`` (× f when the era says so), the minimum, and only then the rounding of the final capital
to the nearest whole number (an exact half up, or down: ``capital.rounding``; with a tolerance
of 1e-9 so that binary arithmetic on a decimal conversion table cannot move an exact half).

"Reached" is the highest capital the player is known to have held: the capitals' optional
``reached`` column (what lists before the run tell: their capitals, the threshold of the
category held), then every final capital of the run. A threshold T is passed the first time
when "reached" is not above T: a capital equal to T has not passed it (RULES.md §3, CI 3900).

A tournament ending before the rulebook's first era is refused (the variant is not rated yet:
a list sets it aside first, see ``before_start``), as is a validity without a factor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from transforms.rubele.rulebook import RubeleEra, RubeleRulebook

CAPITAL_COLUMNS: dict[str, pl.DataType] = {"player_id": pl.Utf8(), "capital": pl.Int32()}
# optional in the capitals: the highest capital known reached before the run (null or absent:
# the capital itself); only rescaling.upward = "first" reads it
REACHED_COLUMN = "reached"
TOURNAMENT_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "validity": pl.Int32(),  # percentage, a key of the era's validity factors
}
ENTRY_COLUMNS: dict[str, pl.DataType] = {"tournament_id": pl.Utf8(), "player_id": pl.Utf8()}
GAME_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "opponent_id": pl.Utf8(),
    "points": pl.Float64(),  # counted games only, both sides' view, 1 / 0.5 / 0
}
# optional in the games: with it, the games are every game with an opponent (both sides) and
# the era's games.counted_for_loser picks the counted ones (see ``counted_games``)
KIND_COLUMN = "kind"  # played / forfeit / withdrawn
VARIATION_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "wave": pl.Int32(),
    "sequence": pl.Int32(),
    "initial": pl.Int32(),
    "games": pl.Int32(),
    "points": pl.Float64(),
    "expected": pl.Float64(),
    "s": pl.Int32(),
    "factor": pl.Float64(),
    "variation": pl.Float64(),
    "rescaled": pl.Float64(),  # X after the threshold rescaling (before an after-stage factor)
    "crossings": pl.Int32(),  # thresholds crossed and rescaled, upward or downward
    "reached": pl.Int32(),  # the highest capital known reached before the tournament
    "recrossed": pl.Int32(),  # thresholds crossed upward, not rescaled: reached before ("first")
    "q": pl.Int32(),  # the era's Q term, for a tournament with a counted game
    "floored": pl.Boolean(),
    "final": pl.Int32(),
    "era": pl.Int32(),  # index in the rulebook's eras of the era the tournament is computed under
}
# |d| beyond this reads the table's last value (the Gauss function is 1.0 in doubles long before)
MAX_DIFFERENCE = 20_000
PA_UNITS = 10**12  # PA(n) in whole pico-points: integer sums are exact in any order
PA_UNIT = 1e-12  # PA = (sum of pico-points) x PA_UNIT
# an X within this of a half counts as the half (binary arithmetic on a decimal table must not
# move an exact half across it)
HALF_TOLERANCE = 1e-9


def pa_units(expected: float) -> int:
    """PA(n) as whole pico-points (the engine and any re-implementation must agree on it)."""
    return math.floor(expected * PA_UNITS + 0.5)


@dataclass(frozen=True)
class RubeleResult:
    capitals: pl.DataFrame  # player_id, capital, tournaments, games: one row per input capital
    variations: pl.DataFrame  # VARIATION_COLUMNS, one row per entry


class RubeleInputError(ValueError):
    """The engine's inputs contradict each other (a game without entry, an unknown player)."""


def era_indices(end_dates: pl.Series, rulebook: RubeleRulebook) -> pl.Series:
    """The index of the era in force on each end date (the first era before it starts)."""
    starts = pl.Series([era.effective_from for era in rulebook.eras], dtype=pl.Date)
    # search_sorted counts eras started by the end date (unsigned): 0 means before the first
    started = starts.search_sorted(end_dates, side="right").cast(pl.Int64)
    return (started - 1).clip(0).cast(pl.Int32).alias("era")


def before_start(tournaments: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """The tournaments (tournament_id, reason) ending before the rulebook's first era: the
    variant was not rated yet (RULES.md §3, Art. 9), the list sets them aside with the reason."""
    start = rulebook.rated_from
    return (
        tournaments.filter(pl.col("end_date") < start)
        .select(
            "tournament_id",
            pl.format(
                "ends on {}, before dama {} is rated (from {}, the rulebook's first era)",
                pl.col("end_date"),
                pl.lit(rulebook.variant),
                pl.lit(str(start)),
            ).alias("reason"),
        )
        .sort("tournament_id")
    )


def tournament_order(tournaments: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """Tournaments in the order they are applied (the rulebook's ``order.by``; a missing start
    date first), with ``order`` and the index of the era in force on the end date."""
    ordered = tournaments.sort(list(rulebook.tournament_order), nulls_last=False)
    return ordered.with_columns(
        pl.int_range(pl.len(), dtype=pl.Int32).alias("order"),
        era_indices(ordered.get_column("end_date"), rulebook),
    )


def unknown_validities(tournaments: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """The tournaments (tournament_id, reason) whose validity has no factor in the era in force
    on their end date: the engine cannot rate them, the list sets them aside with the reason."""
    known = pl.DataFrame(
        [
            {
                "era": index,
                "era_from": era.effective_from,
                "known": ", ".join(f"{v} %" for v in sorted(era.validity_factors, reverse=True)),
            }
            for index, era in enumerate(rulebook.eras)
        ],
        schema={"era": pl.Int32, "era_from": pl.Date, "known": pl.Utf8},
    )
    factors = _era_frame(rulebook.eras).select("era", "validity", pl.lit(True).alias("has_factor"))
    return (
        tournaments.select("tournament_id", "end_date", pl.col("validity").cast(pl.Int32))
        .with_columns(era_indices(tournaments.get_column("end_date"), rulebook))
        .join(factors, on=["era", "validity"], how="left")
        .filter(pl.col("has_factor").is_null())
        .join(known, on="era", how="left")
        .select(
            "tournament_id",
            pl.format(
                "validity {} % is not a validity of the rulebook's era from {} (in force on the "
                "end date {}): it knows {}",
                pl.col("validity"),
                pl.col("era_from"),
                pl.col("end_date"),
                pl.col("known"),
            ).alias("reason"),
        )
        .sort("tournament_id")
    )


def counted_games(
    games: pl.DataFrame, tournaments: pl.DataFrame, rulebook: RubeleRulebook
) -> pl.DataFrame:
    """The counted games (GAME_COLUMNS) among games with a ``kind``: every game played over the
    board, and a forfeit or withdrawal lost by a player (0 points) when the era in force on the
    tournament's end date lists that kind in ``games.counted_for_loser``. The winner's side of
    such a game never counts (RULES.md §3, Art. 7); neither does a game without opponent."""
    for_loser = pl.DataFrame(
        [
            {"era": index, KIND_COLUMN: kind}
            for index, era in enumerate(rulebook.eras)
            for kind in era.counted_for_loser
        ],
        schema={"era": pl.Int32, KIND_COLUMN: pl.Utf8},
    ).with_columns(pl.lit(True).alias("_counts_for_loser"))
    eras = tournaments.select(
        "tournament_id", era_indices(tournaments.get_column("end_date"), rulebook)
    )
    return (
        games.join(eras, on="tournament_id", how="left")
        .join(for_loser, on=["era", KIND_COLUMN], how="left")
        .filter(
            (pl.col(KIND_COLUMN) == "played")
            | (
                pl.col("_counts_for_loser").fill_null(False)
                & (pl.col("points") == 0.0)
                & pl.col("opponent_id").is_not_null()
            )
        )
        .select(list(GAME_COLUMNS))
    )


def waves(entries: pl.DataFrame) -> pl.Series:
    """The wave of every tournament, by ``order`` (0..n-1), from entries (order, p).

    wave(t) = 0 if none of its players played before, else 1 + the highest wave among its
    players' previous tournaments: the level of t in the graph whose edges join each player's
    consecutive tournaments. Levels are peeled off one at a time (Kahn's algorithm): the
    tournaments whose every incoming edge comes from a lower level form the next wave. Each
    step touches only the edges leaving that wave, so the whole pass is linear in the entries.
    """
    n = int(entries.get_column("order").max()) + 1 if entries.height else 0  # type: ignore[arg-type]
    edges = (
        entries.sort(["p", "order"])
        .select(pl.col("order").shift(1).over("p").alias("source"), pl.col("order").alias("target"))
        .drop_nulls()
        .cast(pl.Int32)
        .sort("source")
    )
    targets = edges.get_column("target")
    by_source = edges.group_by("source").agg(pl.len().cast(pl.Int64).alias("out"))
    out_degree = pl.zeros(n, dtype=pl.Int64, eager=True).scatter(
        by_source.get_column("source"), by_source.get_column("out")
    )
    first_edge = out_degree.cum_sum() - out_degree
    by_target = targets.value_counts(sort=False)
    waiting = pl.zeros(n, dtype=pl.Int64, eager=True).scatter(
        by_target.get_column("target"), by_target.get_column("count")
    )
    wave = pl.zeros(n, dtype=pl.Int32, eager=True)
    ready = pl.arange(0, n, eager=True, dtype=pl.Int32).filter(waiting == 0)
    level = 0
    while ready.len():
        wave = wave.scatter(ready, level)
        reached = (
            pl.DataFrame({"start": first_edge.gather(ready), "count": out_degree.gather(ready)})
            .filter(pl.col("count") > 0)
            .select(pl.int_ranges("start", pl.col("start") + pl.col("count")).explode())
            .to_series()
        )
        if reached.len() == 0:
            break
        arrivals = targets.gather(reached).value_counts(sort=False)
        hit = arrivals.get_column("target")
        left = waiting.gather(hit) - arrivals.get_column("count")
        waiting = waiting.scatter(hit, left)
        ready = hit.filter(left == 0)
        level += 1
    return wave


# one table per conversion (mode, scale, bands, cap): eras and lists that share it reuse it
_TABLES: dict[tuple[str, float, tuple[tuple[int, float], ...], int], pl.Series] = {}


def _conversion_table(era: RubeleEra) -> pl.Series:
    key = (era.expected_mode, era.gauss_scale, era.expected_bands, era.difference_cap)
    if key not in _TABLES:
        cap = era.difference_cap or MAX_DIFFERENCE  # the cap is built into the table
        _TABLES[key] = pl.Series(
            "expected_units",
            [
                pa_units(era.expected(max(-cap, min(cap, d))))
                for d in range(-MAX_DIFFERENCE, MAX_DIFFERENCE + 1)
            ],
            dtype=pl.Int64,
        )
    return _TABLES[key]


def _expected_table(rulebook: RubeleRulebook) -> pl.Series:
    """PA(d) of one game in pico-points for d = -MAX .. MAX, era after era (a gather replaces
    the function)."""
    return pl.concat([_conversion_table(era) for era in rulebook.eras])


# the era's numbers and switches a wave reads, as columns
ERA_INTEGERS = ("low", "high", "s_below", "s_between", "s_above", "per_win", "q_term", "minimum")
ERA_SWITCHES = ("first_only", "downward", "factor_after", "factor_on_q", "half_down")


def _era_frame(eras: tuple[RubeleEra, ...]) -> pl.DataFrame:
    """One row per (era index, validity percentage): the numbers a wave needs as columns."""
    rows = []
    for index, era in enumerate(eras):
        for validity, factor in era.validity_factors.items():
            rows.append(
                {
                    "era": index,
                    "validity": validity,
                    "factor": factor,
                    "low": era.band_low,
                    "high": era.band_high,
                    "s_below": era.s_below,
                    "s_between": era.s_between,
                    "s_above": era.s_above,
                    "per_win": era.points_per_win,
                    "q_term": era.q,
                    "minimum": era.minimum,
                    "first_only": era.rescale_upward == "first",
                    "downward": era.rescale_downward,
                    "factor_after": era.validity_factor_stage == "after_rescaling",
                    "factor_on_q": era.validity_factor_on_q,
                    "half_down": era.rounding == "half_down",
                }
            )
    return pl.DataFrame(rows).cast(
        {"era": pl.Int32, "validity": pl.Int32, "factor": pl.Float64}
        | {name: pl.Int32 for name in ERA_INTEGERS}
        | {name: pl.Boolean for name in ERA_SWITCHES}
    )


def _bounds(sorted_waves: pl.Series) -> list[tuple[int, int]]:
    """(first row, rows) of each wave 0..max in a column sorted by wave (rows 0: none)."""
    if sorted_waves.len() == 0:
        return []
    counts = sorted_waves.value_counts(sort=False).sort(sorted_waves.name)
    sizes = dict(
        zip(
            counts.get_column(sorted_waves.name).to_list(),
            counts.get_column("count").to_list(),
            strict=True,
        )
    )
    bounds, start = [], 0
    for wave in range(int(sorted_waves.max()) + 1):  # type: ignore[arg-type]
        size = sizes.get(wave, 0)
        bounds.append((start, size))
        start += size
    return bounds


def _positions(frame: pl.DataFrame, column: str, ids: pl.DataFrame, name: str) -> pl.DataFrame:
    placed = frame.join(ids.rename({"player_id": column, "position": name}), on=column, how="left")
    if placed.get_column(name).null_count():
        missing = placed.filter(pl.col(name).is_null()).get_column(column)[0]
        raise RubeleInputError(f"{column} {missing!r} has no capital to start from")
    return placed


def _band_s(capital: pl.Expr) -> pl.Expr:
    return (
        pl.when(capital < pl.col("low"))
        .then(pl.col("s_below"))
        .when(capital <= pl.col("high"))
        .then(pl.col("s_between"))
        .otherwise(pl.col("s_above"))
    )


@dataclass(frozen=True)
class _Features:
    """The non-default rules that some era of a rulebook switches on. The update leaves out the
    expressions of the others (they would act on no row), so that a rulebook of defaults runs
    the shortest query, a wave after another."""

    first: bool  # rescaling.upward = "first"
    downward: bool  # rescaling.downward
    factor_after: bool  # validity.factor_stage = "after_rescaling"
    factor_on_q: bool  # validity.factor_on_q
    half_down: bool  # capital.rounding = "half_down"

    @staticmethod
    def of(eras: tuple[RubeleEra, ...]) -> _Features:
        return _Features(
            first=any(era.rescale_upward == "first" for era in eras),
            downward=any(era.rescale_downward for era in eras),
            factor_after=any(era.validity_factor_stage == "after_rescaling" for era in eras),
            factor_on_q=any(era.validity_factor_on_q for era in eras),
            half_down=any(era.rounding == "half_down" for era in eras),
        )


def _update_stages(features: _Features) -> list[list[pl.Expr]]:
    """Steps of RULES.md §3 after PA, as expressions over a wave's entries (columns: initial,
    games, points, expected, the era numbers and switches, and ``reached`` when some era
    rescales only the first time): S, V, the rescaling at each threshold crossed, the validity
    factor after it, Q, the minimum, the rounded final capital. Built once per set of features:
    only the data changes. Intermediate results are columns (``_``-prefixed), so that no
    expression repeats another."""
    initial = pl.col("initial").cast(pl.Float64)
    counted = pl.col("games") > 0
    x = initial + pl.col("variation")
    low = pl.col("low").cast(pl.Float64)
    high = pl.col("high").cast(pl.Float64)
    below = pl.col("initial") < pl.col("low")
    middle = ~below & (pl.col("initial") <= pl.col("high"))
    factor_on_v = pl.col("factor")
    if features.factor_after:
        factor_on_v = pl.when(pl.col("factor_after")).then(1.0).otherwise(pl.col("factor"))
    stages = [
        [_band_s(pl.col("initial")).cast(pl.Int32).alias("s")],
        [
            pl.when(counted)
            .then(
                pl.col("s").cast(pl.Float64)
                # D on the era's points scale: PO and PA doubled on the FID's 2 / 1 / 0 (exact)
                * ((pl.col("points") - pl.col("expected")) * pl.col("per_win").cast(pl.Float64))
                * factor_on_v
            )
            .otherwise(0.0)
            .alias("variation")
        ],
        # upward: the first threshold (low) crossed from below it: S below -> S between
        [(counted & below & (x > low)).alias("_cross_low")],
    ]
    # a threshold crossed upward is rescaled unless the era rescales only the first time and
    # the player had been strictly above it before (a capital equal to T has not passed T)
    rescale_low, rescale_high = pl.col("_cross_low"), pl.col("_cross_high")
    if features.first:
        first_time = ~pl.col("first_only") | (pl.col("reached") <= pl.col("low"))
        stages.append([(pl.col("_cross_low") & first_time).alias("_rescale_low")])
        rescale_low = pl.col("_rescale_low")
    stages += [
        [
            pl.when(rescale_low)
            .then(low + (x - low) * pl.col("s_between") / pl.col("s_below"))
            .otherwise(x)
            .alias("_after_low"),
            # a crossing not rescaled keeps the S used for the next threshold
            pl.when(rescale_low).then(pl.col("s_between")).otherwise(pl.col("s")).alias("_s_now"),
            (counted & (pl.col("_cross_low") | middle)).alias("_may_cross_high"),
        ],
        # then the second (high), from the band between them
        [(pl.col("_may_cross_high") & (pl.col("_after_low") > high)).alias("_cross_high")],
    ]
    if features.first:
        first_time = ~pl.col("first_only") | (pl.col("reached") <= pl.col("high"))
        stages.append([(pl.col("_cross_high") & first_time).alias("_rescale_high")])
        rescale_high = pl.col("_rescale_high")
    rescaled = (
        pl.when(rescale_high)
        .then(high + (pl.col("_after_low") - high) * pl.col("s_above") / pl.col("_s_now"))
        .otherwise(pl.col("_after_low"))
    )
    crossings = rescale_low.cast(pl.Int32) + rescale_high.cast(pl.Int32)
    if features.downward:
        # high crossed from above it, then low; upward and downward crossings exclude each
        # other (X above or below CI)
        falling = counted & pl.col("downward")
        stages += [
            [(falling & (pl.col("initial") > pl.col("high")) & (x < high)).alias("_fall_high")],
            [
                pl.when(pl.col("_fall_high"))
                .then(high - (high - x) * pl.col("s_between") / pl.col("s_above"))
                .otherwise(x)
                .alias("_after_high"),
                pl.when(pl.col("_fall_high"))
                .then(pl.col("s_between"))
                .otherwise(pl.col("s"))
                .alias("_s_down"),
            ],
            [
                (falling & (pl.col("_fall_high") | middle) & (pl.col("_after_high") < low)).alias(
                    "_fall_low"
                )
            ],
        ]
        rescaled = (
            pl.when(pl.col("_fall_low"))
            .then(low - (low - pl.col("_after_high")) * pl.col("s_below") / pl.col("_s_down"))
            .when(pl.col("_fall_high"))
            .then(pl.col("_after_high"))
            .otherwise(rescaled)
        )
        crossings = (
            crossings + pl.col("_fall_high").cast(pl.Int32) + pl.col("_fall_low").cast(pl.Int32)
        )
    recrossed = pl.lit(0, dtype=pl.Int32)
    if features.first:
        recrossed = (pl.col("_cross_low") & ~rescale_low).cast(pl.Int32) + (
            pl.col("_cross_high") & ~rescale_high
        ).cast(pl.Int32)
    stages.append(
        [
            rescaled.alias("rescaled"),
            crossings.cast(pl.Int32).alias("crossings"),
            recrossed.alias("recrossed"),
            pl.when(counted).then(pl.col("q_term")).otherwise(0).cast(pl.Int32).alias("q"),
        ]
    )
    before_q = pl.col("rescaled")
    if features.factor_after:
        stages.append(
            [
                pl.when(pl.col("factor_after"))
                .then(initial + (pl.col("rescaled") - initial) * pl.col("factor"))
                .otherwise(pl.col("rescaled"))
                .alias("_validated")
            ]
        )
        before_q = pl.col("_validated")
    q_added = pl.col("q")
    if features.factor_on_q:
        q_added = (
            pl.when(pl.col("factor_on_q"))
            .then(pl.col("q").cast(pl.Float64) * pl.col("factor"))
            .otherwise(pl.col("q").cast(pl.Float64))
        )
    with_q = before_q + q_added
    unrounded = (
        pl.when(pl.col("floored")).then(pl.col("minimum").cast(pl.Float64)).otherwise(with_q)
    )
    rounded = (unrounded + 0.5 + HALF_TOLERANCE).floor()
    if features.half_down:
        rounded = (
            pl.when(pl.col("half_down"))
            .then((unrounded - 0.5 - HALF_TOLERANCE).ceil())
            .otherwise(rounded)
        )
    return [
        *stages,
        [(counted & (pl.col("minimum") > 0) & (with_q < pl.col("minimum"))).alias("floored")],
        [pl.when(counted).then(rounded).otherwise(initial).cast(pl.Int32).alias("final")],
    ]


_UPDATE_STAGES: dict[_Features, list[list[pl.Expr]]] = {}
# a wave's query is small and written as it should run: optimising its plan costs more than
# it saves, thousands of times over
_NO_OPTIMIZATION = pl.QueryOptFlags.none()


def _update(entries: pl.LazyFrame, features: _Features) -> pl.LazyFrame:
    """Every column of the update, for entries whose initial capital and PA are known (and the
    capital reached, when some era rescales only the first time)."""
    if features not in _UPDATE_STAGES:
        _UPDATE_STAGES[features] = _update_stages(features)
    for stage in _UPDATE_STAGES[features]:
        entries = entries.with_columns(stage)
    return entries.select(pl.exclude(r"^_.*$"))


def apply_tournaments(
    capitals: pl.DataFrame,
    tournaments: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    rulebook: RubeleRulebook,
) -> RubeleResult:
    """Every tournament applied in order, wave by wave, from the capitals before them.

    ``capitals`` may carry ``reached`` (REACHED_COLUMN) and ``games`` may carry ``kind``
    (KIND_COLUMN): without them, every capital is the highest reached and every game counts.
    A tournament ending before the rulebook's first era is refused (``before_start``)."""
    early = before_start(tournaments, rulebook)
    if early.height:
        raise RubeleInputError(f"tournament {early.item(0, 0)!r} {early.item(0, 1)}")
    ids = capitals.select("player_id", pl.int_range(pl.len(), dtype=pl.Int32).alias("position"))
    if ids.get_column("player_id").n_unique() != ids.height:
        raise RubeleInputError("a player has two starting capitals")
    if KIND_COLUMN in games.columns:
        games = counted_games(games, tournaments, rulebook)
    ordered = tournament_order(tournaments, rulebook)
    placed = _positions(entries, "player_id", ids, "p").join(
        ordered.select("tournament_id", "order", "era", "validity"), on="tournament_id", how="left"
    )
    if placed.get_column("order").null_count():
        stray = placed.filter(pl.col("order").is_null()).get_column("tournament_id")[0]
        raise RubeleInputError(f"an entry of {stray!r} names no known tournament")
    wave_of = waves(placed.select("order", "p"))
    eras = _era_frame(rulebook.eras)
    placed = (
        placed.with_columns(pl.lit(wave_of).gather(pl.col("order")).alias("wave"))
        .sort(["p", "order"])
        .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over("p").alias("sequence"))
        .join(eras, on=["era", "validity"], how="left")
    )
    if placed.get_column("factor").null_count():
        bad = placed.filter(pl.col("factor").is_null()).row(0, named=True)
        raise RubeleInputError(
            f"tournament {bad['tournament_id']!r}: validity {bad['validity']} % has no factor "
            "in the rulebook"
        )
    entry_keys = placed.select("tournament_id", "player_id", "p", "wave", "era")
    played = _positions(
        games.join(entry_keys, on=["tournament_id", "player_id"], how="left"),
        "opponent_id",
        ids,
        "o",
    )
    if played.get_column("p").null_count():
        stray = played.filter(pl.col("p").is_null()).row(0, named=True)
        raise RubeleInputError(
            f"a game of {stray['player_id']!r} in {stray['tournament_id']!r} has no entry"
        )
    # entries and games sorted by wave once; each wave is a slice of both and one small query
    # that gives the final capitals; the other columns of the update are computed for all
    # entries at once afterwards, by the same expressions
    played = played.select("wave", "p", "o", "era", "points").sort("wave")
    per_entry = played.group_by(["wave", "p"]).agg(
        pl.len().cast(pl.Int32).alias("games"), pl.col("points").sum()
    )
    placed = (
        placed.join(per_entry, on=["wave", "p"], how="left")
        .with_columns(pl.col("games").fill_null(0), pl.col("points").fill_null(0.0))
        .sort("wave")
    )
    entry_bounds = _bounds(placed.get_column("wave"))
    game_bounds = _bounds(played.get_column("wave"))
    played = played.select(
        "p",
        "o",
        (pl.col("era").cast(pl.Int64) * (2 * MAX_DIFFERENCE + 1) + MAX_DIFFERENCE).alias("base"),
    )
    inputs = placed.select("p", "games", "points", "factor", *ERA_INTEGERS, *ERA_SWITCHES)
    table = pl.lit(_expected_table(rulebook))
    features = _Features.of(rulebook.eras)
    capital = capitals.get_column("capital").cast(pl.Int32)
    known_reached = pl.col(REACHED_COLUMN) if REACHED_COLUMN in capitals.columns else pl.lit(None)
    reached_before_run = capitals.select(
        pl.max_horizontal(pl.col("capital"), known_reached).cast(pl.Int32)
    ).to_series()
    # carried wave after wave only when an era rescales the first time only; the column of the
    # output is worked out afterwards from the finals, for every rulebook
    reached = reached_before_run.clone()  # scatter writes in place
    done = []
    for wave, (entry_start, entry_count) in enumerate(entry_bounds):  # waves, not players
        held = pl.lit(capital)
        game_start, games_now = game_bounds[wave] if wave < len(game_bounds) else (0, 0)
        expected_units = (
            played.slice(game_start, games_now)
            .lazy()
            .select(
                "p",
                _game_pa_units(table, held.gather(pl.col("p")), held.gather(pl.col("o"))).alias(
                    "units"
                ),
            )
            .group_by("p")
            .agg(pl.col("units").sum())
        )
        held_before = [held.gather(pl.col("p")).alias("initial")]
        if features.first:
            held_before.append(pl.lit(reached).gather(pl.col("p")).alias("reached"))
        updated = (
            inputs.slice(entry_start, entry_count)
            .lazy()
            .with_columns(held_before)
            .join(expected_units, on="p", how="left", maintain_order="left")
            .with_columns(
                # one IEEE multiplication, the same in any language (Polars divides a column
                # by a scalar through its reciprocal, which would not match a plain division)
                (pl.col("units").fill_null(0).cast(pl.Float64) * PA_UNIT).alias("expected")
            )
            .pipe(_update, features)
            .select(
                "p",
                "initial",
                "expected",
                "final",
                *(
                    [pl.max_horizontal("reached", "final").alias("reached")]
                    if features.first
                    else []
                ),
            )
            # small frames: the streaming engine's set-up would dominate
            .collect(engine="in-memory", optimizations=_NO_OPTIMIZATION)
        )
        capital = capital.scatter(updated.get_column("p"), updated.get_column("final"))
        if features.first:
            reached = reached.scatter(updated.get_column("p"), updated.get_column("reached"))
        done.append(updated.select("initial", "expected", "final"))
    if done:
        known = pl.concat(done)
        done = [
            _update(
                placed.with_columns(
                    known.get_column("initial"),
                    known.get_column("expected"),
                    known.get_column("final").alias("_wave_final"),
                )
                .with_columns(
                    # the highest of the capital reached before the run and the player's finals
                    # before this tournament (what the waves carried, when they did)
                    pl.max_horizontal(
                        pl.lit(reached_before_run).gather(pl.col("p")),
                        pl.col("_wave_final").cum_max().shift(1).over("p", order_by="sequence"),
                    ).alias("reached")
                )
                .lazy(),
                features,
            )
            .collect()
            .with_columns(known.get_column("final").alias("_wave_final"))
        ]
        if not done[0].get_column("final").equals(done[0].get_column("_wave_final")):
            raise AssertionError("the update of all entries disagrees with the waves")
    variations = (
        pl.concat(done)
        if done
        else placed.clear().with_columns(
            pl.lit(None, dtype=dtype).alias(name)
            for name, dtype in VARIATION_COLUMNS.items()
            if name not in placed.columns
        )
    )
    variations = variations.select(list(VARIATION_COLUMNS)).cast(VARIATION_COLUMNS)
    totals = variations.group_by("player_id").agg(
        (pl.col("games") > 0).sum().cast(pl.Int32).alias("tournaments"),
        pl.col("games").sum().cast(pl.Int32).alias("games"),
    )
    final = (
        capitals.select("player_id")
        .with_columns(capital.alias("capital"))
        .join(totals, on="player_id", how="left")
        .with_columns(pl.col("tournaments").fill_null(0), pl.col("games").fill_null(0))
    )
    return RubeleResult(capitals=final, variations=variations.sort(["player_id", "sequence"]))


def _game_pa_units(table: pl.Expr, own: pl.Expr, other: pl.Expr) -> pl.Expr:
    """PA(n) of one game in pico-points: the conversion table of the game's era (``base``, the
    era's d = 0 in :func:`_expected_table`) at d = own capital - the opponent's, as far as the
    table reaches. Shared by :func:`apply_tournaments` and :func:`capital_details`."""
    difference = (own.cast(pl.Int64) - other.cast(pl.Int64)).clip(-MAX_DIFFERENCE, MAX_DIFFERENCE)
    return table.gather(pl.col("base") + difference)


def capital_after(
    initial: int,
    difference: float,
    era: RubeleEra,
    validity: int = 100,
    counted: bool = True,
    reached: int | None = None,
) -> int:
    """The final capital for a given D (on the 1 / ½ / 0 scale: the era's points scale
    multiplies it), through the same expressions as the engine (the regulation's hand-checked
    cases give D directly); ``reached``: the highest capital the player had held before (his
    capital when not given)."""
    if validity not in era.validity_factors:
        raise RubeleInputError(f"validity {validity} % has no factor in the era")
    era_row = _era_frame((era,)).filter(pl.col("validity") == validity).drop("era", "validity")
    row = pl.DataFrame(
        {
            "initial": [initial],
            "reached": [max(initial, reached if reached is not None else initial)],
            "games": [1 if counted else 0],
            "points": [difference],
            "expected": [0.0],
        }
    ).hstack(era_row)
    return int(_update(row.lazy(), _Features.of((era,))).collect().get_column("final")[0])


# --------------------------------------------------------------------------- explaining capitals
# ``graduatoria explain`` (flows/explain.py) and the ``game_calculation`` view show how each
# tournament changed a player's capital, game by game: PA(n) comes from the engine's own
# conversion table at the capitals the engine held before the tournament, so the rows add up
# to the engine's variations by construction; :func:`capital_details` checks that they do.

DETAIL_GAME_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "opponent_id": pl.Utf8(),
    "points": pl.Float64(),  # PO(n) on the 1 / ½ / 0 scale
    "era": pl.Int32(),  # index in the rulebook's eras of the tournament's era
    "own_capital": pl.Int32(),  # CI: the capital held before the tournament
    "opponent_capital": pl.Int32(),  # the opponent's, before the same tournament
    "difference": pl.Int64(),  # d = own - opponent
    "capped_difference": pl.Int64(),  # d as the era's cap (or the table's end) lets it through
    "expected_units": pl.Int64(),  # PA(n) in whole pico-points (PA_UNITS to a point)
}


@dataclass(frozen=True)
class CapitalDetails:
    """The capitals' calculation for some players, tournament by tournament and game by game."""

    games: pl.DataFrame  # DETAIL_GAME_COLUMNS: every counted game of theirs
    # VARIATION_COLUMNS + expected_units (Σ PA(n)) and unrounded (the capital before its
    # rounding: X after the rescaling, the validity factor and Q, or the minimum)
    variations: pl.DataFrame
    capitals: pl.DataFrame  # RubeleResult.capitals rows of the players


def capital_details(
    capitals: pl.DataFrame,
    tournaments: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    rulebook: RubeleRulebook,
    player_ids: Sequence[str],
) -> CapitalDetails:
    """How the tournaments changed the capitals of ``player_ids``, game by game: the inputs of
    :func:`apply_tournaments`, which runs whole (an opponent's capital before a tournament
    depends on his own earlier ones). Raises AssertionError if the games' PA(n) do not add up
    to the engine's PA (the same table and difference: a difference is a bug), RubeleInputError
    for an id that has no capital."""
    result = apply_tournaments(capitals, tournaments, entries, games, rulebook)
    if KIND_COLUMN in games.columns:
        games = counted_games(games, tournaments, rulebook)
    wanted = pl.Series("player_id", list(player_ids), dtype=pl.Utf8)
    unknown = wanted.filter(~wanted.is_in(capitals.get_column("player_id").implode()))
    if unknown.len():
        raise RubeleInputError(f"player_id {unknown[0]!r} has no capital to start from")
    chosen = pl.col("player_id").is_in(wanted.implode())
    held = result.variations.select("tournament_id", "player_id", "initial")
    caps = pl.DataFrame(
        {
            "era": list(range(len(rulebook.eras))),
            "_cap": [era.difference_cap or MAX_DIFFERENCE for era in rulebook.eras],
        },
        schema={"era": pl.Int32, "_cap": pl.Int64},
    )
    rows = (
        games.lazy()
        .filter(chosen)
        .join(
            tournament_order(tournaments, rulebook).lazy().select("tournament_id", "era"),
            on="tournament_id",
            how="left",
        )
        .join(
            held.lazy().rename({"initial": "own_capital"}),
            on=["tournament_id", "player_id"],
            how="left",
        )
        .join(
            held.lazy().rename({"player_id": "opponent_id", "initial": "_opponent_initial"}),
            on=["tournament_id", "opponent_id"],
            how="left",
        )
        # an opponent with no entry (a player not rated, met at his entry capital: see
        # transforms.rubele.lists.rated_window) keeps the capital he is given throughout
        .join(
            capitals.lazy().select(
                pl.col("player_id").alias("opponent_id"), pl.col("capital").alias("_given")
            ),
            on="opponent_id",
            how="left",
        )
        .join(caps.lazy(), on="era", how="left")
        .with_columns(
            pl.coalesce("_opponent_initial", "_given").cast(pl.Int32).alias("opponent_capital"),
            (pl.col("era").cast(pl.Int64) * (2 * MAX_DIFFERENCE + 1) + MAX_DIFFERENCE).alias(
                "base"
            ),
        )
        .with_columns(
            (pl.col("own_capital").cast(pl.Int64) - pl.col("opponent_capital")).alias("difference"),
            _game_pa_units(
                pl.lit(_expected_table(rulebook)), pl.col("own_capital"), pl.col("opponent_capital")
            ).alias("expected_units"),
        )
        .with_columns(
            pl.col("difference").clip(-pl.col("_cap"), pl.col("_cap")).alias("capped_difference")
        )
        .select(list(DETAIL_GAME_COLUMNS))
        .collect()
        .cast(DETAIL_GAME_COLUMNS)  # type: ignore[arg-type]
    )
    sums = rows.group_by("tournament_id", "player_id").agg(
        pl.len().cast(pl.Int32).alias("_games"),
        pl.col("points").sum().alias("_points"),
        pl.col("expected_units").sum(),
    )
    variations = (
        result.variations.filter(chosen)
        .join(sums, on=["tournament_id", "player_id"], how="left")
        .with_columns(
            pl.col("_games").fill_null(0),
            pl.col("_points").fill_null(0.0),
            pl.col("expected_units").fill_null(0),
        )
    )
    # the engine's PA: the sum of the pico-points as one double times PA_UNIT
    wrong = variations.filter(
        (pl.col("_games") != pl.col("games"))
        | (pl.col("_points") != pl.col("points"))
        | ((pl.col("expected_units").cast(pl.Float64) * PA_UNIT) != pl.col("expected"))
    )
    if wrong.height:
        row = wrong.row(0, named=True)
        raise AssertionError(
            f"the games of {row['player_id']!r} in {row['tournament_id']!r} do not add up to "
            "the engine's PA"
        )
    return CapitalDetails(
        games=rows,
        variations=_with_unrounded(variations.drop("_games", "_points"), rulebook),
        capitals=result.capitals.filter(chosen),
    )


def _with_unrounded(variations: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """``unrounded``: the capital the rounding (and the minimum) acted on, as RULES.md §3 and
    the era's switches put it: X after the rescaling (or CI + (X - CI) x f when the factor
    comes after it) plus Q (x f when the era says so); the minimum when it was raised to it."""
    switches = (
        _era_frame(rulebook.eras)
        .select("era", "factor_after", "factor_on_q", "minimum")
        .unique("era")
    )
    initial = pl.col("initial").cast(pl.Float64)
    before_q = (
        pl.when(pl.col("factor_after"))
        .then(initial + (pl.col("rescaled") - initial) * pl.col("factor"))
        .otherwise(pl.col("rescaled"))
    )
    q = (
        pl.when(pl.col("factor_on_q"))
        .then(pl.col("q").cast(pl.Float64) * pl.col("factor"))
        .otherwise(pl.col("q").cast(pl.Float64))
    )
    return (
        variations.join(switches, on="era", how="left", maintain_order="left")
        .with_columns(
            pl.when(pl.col("games") == 0)
            .then(initial)
            .when(pl.col("floored"))
            .then(pl.col("minimum").cast(pl.Float64))
            .otherwise(before_q + q)
            .alias("unrounded")
        )
        .drop("factor_after", "factor_on_q", "minimum")
    )


def pa_by_difference(era: RubeleEra) -> pl.DataFrame:
    """The engine's PA(n) of one game (``expected_units``, pico-points) at each capital
    difference from -MAX_DIFFERENCE to +MAX_DIFFERENCE (the engine reads a larger |d| at the
    end of its sign): the conversion table the ``game_calculation`` view reads."""
    return pl.DataFrame(
        [
            pl.int_range(-MAX_DIFFERENCE, MAX_DIFFERENCE + 1, dtype=pl.Int64, eager=True).alias(
                "difference"
            ),
            _conversion_table(era),
        ]
    )
