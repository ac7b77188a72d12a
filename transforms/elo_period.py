"""One rating period of an FSI Elo list (Elo Italia, and Elo Rapid through its own rulebook).

Ratings are frozen for the whole period (RULES.md §1.1), so every game of the period is one set
operation; the only sequential part is the "more than 4 tournaments" rule, whose groups are
processed as waves (wave w needs the rounded sum of waves before it). All scores are integer
hundredths, so sums and roundings are exact.

Inputs (see ``PLAYER_COLUMNS`` etc.):
- players: one row per player relevant to the period (previous list and participants);
- entries: one row per (tournament, player) with tournament points and dates;
- games: one row per player per game played over the board, both sides' view.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from transforms.expected import expected_hundredths
from transforms.rulebook import EloEra

PLAYER_COLUMNS: dict[str, pl.DataType] = {
    "player_id": pl.Utf8(),
    "list_rating": pl.Int32(),
    "on_list_as_fide": pl.Boolean(),
    "total_games": pl.Int32(),
    "fide_start": pl.Int32(),
    "fide_close": pl.Int32(),
    "category": pl.Utf8(),
    "k_override": pl.Int32(),
    "arbiter_rating": pl.Int32(),
}
ENTRY_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "points": pl.Float64(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
}
GAME_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "opponent_id": pl.Utf8(),
    "score": pl.Float64(),
}
RATING_COLUMNS = [
    "player_id",
    "frozen_rating",
    "rating_basis",
    "k",
    "games",
    "total_games",
    "variation_hundredths",
    "period_change",
    "rating",
    "rating_type",
]
VARIATION_COLUMNS = [
    "tournament_id",
    "player_id",
    "sequence",
    "wave",
    "own_rating",
    "games",
    "score",
    "expected",
    "k",
    "raw_hundredths",
    "applied_hundredths",
    "is_winner",
    "capped_games",
]


@dataclass(frozen=True)
class PeriodResult:
    ratings: pl.DataFrame  # RATING_COLUMNS, one row per input player
    variations: pl.DataFrame  # VARIATION_COLUMNS, one row per input entry


def round_half_away(hundredths: pl.Expr) -> pl.Expr:
    """Hundredths to a whole number, halves away from zero (exact integer arithmetic)."""
    magnitude = (hundredths.abs() + 50) // 100
    return (pl.when(hundredths < 0).then(-magnitude).otherwise(magnitude)).cast(pl.Int32)


def frozen_ratings(players: pl.DataFrame, era: EloEra) -> pl.DataFrame:
    """The rating each player carries into the period's games, why, and his K (§1.2, §1.4)."""
    theoretical = (
        pl.col("category")
        .fill_null(era.unregistered_category)
        .replace_strict(
            era.theoretical_ratings,
            default=era.theoretical_ratings[era.unregistered_category],
            return_dtype=pl.Int32,
        )
    )
    reentry = pl.lit(era.fide_minimum - 1, dtype=pl.Int32)
    listed = pl.max_horizontal("list_rating", "arbiter_rating")
    frozen = (
        pl.when(pl.col("fide_start").is_not_null())
        .then(pl.col("fide_start"))
        .when(pl.col("list_rating").is_not_null())
        .then(listed)
        .when(pl.col("on_list_as_fide"))
        .then(reentry)
        .when(pl.col("arbiter_rating").is_not_null())
        .then(pl.col("arbiter_rating"))
        .otherwise(theoretical)
    ).cast(pl.Int32)
    basis = (
        pl.when(pl.col("fide_start").is_not_null())
        .then(pl.lit("fide"))
        .when(pl.col("list_rating").is_not_null() & (listed > pl.col("list_rating")))
        .then(pl.lit("arbiter_reassignment"))
        .when(pl.col("list_rating").is_not_null())
        .then(pl.lit("list"))
        .when(pl.col("on_list_as_fide"))
        .then(pl.lit("fide_reentry"))
        .when(pl.col("arbiter_rating").is_not_null())
        .then(pl.lit("arbiter"))
        .otherwise(pl.lit("entry"))
    )
    schedule = era.k
    k = (
        pl.when(pl.lit(schedule.everyone_zero))
        .then(pl.lit(0))
        .when(pl.lit(schedule.registry_override) & pl.col("k_override").is_not_null())
        .then(pl.col("k_override"))
        .when(pl.col("total_games").fill_null(0) < schedule.newcomer_below_games)
        .then(pl.lit(schedule.newcomer))
        .when(pl.col("frozen_rating") >= schedule.high_from_rating)
        .then(pl.lit(schedule.high))
        .otherwise(pl.lit(schedule.default))
    ).cast(pl.Int32)
    return (
        players.with_columns(
            frozen.alias("frozen_rating"),
            basis.alias("rating_basis"),
            pl.col("fide_start").is_not_null().alias("is_fide"),
            pl.col("total_games").fill_null(0),
        )
        .with_columns(k.alias("k"))
        .with_columns(
            (pl.lit(era.groups_enabled) & (pl.col("k") >= era.group_min_k)).alias("grouped")
        )
    )


def _sequenced_entries(entries: pl.DataFrame, counted: pl.DataFrame, era: EloEra) -> pl.DataFrame:
    """Number each player's tournaments with counted games and put them in waves (§1.4)."""
    with_counted = entries.join(
        counted.group_by("tournament_id", "player_id").agg(pl.len().alias("_counted")),
        on=["tournament_id", "player_id"],
        how="left",
    )
    ranked = (
        with_counted.filter(pl.col("_counted").is_not_null())
        .sort(["end_date", "start_date", "tournament_id"], nulls_last=True)
        .with_columns(
            pl.int_range(1, pl.len() + 1).over("player_id").cast(pl.Int32).alias("sequence")
        )
    )
    waves = ranked.with_columns(
        pl.when(pl.col("grouped"))
        .then((pl.col("sequence") - 1) // era.group_size)
        .otherwise(0)
        .cast(pl.Int32)
        .alias("wave")
    )
    return with_counted.join(
        waves.select("tournament_id", "player_id", "sequence", "wave"),
        on=["tournament_id", "player_id"],
        how="left",
    )


def compute_period(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame, era: EloEra
) -> PeriodResult:
    """Variations of every (tournament, player) and the new rating of every player."""
    state = frozen_ratings(players, era)
    opponents = state.select(
        pl.col("player_id").alias("opponent_id"), pl.col("frozen_rating").alias("opponent_rating")
    )
    counted = (
        games.join(state.select("player_id", "is_fide"), on="player_id", how="inner")
        .filter(~pl.col("is_fide"))  # §1.3: a FIDE-rated player's games count only for the other
        .join(opponents, on="opponent_id", how="inner")
        .select(
            "tournament_id",
            "player_id",
            "opponent_rating",
            (pl.col("score") * 100).round().cast(pl.Int64).alias("won"),
        )
    )
    points_leader = pl.col("points") == pl.col("points").max().over("tournament_id")
    sequenced = _sequenced_entries(
        entries.with_columns(points_leader.fill_null(False).alias("is_winner")).join(
            state.select("player_id", "frozen_rating", "k", "grouped"), on="player_id"
        ),
        counted,
        era,
    )
    waves = sequenced.get_column("wave").drop_nulls()
    carried = state.select("player_id", pl.lit(0, dtype=pl.Int64).alias("carried"))
    computed = []
    for wave in range(int(waves.max()) + 1 if waves.len() else 0):  # waves, not players
        in_wave = (
            sequenced.filter(pl.col("wave") == wave)
            .join(carried, on="player_id")
            .with_columns(
                (pl.col("frozen_rating") + round_half_away(pl.col("carried")))
                .cast(pl.Int32)
                .alias("own_rating")
            )
        )
        played = (
            counted.join(
                in_wave.select("tournament_id", "player_id", "own_rating"),
                on=["tournament_id", "player_id"],
            )
            .with_columns(
                (
                    pl.col("own_rating").cast(pl.Int64) - pl.col("opponent_rating").cast(pl.Int64)
                ).alias("difference")
            )
            .with_columns(
                expected_hundredths(
                    pl.col("difference"), era.expected_bands, era.difference_cap
                ).alias("expected_h"),
                (
                    pl.lit(era.difference_cap > 0)
                    & (pl.col("difference").abs() > era.difference_cap)
                ).alias("capped"),
            )
        )
        totals = played.group_by("tournament_id", "player_id").agg(
            pl.len().cast(pl.Int32).alias("games"),
            pl.col("won").sum().alias("won_h"),
            pl.col("expected_h").sum().alias("expected_h"),
            pl.col("capped").sum().cast(pl.Int32).alias("capped_games"),
        )
        result = (
            in_wave.join(totals, on=["tournament_id", "player_id"])
            .with_columns(
                ((pl.col("won_h") - pl.col("expected_h")) * pl.col("k").cast(pl.Int64)).alias(
                    "raw_hundredths"
                )
            )
            .with_columns(
                pl.when(pl.col("is_winner") & (pl.col("raw_hundredths") < 0))
                .then(0)
                .otherwise(pl.col("raw_hundredths"))
                .cast(pl.Int64)
                .alias("applied_hundredths"),
                (pl.col("won_h") / 100).alias("score"),
                (pl.col("expected_h") / 100).alias("expected"),
            )
        )
        computed.append(result)
        wave_sums = result.group_by("player_id").agg(pl.col("applied_hundredths").sum())
        carried = carried.join(wave_sums, on="player_id", how="left").select(
            "player_id",
            (pl.col("carried") + pl.col("applied_hundredths").fill_null(0)).alias("carried"),
        )
    uncounted = sequenced.filter(pl.col("wave").is_null()).with_columns(
        pl.col("frozen_rating").alias("own_rating"),
        pl.lit(0, dtype=pl.Int32).alias("games"),
        pl.lit(0.0).alias("score"),
        pl.lit(0.0).alias("expected"),
        pl.lit(0, dtype=pl.Int64).alias("raw_hundredths"),
        pl.lit(0, dtype=pl.Int64).alias("applied_hundredths"),
        pl.lit(0, dtype=pl.Int32).alias("capped_games"),
    )
    variations = pl.concat(
        [frame.select(VARIATION_COLUMNS) for frame in [*computed, uncounted]], how="vertical"
    ).sort("player_id", "tournament_id")
    return PeriodResult(ratings=_close(state, variations, era), variations=variations)


def _close(state: pl.DataFrame, variations: pl.DataFrame, era: EloEra) -> pl.DataFrame:
    """The list at the period close (§1.5): sum, rounding, FIDE in and out."""
    sums = variations.group_by("player_id").agg(
        pl.col("applied_hundredths").sum().alias("variation_hundredths"),
        pl.col("games").sum().cast(pl.Int32).alias("games"),
    )
    reentry = pl.lit(era.fide_minimum - 1, dtype=pl.Int32)
    return (
        state.join(sums, on="player_id", how="left")
        .with_columns(
            pl.col("variation_hundredths").fill_null(0),
            pl.col("games").fill_null(0),
        )
        .with_columns(
            round_half_away(pl.col("variation_hundredths")).alias("period_change"),
            (pl.col("total_games") + pl.col("games")).cast(pl.Int32).alias("total_games"),
        )
        .with_columns(
            pl.when(pl.col("fide_close").is_not_null())
            .then(pl.col("fide_close"))
            .when(pl.col("fide_start").is_not_null())
            .then(reentry)
            .otherwise(pl.col("frozen_rating") + pl.col("period_change"))
            .cast(pl.Int32)
            .alias("rating"),
            pl.when(pl.col("fide_close").is_not_null())
            .then(pl.lit("fide"))
            .otherwise(pl.lit("elo_italia"))
            .alias("rating_type"),
        )
        .select(RATING_COLUMNS)
        .sort("player_id")
    )
