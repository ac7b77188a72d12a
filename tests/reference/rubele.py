"""A slow, obviously correct reference of the FID Elo-Rubele capital update (RULES.md §3).

Written with plain loops and dicts straight from the rules, independently of the engine in
``transforms/rubele/capitals.py``: only the rulebook dataclasses are shared. Floats are
evaluated in the same order the engine contract fixes, so that both give bit-identical results.

The semantics, in the order they are applied (the era's keys in brackets):

1. Tournaments in order of the rulebook's columns [order.by] (by default end date, start date,
   id; a missing start date first); each computed under the era in force on its end date. A
   tournament ending before the first era starts is refused: the variant is not rated yet.
2. Inside a tournament every participant plays with the capital held before it (CI), for
   himself and as an opponent.
3. A game counts when played over the board; when the games carry a kind, a forfeit or a
   withdrawal counts only for the player who lost it (0 points), if the era lists that kind
   [games.counted_for_loser]. A participant without counted games keeps CI: no V, no Q, no
   floor.
4. PA = Σ PA(CI - CI_opponent) over his counted games, the difference capped at ±cap when the
   era has one [expected.difference_cap], each PA(n) taken as a whole number of pico-points (so
   the sum is exact in any order); PO = Σ points; D = (PO - PA) × 2 on the FID's 2 / 1 / 0
   points scale, PO - PA on 1 / ½ / 0 [points.scale]; V = S(CI) × D × validity factor
   (the factor taken as 1 when it applies after the rescaling [validity.factor_stage]);
   X = CI + V.
5. Upward threshold rescaling of X, one threshold after the other, starting from CI's band:
   X = T + (X - T) × S_new / S_old; when the era rescales only the first time
   [rescaling.upward = "first"], a threshold the player had passed before (his ``reached``
   capital, then every final capital since, strictly above T: one equal to T has not passed
   it) is crossed without rescaling and S_old stays.
   Downward, when the era has it [rescaling.downward]: X = T - (T - X) × S_new / S_old.
6. After the rescaling when the era says so: X = CI + (X - CI) × validity factor.
7. X += Q (when the era has one; × the validity factor when the era says so
   [validity.factor_on_q]).
8. X below the era's minimum (when it has one) is raised to it.
9. CF = X rounded to the nearest whole number: floor(X + 0.5 + 1e-9) with halves up, or
   ceil(X - 0.5 - 1e-9) with halves down [capital.rounding] (so that 4.4999999999 from a
   decimal table's binary arithmetic rounds as the exact 4.5 would), the capital for the next
   tournament.
10. Waves: a tournament's wave is 0 when none of its participants entered an earlier one (in
    the order of 1.), else 1 + the highest wave of its participants' previous tournaments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from transforms.rubele.rulebook import RubeleEra, RubeleRulebook

Row = dict[str, Any]
PA_UNITS = 10**12  # PA(n) in whole pico-points: sums exact in any order
PA_UNIT = 1e-12  # PA = (sum of pico-points) x PA_UNIT, one IEEE multiplication
HALF_TOLERANCE = 1e-9  # binary arithmetic on a decimal table must not move a half

CAPITAL_DTYPES: dict[str, Any] = {
    "player_id": pl.Utf8,
    "capital": pl.Int32,
    "tournaments": pl.Int32,
    "games": pl.Int32,
}
VARIATION_DTYPES: dict[str, Any] = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "wave": pl.Int32,
    "sequence": pl.Int32,
    "initial": pl.Int32,
    "games": pl.Int32,
    "points": pl.Float64,
    "expected": pl.Float64,
    "s": pl.Int32,
    "factor": pl.Float64,
    "variation": pl.Float64,
    "rescaled": pl.Float64,
    "crossings": pl.Int32,
    "reached": pl.Int32,
    "recrossed": pl.Int32,
    "q": pl.Int32,
    "floored": pl.Boolean,
    "final": pl.Int32,
}


@dataclass(frozen=True)
class Outcome:
    """Steps 4-8 for one participant of one tournament, once D is known."""

    s: int
    factor: float
    variation: float  # V
    rescaled: float  # CI + V after the threshold rescaling
    crossings: int  # thresholds crossed and rescaled, up or down
    recrossed: int  # thresholds crossed upward without rescaling (reached before)
    q: int  # the era's Q (0 when none; the Q added is Q x factor when the era scales it)
    floored: bool
    final: int  # CF


@dataclass(frozen=True)
class ReferenceResult:
    """Rows of the two outputs, as plain dicts (same columns as the engine's frames)."""

    capitals: list[Row]
    variations: list[Row]

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        return (
            pl.DataFrame(self.capitals, schema=CAPITAL_DTYPES, orient="row"),
            pl.DataFrame(self.variations, schema=VARIATION_DTYPES, orient="row"),
        )


def era_for(rulebook: RubeleRulebook, end: date) -> RubeleEra:
    """The last era starting on or before ``end`` (none before the first: not rated yet)."""
    chosen = None
    for era in rulebook.eras:
        if era.effective_from <= end:
            chosen = era
    if chosen is None:
        raise ValueError(f"{end} is before {rulebook.system} is rated")
    return chosen


def band_of(capital: int, era: RubeleEra) -> int:
    """0 below the low threshold, 1 from low to high (both included), 2 above high."""
    if capital < era.band_low:
        return 0
    if capital <= era.band_high:
        return 1
    return 2


def pico_points(expected: float) -> int:
    """PA(n) as a whole number of pico-points (10^-12), rounded half up."""
    return math.floor(expected * PA_UNITS + 0.5)


def capped(difference: int, era: RubeleEra) -> int:
    """The capital difference a PA(n) is read at: within ±cap when the era has a cap."""
    if era.difference_cap == 0:
        return difference
    return max(-era.difference_cap, min(era.difference_cap, difference))


def game_counts(game: Row, era: RubeleEra) -> bool:
    """Whether one side of a game counts for its player (step 3)."""
    kind = game.get("kind", "played")
    if kind == "played":
        return True
    lost = game["points"] == 0
    return kind in era.counted_for_loser and lost and game["opponent_id"] is not None


def round_final(x: float, era: RubeleEra) -> int:
    """To the nearest whole number, a half up or down as the era says; an X within 1e-9 of a
    half counts as the half."""
    if era.rounding == "half_down":
        return math.ceil(x - 0.5 - HALF_TOLERANCE)
    return math.floor(x + 0.5 + HALF_TOLERANCE)


def capital_after(
    ci: int,
    d: float,
    era: RubeleEra,
    validity: int,
    counted: bool = True,
    reached: int | None = None,
) -> Outcome:
    """CF of a player with capital ``ci`` and PO - PA = ``d`` (1 / ½ / 0 scale) in one
    tournament (steps 3-9); ``reached``: the highest capital he had held before (``ci`` when
    not given)."""
    reached = ci if reached is None else max(ci, reached)
    s = era.s_for(ci)
    s_by_band = [era.s_below, era.s_between, era.s_above]
    band = band_of(ci, era)
    assert s == s_by_band[band], (ci, s, band)
    factor = era.validity_factors[validity]
    after_rescaling = era.validity_factor_stage == "after_rescaling"
    if not counted:
        return Outcome(s, factor, 0.0, float(ci), 0, 0, 0, False, ci)

    d = d * era.points_per_win  # PO and PA both doubled on the FID's 2 / 1 / 0
    variation = s * d if after_rescaling else s * d * factor
    x = ci + variation

    # 5. crossings, one threshold after the other from CI's band
    thresholds = [era.band_low, era.band_high]
    s_cur = s
    crossings = recrossed = 0
    if x > ci:
        for i in range(band, 2):
            threshold = thresholds[i]
            if x <= threshold:
                break
            if era.rescale_upward == "first" and reached > threshold:
                recrossed += 1  # passed before: no rescaling, S stays
                continue
            s_new = s_by_band[i + 1]
            x = threshold + (x - threshold) * s_new / s_cur
            s_cur = s_new
            crossings += 1
    elif x < ci and era.rescale_downward:
        for i in range(band - 1, -1, -1):
            threshold = thresholds[i]
            if x >= threshold:
                break
            s_new = s_by_band[i]
            x = threshold - (threshold - x) * s_new / s_cur
            s_cur = s_new
            crossings += 1
    rescaled = x

    # 6. the validity factor on the rescaled change
    if after_rescaling:
        x = ci + (x - ci) * factor

    # 7. anti-deflation term
    q = 0
    if era.q > 0:
        q = era.q
        x = x + (q * factor if era.validity_factor_on_q else q)

    # 8. minimum
    floored = False
    if era.minimum > 0 and x < era.minimum:
        x = era.minimum
        floored = True

    # 9. only the final capital is rounded
    return Outcome(
        s, factor, variation, rescaled, crossings, recrossed, q, floored, round_final(x, era)
    )


def order_key(tournament: Row, rulebook: RubeleRulebook) -> tuple:
    """The tournament's place in the order of the rulebook's columns (a missing date first)."""
    return tuple(
        date.min if tournament[column] is None else tournament[column]
        for column in rulebook.tournament_order
    )


def reference_history(
    capitals: list[Row],
    tournaments: list[Row],
    entries: list[Row],
    games: list[Row],
    rulebook: RubeleRulebook,
) -> ReferenceResult:
    """Every tournament of a run, from plain rows (see the engine's contract for the columns)."""
    capital: dict[str, int] = {}
    reached: dict[str, int] = {}  # the highest capital known reached
    for row in capitals:
        assert row["player_id"] not in capital, f"player {row['player_id']} twice in capitals"
        capital[row["player_id"]] = row["capital"]
        reached[row["player_id"]] = max(row["capital"], row.get("reached") or row["capital"])
    tournament_count = dict.fromkeys(capital, 0)
    game_count = dict.fromkeys(capital, 0)

    participants: dict[str, list[str]] = {}
    for entry in entries:
        names = participants.setdefault(entry["tournament_id"], [])
        assert entry["player_id"] not in names, f"{entry} entered twice"
        names.append(entry["player_id"])
    sides: dict[tuple[str, str], list[Row]] = {}
    for game in games:
        sides.setdefault((game["tournament_id"], game["player_id"]), []).append(game)

    last_wave: dict[str, int] = {}
    entered: dict[str, int] = {}
    variations: list[Row] = []
    for tournament in sorted(tournaments, key=lambda row: order_key(row, rulebook)):
        tid = tournament["tournament_id"]
        era = era_for(rulebook, tournament["end_date"])
        validity = tournament["validity"]
        players = sorted(participants.get(tid, []))

        # 9. the wave
        earlier = [last_wave[pid] for pid in players if pid in last_wave]
        wave = 1 + max(earlier) if earlier else 0

        # 2. everyone plays with the capital held before the tournament
        initial = {pid: capital[pid] for pid in players}
        for pid in players:
            ci = initial[pid]
            its_games = [g for g in sides.get((tid, pid), []) if game_counts(g, era)]
            po = math.fsum(game["points"] for game in its_games)
            pa = (
                sum(
                    pico_points(era.expected(capped(ci - initial[g["opponent_id"]], era)))
                    for g in its_games
                )
                * PA_UNIT
            )
            outcome = capital_after(
                ci, po - pa, era, validity, counted=bool(its_games), reached=reached[pid]
            )
            entered[pid] = entered.get(pid, 0) + 1
            variations.append(
                {
                    "tournament_id": tid,
                    "player_id": pid,
                    "wave": wave,
                    "sequence": entered[pid],
                    "initial": ci,
                    "games": len(its_games),
                    "points": po if its_games else 0.0,
                    "expected": pa if its_games else 0.0,
                    "s": outcome.s,
                    "factor": outcome.factor,
                    "variation": outcome.variation,
                    "rescaled": outcome.rescaled,
                    "crossings": outcome.crossings,
                    "reached": reached[pid],
                    "recrossed": outcome.recrossed,
                    "q": outcome.q,
                    "floored": outcome.floored,
                    "final": outcome.final,
                }
            )
            if its_games:
                tournament_count[pid] += 1
                game_count[pid] += len(its_games)
        # the new capitals take effect only after the whole tournament
        for row in variations[len(variations) - len(players) :]:
            capital[row["player_id"]] = row["final"]
            reached[row["player_id"]] = max(reached[row["player_id"]], row["final"])
            last_wave[row["player_id"]] = wave

    result_capitals = [
        {
            "player_id": row["player_id"],
            "capital": capital[row["player_id"]],
            "tournaments": tournament_count[row["player_id"]],
            "games": game_count[row["player_id"]],
        }
        for row in capitals
    ]
    return ReferenceResult(capitals=result_capitals, variations=variations)


def reference_history_frames(
    capitals: pl.DataFrame,
    tournaments: pl.DataFrame,
    entries: pl.DataFrame,
    games: pl.DataFrame,
    rulebook: RubeleRulebook,
) -> ReferenceResult:
    """``reference_history`` on the engine's input frames."""
    return reference_history(
        capitals.to_dicts(), tournaments.to_dicts(), entries.to_dicts(), games.to_dicts(), rulebook
    )
