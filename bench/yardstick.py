"""A yardstick for the rating engine: one FSI Elo period as a compiled per-game loop (numba).

Bench only (issue 33): numba is no dependency of the product (``requirements-bench.lock``), and
nothing outside bench/ imports this module. It answers "how fast could a period go": the
engine (``transforms.elo.period.compute_period``) is held to within 10x of it.

:func:`prepare` turns what ``compute_period`` receives (players, entries, games, era) into
plain integer arrays, the way a compiled program would load its data (string ids to row
numbers, dates to day numbers, nulls to a sentinel); :func:`run` is the compiled loop over
them, the part the benchmark times (compiled beforehand by :func:`compile_yardstick`): every
player's frozen rating and K, each tournament's best points, every counted game valued at the
table with the era's cap, a player's tournaments in order with the "more than 4 tournaments"
groups (a later group's games valued again at its own rating), winner protection, the period
sum rounded by the era's mode, and the rating at the close. Scores are whole hundredths of a
point (the table's unit), so every sum is exact, as the engine's fixed-point units are: the
numbers must come out identical, and :func:`check` says whether they do.

Only what the benchmark's eras use is implemented (the "table" method, tournaments ordered by
end date, start date and id); :func:`prepare` refuses anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import polars as pl

from transforms.elo.expected import expected_table
from transforms.elo.rulebook import ROUNDING_MODES, EloEra

# An integer's null, for the compiled loop: no rating, K or count comes near it. The arrays are
# 32-bit: a period's columns are read through several times, and 32 bits halve what is read
# (the sums are 64-bit).
NULL = np.iinfo(np.int32).min
# a date's null, after any date (a null end or start date orders a tournament last, as the
# engine's ``nulls_last`` does)
LATEST = np.iinfo(np.int32).max
# K schedule conditions, as the loop reads them ("registry" is a per-player K, None always holds)
CONDITIONS = {"registry": 0, "games_below": 1, "rating_at_least": 2, "rating_below": 3, None: 4}
DEFAULT_ORDER = ("end_date", "start_date", "tournament_id")
# what the check compares: the player's new rating, his K and his counted games (as the
# benchmark's loop comparison does), and the frozen rating and change they come from
CHECKED = ("frozen_rating", "k", "games", "period_change", "rating")


@dataclass(frozen=True)
class Arrays:
    """One period as the compiled loop reads it (int32 arrays unless said)."""

    player_ids: pl.Series  # the players' ids, in their rows' order (for the check only)
    # per player row
    list_rating: np.ndarray
    fide_start: np.ndarray
    fide_close: np.ndarray
    on_list_as_fide: np.ndarray  # bool
    fide_reentry: np.ndarray
    arbiter: np.ndarray
    entry_rating: np.ndarray
    theoretical: np.ndarray  # the newcomer rating of the player's category
    total_games: np.ndarray
    k_override: np.ndarray
    # per entry, in the entries' order
    entry_player: np.ndarray  # the player's row
    entry_tournament: np.ndarray  # 0 .. tournaments - 1
    points: np.ndarray  # float64, NaN where null
    end_day: np.ndarray
    start_day: np.ndarray
    key_rank: np.ndarray  # the entry's place in entry key order (the id, within a player)
    tournaments: int
    # per game (one row per side)
    game_entry: np.ndarray  # the entry's row
    game_player: np.ndarray  # the player's row
    game_opponent: np.ndarray  # the opponent's player row
    won: np.ndarray  # hundredths of a point
    # the era
    rules: np.ndarray  # the K schedule, one row per line: condition, threshold, K
    table: np.ndarray  # the higher-rated player's expected hundredths by |D|
    settings: np.ndarray  # int64, see ``_settings``


def _settings(era: EloEra) -> np.ndarray:
    return np.array(
        [
            era.difference_cap,
            era.groups_enabled,
            era.group_size,
            era.group_min_k,
            era.group_counts_tournaments_without_games,
            era.winner_protection,
            ROUNDING_MODES.index(era.rounding),
            era.fide_holders_leave_list,
            era.arbiter_entry,
            era.arbiter_raises_listed,
            era.fide_minimum,
        ],
        dtype=np.int64,
    )


def _ints(column: pl.Series, null: int = NULL) -> np.ndarray:
    return column.cast(pl.Int32).fill_null(null).to_numpy().astype(np.int32, copy=False)


def _optional(players: pl.DataFrame, name: str) -> np.ndarray:
    if name in players.columns:
        return _ints(players.get_column(name))
    return np.full(players.height, NULL, dtype=np.int32)


def prepare(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame, era: EloEra
) -> Arrays:
    """The compiled loop's arrays of one period, from ``compute_period``'s inputs with the
    warehouse read's integer keys (as the benchmark's periods carry them)."""
    if era.expected_method != "table" or tuple(era.tournament_order) != DEFAULT_ORDER:
        # a yardstick of the benchmark's history, whose eras use these; it refuses the others
        # rather than time a different computation than the engine's
        raise ValueError(
            f"the yardstick computes the table method in the order {DEFAULT_ORDER} only, not "
            f"{era.expected_method!r} in {tuple(era.tournament_order)}"
        )
    codes = players.get_column("player_code")
    largest = [
        column.max()
        for column in (
            codes,
            entries.get_column("player_code"),
            games.get_column("player_code"),
            games.get_column("opponent_code"),
        )
    ]
    row_of_code = np.full(max(int(v) for v in largest if v is not None) + 1, -1, dtype=np.int32)  # type: ignore[call-overload]
    coded = codes.is_not_null()
    row_of_code[_ints(codes.filter(coded))] = np.flatnonzero(coded.to_numpy())
    entry_player = row_of_code[_ints(entries.get_column("player_code"))]
    game_player = row_of_code[_ints(games.get_column("player_code"))]
    game_opponent = row_of_code[_ints(games.get_column("opponent_code"))]
    if (entry_player < 0).any() or (game_player < 0).any() or (game_opponent < 0).any():
        raise ValueError("an entry or a game points to no player of the period")
    keys = entries.get_column("entry_key").to_numpy()
    order = np.argsort(keys, kind="stable")
    key_rank = np.empty(keys.size, dtype=np.int32)
    key_rank[order] = np.arange(keys.size, dtype=np.int32)
    game_entry = order[
        np.searchsorted(keys, games.get_column("entry_key").to_numpy(), sorter=order)
    ]
    newcomer = era.newcomer_ratings
    theoretical = (
        players.get_column("category")
        .fill_null(era.unregistered_category)
        .replace_strict(
            newcomer, default=newcomer[era.unregistered_category], return_dtype=pl.Int32
        )
    )
    tournament = entries.get_column("tournament_id").cast(pl.Categorical).to_physical()
    return Arrays(
        player_ids=players.get_column("player_id"),
        list_rating=_ints(players.get_column("list_rating")),
        fide_start=_ints(players.get_column("fide_start")),
        fide_close=_ints(players.get_column("fide_close")),
        on_list_as_fide=players.get_column("on_list_as_fide").fill_null(False).to_numpy(),
        fide_reentry=_optional(players, "fide_reentry_rating"),
        arbiter=_ints(players.get_column("arbiter_rating")),
        entry_rating=_optional(players, "entry_rating"),
        theoretical=_ints(theoretical),
        total_games=_ints(players.get_column("total_games"), 0),
        k_override=_ints(players.get_column("k_override")),
        entry_player=entry_player,
        entry_tournament=_ints(tournament),
        points=entries.get_column("points").cast(pl.Float64).fill_null(np.nan).to_numpy(),
        end_day=_ints(entries.get_column("end_date").to_physical(), LATEST),
        start_day=_ints(entries.get_column("start_date").to_physical(), LATEST),
        key_rank=key_rank,
        tournaments=int(tournament.max() or 0) + 1,  # type: ignore[operator]
        game_entry=game_entry.astype(np.int32),
        game_player=game_player,
        game_opponent=game_opponent,
        won=_ints((games.get_column("score") * 100).round()),
        rules=np.array(
            [
                [
                    CONDITIONS[rule.condition],
                    rule.threshold if rule.threshold is not None else 0,
                    rule.k if rule.k is not None else 0,
                ]
                for rule in era.k.rules
            ],
            dtype=np.int64,
        ),
        table=expected_table(era.expected_bands).to_numpy().astype(np.int64),
        settings=_settings(era),
    )


@numba.njit(cache=False, nogil=True)
def _rounded(hundredths: int, mode: int) -> int:
    """Whole hundredths to a whole number by the era's rounding mode (ROUNDING_MODES)."""
    magnitude = abs(hundredths)
    whole, rest = magnitude // 100, magnitude % 100
    if mode == 0:  # half away from zero
        if rest >= 50:
            whole += 1
    elif mode == 1 and (rest > 50 or (rest == 50 and whole % 2 == 1)):  # half even
        whole += 1
    return -whole if hundredths < 0 else whole


@numba.njit(cache=False, nogil=True)
def _expected(difference: int, table: np.ndarray, limit: int) -> int:
    """We (hundredths) at the rating difference own - opponent; ``limit`` is the cap, or the
    table's last row when that comes first."""
    higher = table[min(abs(difference), limit)]
    return higher if difference >= 0 else 100 - higher  # the lower-rated side: the rest


@numba.njit(cache=False, nogil=True)
def _loop(
    list_rating: np.ndarray,
    fide_start_in: np.ndarray,
    fide_close_in: np.ndarray,
    on_list_as_fide_in: np.ndarray,
    fide_reentry_in: np.ndarray,
    arbiter_in: np.ndarray,
    entry_rating: np.ndarray,
    theoretical: np.ndarray,
    total_games: np.ndarray,
    k_override: np.ndarray,
    entry_player: np.ndarray,
    entry_tournament: np.ndarray,
    points: np.ndarray,
    end_day: np.ndarray,
    start_day: np.ndarray,
    key_rank: np.ndarray,
    tournaments: int,
    game_entry: np.ndarray,
    game_player: np.ndarray,
    game_opponent: np.ndarray,
    won: np.ndarray,
    rules: np.ndarray,
    table: np.ndarray,
    settings: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cap, groups, group_size, group_min_k = settings[0], settings[1], settings[2], settings[3]
    count_empty, protection, rounding = settings[4], settings[5], settings[6]
    leave, arbiter_entry, raises, fide_minimum = settings[7], settings[8], settings[9], settings[10]
    players, entries, games = list_rating.size, entry_player.size, game_entry.size
    limit = min(cap, table.size - 1) if cap > 0 else table.size - 1

    # each player's frozen rating, K, whether his tournaments go in groups, and whether his
    # games count (a FIDE-rated player's count only for his opponents)
    frozen = np.empty(players, np.int64)
    fide_start = np.empty(players, np.int64)
    grouped = np.empty(players, np.bool_)
    for p in range(players):
        # the first source that applies, as selects from the last source up (which one
        # applies changes from player to player at random: branches would mispredict)
        listed, arbiter, reentry = list_rating[p], arbiter_in[p], fide_reentry_in[p]
        fide = fide_start_in[p] if leave else NULL
        reentry = reentry if leave else NULL
        on_list_as_fide = on_list_as_fide_in[p] and leave
        arbiter = arbiter if arbiter_entry else NULL
        raised = max(listed, arbiter) if raises else listed
        chosen = theoretical[p]
        chosen = entry_rating[p] if entry_rating[p] != NULL else chosen
        chosen = arbiter if arbiter != NULL else chosen
        chosen = reentry if reentry != NULL else chosen
        chosen = fide_minimum - 1 if on_list_as_fide else chosen
        chosen = raised if listed != NULL else chosen
        chosen = fide if fide != NULL else chosen
        frozen[p] = chosen
        fide_start[p] = fide
    # K: the first line of the schedule that holds, so the lines from the last up, each over
    # every player (the line's condition stays the same through the inner loop)
    k = np.full(players, NULL, np.int64)
    for line in range(rules.shape[0] - 1, -1, -1):
        condition, threshold, given = rules[line, 0], rules[line, 1], rules[line, 2]
        for p in range(players):
            if condition == 0:
                holds, value = k_override[p] != NULL, k_override[p]
            elif condition == 1:
                holds, value = total_games[p] < threshold, given
            elif condition == 2:
                holds, value = frozen[p] >= threshold, given
            elif condition == 3:
                holds, value = frozen[p] < threshold, given
            else:
                holds, value = True, given
            k[p] = value if holds else k[p]
    for p in range(players):
        grouped[p] = groups and k[p] >= group_min_k

    # each tournament's best points (first place, ties included)
    best = np.full(tournaments, -np.inf)
    for e in range(entries):
        if points[e] > best[entry_tournament[e]]:
            best[entry_tournament[e]] = points[e]

    # every game at the frozen ratings, summed by entry (a FIDE-rated player's sums are
    # never read: no branch per game)
    played = np.zeros(entries, np.int64)
    score = np.zeros(entries, np.int64)
    expected = np.zeros(entries, np.int64)
    for g in range(games):
        e = game_entry[g]
        played[e] += 1
        score[e] += won[g]
        expected[e] += _expected(frozen[game_player[g]] - frozen[game_opponent[g]], table, limit)

    # each player's entries, together, in his order: end date, start date, entry key
    first_entry = np.zeros(players + 1, np.int64)
    for e in range(entries):
        first_entry[entry_player[e] + 1] += 1
    for p in range(players):
        first_entry[p + 1] += first_entry[p]
    filled = first_entry[:-1].copy()
    ordered = np.empty(entries, np.int64)
    for e in range(entries):
        ordered[filled[entry_player[e]]] = e
        filled[entry_player[e]] += 1
    for p in range(players):
        for i in range(first_entry[p] + 1, first_entry[p + 1]):
            e = ordered[i]
            j = i - 1
            while j >= first_entry[p] and (
                end_day[ordered[j]],
                start_day[ordered[j]],
                key_rank[ordered[j]],
            ) > (end_day[e], start_day[e], key_rank[e]):
                ordered[j + 1] = ordered[j]
                j -= 1
            ordered[j + 1] = e

    # the entries of a later group (fifth tournament on, K high enough) are valued again at
    # their own rating: their games, together (few: players with many tournaments)
    later = np.zeros(entries, np.bool_)
    any_later = False
    for p in range(players):
        if grouped[p] and fide_start[p] == NULL:
            sequence = 0
            for i in range(first_entry[p], first_entry[p + 1]):
                e = ordered[i]
                if played[e] > 0 or count_empty:
                    sequence += 1
                    if sequence > group_size:
                        later[e] = True
                        any_later = True
    first_game = np.zeros(entries + 1, np.int64)
    for e in range(entries):
        first_game[e + 1] = first_game[e] + (played[e] if later[e] else 0)
    opponent_rating = np.empty(first_game[entries], np.int64)
    if any_later:
        filled = first_game[:-1].copy()
        for g in range(games):
            e = game_entry[g]
            if later[e]:
                opponent_rating[filled[e]] = frozen[game_opponent[g]]
                filled[e] += 1

    # the period: a player's tournaments in order, the own rating moving group by group
    rating = np.empty(players, np.int64)
    change = np.empty(players, np.int64)
    counted_games = np.zeros(players, np.int64)
    for p in range(players):
        total = 0  # the applied variations so far (hundredths)
        if fide_start[p] == NULL:
            sequence = 0
            own = frozen[p]
            for i in range(first_entry[p], first_entry[p + 1]):
                e = ordered[i]
                if played[e] == 0 and not count_empty:
                    continue  # no place in the order, no variation
                sequence += 1
                own_expected = expected[e]
                if later[e]:
                    if (sequence - 1) % group_size == 0:
                        own = frozen[p] + _rounded(total, rounding)  # a new group starts
                    own_expected = 0
                    for j in range(first_game[e], first_game[e + 1]):
                        own_expected += _expected(own - opponent_rating[j], table, limit)
                variation = k[p] * (score[e] - own_expected)
                if protection and variation < 0 and points[e] == best[entry_tournament[e]]:
                    variation = 0
                total += variation
                counted_games[p] += played[e]
        change[p] = _rounded(total, rounding)
        if leave and fide_close_in[p] != NULL:
            rating[p] = fide_close_in[p]
        elif fide_start[p] != NULL:
            rating[p] = fide_minimum - 1
        else:
            rating[p] = frozen[p] + change[p]
    return frozen, k, counted_games, change, rating


def run(arrays: Arrays) -> tuple[np.ndarray, ...]:
    """The compiled loop on one period: per player row, the frozen rating, K, counted games,
    period change and new rating."""
    a = arrays
    return _loop(
        a.list_rating,
        a.fide_start,
        a.fide_close,
        a.on_list_as_fide,
        a.fide_reentry,
        a.arbiter,
        a.entry_rating,
        a.theoretical,
        a.total_games,
        a.k_override,
        a.entry_player,
        a.entry_tournament,
        a.points,
        a.end_day,
        a.start_day,
        a.key_rank,
        a.tournaments,
        a.game_entry,
        a.game_player,
        a.game_opponent,
        a.won,
        a.rules,
        a.table,
        a.settings,
    )


def compile_yardstick(arrays: Arrays) -> None:
    """Compile the loop (a first call) outside any timing."""
    run(arrays)


def as_frame(arrays: Arrays, results: tuple[np.ndarray, ...]) -> pl.DataFrame:
    """The loop's results by player id (the columns of ``CHECKED``)."""
    return pl.DataFrame(
        [
            arrays.player_ids,
            *(pl.Series(name, column) for name, column in zip(CHECKED, results, strict=True)),
        ]
    )


def check(arrays: Arrays, results: tuple[np.ndarray, ...], ratings: pl.DataFrame) -> bool:
    """Whether the loop gives every player the engine's numbers (``ratings``: the engine's
    ``PeriodResult.ratings``)."""
    ours = as_frame(arrays, results).sort("player_id")
    engine = ratings.select("player_id", *CHECKED).sort("player_id")
    return ours.equals(engine.cast(ours.schema))  # type: ignore[arg-type]
