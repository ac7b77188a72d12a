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
# Optional player columns (null when absent): a newcomer's rating taken from another list under
# the era's entry precedence (Elo Rapid), and which list it came from.
ENTRY_RATING_COLUMNS: dict[str, pl.DataType] = {
    "entry_rating": pl.Int32(),
    "entry_basis": pl.Utf8(),
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


def with_entry_ratings(players: pl.DataFrame) -> pl.DataFrame:
    """The player frame with the optional entry-rating columns (null where not given)."""
    missing = [
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in ENTRY_RATING_COLUMNS.items()
        if name not in players.columns
    ]
    return players.with_columns(missing) if missing else players


def frozen_ratings(players: pl.DataFrame, era: EloEra) -> pl.DataFrame:
    """The rating each player carries into the period's games, why, and his K (§1.2, §1.4, §2).

    In an era where FIDE holders leave the list (Elo Italia) a FIDE rating wins; otherwise
    (Elo Rapid) a FIDE rating only reaches a newcomer through ``entry_rating``.
    """
    players = with_entry_ratings(players)
    if not era.fide_holders_leave_list:
        players = players.with_columns(
            pl.lit(None, dtype=pl.Int32).alias("fide_start"),
            pl.lit(None, dtype=pl.Int32).alias("fide_close"),
            pl.lit(False).alias("on_list_as_fide"),
        )
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
    listed = (
        pl.max_horizontal("list_rating", "arbiter_rating")
        if era.arbiter_raises_listed
        else pl.col("list_rating")
    )
    frozen = (
        pl.when(pl.col("fide_start").is_not_null())
        .then(pl.col("fide_start"))
        .when(pl.col("list_rating").is_not_null())
        .then(listed)
        .when(pl.col("on_list_as_fide"))
        .then(reentry)
        .when(pl.col("arbiter_rating").is_not_null())
        .then(pl.col("arbiter_rating"))
        .when(pl.col("entry_rating").is_not_null())
        .then(pl.col("entry_rating"))
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
        .when(pl.col("entry_rating").is_not_null())
        .then(pl.col("entry_basis").fill_null("entry"))
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


def expected_lookup(era: EloEra) -> pl.Series:
    """We of the higher-rated player (hundredths) for every |D| up to the last band start."""
    last_start = era.expected_bands[-1][0]
    scores: list[int] = []
    ends = [start for start, _ in era.expected_bands[1:]] + [last_start + 1]
    for (start, score), end in zip(era.expected_bands, ends, strict=True):
        scores.extend([score] * (end - start))
    return pl.Series("expected", scores, dtype=pl.Int64)


def _positions(frame: pl.DataFrame, column: str, index: pl.DataFrame, name: str) -> pl.DataFrame:
    """Add ``name``: the row of ``index`` whose key equals ``column`` (checked: never null)."""
    keyed = frame.join(index.rename({"key": column, "position": name}), on=column, how="left")
    if keyed.get_column(name).null_count():
        missing = keyed.filter(pl.col(name).is_null()).get_column(column)[0]
        raise ValueError(f"{column} {missing!r} is not among the period's players")
    return keyed


def _sequence(entries: pl.DataFrame, era: EloEra) -> pl.DataFrame:
    """Number each player's tournaments that have counted games and put them in waves (§1.4):
    by end date, start date and id; wave w holds tournaments w*size+1 .. (w+1)*size."""
    ordered = entries.with_row_index("_row").sort(
        ["p", "end_date", "start_date", "tournament_id"], nulls_last=True
    )
    sequence = pl.col("has_counted").cast(pl.Int32).cum_sum().over("p")
    numbered = ordered.with_columns(
        pl.when(pl.col("has_counted")).then(sequence).otherwise(None).alias("sequence")
    ).with_columns(
        pl.when(pl.col("has_counted") & pl.col("grouped"))
        .then((pl.col("sequence") - 1) // era.group_size)
        .when(pl.col("has_counted"))
        .then(0)
        .otherwise(None)
        .cast(pl.Int32)
        .alias("wave")
    )
    return numbered.sort("_row").drop("_row")


def compute_period(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame, era: EloEra
) -> PeriodResult:
    """Variations of every (tournament, player) and the new rating of every player.

    Players, entries and games are addressed by row position after one join each, so every
    lookup afterwards (a rating, a K, an entry's wave) is a gather, not a join.
    """
    state = frozen_ratings(players, era)
    player_index = state.select(
        pl.col("player_id").alias("key"), pl.int_range(pl.len(), dtype=pl.Int32).alias("position")
    )
    frozen = state.get_column("frozen_rating").cast(pl.Int64)
    is_fide = state.get_column("is_fide")
    k = state.get_column("k").cast(pl.Int64)
    grouped = state.get_column("grouped")

    placed = _positions(entries, "player_id", player_index, "p").with_columns(
        (pl.col("points") == pl.col("points").max().over("tournament_id"))
        .fill_null(False)
        .alias("is_winner"),
        pl.int_range(pl.len(), dtype=pl.Int32).alias("e"),
    )
    # one join gives each game its entry (tournament, player) and the player's position
    on_entries = games.join(
        placed.select("tournament_id", "player_id", "e", "p"),
        on=["tournament_id", "player_id"],
        how="left",
    )
    if on_entries.get_column("e").null_count():
        stray = on_entries.filter(pl.col("e").is_null()).row(0, named=True)
        raise ValueError(
            f"a game of {stray['player_id']!r} in {stray['tournament_id']!r} has no entry"
        )
    counted = (
        _positions(on_entries, "opponent_id", player_index, "o")
        # §1.3: a FIDE-rated player's games count only for his opponent
        .filter(~pl.lit(is_fide).gather(pl.col("p")))
        .select(
            "e",
            "p",
            (pl.col("score") * 100).round().cast(pl.Int64).alias("won"),
            pl.lit(frozen).gather(pl.col("o")).alias("opponent_rating"),
        )
    )
    counted_entries = counted.get_column("e").unique()
    sequenced = _sequence(
        placed.with_columns(
            pl.col("e").is_in(counted_entries.implode()).alias("has_counted"),
            pl.lit(grouped).gather(pl.col("p")).alias("grouped"),
        ),
        era,
    )
    wave_of_game = counted.with_columns(
        pl.lit(sequenced.get_column("wave")).gather(pl.col("e")).alias("wave")
    )
    lookup = expected_lookup(era)
    last_start = lookup.len() - 1
    carried = pl.Series("carried", [0] * state.height, dtype=pl.Int64)
    per_entry = []
    waves = sequenced.get_column("wave").drop_nulls()
    for wave in range(int(waves.max()) + 1 if waves.len() else 0):  # waves, not players
        own = pl.lit(frozen).gather(pl.col("p")) + _rounded(pl.lit(carried).gather(pl.col("p")))
        difference = own - pl.col("opponent_rating")
        absolute = difference.abs()
        if era.difference_cap > 0:
            absolute = absolute.clip(upper_bound=era.difference_cap)
        higher = pl.lit(lookup).gather(absolute.clip(upper_bound=last_start))
        sums = (
            wave_of_game.filter(pl.col("wave") == wave)
            .with_columns(
                pl.when(difference >= 0).then(higher).otherwise(100 - higher).alias("expected_h"),
                (pl.lit(era.difference_cap > 0) & (difference.abs() > era.difference_cap)).alias(
                    "capped"
                ),
                own.alias("own_rating"),
            )
            .group_by("e")
            .agg(
                pl.col("p").first(),
                pl.col("own_rating").first(),
                pl.len().cast(pl.Int32).alias("games"),
                pl.col("won").sum().alias("won_h"),
                pl.col("expected_h").sum(),
                pl.col("capped").sum().cast(pl.Int32).alias("capped_games"),
            )
            .with_columns(
                ((pl.col("won_h") - pl.col("expected_h")) * pl.lit(k).gather(pl.col("p"))).alias(
                    "raw_hundredths"
                ),
                pl.lit(sequenced.get_column("is_winner")).gather(pl.col("e")).alias("_winner"),
            )
            .with_columns(
                pl.when(pl.col("_winner") & (pl.col("raw_hundredths") < 0))
                .then(0)
                .otherwise(pl.col("raw_hundredths"))
                .alias("applied_hundredths")
            )
        )
        per_entry.append(sums)
        by_player = sums.group_by("p").agg(pl.col("applied_hundredths").sum())
        carried = carried.scatter(
            by_player.get_column("p"),
            carried.gather(by_player.get_column("p")) + by_player.get_column("applied_hundredths"),
        )
    results = (
        pl.concat(per_entry)
        if per_entry
        else pl.DataFrame(
            schema={
                "e": pl.Int32,
                "own_rating": pl.Int64,
                "games": pl.Int32,
                "won_h": pl.Int64,
                "expected_h": pl.Int64,
                "capped_games": pl.Int32,
                "raw_hundredths": pl.Int64,
                "applied_hundredths": pl.Int64,
            }
        )
    )
    variations = (
        sequenced.join(results.drop("p", "_winner", strict=False), on="e", how="left")
        .with_columns(
            pl.coalesce(pl.col("own_rating"), pl.lit(frozen).gather(pl.col("p")))
            .cast(pl.Int32)
            .alias("own_rating"),
            pl.col("games").fill_null(0),
            (pl.col("won_h").fill_null(0) / 100).alias("score"),
            (pl.col("expected_h").fill_null(0) / 100).alias("expected"),
            pl.lit(k).gather(pl.col("p")).cast(pl.Int32).alias("k"),
            pl.col("raw_hundredths").fill_null(0),
            pl.col("applied_hundredths").fill_null(0),
            pl.col("capped_games").fill_null(0),
        )
        .select(VARIATION_COLUMNS)
        .sort("player_id", "tournament_id")
    )
    return PeriodResult(ratings=_close(state, variations, era), variations=variations)


def _rounded(hundredths: pl.Expr) -> pl.Expr:
    magnitude = (hundredths.abs() + 50) // 100
    return pl.when(hundredths < 0).then(-magnitude).otherwise(magnitude)


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
            .otherwise(pl.lit(era.system))
            .alias("rating_type"),
        )
        .select(RATING_COLUMNS)
        .sort("player_id")
    )
