"""The FID Elo-Rubele capital update (RULES.md §3), vectorised by waves of tournaments.

The capital changes after every tournament, so tournaments are sequential; but two tournaments
without a common player do not affect each other. Tournaments are put in **waves**: a
tournament's wave is one more than the latest wave of any of its players' previous
tournaments (in the order end date, start date, id), so no player appears twice in a wave and
each player's tournaments keep their order. A whole wave is one set of Polars operations.

Per participant p of tournament t, over his counted games (RULES.md §3):
``PA = Σ PA(n)`` (taken to 9 decimals, so the sum does not depend on the order of the games),
``D = PO − PA``, ``V = S × D × f`` (f the validity factor), ``X = CI + V``, the upward threshold
rescaling ``X = T + (X − T) × S_new / S_old`` at each threshold crossed, then ``+ Q``, the
minimum, and only then the rounding of the final capital (halves up).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from transforms.rubele_rulebook import RubeleEra, RubeleRulebook

CAPITAL_COLUMNS: dict[str, pl.DataType] = {"player_id": pl.Utf8(), "capital": pl.Int32()}
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
    "rescaled": pl.Float64(),
    "crossings": pl.Int32(),
    "q": pl.Int32(),
    "floored": pl.Boolean(),
    "final": pl.Int32(),
}
# |d| beyond this reads the table's last value (the Gauss function is 1.0 in doubles long before)
MAX_DIFFERENCE = 20_000


@dataclass(frozen=True)
class RubeleResult:
    capitals: pl.DataFrame  # player_id, capital, tournaments, games: one row per input capital
    variations: pl.DataFrame  # VARIATION_COLUMNS, one row per entry


class RubeleInputError(ValueError):
    """The engine's inputs contradict each other (a game without entry, an unknown player)."""


def tournament_order(tournaments: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """Tournaments in the order they are applied (end date, start date, id), with ``order``
    and the index of the era in force on the end date (the first era before it)."""
    starts = pl.Series([era.effective_from for era in rulebook.eras], dtype=pl.Date)
    ordered = tournaments.sort(["end_date", "start_date", "tournament_id"], nulls_last=False)
    era_index = (starts.search_sorted(ordered.get_column("end_date"), side="right") - 1).clip(0)
    return ordered.with_columns(
        pl.int_range(pl.len(), dtype=pl.Int32).alias("order"),
        era_index.cast(pl.Int32).alias("era"),
    )


def waves(entries: pl.DataFrame) -> pl.Series:
    """The wave of every tournament, by ``order`` (0..n-1), from entries (order, p).

    wave(t) = 0 if none of its players played before, else 1 + the highest wave among its
    players' previous tournaments. Computed by relaxation from a lower bound (each player's
    count of earlier tournaments): every pass is a gather and a group-by over the entries.
    """
    n = int(entries.get_column("order").max()) + 1 if entries.height else 0  # type: ignore[arg-type]
    chained = (
        entries.sort(["p", "order"])
        .with_columns(
            pl.col("order").shift(1).over("p").alias("previous"),
            pl.int_range(pl.len(), dtype=pl.Int32).over("p").alias("rank"),
        )
        .filter(pl.col("previous").is_not_null())
        .select("order", "previous", "rank")
    )
    bound = chained.group_by("order").agg(pl.col("rank").max())
    wave = pl.zeros(n, dtype=pl.Int32, eager=True).scatter(
        bound.get_column("order"), bound.get_column("rank")
    )
    orders = chained.get_column("order")
    previous = chained.get_column("previous")
    while chained.height:
        needed = (
            pl.DataFrame({"order": orders, "floor": wave.gather(previous) + 1})
            .group_by("order")
            .agg(pl.col("floor").max())
        )
        current = wave.gather(needed.get_column("order"))
        later = needed.get_column("floor") > current
        if not later.any():
            break
        raise_to = needed.filter(later)
        wave = wave.scatter(raise_to.get_column("order"), raise_to.get_column("floor"))
    return wave


def _expected_table(rulebook: RubeleRulebook) -> pl.Series:
    """PA(d) of one game for d = -MAX .. MAX, era after era (a gather replaces the function)."""
    values: list[float] = []
    for era in rulebook.eras:
        values.extend(era.expected(d) for d in range(-MAX_DIFFERENCE, MAX_DIFFERENCE + 1))
    return pl.Series("expected", values, dtype=pl.Float64)


def _era_frame(rulebook: RubeleRulebook) -> pl.DataFrame:
    """One row per (era, validity percentage): the numbers a wave needs as columns."""
    rows = []
    for index, era in enumerate(rulebook.eras):
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
                    "q_term": era.q,
                    "minimum": era.minimum,
                }
            )
    return pl.DataFrame(rows).cast(
        {"era": pl.Int32, "validity": pl.Int32, "factor": pl.Float64}
        | {
            name: pl.Int32
            for name in ("low", "high", "s_below", "s_between", "s_above", "q_term", "minimum")
        }
    )


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


def _update(wave_entries: pl.DataFrame) -> pl.DataFrame:
    """Steps 4-8 of RULES.md §3 for one wave's entries (columns: initial, games, points,
    expected and the era numbers): V, the rescaling at each threshold crossed, Q, the minimum,
    the rounding of the final capital."""
    initial = pl.col("initial").cast(pl.Float64)
    counted = pl.col("games") > 0
    s = _band_s(pl.col("initial"))
    variation = pl.col("s").cast(pl.Float64) * (pl.col("points") - pl.col("expected"))
    x = initial + pl.col("variation")
    # first threshold (low) crossed from below it: S below -> S between
    low = pl.col("low").cast(pl.Float64)
    high = pl.col("high").cast(pl.Float64)
    below = pl.col("initial") < pl.col("low")
    cross_low = counted & below & (x > low)
    after_low = (
        pl.when(cross_low)
        .then(low + (x - low) * pl.col("s_between") / pl.col("s_below"))
        .otherwise(x)
    )
    s_after_low = pl.when(cross_low).then(pl.col("s_between")).otherwise(pl.col("s"))
    in_middle = cross_low | (~below & (pl.col("initial") <= pl.col("high")))
    rescaled_x = pl.col("_after_low")
    cross_high = counted & in_middle & (rescaled_x > high)
    rescaled = (
        pl.when(cross_high)
        .then(high + (rescaled_x - high) * pl.col("s_above") / pl.col("_s_after_low"))
        .otherwise(rescaled_x)
    )
    q = pl.when(counted).then(pl.col("q_term")).otherwise(0)
    with_q = pl.col("rescaled") + pl.col("q")
    floored = counted & (pl.col("minimum") > 0) & (with_q < pl.col("minimum"))
    final = pl.when(floored).then(pl.col("minimum").cast(pl.Float64)).otherwise(with_q)
    return (
        wave_entries.with_columns(s.cast(pl.Int32).alias("s"))
        .with_columns(
            pl.when(counted)
            .then(variation * pl.col("factor"))
            .otherwise(0.0)
            .alias("variation")
        )
        .with_columns(
            after_low.alias("_after_low"),
            s_after_low.alias("_s_after_low"),
            cross_low.alias("_cross_low"),
        )
        .with_columns(
            rescaled.alias("rescaled"),
            (pl.col("_cross_low").cast(pl.Int32) + cross_high.cast(pl.Int32)).alias("crossings"),
            q.cast(pl.Int32).alias("q"),
        )
        .with_columns(
            floored.alias("floored"),
            # halves up; X is taken to 9 decimals so that 4.4999999999 from binary
            # arithmetic on a decimal table still rounds as the exact 4.5 would
            pl.when(counted)
            .then((final.round(9) + 0.5).floor())
            .otherwise(initial)
            .cast(pl.Int32)
            .alias("final"),
        )
        .drop("_after_low", "_s_after_low", "_cross_low")
    )


def apply_tournaments(
    capitals: pl.DataFrame,
    tournaments: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    rulebook: RubeleRulebook,
) -> RubeleResult:
    """Every tournament applied in order, wave by wave, from the capitals before them."""
    ids = capitals.select(
        "player_id", pl.int_range(pl.len(), dtype=pl.Int32).alias("position")
    )
    if ids.get_column("player_id").n_unique() != ids.height:
        raise RubeleInputError("a player has two starting capitals")
    ordered = tournament_order(tournaments, rulebook)
    placed = _positions(entries, "player_id", ids, "p").join(
        ordered.select("tournament_id", "order", "era", "validity"), on="tournament_id", how="left"
    )
    if placed.get_column("order").null_count():
        stray = placed.filter(pl.col("order").is_null()).get_column("tournament_id")[0]
        raise RubeleInputError(f"an entry of {stray!r} names no known tournament")
    wave_of = waves(placed.select("order", "p"))
    eras = _era_frame(rulebook)
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
    played = played.select("wave", "p", "o", "era", "points").sort("wave")
    table = _expected_table(rulebook)
    span = 2 * MAX_DIFFERENCE + 1
    capital = capitals.get_column("capital").cast(pl.Int32)
    by_wave_entries = placed.sort("wave").partition_by("wave", as_dict=True)
    by_wave_games = played.partition_by("wave", as_dict=True)
    done = []
    for (wave,), wave_entries in sorted(by_wave_entries.items()):  # waves, not players
        wave_games = by_wave_games.get((wave,))
        entries_now = wave_entries.with_columns(
            pl.lit(capital).gather(pl.col("p")).alias("initial")
        )
        if wave_games is not None:
            difference = (
                pl.lit(capital).gather(pl.col("p")).cast(pl.Int64)
                - pl.lit(capital).gather(pl.col("o")).cast(pl.Int64)
            ).clip(-MAX_DIFFERENCE, MAX_DIFFERENCE)
            index = pl.col("era").cast(pl.Int64) * span + difference + MAX_DIFFERENCE
            sums = (
                wave_games.with_columns(pl.lit(table).gather(index).alias("pa"))
                .group_by("p")
                .agg(
                    pl.len().cast(pl.Int32).alias("games"),
                    pl.col("points").sum(),
                    pl.col("pa").sum().round(9).alias("expected"),
                )
            )
            entries_now = entries_now.join(sums, on="p", how="left")
        else:
            entries_now = entries_now.with_columns(
                pl.lit(None, dtype=pl.Int32).alias("games"),
                pl.lit(None, dtype=pl.Float64).alias("points"),
                pl.lit(None, dtype=pl.Float64).alias("expected"),
            )
        updated = _update(
            entries_now.with_columns(
                pl.col("games").fill_null(0),
                pl.col("points").fill_null(0.0),
                pl.col("expected").fill_null(0.0),
            )
        )
        capital = capital.scatter(updated.get_column("p"), updated.get_column("final"))
        done.append(updated)
    variations = (
        pl.concat(done) if done else placed.clear().with_columns(
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
    return RubeleResult(
        capitals=final, variations=variations.sort(["player_id", "sequence"])
    )


def capital_after(
    initial: int, difference: float, era: RubeleEra, validity: int = 100, counted: bool = True
) -> int:
    """The final capital for a given D, through the same expressions as the engine (the
    regulation's hand-checked cases give D directly)."""
    row = pl.DataFrame(
        {
            "initial": [initial],
            "games": [1 if counted else 0],
            "points": [difference],
            "expected": [0.0],
            "factor": [era.validity_factors[validity]],
            "low": [era.band_low],
            "high": [era.band_high],
            "s_below": [era.s_below],
            "s_between": [era.s_between],
            "s_above": [era.s_above],
            "q_term": [era.q],
            "minimum": [era.minimum],
        }
    )
    return int(_update(row).get_column("final")[0])
