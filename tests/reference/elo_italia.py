"""A slow, obviously correct reference of one FSI Elo period: Elo Italia (RULES.md §1) and Elo
Rapid (§2), which differs only where its rulebook says so (FIDE holders stay on the list, a
newcomer may enter with a rating from another list, no arbiter rating at all).

Written with plain loops and dicts straight from the rules and the rulebook's eras, independently
of the engine in ``transforms/elo/period.py``: only the rulebook dataclasses are shared. Every
score is an exact ``Fraction`` of points (W is 1, 1/2 or 0; a table's We is hundredths; the
logistic We is the float ``1 / (1 + 10 ** (-D / 400))`` taken exactly), so every sum is exact,
whatever the order of the rows, and every rounding is done once, where the rules say.

The semantics, in the order they are applied:

1. Frozen rating and its basis, the first that applies:
   a. the FIDE rating at the start, in eras where FIDE holders leave the list ("fide");
   b. the list rating ("list"), raised to an arbiter re-assignment when the era says arbiters
      raise listed players and it is strictly higher ("arbiter_reassignment");
   c. shown on the previous list as FIDE-rated and no longer: the FIDE minimum - 1
      ("fide_reentry"), in eras where FIDE holders leave the list;
   d. ``fide_reentry_rating`` (set by the flow for a player not on the previous list whose FIDE
      rating disappeared at or before the period's start snapshot), in eras where FIDE holders
      leave the list ("fide_reentry");
   e. the arbiter's rating, only in eras with ``arbiter_entry`` ("arbiter");
   f. ``entry_rating`` (Elo Rapid: from another list), its basis in ``entry_basis``;
   g. the entry rating of the registry category, else its theoretical rating (the era's
      category for the unregistered) ("entry").
   Where ``arbiter_entry`` is false (Elo Rapid) arbiter ratings are ignored entirely (b, e).
2. A game counts for a player iff he holds no FIDE rating at the start (in eras where FIDE
   holders leave the list); the opponent always plays with his frozen rating.
3. K (fixed for the period) comes from the first line of the era's K schedule whose condition
   holds: "registry" when the player's ``k_override`` is not null (it gives that K);
   "games_below" N when the counted games before the period (``total_games``, null = 0) < N;
   "rating_at_least" R when the frozen rating >= R; "rating_below" R when < R; no condition:
   always. ``k_rule`` is that line's index (0-based).
4. A player's tournaments are ordered by the era's ``tournament_order`` columns ascending, a null
   date after any date (the id is the last column). From the second group on (groups of
   ``group_size`` tournaments, players with K >= ``group_min_k``, in eras with groups) the
   player's own rating is the frozen rating plus the sum of the applied V of the earlier groups,
   rounded by the era's rounding mode. A tournament without counted games takes a place in the
   order only when the era says so.
5. Expected score of a tournament, D always clipped to +-cap when the cap is > 0:
   - "table": per game, D = own - opponent, We from the FIDE table (hundredths);
   - "average_opponent": A = the average of the opponents' frozen ratings over the counted
     games, rounded to a whole number, halves up; D = own - A; We = n x (PD if D >= 0 else
     1 - PD), PD from the table at |D|; the capped games are n when |own - A| > cap > 0;
   - "logistic": per game We = 1 / (1 + 10^(-D/400)), unrounded.
   The capped games (table, logistic) are those with |D| > cap > 0, D before clipping.
6. Per tournament V = K x sum(W - We); with winner protection a first place (ties included)
   turns a negative V into 0 (applied), without it applied = V.
   ``raw_hundredths`` / ``applied_hundredths`` are V x 100 (exact with the table methods;
   with the logistic, rounded to whole hundredths, halves away from zero).
7. The period change is the unrounded sum of the applied V, rounded once by the era's rounding
   mode ("half_away_from_zero", "half_even", "toward_zero"); ``variation_hundredths`` is that
   sum x 100 (rounded half away from zero with the logistic).
8. At the close (eras where FIDE holders leave the list) a FIDE rating at the close wins (type
   "fide"); a FIDE rating at the start but not at the close gives the FIDE minimum - 1; else
   the rating is frozen + period change.

The logistic We are floats, so an engine's sum may differ from this one by a few ulps; where
such a sum lies within 1e-6 of a rounding edge (and is not exact) the integer derived from it is
one of two, and the result lists the fields it cannot pin down (``loose_ratings``,
``loose_variations``): a comparison skips them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import Any

import polars as pl

from transforms.elo.rulebook import EloEra

Row = dict[str, Any]
HALF = Fraction(1, 2)
# how far (in points) a float sum may be from the exact one before a rounding is trusted
FLOAT_TOLERANCE = Fraction(1, 10**6)


@dataclass(frozen=True)
class ReferenceResult:
    """Rows of the two outputs, as plain dicts (same columns as the engine's frames), and the
    fields a float rounding edge leaves undecided (logistic only; see the module docstring)."""

    ratings: list[Row]
    variations: list[Row]
    loose_ratings: dict[str, frozenset[str]] = field(default_factory=dict)
    loose_variations: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)


# --------------------------------------------------------------------------- rounding


def round_mode(value: Fraction | int, mode: str) -> int:
    """``value`` to an integer by the rulebook's rounding mode (exact)."""
    value = Fraction(value)
    magnitude = abs(value)
    whole = math.floor(magnitude)
    rest = magnitude - whole
    if mode == "half_away_from_zero":
        if rest >= HALF:
            whole += 1
    elif mode == "half_even":
        if rest > HALF or (rest == HALF and whole % 2 == 1):
            whole += 1
    elif mode != "toward_zero":
        raise ValueError(f"unknown rounding mode {mode!r}")
    return whole if value >= 0 else -whole


def round_hundredths(total: int) -> int:
    """``total / 100`` rounded to an integer, halves away from zero (exact, integers only)."""
    return round_mode(Fraction(total, 100), "half_away_from_zero")


def to_hundredths(points: Fraction) -> int:
    """Points as whole hundredths, halves away from zero (exact when already whole)."""
    return round_mode(points * 100, "half_away_from_zero")


def near_rounding_edge(value: Fraction, mode: str, tolerance: Fraction) -> bool:
    """Whether ``value`` is so close to a point where ``mode`` jumps that a float within
    ``tolerance`` of it could round the other way."""
    magnitude = abs(value)
    if mode == "toward_zero":  # jumps at every integer but 0 (-0.1 and 0.1 both give 0)
        nearest = round(magnitude)
        return nearest != 0 and abs(magnitude - nearest) <= tolerance
    return abs(magnitude - math.floor(magnitude) - HALF) <= tolerance


# --------------------------------------------------------------------------- expected scores


def higher_expected(absolute: int, bands: tuple[tuple[int, int], ...]) -> int:
    """PD (hundredths) of the band containing ``absolute``: scan the bands from the bottom."""
    found = None
    for start, hundredths in bands:
        if absolute >= start:
            found = hundredths
        else:
            break
    if found is None:
        raise ValueError(f"no band contains |D| = {absolute}")
    return found


def clip(difference: int, cap: int) -> int:
    """D read as +-cap beyond the cap; no cap when it is 0."""
    if cap > 0:
        if difference > cap:
            return cap
        if difference < -cap:
            return -cap
    return difference


def is_capped(difference: int, cap: int) -> bool:
    return cap > 0 and abs(difference) > cap


def table_expected(difference: int, era: EloEra) -> int:
    """We in hundredths at the (already clipped) difference D, from the table."""
    pd = higher_expected(abs(difference), era.expected_bands)
    if difference >= 0:
        return pd
    return 100 - pd


def expected_score(own: int, opponent: int, era: EloEra) -> int:
    """We in hundredths (table method) for a player rated ``own`` against ``opponent``."""
    return table_expected(clip(own - opponent, era.difference_cap), era)


def logistic_expected(difference: int) -> float:
    """The logistic We at the (already clipped) difference D, as a float."""
    return 1 / (1 + 10 ** (-difference / 400))


@dataclass(frozen=True)
class Expected:
    """A player's expected points in one tournament."""

    points: Fraction
    capped_games: int
    exact: bool  # the value has no float error (table methods; logistic at D = 0 only)


def tournament_expected(own: int, opponents: list[int], era: EloEra) -> Expected:
    """Sum of We over the counted games against ``opponents`` (their frozen ratings)."""
    cap = era.difference_cap
    method = era.expected_method
    if method == "average_opponent":
        n = len(opponents)
        if n == 0:
            return Expected(Fraction(0), 0, True)
        total = sum(opponents)
        average = math.floor(Fraction(total, n) + HALF)  # halves up
        difference = own - average
        capped = n if is_capped(difference, cap) else 0
        hundredths = table_expected(clip(difference, cap), era)
        return Expected(n * Fraction(hundredths, 100), capped, True)
    points = Fraction(0)
    capped = 0
    exact = True
    for opponent in opponents:
        difference = own - opponent
        if is_capped(difference, cap):
            capped += 1
        clipped = clip(difference, cap)
        if method == "table":
            points += Fraction(table_expected(clipped, era), 100)
        elif method == "logistic":
            points += Fraction(logistic_expected(clipped))
            exact = exact and clipped == 0  # 1 / (1 + 1) is the only exact float here
        else:
            raise ValueError(f"unknown expected method {method!r}")
    return Expected(points, capped, exact)


# --------------------------------------------------------------------------- the player's state


def fide_start(player: Row, era: EloEra) -> int | None:
    """The FIDE rating that takes the player off the list, in eras where one does."""
    return player["fide_start"] if era.fide_holders_leave_list else None


def arbiter_rating(player: Row, era: EloEra) -> int | None:
    """The arbiter's rating, in eras where an arbiter may give one (never in Elo Rapid)."""
    return player.get("arbiter_rating") if era.arbiter_entry else None


def frozen_rating(player: Row, era: EloEra) -> tuple[int, str]:
    """The rating the player carries into every game of the period, and where it comes from."""
    fide = fide_start(player, era)
    if fide is not None:
        return fide, "fide"
    arbiter = arbiter_rating(player, era)
    listed = player["list_rating"]
    if listed is not None:
        if era.arbiter_raises_listed and arbiter is not None and arbiter > listed:
            return arbiter, "arbiter_reassignment"
        return listed, "list"
    if era.fide_holders_leave_list and player["on_list_as_fide"]:
        return era.fide_minimum - 1, "fide_reentry"
    reentry = player.get("fide_reentry_rating")
    if era.fide_holders_leave_list and reentry is not None:
        return reentry, "fide_reentry"
    if arbiter is not None:
        return arbiter, "arbiter"
    if player.get("entry_rating") is not None:
        return player["entry_rating"], player.get("entry_basis") or "entry"
    category = player["category"]
    if category is None:
        category = era.unregistered_category
    if category in era.entry_ratings:
        return era.entry_ratings[category], "entry"
    return era.theoretical_ratings[category], "entry"


def k_and_rule(player: Row, frozen: int, era: EloEra) -> tuple[int, int]:
    """The player's K and the index of the schedule line that gives it."""
    games_before = player["total_games"] or 0
    for index, rule in enumerate(era.k.rules):
        condition = rule.condition
        if condition == "registry":
            if player["k_override"] is not None:
                return player["k_override"], index
            continue
        if condition == "games_below":
            holds = games_before < rule.threshold
        elif condition == "rating_at_least":
            holds = frozen >= rule.threshold
        elif condition == "rating_below":
            holds = frozen < rule.threshold
        elif condition is None:
            holds = True
        else:
            raise ValueError(f"unknown K condition {condition!r}")
        if holds:
            assert rule.k is not None, rule
            return rule.k, index
    raise ValueError(f"no line of the K schedule applies to {player['player_id']}")


def order_key(entry: Row, era: EloEra) -> tuple:
    """A tournament's place among the player's: the era's columns, a null date after any date."""
    key: list[Any] = []
    for column in era.tournament_order:
        value = entry[column]
        if column == "tournament_id":
            key.append(value)
        else:
            key += [value is None, value if value is not None else date.min]
    return tuple(key)


# --------------------------------------------------------------------------- the period


def reference_period(
    players: list[Row], entries: list[Row], games: list[Row], era: EloEra
) -> ReferenceResult:
    """One Elo period from plain rows (see the engine's contract for the columns)."""
    logistic = era.expected_method == "logistic"
    tolerance = FLOAT_TOLERANCE

    # 1, 3. frozen ratings and K
    frozen: dict[str, int] = {}
    basis: dict[str, str] = {}
    k: dict[str, int] = {}
    k_rule: dict[str, int] = {}
    by_id: dict[str, Row] = {}
    for player in players:
        pid = player["player_id"]
        by_id[pid] = player
        frozen[pid], basis[pid] = frozen_rating(player, era)
    for pid, player in by_id.items():
        k[pid], k_rule[pid] = k_and_rule(player, frozen[pid], era)

    # winners: points equal to the best of the tournament
    best: dict[str, float] = {}
    for entry in entries:
        tid = entry["tournament_id"]
        if tid not in best or entry["points"] > best[tid]:
            best[tid] = entry["points"]

    # 2. counted games, grouped by (tournament, player)
    counted: dict[tuple[str, str], list[Row]] = {}
    for game in games:
        pid = game["player_id"]
        if fide_start(by_id[pid], era) is not None:
            continue  # FIDE-rated at the start: no counted game
        counted.setdefault((game["tournament_id"], pid), []).append(game)

    entries_of: dict[str, list[Row]] = {}
    for entry in entries:
        entries_of.setdefault(entry["player_id"], []).append(entry)

    variations: list[Row] = []
    loose_variations: dict[tuple[str, str], frozenset[str]] = {}
    loose_ratings: dict[str, frozenset[str]] = {}
    sums: dict[str, Fraction] = {}
    sum_exact: dict[str, bool] = {}
    own_loose: dict[str, bool] = {}
    game_counts: dict[str, int] = {}
    for pid in by_id:
        # 4. the player's tournaments in order, their sequence and group (wave)
        own_entries = sorted(entries_of.get(pid, []), key=lambda e: order_key(e, era))
        grouped = era.groups_enabled and k[pid] >= era.group_min_k
        sequence_number = 0
        applied_by_wave: dict[int, Fraction] = {}
        exact_by_wave: dict[int, bool] = {}
        period_sum = Fraction(0)
        period_exact = True
        period_games = 0
        loose_from_here = False  # an own rating decided by a float at a rounding edge
        for entry in own_entries:
            tid = entry["tournament_id"]
            its_games = counted.get((tid, pid), [])
            is_winner = entry["points"] == best[tid]
            if not its_games and not era.group_counts_tournaments_without_games:
                variations.append(
                    {
                        "tournament_id": tid,
                        "player_id": pid,
                        "sequence": None,
                        "wave": None,
                        "own_rating": frozen[pid],
                        "games": 0,
                        "score": 0.0,
                        "expected": 0.0,
                        "k": k[pid],
                        "raw_hundredths": 0,
                        "applied_hundredths": 0,
                        "is_winner": is_winner,
                        "capped_games": 0,
                    }
                )
                continue
            sequence_number += 1
            wave = (sequence_number - 1) // era.group_size if grouped else 0
            earlier = Fraction(0)
            earlier_exact = True
            for earlier_wave, applied_sum in applied_by_wave.items():
                if earlier_wave < wave:
                    earlier += applied_sum
                    earlier_exact = earlier_exact and exact_by_wave[earlier_wave]
            if not earlier_exact and near_rounding_edge(earlier, era.rounding, tolerance):
                loose_from_here = True
            own = frozen[pid] + round_mode(earlier, era.rounding)

            # 5. expected score; 6. V and winner protection
            score = Fraction(0)
            for game in its_games:
                w = Fraction(game["score"])
                assert w in (0, HALF, 1), game
                score += w
            expected = tournament_expected(
                own, [frozen[game["opponent_id"]] for game in its_games], era
            )
            raw = k[pid] * (score - expected.points)
            protected = era.winner_protection and is_winner and raw < 0
            applied = Fraction(0) if protected else raw
            if not logistic:
                assert (raw * 100).denominator == 1, raw  # table methods: whole hundredths
            applied_by_wave[wave] = applied_by_wave.get(wave, Fraction(0)) + applied
            exact_by_wave[wave] = exact_by_wave.get(wave, True) and expected.exact
            period_sum += applied
            period_exact = period_exact and expected.exact
            period_games += len(its_games)
            loose: set[str] = set()
            if loose_from_here:
                loose |= {"own_rating", "expected", "raw_hundredths", "applied_hundredths"}
            if not expected.exact and near_rounding_edge(
                raw * 100, "half_away_from_zero", tolerance * 100
            ):
                loose |= {"raw_hundredths", "applied_hundredths"}
            if loose:
                loose_variations[tid, pid] = frozenset(loose)
            variations.append(
                {
                    "tournament_id": tid,
                    "player_id": pid,
                    "sequence": sequence_number,
                    "wave": wave,
                    "own_rating": own,
                    "games": len(its_games),
                    "score": float(score),
                    "expected": float(expected.points),
                    "k": k[pid],
                    "raw_hundredths": to_hundredths(raw),
                    "applied_hundredths": to_hundredths(applied),
                    "is_winner": is_winner,
                    "capped_games": expected.capped_games,
                }
            )
        sums[pid] = period_sum
        sum_exact[pid] = period_exact
        own_loose[pid] = loose_from_here
        game_counts[pid] = period_games

    # 7-8. the period change and the close
    ratings: list[Row] = []
    for pid, player in by_id.items():
        change = round_mode(sums[pid], era.rounding)
        from_change = False
        if era.fide_holders_leave_list and player["fide_close"] is not None:
            rating_type, rating = "fide", player["fide_close"]
        elif fide_start(player, era) is not None:
            rating_type, rating = era.system, era.fide_minimum - 1
        else:
            rating_type, rating = era.system, frozen[pid] + change
            from_change = True
        loose: set[str] = set()
        if own_loose[pid]:
            loose |= {"variation_hundredths", "period_change"}
        if not sum_exact[pid]:
            if near_rounding_edge(sums[pid], era.rounding, tolerance):
                loose.add("period_change")
            if near_rounding_edge(sums[pid] * 100, "half_away_from_zero", tolerance * 100):
                loose.add("variation_hundredths")
        if "period_change" in loose and from_change:
            loose.add("rating")
        if loose:
            loose_ratings[pid] = frozenset(loose)
        ratings.append(
            {
                "player_id": pid,
                "frozen_rating": frozen[pid],
                "rating_basis": basis[pid],
                "k": k[pid],
                "k_rule": k_rule[pid],
                "games": game_counts[pid],
                "total_games": (player["total_games"] or 0) + game_counts[pid],
                "variation_hundredths": to_hundredths(sums[pid]),
                "period_change": change,
                "rating": rating,
                "rating_type": rating_type,
            }
        )
    return ReferenceResult(
        ratings=ratings,
        variations=variations,
        loose_ratings=loose_ratings,
        loose_variations=loose_variations,
    )


def reference_period_frames(
    players: pl.DataFrame, entries: pl.DataFrame, games: pl.DataFrame, era: EloEra
) -> ReferenceResult:
    """``reference_period`` on the engine's input frames."""
    return reference_period(players.to_dicts(), entries.to_dicts(), games.to_dicts(), era)


def games_with_ids(entries: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Games as the warehouse read gives them (integer keys only) with the player and opponent
    ids the reference reads, taken from the entries the keys point to."""
    codes = entries.select("player_code", "player_id").unique()
    return games.join(entries.select("entry_key", "player_id"), on="entry_key").join(
        codes.rename({"player_code": "opponent_code", "player_id": "opponent_id"}),
        on="opponent_code",
    )
