"""A slow, obviously correct reference of one FSI Elo period: Elo Italia (RULES.md §1) and Elo
Rapid (§2), which differs only where its rulebook says so (FIDE holders stay on the list, a
newcomer may enter with a rating from another list, no arbiter re-assignment of listed players).

Written with plain loops and dicts straight from the rules, independently of the engine in
``transforms/elo/period.py``: only the rulebook dataclasses are shared. Scores are integer
hundredths (W is 100, 50 or 0; We comes from the FIDE table), so every sum and the one rounding
of the period sum are exact.

The semantics, in the order they are applied:

1. Frozen rating and its basis: FIDE rating at the start; else the list rating (raised to an
   arbiter re-assignment only when that is strictly higher); else, for a player shown on the
   previous list as FIDE-rated who no longer is, the FIDE minimum - 1; else the arbiter's
   rating of a foreign player; else the theoretical rating of the registry category (or of the
   era's category for the unregistered).
2. A game counts for a player iff the player has no FIDE rating at the start; the opponent always
   plays with his frozen rating.
3. D = own - opponent, clipped to the cap (if any); We from the band containing |D|.
4. K is fixed for the period: everyone zero, else the registry K, else newcomer / high / default.
5. Per tournament V = K x sum(W - We); a first place (ties included) turns a negative V into 0.
6. Groups of tournaments: from the second group on the player's own rating is the frozen rating
   plus the rounded sum of the applied V of the earlier groups. A tournament without counted
   games takes a place in the player's order only when the era says so.
7. The period sum is rounded once, halves away from zero.
8. At the close a FIDE rating wins; a player who lost FIDE re-enters at the minimum - 1.

In an era where FIDE holders do not leave the list (Elo Rapid) steps 1, 2 and 8 ignore FIDE
ratings; a newcomer without arbiter rating takes ``entry_rating`` (its source in
``entry_basis``) when given, before the theoretical rating.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from transforms.elo.rulebook import EloEra

Row = dict[str, Any]


@dataclass(frozen=True)
class ReferenceResult:
    """Rows of the two outputs, as plain dicts (same columns as the engine's frames)."""

    ratings: list[Row]
    variations: list[Row]


def round_hundredths(total: int) -> int:
    """``total / 100`` rounded to an integer, halves away from zero (exact, integers only)."""
    whole, rest = divmod(abs(total), 100)
    if rest >= 50:
        whole += 1
    return whole if total >= 0 else -whole


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


def expected_score(own: int, opponent: int, era: EloEra) -> int:
    """We in hundredths for a player rated ``own`` against one rated ``opponent``."""
    difference = own - opponent
    cap = era.difference_cap
    if cap > 0:
        if difference > cap:
            difference = cap
        if difference < -cap:
            difference = -cap
    pd = higher_expected(abs(difference), era.expected_bands)
    if difference >= 0:
        return pd
    return 100 - pd


def fide_start(player: Row, era: EloEra) -> int | None:
    """The FIDE rating that takes the player off the list, in eras where one does."""
    return player["fide_start"] if era.fide_holders_leave_list else None


def frozen_rating(player: Row, era: EloEra) -> tuple[int, str]:
    """The rating the player carries into every game of the period, and where it comes from."""
    fide = fide_start(player, era)
    if fide is not None:
        return fide, "fide"
    if player["list_rating"] is not None:
        arbiter = player["arbiter_rating"]
        if era.arbiter_raises_listed and arbiter is not None and arbiter > player["list_rating"]:
            return arbiter, "arbiter_reassignment"
        return player["list_rating"], "list"
    if era.fide_holders_leave_list and player["on_list_as_fide"]:
        return era.fide_minimum - 1, "fide_reentry"
    if player["arbiter_rating"] is not None:
        return player["arbiter_rating"], "arbiter"
    if player.get("entry_rating") is not None:
        return player["entry_rating"], player.get("entry_basis") or "entry"
    category = player["category"]
    if category is None:
        category = era.unregistered_category
    if category in era.entry_ratings:
        return era.entry_ratings[category], "entry"
    return era.theoretical_ratings[category], "entry"


def k_factor(player: Row, frozen: int, era: EloEra) -> int:
    schedule = era.k
    if schedule.everyone_zero:
        return 0
    if schedule.registry_override and player["k_override"] is not None:
        return player["k_override"]
    if (player["total_games"] or 0) < schedule.newcomer_below_games:
        return schedule.newcomer
    if frozen >= schedule.high_from_rating:
        return schedule.high
    return schedule.default


def _order_key(entry: Row) -> tuple:
    """Tournament order for the groups rule: end date, start date, id; missing dates last."""
    end: date | None = entry["end_date"]
    start: date | None = entry["start_date"]
    return (
        end is None,
        end if end is not None else date.min,
        start is None,
        start if start is not None else date.min,
        entry["tournament_id"],
    )


def reference_period(
    players: list[Row], entries: list[Row], games: list[Row], era: EloEra
) -> ReferenceResult:
    """One Elo Italia period from plain rows (see the engine's contract for the columns)."""
    # 1. frozen ratings and K
    frozen: dict[str, int] = {}
    basis: dict[str, str] = {}
    k: dict[str, int] = {}
    by_id: dict[str, Row] = {}
    for player in players:
        pid = player["player_id"]
        by_id[pid] = player
        frozen[pid], basis[pid] = frozen_rating(player, era)
    for pid, player in by_id.items():
        k[pid] = k_factor(player, frozen[pid], era)

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

    # each player's entries, in tournament order, and their sequence / wave
    entries_of: dict[str, list[Row]] = {}
    for entry in entries:
        entries_of.setdefault(entry["player_id"], []).append(entry)

    variations: list[Row] = []
    sums: dict[str, int] = {}
    game_counts: dict[str, int] = {}
    for pid in by_id:
        own_entries = sorted(entries_of.get(pid, []), key=_order_key)
        grouped = era.groups_enabled and k[pid] >= era.group_min_k
        sequence_number = 0
        applied_by_wave: dict[int, int] = {}
        period_sum = 0
        period_games = 0
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
                    }
                )
                continue
            sequence_number += 1
            wave = (sequence_number - 1) // era.group_size if grouped else 0
            earlier = 0
            for earlier_wave, applied in applied_by_wave.items():
                if earlier_wave < wave:
                    earlier += applied
            own = frozen[pid] + round_hundredths(earlier)
            score = 0
            expected = 0
            for game in its_games:
                w = round(game["score"] * 100)
                assert w in (0, 50, 100), game
                score += w
                expected += expected_score(own, frozen[game["opponent_id"]], era)
            raw = k[pid] * (score - expected)
            applied = 0 if (is_winner and raw < 0) else raw
            applied_by_wave[wave] = applied_by_wave.get(wave, 0) + applied
            period_sum += applied
            period_games += len(its_games)
            variations.append(
                {
                    "tournament_id": tid,
                    "player_id": pid,
                    "sequence": sequence_number,
                    "wave": wave,
                    "own_rating": own,
                    "games": len(its_games),
                    "score": score / 100,
                    "expected": expected / 100,
                    "k": k[pid],
                    "raw_hundredths": raw,
                    "applied_hundredths": applied,
                    "is_winner": is_winner,
                }
            )
        sums[pid] = period_sum
        game_counts[pid] = period_games

    # 7-8. the close
    ratings: list[Row] = []
    for pid, player in by_id.items():
        change = round_hundredths(sums[pid])
        if era.fide_holders_leave_list and player["fide_close"] is not None:
            rating_type, rating = "fide", player["fide_close"]
        elif fide_start(player, era) is not None:
            rating_type, rating = era.system, era.fide_minimum - 1
        else:
            rating_type, rating = era.system, frozen[pid] + change
        ratings.append(
            {
                "player_id": pid,
                "frozen_rating": frozen[pid],
                "rating_basis": basis[pid],
                "k": k[pid],
                "games": game_counts[pid],
                "total_games": (player["total_games"] or 0) + game_counts[pid],
                "variation_hundredths": sums[pid],
                "period_change": change,
                "rating": rating,
                "rating_type": rating_type,
            }
        )
    return ReferenceResult(ratings=ratings, variations=variations)


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
