"""One rating period of an FSI Elo list (Elo Italia, and Elo Rapid through its own rulebook).

Ratings are frozen for the whole period (RULES.md §1.1), so every game of the period is one set
operation; the only sequential part is the "more than 4 tournaments" rule, whose groups are
processed as waves (wave w needs the rounded sum of waves before it). Scores are fixed-point
integers (``POINT`` units to a point): the FIDE table's hundredths are whole numbers of units, so
every sum and rounding of a table method is exact, and the logistic method's unrounded
expectations are kept to a billionth of a point.

Inputs (see ``PLAYER_COLUMNS`` etc.):
- players: one row per player relevant to the period (previous list and participants);
- entries: one row per (tournament, player) with tournament points and dates;
- games: one row per player per game played over the board, both sides' view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import polars as pl

from transforms.elo.expected import expected_table, higher_rated_expected
from transforms.elo.rulebook import EloEra

# A period's frames are small (tens of thousands of rows): Polars' in-memory engine runs their
# queries about twice as fast as the default streaming engine, whose start-up per query
# dominates at this size (measured with bench/recalc_benchmark.py).
PERIOD_ENGINE = "in-memory"
# ... and with the planner's optimisations off: the period's queries are written as they
# should run, and on frames this small the planning cost more than it saved (about 6 % of a
# period, measured period by period against the default). That includes the search for shared
# subplans: what the queries of one collect_all share is a few expressions on the entries,
# cheaper evaluated twice than found (4 % of a period, issue 33).
PERIOD_OPTIMIZATIONS = pl.QueryOptFlags.none()

# One point in the engine's fixed-point units: scores, expectations and variations are integers
# of these. A table's hundredth is a whole number of them; a logistic expectation is rounded to
# one (a billionth of a point, far below anything a rounding of the period sum can see).
POINT = 1_000_000_000
HUNDREDTH = POINT // 100

# Eras whose expressions are kept built (a process sees a rulebook's few eras, or a test's)
ERAS_KEPT = 32
T = TypeVar("T")

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
    # for a player not on the previous list whose FIDE rating the registry lost at or before
    # the period start (§1.5): the FIDE minimum - 1 he re-entered at
    "fide_reentry_rating": pl.Int32(),
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
    "k_rule",
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
    "k_rule",
    "raw_hundredths",
    "applied_hundredths",
    "is_winner",
    "capped_games",
    "uncounted_games",  # played but not counted: the player was FIDE-rated (§1.3)
]


@dataclass(frozen=True)
class PeriodResult:
    ratings: pl.DataFrame  # RATING_COLUMNS, one row per input player
    variations: pl.DataFrame  # VARIATION_COLUMNS, one row per input entry


def round_half_away(hundredths: pl.Expr) -> pl.Expr:
    """Hundredths to a whole number, halves away from zero (exact integer arithmetic)."""
    return round_units(hundredths, 100, "half_away_from_zero").cast(pl.Int32)


def round_units(amount: pl.Expr, unit: int, mode: str) -> pl.Expr:
    """An integer ``amount`` of 1/``unit`` to a whole number of ``unit``, by the rounding
    ``mode`` (one of ``transforms.elo.rulebook.ROUNDING_MODES``), in exact integer arithmetic."""
    if mode == "half_even":
        floor = amount // unit
        twice_rest = (amount - floor * unit) * 2
        odd = floor - (floor // 2) * 2
        return (
            pl.when(twice_rest > unit)
            .then(floor + 1)
            .when(twice_rest == unit)
            .then(floor + odd)
            .otherwise(floor)
        )
    half = unit // 2 if mode == "half_away_from_zero" else 0
    if mode not in ("half_away_from_zero", "toward_zero"):
        raise ValueError(f"unknown rounding mode {mode!r}")
    magnitude = (amount.abs() + half) // unit
    return pl.when(amount < 0).then(-magnitude).otherwise(magnitude)


def units_to_hundredths(units: pl.Expr) -> pl.Expr:
    """Fixed-point units to whole hundredths of a point, halves away from zero (exact for the
    table methods, whose values are whole hundredths)."""
    return round_units(units, HUNDREDTH, "half_away_from_zero")


def per_era(build: Callable[[EloEra], T]) -> Callable[[EloEra], T]:
    """``build(era)`` once per era object, not once per period: the expressions a period's
    queries use depend on the era only, and building them again for every period cost about
    6 % of the engine's time (measured on the national benchmark's 91 periods). Keyed by the
    era object itself (eras hold dicts: they do not hash), holding it so its id cannot be
    reused."""
    built: dict[int, tuple[EloEra, T]] = {}

    def cached(era: EloEra) -> T:
        hit = built.get(id(era))
        if hit is not None and hit[0] is era:
            return hit[1]
        if len(built) >= ERAS_KEPT:
            built.clear()
        value = build(era)
        built[id(era)] = (era, value)
        return value

    return cached


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
    return _frozen_state(players, era).collect(
        engine=PERIOD_ENGINE, optimizations=PERIOD_OPTIMIZATIONS
    )


def _frozen_state(players: pl.DataFrame, era: EloEra, *, closed: bool = False) -> pl.LazyFrame:
    """The query of :func:`frozen_ratings`. With ``closed``, also the list at the close of a
    player without a counted game
    (``RATING_COLUMNS``, :func:`_closing_expressions`): most players of a period, whose close
    then needs no pass of its own (:func:`_closed` writes the others').
    """
    players = with_entry_ratings(players)
    ignored_fide, frozen, k_rule, k = _frozen_expressions(era)
    if ignored_fide:
        players = players.with_columns(ignored_fide)
    stages = [frozen, k_rule, k, [_grouped(era)], *(_closing_expressions(era) if closed else [])]
    if players.get_column("entry_basis").null_count() < players.height:
        # a basis the entry rating names (Elo Rapid's sources): the one string column zipped
        stages.append(
            [
                pl.when(
                    pl.col("entry_rating").is_not_null()
                    & (pl.col("rating_basis") == BASES[ENTRY_RATING_BASIS])
                )
                .then(pl.col("entry_basis").fill_null(BASES[ENTRY_RATING_BASIS]))
                .otherwise(pl.col("rating_basis"))
                .alias("rating_basis")
            ]
        )
    state = players.lazy()
    for stage in stages:
        state = state.with_columns(stage)
    return state


# Where a frozen rating comes from (``rating_basis``), by the index :func:`_frozen_expressions`
# gives it: the strings are gathered once from these, not zipped branch by branch (a chain of
# string branches cost a third of the frozen ratings). An entry rating's basis is named by the
# player's ``entry_basis`` where given.
BASES = pl.Series(
    "rating_basis",
    ["fide", "arbiter_reassignment", "list", "fide_reentry", "arbiter", "entry"],
    dtype=pl.Utf8,
)
ENTRY_RATING_BASIS = 5


@per_era
def _frozen_expressions(
    era: EloEra,
) -> tuple[list[pl.Expr], list[pl.Expr], list[pl.Expr], list[pl.Expr]]:
    """The FIDE columns an era ignores, then the frozen rating and its basis, the line of the
    K schedule, and K (:func:`frozen_ratings`)."""
    ignored_fide = (
        []
        if era.fide_holders_leave_list
        else [
            pl.lit(None, dtype=pl.Int32).alias("fide_start"),
            pl.lit(None, dtype=pl.Int32).alias("fide_close"),
            pl.lit(False).alias("on_list_as_fide"),
            pl.lit(None, dtype=pl.Int32).alias("fide_reentry_rating"),
        ]
    )
    # where the arbiter gives no free value (Elo Rapid, §2) his rating is no entry source
    arbiter = pl.col("arbiter_rating") if era.arbiter_entry else pl.lit(None, dtype=pl.Int32)
    # a newcomer's rating by his category (§1.2): a branch per category of the era, cheaper
    # than mapping the strings through a join (replace_strict), for every player
    newcomer = era.newcomer_ratings
    theoretical: pl.Expr = pl.lit(newcomer[era.unregistered_category], dtype=pl.Int32)
    for category, rating in newcomer.items():  # the era's categories, not the players
        theoretical = (
            pl.when(pl.col("category") == category)
            .then(pl.lit(rating, dtype=pl.Int32))
            .otherwise(theoretical)
        )
    reentry = pl.lit(era.fide_minimum - 1, dtype=pl.Int32)
    # read only where the list rating is there (a branch, not max_horizontal, whose null
    # handling cost three times as much on a period's players)
    listed = (
        pl.when(arbiter > pl.col("list_rating")).then(arbiter).otherwise(pl.col("list_rating"))
        if era.arbiter_raises_listed
        else pl.col("list_rating")
    )
    # the first source that holds a rating: one coalesce, not a chain of branches each
    # building the whole column again (``listed`` is null where the list rating is)
    frozen = pl.coalesce(
        pl.col("fide_start"),
        listed,
        pl.when(pl.col("on_list_as_fide")).then(reentry),
        pl.col("fide_reentry_rating"),
        arbiter,
        pl.col("entry_rating"),
        theoretical,
    ).cast(pl.Int32)
    basis = (
        pl.when(pl.col("fide_start").is_not_null())
        .then(0)
        .when(pl.col("list_rating").is_not_null() & (listed > pl.col("list_rating")))
        .then(1)
        .when(pl.col("list_rating").is_not_null())
        .then(2)
        .when(pl.col("on_list_as_fide") | pl.col("fide_reentry_rating").is_not_null())
        .then(3)
        .when(arbiter.is_not_null())
        .then(4)
        .otherwise(ENTRY_RATING_BASIS)
    )
    k, k_rule = _k_expressions(era)
    return (
        ignored_fide,
        [
            frozen.alias("frozen_rating"),
            pl.lit(BASES).gather(basis).alias("rating_basis"),
            pl.col("fide_start").is_not_null().alias("is_fide"),
            pl.col("total_games").fill_null(0),
        ],
        [k_rule.alias("k_rule")],
        [k.alias("k")],
    )


def _grouped(era: EloEra) -> pl.Expr:
    """Whether a player's tournaments go in groups (§1.4: from his K; null where K is)."""
    return (pl.lit(era.groups_enabled) & (pl.col("k") >= era.group_min_k)).alias("grouped")


def _k_expressions(era: EloEra) -> tuple[pl.Expr, pl.Expr]:
    """The K of each player and the index of the schedule line that gave it (§1.4): the
    first line whose condition holds, on the frozen rating and the counted games before the
    period. One chain gives the line; its K is read from the schedule's (the registry's own
    K on a registry line)."""
    line: pl.Expr = pl.lit(None, dtype=pl.Int8)
    registry: int | None = None
    for index, rule in reversed(list(enumerate(era.k.rules))):
        if rule.condition == "registry":
            registry = index if registry is None else min(registry, index)
            holds = pl.col("k_override").is_not_null()
        else:
            holds = {
                None: pl.lit(True),
                "games_below": pl.col("total_games").fill_null(0) < (rule.threshold or 0),
                "rating_at_least": pl.col("frozen_rating") >= (rule.threshold or 0),
                "rating_below": pl.col("frozen_rating") < (rule.threshold or 0),
            }[rule.condition]
        line = pl.when(holds).then(pl.lit(index, dtype=pl.Int8)).otherwise(line)
    given = pl.Series([rule.k for rule in era.k.rules], dtype=pl.Int32)
    k = pl.lit(given).gather(pl.col("k_rule"))
    if registry is not None:
        k = pl.when(pl.col("k_rule") == registry).then(pl.col("k_override")).otherwise(k)
    return k.cast(pl.Int32), line


# Integer keys the engine works on. The warehouse read assigns them once per history; a caller
# with string ids only gets them from ``with_keys``. ``entry_key`` numbers the entries in
# (player_id, tournament_id) order, so ordering entries by it is ordering them by those ids.
KEY_COLUMNS: dict[str, dict[str, pl.DataType]] = {
    "players": {"player_code": pl.Int32()},
    "entries": {"entry_key": pl.Int64(), "player_code": pl.Int32()},
    "games": {"entry_key": pl.Int64(), "player_code": pl.Int32(), "opponent_code": pl.Int32()},
}
# With the keys, a game needs no player ids (a history holds millions of games; the ids are on
# the entries)
KEYED_GAME_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "score": pl.Float64(),
    **KEY_COLUMNS["games"],
}


def _carries_keys(frame: pl.DataFrame, kind: str) -> bool:
    return set(KEY_COLUMNS[kind]) <= set(frame.columns)


def has_keys(players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame) -> bool:
    frames = {"players": players, "entries": entries, "games": games}
    return all(_carries_keys(frame, kind) for kind, frame in frames.items())


def engine_frames(entries: pl.DataFrame, games: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A period's entries and games cut to the engine's columns, with the integer keys when
    the warehouse read gave them."""
    keyed = _carries_keys(entries, "entries") and _carries_keys(games, "games")
    entry_columns = {**ENTRY_COLUMNS, **(KEY_COLUMNS["entries"] if keyed else {})}
    game_columns = KEYED_GAME_COLUMNS if keyed else GAME_COLUMNS
    return (
        entries.select(list(entry_columns)).cast(entry_columns),  # type: ignore[arg-type]
        games.select(list(game_columns)).cast(game_columns),  # type: ignore[arg-type]
    )


def with_keys(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The integer keys of a period given by string ids: a code per player (his row), a key per
    entry (in player, tournament order), and both on every game. Refuses a game or an entry
    that points nowhere."""
    _refuse_twice(entries, "tournament_id", "player_id")
    codes = players.select("player_id", pl.int_range(pl.len(), dtype=pl.Int32).alias("player_code"))
    keyed_entries = entries.drop(KEY_COLUMNS["entries"], strict=False).join(
        codes, on="player_id", how="left"
    )
    _refuse_nulls(keyed_entries, "player_code", "player_id")
    keyed_entries = keyed_entries.sort("player_id", "tournament_id").with_columns(
        pl.int_range(pl.len(), dtype=pl.Int64).alias("entry_key")
    )
    keyed_games = games.drop(KEY_COLUMNS["games"], strict=False).join(
        keyed_entries.select("tournament_id", "player_id", "entry_key", "player_code"),
        on=["tournament_id", "player_id"],
        how="left",
    )
    if keyed_games.get_column("entry_key").null_count():
        stray = keyed_games.filter(pl.col("entry_key").is_null()).row(0, named=True)
        raise ValueError(
            f"a game of {stray['player_id']!r} in {stray['tournament_id']!r} has no entry"
        )
    keyed_games = keyed_games.join(
        codes.rename({"player_id": "opponent_id", "player_code": "opponent_code"}),
        on="opponent_id",
        how="left",
    )
    _refuse_nulls(keyed_games, "opponent_code", "opponent_id")
    # in entry key order, as the warehouse read gives them (:func:`in_entry_order`)
    keyed_games = in_entry_order(keyed_games)
    return players.with_columns(codes.get_column("player_code")), keyed_entries, keyed_games


def in_entry_order(games: pl.DataFrame) -> pl.DataFrame:
    """``games`` sorted by ``entry_key`` (the rows of one key in their order), with the column
    flagged sorted: the order in which the engine sums them fastest (:func:`_summed_by_entry`).

    The sort is of one integer per game, the key above the row number, whose low bits then
    give the permutation: a fraction of sorting the frame by the key (which moves every
    column, the tournament ids' strings with them) or of an arg_sort. Where the two do not fit
    in 62 bits (keys far apart at millions of games) the frame is sorted by the key."""
    keys = games.get_column("entry_key")
    if keys.is_sorted():
        return games.with_columns(pl.col("entry_key").set_sorted())
    lowest, highest = keys.min(), keys.max()
    row_bits = max(games.height - 1, 1).bit_length()
    if lowest is None or (int(highest) - int(lowest)).bit_length() + row_bits > 62:  # type: ignore[arg-type]
        return games.sort("entry_key", maintain_order=True)
    rows = pl.int_range(games.height, dtype=pl.Int64, eager=True)
    # one thread: the warehouse read sorts on its own thread, beside the engine
    packed = ((keys - lowest) * 2**row_bits + rows).sort(multithreaded=False)
    ordered = games.gather(packed % 2**row_bits)
    return ordered.with_columns(pl.col("entry_key").set_sorted())


def key_seated_games(games: pl.DataFrame, entries: pl.DataFrame) -> pl.DataFrame:
    """Games given by seat (``tournament_code``, ``start_number``, ``opponent``: start numbers)
    with the engine's keys of both sides, read from the entries sitting there (which carry
    ``tournament_code``, ``start_number``, ``entry_key`` and ``player_code``).

    Every seat of every tournament gets a row number (the tournament's offset plus the start
    number), so a game finds both sides by ``gather``: at millions of games this is a fraction
    of the two joins it replaces. A game whose seat or opponent's seat holds no entry is
    dropped, as an inner join would. Drops the seat columns.
    """
    tournaments = _code_range(
        entries.get_column("tournament_code"), games.get_column("tournament_code")
    )
    widest = entries.group_by("tournament_code").agg(pl.col("start_number").max())
    width = (
        _spread(
            [(widest.get_column("start_number").cast(pl.Int64) + 1).alias("width")],
            widest.get_column("tournament_code"),
            tournaments,
        )
        .get_column("width")
        .fill_null(0)
    )
    offset = (width.cum_sum() - width).alias("offset")
    seats = int(width.sum())

    def seat(tournament: pl.Expr, number: pl.Expr) -> pl.Expr:
        inside = (number >= 0) & (number < pl.lit(width).gather(tournament))
        return pl.when(inside).then(pl.lit(offset).gather(tournament) + number)

    at_seat = entries.select(
        seat(pl.col("tournament_code"), pl.col("start_number").cast(pl.Int64)).alias("seat"),
        "entry_key",
        "player_code",
    ).drop_nulls("seat")
    by_seat = _spread(
        [at_seat.get_column("entry_key"), at_seat.get_column("player_code")],
        at_seat.get_column("seat"),
        seats,
    )
    return (
        games.lazy()
        .with_columns(
            seat(pl.col("tournament_code"), pl.col("start_number").cast(pl.Int64)).alias("_own"),
            seat(pl.col("tournament_code"), pl.col("opponent").cast(pl.Int64)).alias("_other"),
        )
        .with_columns(
            pl.lit(by_seat.get_column("entry_key")).gather(pl.col("_own")).alias("entry_key"),
            pl.lit(by_seat.get_column("player_code")).gather(pl.col("_own")).alias("player_code"),
            pl.lit(by_seat.get_column("player_code"))
            .gather(pl.col("_other"))
            .alias("opponent_code"),
        )
        .drop("_own", "_other", "tournament_code", "start_number", "opponent")
        .drop_nulls(["entry_key", "opponent_code"])
        .collect()
    )


def _refuse_nulls(frame: pl.DataFrame, code: str, named_by: str) -> None:
    if frame.get_column(code).null_count():
        missing = frame.filter(pl.col(code).is_null()).get_column(named_by)[0]
        raise ValueError(f"{named_by} {missing!r} is not among the period's players")


def _by_code(state: pl.DataFrame, size: int) -> pl.DataFrame:
    """The players' frozen state in a frame whose row number is the player code, so a game
    reads its player's or opponent's state by ``gather`` (no join per game). A code that no
    player of the period has is a row of nulls."""
    codes = state.get_column("player_code")
    columns = [
        state.get_column("frozen_rating").alias("frozen"),
        state.get_column("is_fide"),
        state.get_column("k").cast(pl.Int64),
        state.get_column("k_rule"),
        pl.int_range(state.height, dtype=pl.UInt32, eager=True).alias("_row"),  # in state
    ]
    if codes.null_count():
        coded = codes.is_not_null()
        codes = codes.filter(coded)
        columns = [column.filter(coded) for column in columns]
    if codes.len() == size and codes.equals(pl.int_range(size, dtype=codes.dtype, eager=True)):
        # the players come in code order, every code once (the warehouse read numbers them
        # in player_id order, as the list gives them): they are the frame as they stand
        return pl.DataFrame(columns)
    by_code = _spread(columns, codes, size)
    # every player has a frozen rating: a code with two players lost one of them to the other
    if size - by_code.get_column("frozen").null_count() != codes.len():
        raise ValueError("two players of the period share a player code")
    return by_code


def _state_by_code(state: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """:func:`_by_code` of the players' ``state``, as many rows as the period's largest code
    (of a player, an entry or either side of a game) needs."""
    size = _code_range(
        state.get_column("player_code"),
        entries.get_column("player_code"),
        games.get_column("player_code"),
        games.get_column("opponent_code"),
    )
    return _by_code(state, size)


def _spread(columns: list[pl.Series], at: pl.Series, size: int) -> pl.DataFrame:
    """The columns' values placed at the rows given by ``at`` in a frame of ``size`` rows,
    null elsewhere: scatters into null columns, far cheaper than a join (and the null columns
    come from a one-row series, no query)."""
    return pl.DataFrame(
        [
            pl.Series(column.name, [None], dtype=column.dtype)
            .new_from_index(0, size)
            .scatter(at, column)
            for column in columns
        ]
    )


def _code_range(*codes: pl.Series) -> int:
    """One more than the largest player code anywhere in the period (0 when there is none)."""
    largest = [column.max() for column in codes if column.len()]
    present = [int(value) for value in largest if value is not None]  # type: ignore[arg-type]
    return max(present) + 1 if present else 0


def _at(by_code: pl.DataFrame, column: str, code: str) -> pl.Expr:
    """``column`` of the player whose code is in ``code``."""
    return pl.lit(by_code.get_column(column)).gather(pl.col(code))


def _expected_sums(
    games: pl.LazyFrame, own: pl.Expr, era: EloEra, key: str = "entry_key"
) -> pl.LazyFrame:
    """Per entry (``key``): games, points won and expected (fixed-point units), capped games.

    The per-game methods value each game at its difference; the average-opponent method
    values the entry once, at the difference from its opponents' average rating. In stages,
    each column computed once: one expression reusing the difference costs about twice as much
    on a period's games."""
    if era.expected_method == "average_opponent":
        per_entry, stages = _average_opponent_expressions(era)
        frame = games.with_columns(own.alias("_own")).group_by(key).agg(per_entry)
        for stage in stages:
            frame = frame.with_columns(stage)
        return frame.select(key, "games", "won_units", "expected_units", "capped_games")
    stages, sums = _per_game_expressions(era)
    frame = games.with_columns((own - pl.col("opponent_rating")).alias("_difference"))
    for stage in stages:
        frame = frame.with_columns(stage)
    return frame.group_by(key).agg(sums)


def _valued_at_difference(era: EloEra, games: pl.Expr) -> list[list[pl.Expr]]:
    """The stages giving ``expected_units`` and ``capped`` from ``_difference`` (own minus the
    opponent, or minus the opponents' average) for ``games`` games, by the era's method."""
    cap = era.difference_cap
    capped = (pl.lit(cap > 0) & (pl.col("_difference").abs() > cap)).alias("capped")
    if era.expected_method == "logistic":
        difference = pl.col("_difference").cast(pl.Float64)
        if cap > 0:
            difference = difference.clip(-cap, cap)
        chance = 1.0 / (1.0 + pl.lit(10.0).pow(-difference / 400.0))
        return [[(chance * POINT).round().cast(pl.Int64).alias("expected_units"), capped]]
    higher = higher_rated_expected(
        pl.col("_difference").abs(), expected_table(era.expected_bands), cap
    ).alias("_higher")
    own_side = (
        pl.when(pl.col("_difference") >= 0)
        .then(pl.col("_higher"))
        .otherwise(100 - pl.col("_higher"))
    )
    return [[higher], [(own_side * HUNDREDTH * games).alias("expected_units"), capped]]


@per_era
def _per_game_expressions(era: EloEra) -> tuple[list[list[pl.Expr]], list[pl.Expr]]:
    """The stages of :func:`_expected_sums` after the difference, for a per-game method: the
    expected score read from the era's table by difference (:func:`expected_by_difference`,
    the same expressions evaluated once per era on every difference: one gather a game
    instead of the table's bands, the cap and the side, or the logistic curve), and the sums
    by entry."""
    limit, table = expected_by_difference(era)
    cap = era.difference_cap
    difference = pl.col("_difference")
    stages = [
        [
            pl.lit(table.get_column("expected_units"))
            .gather(difference.clip(-limit, limit) + limit)
            .alias("expected_units"),
            (pl.lit(cap > 0) & (difference.abs() > cap)).alias("capped"),
        ]
    ]
    sums = [
        pl.len().cast(pl.Int32).alias("games"),
        pl.col("won").sum().alias("won_units"),
        pl.col("expected_units").sum(),
        pl.col("capped").sum().cast(pl.Int32).alias("capped_games"),
    ]
    return stages, sums


@per_era
def _average_opponent_expressions(era: EloEra) -> tuple[list[pl.Expr], list[list[pl.Expr]]]:
    """The sums per entry, then the stages valuing it once: the opponents' average rating,
    rounded to a whole number with halves up, against the player's own rating; the expected
    score of that difference times the games (FIDE's older method)."""
    per_entry = [
        pl.len().cast(pl.Int32).alias("games"),
        pl.col("won").sum().alias("won_units"),
        pl.col("_own").first(),
        pl.col("opponent_rating").sum().alias("_opponents"),
    ]
    # ratings are positive: the average rounded with halves up is floor((2 sum + n) / 2n)
    average = (2 * pl.col("_opponents") + pl.col("games")) // (2 * pl.col("games"))
    stages = [
        [(pl.col("_own") - average).alias("_difference")],
        *_valued_at_difference(era, pl.col("games")),
        [(pl.col("capped").cast(pl.Int32) * pl.col("games")).alias("capped_games")],
    ]
    return per_entry, stages


def _entry_order(entries: pl.DataFrame, era: EloEra) -> pl.LazyFrame:
    """What the entries alone give, in their order: first place (``is_winner``), the turn
    (``_turn``, ``_turn_player``: :func:`_turn_stages`) and the first row of each player in
    turn order (``_first``, 1 there); the turn's inverse is added after (:func:`_with_back`)."""
    player = pl.col("_turn_player")
    order = entries.lazy().select("player_code", "end_date", "start_date", "entry_key", _IS_WINNER)
    for stage in _turn_stages(entries, era):
        order = order.with_columns(stage)
    return order.select(
        "is_winner",
        "_turn",
        "_turn_player",
        player.ne_missing(player.shift(1)).cast(pl.Int64).alias("_first"),
    )


def _with_back(order: pl.DataFrame) -> pl.DataFrame:
    """``order`` with the inverse of the turn (``_back``): a scatter of the rows at their
    turns, a fraction of the sort an arg_sort of the turn costs."""
    turn = order.get_column("_turn")
    rows = pl.int_range(turn.len(), dtype=pl.UInt32, eager=True)
    # a column added to the frame as it stands (a with_columns is a query)
    return order.hstack([rows.clone().scatter(turn, rows).alias("_back")])


def _turn_stages(entries: pl.DataFrame, era: EloEra) -> list[list[pl.Expr]]:
    """The stages giving ``_turn`` (the rows in (player, tournament order) order, §1.4) and
    ``_turn_player`` (each of those rows' player code), on rows in entry key order.

    The order is one integer per entry where it fits in 62 bits (it does but for periods of
    odd dates): the player code, then the era's date columns (a null date after every date),
    then the row (the entry key follows the tournament id within a player), each a field as
    wide as the period's values need. Sorted, its fields give both columns: a third of the cost
    of sorting by the four columns, which is the way when it does not fit."""
    codes = entries.get_column("player_code")
    lowest_code = codes.min()
    row_bits = max(entries.height - 1, 1).bit_length()
    below_player = row_bits
    fields: list[tuple[pl.Expr, int]] = []
    for column in era.tournament_order[:-1]:
        # the physical integers (days for a date) by a cast: to_physical would be a query
        days = entries.get_column(column).cast(pl.Int64)
        lowest, highest = days.min(), days.max()
        span = 0 if lowest is None else int(highest) - int(lowest) + 1  # type: ignore[arg-type]
        offset = pl.col(column).to_physical().cast(pl.Int64) - int(lowest or 0)  # type: ignore[arg-type]
        fields.append((offset.fill_null(span), span.bit_length()))
        below_player += span.bit_length()
    if (
        lowest_code is None
        or era.tournament_order[-1] != "tournament_id"
        or (int(codes.max()) - int(lowest_code)).bit_length() + below_player > 62  # type: ignore[arg-type]
    ):
        columns = [c if c != "tournament_id" else "entry_key" for c in era.tournament_order]
        return [
            [pl.arg_sort_by(["player_code", *columns], nulls_last=True).alias("_turn")],
            [pl.col("player_code").gather(pl.col("_turn")).alias("_turn_player")],
        ]
    key = pl.col("player_code").cast(pl.Int64) - int(lowest_code)  # type: ignore[arg-type]
    for offset, bits in fields:
        key = key * 2**bits + offset
    key = key * 2**row_bits + pl.int_range(pl.len(), dtype=pl.Int64)
    return [
        [key.sort().alias("_turn")],
        [
            (pl.col("_turn") // 2**below_player + int(lowest_code)).alias("_turn_player"),  # type: ignore[arg-type]
            # row numbers as gathers take them (no conversion of the index at each gather)
            (pl.col("_turn") % 2**row_bits).cast(pl.UInt32),
        ],
    ]


@per_era
def _sequence_stages(era: EloEra) -> list[list[pl.Expr]]:
    """Number each player's tournaments that have counted games (or all of them, as the era
    says) and put them in waves (§1.4): wave w holds tournaments w*size+1 .. (w+1)*size. The
    numbering runs in turn order (``_turn``, ``_first``: :func:`_entry_order`) as a running
    count less the count before the player's first row, and comes back by the inverse turn
    (``_back``; a window per player, or sorting the frame there and back, cost far more)."""
    numbered = pl.col("games").is_not_null() | pl.lit(era.group_counts_tournaments_without_games)
    running, ones = pl.col("_running"), pl.col("_ones")
    return [
        [numbered.gather(pl.col("_turn")).cast(pl.Int64).alias("_ones")],
        [ones.cum_sum().alias("_running")],
        [
            # the count before the player's first row, carried down his rows: running counts
            # never fall, so the latest player start is the largest so far
            pl.when(ones == 1)
            .then(running - ((running - ones) * pl.col("_first")).cum_max())
            .gather(pl.col("_back"))
            .cast(pl.Int32)
            .alias("sequence")
        ],
        [
            # a player whose tournaments do not go in groups plays them all in wave 0
            ((pl.col("sequence") - 1) // era.group_size * pl.col("grouped").cast(pl.Int32))
            .cast(pl.Int32)
            .alias("wave")
        ],
    ]


def _protected(raw: pl.Expr, era: EloEra) -> pl.Expr:
    """An entry's variation after winner protection (§1.4), where the era applies it."""
    if not era.winner_protection:
        return raw
    return pl.when(pl.col("is_winner") & (raw < 0)).then(0).otherwise(raw)


def _own_rating_stages(era: EloEra, wave: int) -> list[list[pl.Expr]]:
    """:func:`_own_rating_expressions`, built once per era and wave (every period asks for
    the first later wave's)."""
    built = _own_rating_waves(era)
    if wave not in built:
        built[wave] = _own_rating_expressions(era, wave)
    return built[wave]


@per_era
def _own_rating_waves(era: EloEra) -> dict[int, list[list[pl.Expr]]]:
    """The stages of :func:`_own_rating_stages` built so far for ``era``, by wave."""
    return {}


def _own_rating_expressions(era: EloEra, wave: int) -> list[list[pl.Expr]]:
    """The own rating of each row of ``wave`` (``_own``; other rows: anything): the frozen
    rating plus the rounded sum of what the player's rows of the earlier waves applied (§1.4,
    winner protection applied), a running sum in turn order less the sum before the player's
    first row (his rows of the earlier waves come before his rows of this one)."""
    raw = (pl.col("won_units") - pl.col("expected_units")).fill_null(0) * pl.col("k")
    earlier, running = pl.col("_earlier"), pl.col("_running")
    before_player = pl.when(pl.col("_first") == 1).then(running - earlier).forward_fill()
    return [
        [
            pl.when(pl.col("wave") < wave)
            .then(_protected(raw, era))
            .otherwise(0)
            .gather(pl.col("_turn"))
            .alias("_earlier")
        ],
        [earlier.cum_sum().alias("_running")],
        [(running - before_player).gather(pl.col("_back")).alias("_carried")],
        [
            (pl.col("own_rating") + round_units(pl.col("_carried"), POINT, era.rounding))
            .cast(pl.Int32)
            .alias("_own")
        ],
    ]


def _exact_hundredths(units: pl.Expr, era: EloEra) -> pl.Expr:
    """Fixed-point units to hundredths: a division where the era's method gives whole
    hundredths (the table methods: every score and expectation is one), else rounded."""
    if era.expected_method == "logistic":
        return units_to_hundredths(units)
    return units // HUNDREDTH


@per_era
def _variation_expressions(era: EloEra) -> tuple[list[list[pl.Expr]], list[pl.Expr | str]]:
    """An entry's variation from its sums, then winner protection (stages: each is used
    several times), then the variation columns."""
    stages = [
        [
            ((pl.col("won_units") - pl.col("expected_units")).fill_null(0) * pl.col("k")).alias(
                "_raw"
            )
        ],
        [_protected(pl.col("_raw"), era).alias("applied_units")],
    ]
    return stages, [
        "tournament_id",
        "player_id",
        "sequence",
        "wave",
        pl.col("own_rating").cast(pl.Int32),
        pl.col("games").fill_null(0),
        (pl.col("won_units").fill_null(0) / POINT).alias("score"),
        (pl.col("expected_units").fill_null(0) / POINT).alias("expected"),
        pl.col("k").cast(pl.Int32),
        "k_rule",
        _exact_hundredths(pl.col("_raw"), era).alias("raw_hundredths"),
        _exact_hundredths(pl.col("applied_units"), era).alias("applied_hundredths"),
        "is_winner",
        pl.col("capped_games").fill_null(0),
        pl.col("uncounted_games").fill_null(0),
    ]


# built once: it depends on no era
_IS_WINNER = (
    (pl.col("points") == pl.col("points").max().over("tournament_id"))
    .fill_null(False)
    .alias("is_winner")
)


def compute_period(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame, era: EloEra
) -> PeriodResult:
    """Variations of every (tournament, player) and the new rating of every player.

    Works on integer keys (``KEY_COLUMNS``): every lookup of a rating, a K or a FIDE flag is a
    gather by player code, and games meet their entries by an integer key. The players'
    state (with the close of those without a counted game) and the order of each player's
    tournaments are one call; all games, valued at the frozen ratings by a table per era and
    summed by entry (running sums over each entry's run of games where they come in entry key
    order, as the warehouse read gives them: :func:`in_entry_order`; else a group_by), and the
    entries' sequence and groups are one query; only
    the entries of later waves (players over the group size) are valued again, wave by wave,
    on their own games; the variations and the close of the players with entries are the
    last call. A period's queries are few and their expressions staged: on frames of tens of
    thousands of rows a query's planning and dispatch, and an expression evaluated twice,
    cost as much as the work (issue 33, measured with bench/engine_ab.py).
    """
    if not has_keys(players, entries, games):
        players, entries, games = with_keys(players, entries, games)
    # variations come in entry key order: entries that come so need no sort
    keyed = entries
    if not entries.get_column("entry_key").is_sorted():
        keyed = entries.sort("entry_key")
    # the players' state and what the entries alone give (first places, the order of a
    # player's tournaments) are independent: one call runs both queries side by side
    state, order = pl.collect_all(
        [_frozen_state(players, era, closed=True), _entry_order(keyed, era)],
        engine=PERIOD_ENGINE,
        optimizations=PERIOD_OPTIMIZATIONS,
    )
    order = _with_back(order)
    by_code = _state_by_code(state, entries, games)
    valued = (
        # the order's columns stand beside the entries' in one frame (no literal of each in
        # the query; the entries may carry columns of their own, left out)
        pl.DataFrame(
            [*(keyed.get_column(name) for name in _ENTRY_VALUE_COLUMNS), *order.get_columns()]
        )
        .lazy()
        .select(*_entry_values(by_code), *order.columns)
        .join(_entry_sums(games, by_code, era), on="entry_key", how="left", maintain_order="left")
    )
    # the first later wave's carried sums come with the rest (all they need is here)
    later = _own_rating_stages(era, 1) if era.groups_enabled else []
    for stage in [[*_COUNTED_SPLIT, _grouped(era)], *_sequence_stages(era), *later]:
        valued = valued.with_columns(stage)
    valued = valued.collect(engine=PERIOD_ENGINE, optimizations=PERIOD_OPTIMIZATIONS)
    _refuse_strays(valued, entries, games, by_code)
    stages, columns = _variation_expressions(era)
    revalued = _revalued(valued, games, by_code, era).lazy()
    for stage in stages:
        revalued = revalued.with_columns(stage)
    variations, closing = pl.collect_all(
        [revalued.select(columns), _player_sums(revalued, state, by_code, era)],
        engine=PERIOD_ENGINE,
        optimizations=PERIOD_OPTIMIZATIONS,
    )
    return PeriodResult(ratings=_closed(state, closing), variations=variations)


# the entries' columns :func:`_entry_values` reads
_ENTRY_VALUE_COLUMNS = (
    "tournament_id",
    "player_id",
    "entry_key",
    "player_code",
    "end_date",
    "start_date",
)


def _entry_values(by_code: pl.DataFrame) -> list[pl.Expr | str]:
    """What an entry carries into the period: its ids and dates, and its player's K, frozen
    rating and FIDE flag (gathers by player code)."""
    return [
        *_ENTRY_VALUE_COLUMNS,
        _at(by_code, "k", "player_code").alias("k"),
        _at(by_code, "k_rule", "player_code").alias("k_rule"),
        _at(by_code, "frozen", "player_code").alias("own_rating"),
        # an unknown player's games count, and he is refused after
        _counts(by_code).alias("_counts"),
    ]


def _entry_sums(games: pl.DataFrame, by_code: pl.DataFrame, era: EloEra) -> pl.LazyFrame:
    """Every game of the period valued at the frozen ratings and summed by entry, in one
    pass (:func:`_summed_by_entry`): the games (``_played``), points won and expected, and
    capped games (a side no player of the period has is found by :func:`_refuse_strays`). A
    game's player is its entry's player (the keys say so), so whether its games count is the
    entry's FIDE flag: the sums are split into counted and uncounted per entry
    (``_COUNTED_SPLIT``), not per game, and no game is filtered."""
    own = _at(by_code, "frozen", "player_code")
    opponent = _at(by_code, "frozen", "opponent_code")
    if era.expected_method == "average_opponent":
        per_entry, entry_stages = _average_opponent_expressions(era)
        sums = (
            games.lazy()
            .select(
                "entry_key",
                _won(),
                own.alias("_own"),
                opponent.alias("opponent_rating"),
            )
            .group_by("entry_key")
            .agg(per_entry)
        )
        # an unknown player's own rating is null too: his entry is refused
        for stage in entry_stages:
            sums = sums.with_columns(stage)
        return sums.select(
            "entry_key",
            pl.col("games").alias("_played"),
            "won_units",
            "expected_units",
            "capped_games",
        )
    # per game: W in hundredths, the difference, its expectation (and whether it is capped,
    # where a cap is in force); per entry: the sums, W back in units (a multiplication on the
    # entries, not on the games). W stays a float of whole hundredths: its sums are exact
    # (far below 2**53), and a cast of every game is saved.
    frame = games.lazy().select(
        "entry_key",
        _won_hundredths().alias("won"),
        (own - opponent).alias("_difference"),
    )
    ordered = games.get_column("entry_key").is_sorted()
    won_units = (pl.col("won").cast(pl.Int64) * HUNDREDTH).alias("won_units")
    packed = _packed_expected(era) if games.height <= PACKED_GAMES else None
    if packed is not None:
        return _summed_by_entry(
            frame.with_columns(packed), [pl.col("won"), pl.col("_packed")], ordered=ordered
        ).select(
            "entry_key",
            "_played",
            won_units,
            ((pl.col("_packed") % CAPPED_UNIT) * HUNDREDTH).alias("expected_units"),
            (pl.col("_packed") // CAPPED_UNIT).cast(pl.Int32).alias("capped_games"),
        )
    stages, _ = _per_game_expressions(era)
    capped = era.difference_cap > 0
    for stage in stages:
        frame = frame.with_columns(stage if capped else stage[:1])
    summed = [
        pl.col("won"),
        pl.col("expected_units"),
        *([pl.col("capped").cast(pl.Int32).alias("capped_games")] if capped else []),
    ]
    return _summed_by_entry(frame, summed, ordered=ordered).with_columns(
        won_units,
        *([] if capped else [pl.lit(0, dtype=pl.Int32).alias("capped_games")]),
    )


# A table method's expectation of a game is whole hundredths of a point, at most 100: a game's
# expected hundredths and whether the cap applied to it go in one integer (the cap above the
# hundredths), so that one sum per entry gives both. Exact while a period's expected
# hundredths stay below CAPPED_UNIT (and its capped games far below 2**31): up to this many
# games; a larger period sums them apart.
CAPPED_UNIT = 2**32
PACKED_GAMES = CAPPED_UNIT // 100 - 1


@per_era
def _packed_expected(era: EloEra) -> pl.Expr | None:
    """For a table method, the gather giving each game's ``_packed`` (see ``CAPPED_UNIT``) from
    its ``_difference``: the table of :func:`expected_by_difference` in hundredths, one
    difference wider on each side (where the expectation is the limit's, as that table checks)
    so that the clipped difference still tells a capped game. None for the logistic method,
    whose expectations are not whole hundredths."""
    limit, table = expected_by_difference(era)
    expected = table.get_column("expected_units")
    if era.expected_method == "logistic" or ((expected % HUNDREDTH) != 0).any():
        return None
    reach = limit + 1
    differences = pl.int_range(-reach, reach + 1, dtype=pl.Int64, eager=True)
    capped = (differences.abs() > era.difference_cap) & (era.difference_cap > 0)
    packed = (
        pl.concat([expected.head(1), expected, expected.tail(1)]) // HUNDREDTH
        + capped.cast(pl.Int64) * CAPPED_UNIT
    )
    return pl.lit(packed).gather(pl.col("_difference").clip(-reach, reach) + reach).alias("_packed")


def _summed_by_entry(frame: pl.LazyFrame, sums: list[pl.Expr], *, ordered: bool) -> pl.LazyFrame:
    """Per ``entry_key`` of ``frame``'s rows: their number (``_played``) and the ``sums``.

    Where the rows come ``ordered`` by entry key (the warehouse read gives them so:
    :func:`in_entry_order`), an entry's rows are one run: its sums are running sums read at
    the run's last row less the run before, no hashing (the games' group_by was a fifth of a
    period: a hash of every game's key). Else a group_by."""
    if not ordered:
        return frame.group_by("entry_key").agg(
            pl.len().cast(pl.Int32).alias("_played"), *(total.sum() for total in sums)
        )
    key = pl.col("entry_key")
    names = ["_played", *(total.meta.output_name() for total in sums)]
    return (
        frame.select(
            key,
            pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).alias("_played"),
            *(total.cum_sum() for total in sums),
            key.ne_missing(key.shift(-1)).alias("_last"),
        )
        .filter(pl.col("_last"))
        .select(
            key,
            *(pl.col(name) - pl.col(name).shift(1, fill_value=0) for name in names),
        )
        .with_columns(pl.col("_played").cast(pl.Int32))
    )


# An entry's sums are its counted games' when its player holds no FIDE rating (§1.3), else
# they are its uncounted games: the columns the sequencing and the variations read, null
# where the entry has none.
_COUNTS = pl.col("_counts")
_COUNTED_SPLIT = [
    *(
        pl.when(_COUNTS).then(pl.col(name)).alias(name)
        for name in ("won_units", "expected_units", "capped_games")
    ),
    pl.when(_COUNTS).then(pl.col("_played")).alias("games"),
    pl.when(~_COUNTS).then(pl.col("_played")).alias("uncounted_games"),
]


def _won_hundredths() -> pl.Expr:
    """A game's points won (``score``) in whole hundredths, as a float (its sums are exact)."""
    return (pl.col("score") * 100).round()


def _counts(by_code: pl.DataFrame) -> pl.Expr:
    """Whether a game counts for its player (``player_code``)."""
    # §1.3: a FIDE-rated player's games count only for his opponents
    return ~_at(by_code, "is_fide", "player_code").fill_null(False)


def _won() -> pl.Expr:
    """A game's points won in fixed-point units."""
    return (_won_hundredths().cast(pl.Int64) * HUNDREDTH).alias("won")


def _opponent_rating(by_code: pl.DataFrame) -> pl.Expr:
    return _at(by_code, "frozen", "opponent_code").alias("opponent_rating")


def _game_values(by_code: pl.DataFrame) -> list[pl.Expr]:
    """What the engine reads of each game (``score``, both sides' codes), one by one: the
    points won in fixed-point units, the opponent's frozen rating, and whether the game counts
    for the player. The later waves and :func:`game_details` value games with them; the first
    wave's sums build on the same pieces (:func:`_won_hundredths`, :func:`_counts`)."""
    return [_won(), _opponent_rating(by_code), _counts(by_code).alias("counts")]


def _refuse_strays(
    valued: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    by_code: pl.DataFrame,
) -> None:
    """Name the first input that points nowhere: a player code no player of the period has
    (his frozen state reads null), or a counted game whose entry is missing (then the entries'
    sums miss games). The checks are counts the period's queries give (a game can only have
    an unknown side where a code below the largest has no player: a null in ``by_code``, not
    counted game by game, which cost the games' group_by a column); the lookups that name the
    culprit run only when one fails."""
    unknown_sides = by_code.get_column("frozen").null_count()
    orphans = None
    if valued.get_column("_played").sum() != games.height:
        # games of no entry (or of an entry twice, refused below) are missing from the sums
        orphans = games.join(entries.select("entry_key"), on="entry_key", how="anti")
        unknown_sides += orphans.height
    frozen = by_code.get_column("frozen")
    for frame, code, name, unknown_count in (
        (entries, "player_code", "player_id", valued.get_column("k").null_count()),
        (games, "opponent_code", "opponent_id", unknown_sides),
        (games, "player_code", "player_id", unknown_sides),
    ):
        if unknown_count:
            unknown = ~frozen.is_not_null().gather(frame.get_column(code)).fill_null(False)
            if unknown.any():
                stray = frame.filter(unknown).row(0, named=True)
                named = repr(stray[name]) if name in stray else f"with code {stray[code]}"
                raise ValueError(f"{name} {named} is not among the period's players")
    # valued is in entry key order: two entries with one key are neighbours
    keys = valued.get_column("entry_key")
    if keys.len() > 1 and (keys.slice(1) == keys.slice(0, keys.len() - 1)).any():
        _refuse_twice(entries, "entry_key")
    if orphans is not None and orphans.height:
        # a FIDE-rated player's game counts for no one here: only a counted one is missed
        counted = ~by_code.get_column("is_fide").gather(orphans.get_column("player_code"))
        if counted.fill_null(True).any():
            orphan = orphans.row(0, named=True)
            raise ValueError(
                f"a game of {orphan.get('player_id', orphan['player_code'])!r} in "
                f"{orphan['tournament_id']!r} has no entry"
            )


def _refuse_twice(entries: pl.DataFrame, *key: str) -> None:
    """Refuse a player with two entries in one tournament (his games could not be told apart)."""
    twice = entries.filter(pl.struct(key).is_duplicated())
    if twice.height:
        row = twice.row(0, named=True)
        raise ValueError(
            f"{row['player_id']!r} has two entries in {row['tournament_id']!r}: one person "
            "cannot play twice in a tournament"
        )


def _revalued(
    valued: pl.DataFrame, games: pl.DataFrame, by_code: pl.DataFrame, era: EloEra
) -> pl.DataFrame:
    """``valued`` with the entries of later waves valued again, wave by wave (§1.4): at the
    own ratings of the wave (``_own``: :func:`_own_rating_stages`; the entries query gives the
    first later wave's), the games of its entries are valued again and their sums written
    into their rows by position, with the own rating (the games and the points won do not
    depend on the rating). A period has a handful of such entries, and its players rarely
    reach a third group of tournaments."""
    last = int(valued.get_column("wave").max() or 0)  # type: ignore[arg-type]
    for wave in range(1, last + 1):
        if wave > 1:
            staged = valued.lazy()
            for stage in _own_rating_stages(era, wave):
                staged = staged.with_columns(stage)
            valued = staged.collect(engine=PERIOD_ENGINE, optimizations=PERIOD_OPTIMIZATIONS)
        valued = _valued_again(valued, wave, games, by_code, era)
    return valued


def _valued_again(
    valued: pl.DataFrame, wave: int, games: pl.DataFrame, by_code: pl.DataFrame, era: EloEra
) -> pl.DataFrame:
    """``valued`` with the rows of ``wave`` at their own rating (``_own``): the own rating, and
    the expected points and capped games of their counted games (none where they have none),
    written at their rows. The rows are taken by filters on the columns (a query of its own
    would cost more than the wave's games)."""
    these = valued.get_column("wave") == wave
    at = these.arg_true()
    own = valued.get_column("_own").filter(these)
    counts = valued.get_column("_counts").filter(these)
    # in entry key order, as valued: the keys are sorted for a search (a join, even of a few
    # rows, costs a query's worth of planning), and the games are summed by their entry's row
    keys = valued.get_column("entry_key").filter(these).filter(counts)
    at_key = pl.lit(keys).search_sorted(pl.col("entry_key"))
    columns = ("entry_key", "score", "player_code", "opponent_code")
    game_keys = games.get_column("entry_key")
    if game_keys.is_sorted():
        # games in entry key order (:func:`in_entry_order`): each entry's games are the run
        # between two searches, gathered, rather than a look-up of every game's key
        # (the searches in the query: a search on the series is a query of its own)
        key = pl.col("entry_key")
        runs = pl.int_ranges(
            key.search_sorted(pl.lit(keys), "left"), key.search_sorted(pl.lit(keys), "right")
        ).explode()
        theirs = games.lazy().select(pl.col(name).gather(runs) for name in columns)
    else:
        theirs = games.lazy().select(columns).filter(pl.col("entry_key").is_in(keys.implode()))
    sums = _expected_sums(
        theirs.select(
            pl.lit(at.filter(counts)).gather(at_key).alias("_row"),
            pl.lit(own.filter(counts)).gather(at_key).alias("_own"),
            _won(),
            _opponent_rating(by_code),
        ),
        pl.col("_own"),
        era,
        key="_row",
    ).collect(engine=PERIOD_ENGINE, optimizations=PERIOD_OPTIMIZATIONS)
    found = sums.get_column("_row")
    written = [valued.get_column("own_rating").scatter(at, own)]
    for name in ("expected_units", "capped_games"):
        # none where the row has no counted game, the new sums where it has
        column = valued.get_column(name)
        written.append(
            column.scatter(at, None).scatter(found, sums.get_column(name).cast(column.dtype))
        )
    return valued.with_columns(written)


def _player_sums(
    valued: pl.LazyFrame, state: pl.DataFrame, by_code: pl.DataFrame, era: EloEra
) -> pl.LazyFrame:
    """The list at the close (§1.5) of each player with entries (``_turn_player``): his row of
    ``state`` and his ``_CLOSED`` columns from his counted games and the sum of his applied
    variations (the period change, rounded by the era's mode, and in hundredths). Running
    sums in turn order (a player's rows together), read at each player's last row less the
    one before (a group_by by player costs about twice as much); the rounding and the close
    on these players only, not on every player of the list."""
    player = pl.col("_turn_player")
    units = pl.col("applied_units")
    row = _at(by_code, "_row", "_turn_player")
    return (
        valued.select(
            player,
            units.gather(pl.col("_turn")).cum_sum(),
            pl.col("games").fill_null(0).gather(pl.col("_turn")).cum_sum(),
            player.ne_missing(player.shift(-1)).alias("_last"),
        )
        .filter(pl.col("_last"))
        .select(
            row.alias("_row"),
            *(pl.lit(state.get_column(name)).gather(row) for name in _CLOSING_STATE),
            units - units.shift(1, fill_value=0),
            (pl.col("games") - pl.col("games").shift(1, fill_value=0)).cast(pl.Int32),
        )
        .with_columns(
            round_units(units, POINT, era.rounding).cast(pl.Int32).alias("period_change"),
            _exact_hundredths(units, era).alias("variation_hundredths"),
        )
        .select(
            "_row", *_closing_expressions(era)[1], "games", "variation_hundredths", "period_change"
        )
    )


# what the close of a player with entries reads of his state, and writes
_CLOSING_STATE = ("frozen_rating", "fide_start", "fide_close", "total_games")
_CLOSED = ("games", "total_games", "rating", "variation_hundredths", "period_change")


def _closed(state: pl.DataFrame, closing: pl.DataFrame) -> pl.DataFrame:
    """The list at the period close (``RATING_COLUMNS``): ``state``'s close of the players
    without a counted game (:func:`frozen_ratings` with ``closed``), the others' written at
    their rows (:func:`_player_sums`); in player_id order (the players' own order when they
    come sorted, as the list builder gives them)."""
    at = closing.get_column("_row")
    columns = {name: state.get_column(name) for name in RATING_COLUMNS}
    for name in _CLOSED:
        columns[name] = columns[name].scatter(
            at, closing.get_column(name).cast(columns[name].dtype)
        )
    # a frame of the columns themselves: no query
    ratings = pl.DataFrame(list(columns.values()))
    if not ratings.get_column("player_id").is_sorted():
        ratings = ratings.sort("player_id")
    return ratings


@per_era
def _closing_expressions(era: EloEra) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """The list at the close of a player (§1.5): the columns of a player without a counted
    game (no games, no change) and the type; then, from his ``total_games`` before the period,
    his counted ``games`` and ``period_change``, the games to date and the rating at the close
    (the stages of :func:`frozen_ratings` with ``closed``; the second for the others too)."""
    reentry = pl.lit(era.fide_minimum - 1, dtype=pl.Int32)
    # the type by a gather from the two names (one string column built, not two zipped)
    types = pl.Series("rating_type", [era.system, "fide"], dtype=pl.Utf8)
    unchanged = [
        pl.lit(0, dtype=pl.Int32).alias("games"),
        pl.lit(0, dtype=pl.Int64).alias("variation_hundredths"),
        pl.lit(0, dtype=pl.Int32).alias("period_change"),
        pl.lit(types).gather(pl.col("fide_close").is_not_null().cast(pl.Int8)).alias("rating_type"),
    ]
    closing = [
        (pl.col("total_games") + pl.col("games")).cast(pl.Int32).alias("total_games"),
        pl.when(pl.col("fide_close").is_not_null())
        .then(pl.col("fide_close"))
        .when(pl.col("fide_start").is_not_null())
        .then(reentry)
        .otherwise(pl.col("frozen_rating") + pl.col("period_change"))
        .cast(pl.Int32)
        .alias("rating"),
    ]
    return unchanged, closing


# --------------------------------------------------------------------------- explaining a period
# ``graduatoria explain`` (flows/explain.py) and the ``game_calculation`` view show a player's
# change game by game. The rows are built here, by the engine's own expressions on the engine's
# own results (own ratings after the groups, winners, K), so that they add up to the list by
# construction; :func:`game_details` checks that they do before it returns them.

GAME_DETAIL_COLUMNS: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "opponent_id": pl.Utf8(),
    "score": pl.Float64(),  # W: 1, 0.5 or 0
    "counted": pl.Boolean(),  # False: the player is FIDE-rated (§1.3)
    "opponent_is_fide": pl.Boolean(),
    "own_rating": pl.Int32(),  # frozen, or frozen + earlier groups (§1.4)
    "opponent_rating": pl.Int32(),  # the opponent's frozen rating
    # expected.method "average_opponent": the opponents' average rating D is taken from
    "average_opponent": pl.Int64(),
    "difference": pl.Int64(),  # D the expected score is read at (null: not counted)
    "capped_difference": pl.Int64(),  # D as the cap lets it through
    "capped": pl.Boolean(),
    "won_units": pl.Int64(),  # W in fixed-point units (POINT to a point)
    "expected_units": pl.Int64(),  # We
    "k": pl.Int32(),
    "variation_units": pl.Int64(),  # K x (W - We): the game's share of the raw V
}
# Beyond these columns, the tournament rows (the engine's VARIATION_COLUMNS) gain the sums
# rebuilt from the games, and the player rows (RATING_COLUMNS) the period sum in units.
DETAIL_VARIATION_SUMS = ["won_units", "expected_units", "raw_units", "applied_units"]
# The logistic expectation, rounded to the engine's unit, is a whole point (or nothing) from
# here on: a table of expected scores by difference needs no row beyond it.
LOGISTIC_SATURATION = 4000


@dataclass(frozen=True)
class PeriodDetails:
    """One period's calculation for some players, game by game."""

    games: pl.DataFrame  # GAME_DETAIL_COLUMNS: every game they played over the board
    variations: pl.DataFrame  # VARIATION_COLUMNS + DETAIL_VARIATION_SUMS, one row per entry
    ratings: pl.DataFrame  # RATING_COLUMNS + variation_units (the period sum), one per player


def game_details(
    players: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    era: EloEra,
    player_ids: Sequence[str],
) -> PeriodDetails:
    """How the period gave ``player_ids`` their variations and change, game by game.

    The whole period runs through :func:`compute_period` (a later group's own rating, a
    tournament's winner and the close need every entry); the players' games are then valued
    again by the engine's expressions at the own rating the engine used for each tournament.
    Raises AssertionError if the games' sums do not give the engine's variations and change
    (they are the same expressions: a difference is a bug here), ValueError for an id that is
    not among the period's players.
    """
    if not has_keys(players, entries, games):
        players, entries, games = with_keys(players, entries, games)
    result = compute_period(players, entries, games, era)
    state = frozen_ratings(players, era)
    by_code = _state_by_code(state, entries, games)
    size = by_code.height
    # players with no code (on the previous list, in no tournament of the history read) play
    # no game: only the coded ones can be a game's side
    coded = state.filter(pl.col("player_code").is_not_null())
    ids = _spread([coded.get_column("player_id")], coded.get_column("player_code"), size)
    wanted = pl.Series("player_id", list(player_ids), dtype=pl.Utf8)
    unknown = wanted.filter(~wanted.is_in(state.get_column("player_id").implode()))
    if unknown.len():
        raise ValueError(f"player_id {unknown[0]!r} is not among the period's players")
    chosen = pl.col("player_id").is_in(wanted.implode())
    variations = result.variations.filter(chosen)
    codes = state.filter(chosen).get_column("player_code")
    # the own rating, K and first place the engine gave each entry
    by_entry = variations.join(
        entries.select("tournament_id", "player_id", "entry_key"),
        on=["tournament_id", "player_id"],
        how="left",
    ).select("entry_key", "own_rating", "k")
    played = (
        games.lazy()
        .filter(pl.col("player_code").is_in(codes.implode()))
        .select(
            "entry_key",
            "tournament_id",
            "player_code",
            "opponent_code",
            "score",
            *_game_values(by_code),
            _at(by_code, "is_fide", "opponent_code").fill_null(False).alias("opponent_is_fide"),
        )
        .join(by_entry.lazy(), on="entry_key", how="left", maintain_order="left")
    )
    rows = (
        _detail_expected(played, era)
        .select(_detail_columns(ids.get_column("player_id"), era))
        .collect(engine=PERIOD_ENGINE)
    )
    sums = (
        rows.filter(pl.col("counted"))
        .group_by("tournament_id", "player_id")
        .agg(
            pl.len().cast(pl.Int32).alias("_counted"),
            pl.col("won_units").sum(),
            pl.col("expected_units").sum(),
            pl.col("variation_units").sum().alias("raw_units"),
        )
    )
    variations = (
        variations.join(sums, on=["tournament_id", "player_id"], how="left")
        .with_columns(
            pl.col(name).fill_null(0)
            for name in ("_counted", "won_units", "expected_units", "raw_units")
        )
        .with_columns(_protected(pl.col("raw_units"), era).alias("applied_units"))
    )
    ratings = result.ratings.filter(chosen).join(
        variations.group_by("player_id").agg(
            pl.col("applied_units").sum().alias("variation_units")
        ),
        on="player_id",
        how="left",
    )
    ratings = ratings.with_columns(pl.col("variation_units").fill_null(0))
    _check_details(variations, ratings, era)
    return PeriodDetails(
        games=rows.drop("entry_key"),
        variations=variations.drop("_counted"),
        ratings=ratings,
    )


def _detail_expected(games: pl.LazyFrame, era: EloEra) -> pl.LazyFrame:
    """Games (own_rating, opponent_rating, counts) with the engine's ``_difference``,
    ``expected_units`` and ``capped``, and ``average_opponent`` (the average-opponent method
    values each game at its entry's difference from the opponents' average, which the engine
    takes over the counted games: each game's share is one game's expected score there)."""
    if era.expected_method == "average_opponent":
        per_entry, entry_stages = _average_opponent_expressions(era)
        entry = (
            games.filter(pl.col("counts"))
            .with_columns(pl.col("own_rating").alias("_own"))
            .group_by("entry_key")
            .agg(per_entry)
        )
        for stage in entry_stages:
            entry = entry.with_columns(stage)
        games = games.join(
            entry.select(
                "entry_key",
                "_difference",
                (pl.col("_own") - pl.col("_difference")).cast(pl.Int64).alias("average_opponent"),
            ),
            on="entry_key",
            how="left",
            maintain_order="left",
        )
        stages = _valued_at_difference(era, pl.lit(1))
    else:
        games = games.with_columns(
            (pl.col("own_rating") - pl.col("opponent_rating")).alias("_difference"),
            pl.lit(None, dtype=pl.Int64).alias("average_opponent"),
        )
        stages = _per_game_expressions(era)[0]
    for stage in stages:
        games = games.with_columns(stage)
    return games


def _detail_columns(ids: pl.Series, era: EloEra) -> list[pl.Expr | str]:
    """The detail rows (GAME_DETAIL_COLUMNS and the entry key) from the valued games; a game
    that does not count has no difference, expectation or share of V."""
    counted = pl.col("counts")
    difference = pl.col("_difference").cast(pl.Int64)
    cap = era.difference_cap
    capped_difference = difference.clip(-cap, cap) if cap > 0 else difference
    expected = pl.col("expected_units").cast(pl.Int64)
    return [
        "entry_key",
        "tournament_id",
        pl.lit(ids).gather(pl.col("player_code")).alias("player_id"),
        pl.lit(ids).gather(pl.col("opponent_code")).alias("opponent_id"),
        pl.col("score").cast(pl.Float64),
        counted.alias("counted"),
        "opponent_is_fide",
        pl.col("own_rating").cast(pl.Int32),
        pl.col("opponent_rating").cast(pl.Int32),
        pl.when(counted).then(pl.col("average_opponent")).alias("average_opponent"),
        pl.when(counted).then(difference).alias("difference"),
        pl.when(counted).then(capped_difference).alias("capped_difference"),
        pl.when(counted).then(pl.col("capped")).alias("capped"),
        pl.when(counted).then(pl.col("won")).alias("won_units"),
        pl.when(counted).then(expected).alias("expected_units"),
        pl.col("k").cast(pl.Int32),
        pl.when(counted).then((pl.col("won") - expected) * pl.col("k")).alias("variation_units"),
    ]


def _check_details(variations: pl.DataFrame, ratings: pl.DataFrame, era: EloEra) -> None:
    """The games' sums give the engine's variations, and their sum the engine's change."""
    wrong_entries = variations.filter(
        (pl.col("_counted") != pl.col("games"))
        | (units_to_hundredths(pl.col("raw_units")) != pl.col("raw_hundredths"))
        | (units_to_hundredths(pl.col("applied_units")) != pl.col("applied_hundredths"))
        # the engine gives W and We as doubles of units / POINT: back to units, exactly
        | ((pl.col("score") * POINT).round().cast(pl.Int64) != pl.col("won_units"))
        | ((pl.col("expected") * POINT).round().cast(pl.Int64) != pl.col("expected_units"))
    )
    if wrong_entries.height:
        row = wrong_entries.row(0, named=True)
        raise AssertionError(
            f"the games of {row['player_id']!r} in {row['tournament_id']!r} do not add up to "
            "the engine's variation"
        )
    change = round_units(pl.col("variation_units"), POINT, era.rounding)
    wrong_players = ratings.filter(change != pl.col("period_change"))
    if wrong_players.height:
        raise AssertionError(
            f"the variations of {wrong_players.item(0, 'player_id')!r} do not add up to the "
            "engine's change"
        )


def expected_by_difference(era: EloEra) -> tuple[int, pl.DataFrame]:
    """The engine's expected score of one game (``expected_units``, fixed-point units) at each
    rating difference from -limit to +limit, and that limit: any larger |D| reads the value at
    the limit of its sign (the table's last band, the difference cap, or the logistic curve
    rounded to a whole point or nothing). The ``game_calculation`` view reads it."""
    limit = max(LOGISTIC_SATURATION, era.difference_cap, era.expected_bands[-1][0])

    def valued(differences: pl.Series) -> pl.DataFrame:
        frame = pl.DataFrame([differences.alias("_difference")])
        for stage in _valued_at_difference(era, pl.lit(1)):
            frame = frame.with_columns(stage)
        return frame.select(
            pl.col("_difference").alias("difference"),
            pl.col("expected_units").cast(pl.Int64),
        )

    table = valued(pl.int_range(-limit, limit + 1, dtype=pl.Int64, eager=True))
    ends = valued(pl.Series([-limit, limit], dtype=pl.Int64)).get_column("expected_units")
    beyond = valued(pl.Series([-4 * limit, 4 * limit], dtype=pl.Int64))
    if not beyond.get_column("expected_units").equals(ends):
        raise AssertionError(f"the {era.expected_method} expectation still moves beyond {limit}")
    return limit, table
