"""A national-scale synthetic history of one FID draughts variant, as the Rubele engine reads it.

No files: ``draughts_history_frames`` returns the four input frames of
``transforms.rubele.apply_tournaments`` (capitals, tournaments, entries, games) directly.

How the history is drawn (plain ``random.Random``: numpy is not installed; the loops are over
tournaments and rounds, and the whole default history takes a few seconds):

- **Players** have an entry capital (the registry category's table value plus a spread: mostly
  around 1500 on the italiana scale, 1000 on the internazionale one, a few N, CM and masters) and
  a hidden strength on the same scale. Some are active from the first year, the others join
  later, each staying an exponential number of years (mean ``MEAN_SPAN_YEARS``); the first-year
  cohort is sized so that about as many players are active every year.
- **Activity**: every player has a target number of tournaments a year (most 1-4, a quarter
  4-10, one in ten a regular with 10-30); a tournament's field is a weighted draw, without
  repeats, from the players active that year, so regulars play many overlapping tournaments.
- **Tournaments**: ``tournaments_per_year`` a year, 8-40 players, 5-9 rounds (more for larger
  fields), one-day to week-long events and weekly leagues; about 15 % valid at 50 %.
- **Rounds**: Swiss-like (ranked by points, random ties, paired 1-2, 3-4, ...; repeats allowed);
  with an odd field the lowest-ranked player sits out (a bye, which does not count). Results
  follow the default expected score ``Φ(d / 1414.21)`` of the hidden strengths, with a draw share
  of up to 50 % between equals.

``games`` holds counted games only, both sides' view (every game twice), points 1 / 0.5 / 0.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from datetime import date, timedelta
from itertools import accumulate

import polars as pl

VARIANT_PREFIX = {"italiana": "DI", "internazionale": "DN"}
# Entry capital by category, per variant (RULES.md §3 defaults): M, CM, N, everybody else.
ENTRY_CAPITALS = {"italiana": (3900, 3000, 2200, 1500), "internazionale": (3000, 2000, 1500, 1000)}
GAUSS_SCALE = 1414.21
MEAN_SPAN_YEARS = 12.0
DRAW_PEAK = 0.5
HALF_VALIDITY_SHARE = 0.15
MIN_PLAYERS, MAX_PLAYERS = 8, 40

CAPITAL_SCHEMA = {"player_id": pl.Utf8, "capital": pl.Int32}
TOURNAMENT_SCHEMA = {
    "tournament_id": pl.Utf8,
    "start_date": pl.Date,
    "end_date": pl.Date,
    "validity": pl.Int32,
}
ENTRY_SCHEMA = {"tournament_id": pl.Utf8, "player_id": pl.Utf8}
GAME_SCHEMA = {
    "tournament_id": pl.Utf8,
    "player_id": pl.Utf8,
    "opponent_id": pl.Utf8,
    "points": pl.Float64,
}


def _players(rng: random.Random, n: int, variant: str, first_year: int, last_year: int):
    """Ids, entry capitals, strengths, activity targets and (first, last) active years."""
    m, cm, nat, base = ENTRY_CAPITALS[variant]
    ids, capitals, strengths, targets, spans = [], [], [], [], []
    # Exponential stays from a cohort plus a steady stream: as many active players every year.
    cohort = MEAN_SPAN_YEARS / (last_year - first_year + 1 + MEAN_SPAN_YEARS)
    for i in range(1, n + 1):
        roll = rng.random()
        if roll < 0.01:
            capital = m + abs(rng.gauss(0, 200))
        elif roll < 0.04:
            capital = rng.uniform(cm, m)
        elif roll < 0.12:
            capital = rng.uniform(nat, cm)
        else:
            capital = min(max(rng.gauss(base, 0.2 * base), 0.4 * base), nat + 0.3 * (cm - nat))
        capital = round(capital / 10) * 10
        first = first_year if rng.random() < cohort else rng.randint(first_year, last_year)
        last = min(last_year, first + int(rng.expovariate(1 / MEAN_SPAN_YEARS)))
        kind = rng.random()
        low, high = (1, 4) if kind < 0.65 else (4, 10) if kind < 0.9 else (10, 30)
        target = rng.uniform(low, high)
        ids.append(f"D{i:06d}")
        capitals.append(capital)
        strengths.append(capital + rng.gauss(0, 250))
        targets.append(target)
        spans.append((first, last))
    return ids, capitals, strengths, targets, spans


def _result(rng: random.Random, a: float, b: float) -> float:
    expected = 0.5 * (1.0 + math.erf((a - b) / (GAUSS_SCALE * math.sqrt(2.0))))
    draw = min(DRAW_PEAK * 4 * expected * (1 - expected), 2 * min(expected, 1 - expected))
    u = rng.random()
    return 1.0 if u < expected - draw / 2 else 0.5 if u < expected + draw / 2 else 0.0


def draughts_history_frames(
    seed: int,
    players: int = 5000,
    years: int = 30,
    tournaments_per_year: int = 400,
    variant: str = "italiana",
    *,
    first_year: int = 1995,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(capitals, tournaments, entries, games) of ``years`` years from ``first_year``.

    Same arguments, same frames. Frames: capitals ``player_id, capital`` (every player);
    tournaments ``tournament_id, start_date, end_date, validity``; entries ``tournament_id,
    player_id``; games ``tournament_id, player_id, opponent_id, points`` (both sides).
    """
    if variant not in VARIANT_PREFIX:
        raise ValueError(f"variant must be one of {sorted(VARIANT_PREFIX)}")
    if players < MIN_PLAYERS or years < 1 or tournaments_per_year < 1:
        raise ValueError(f"need at least {MIN_PLAYERS} players, 1 year and 1 tournament a year")
    rng = random.Random(seed)
    last_year = first_year + years - 1
    ids, capitals, strengths, targets, spans = _players(
        rng, players, variant, first_year, last_year
    )
    t_ids: list[str] = []
    t_start: list[date] = []
    t_end: list[date] = []
    t_validity: list[int] = []
    e_tid: list[str] = []
    e_pid: list[str] = []
    g_tid: list[str] = []
    g_pid: list[str] = []
    g_opp: list[str] = []
    g_pts: list[float] = []
    for year in range(first_year, last_year + 1):
        active = [i for i, (lo, hi) in enumerate(spans) if lo <= year <= hi]
        if len(active) < MIN_PLAYERS:
            continue
        cumulative = list(accumulate(targets[i] for i in active))
        plan = []
        for _ in range(tournaments_per_year):
            size = min(MAX_PLAYERS, MIN_PLAYERS + int(rng.expovariate(1 / 13)), len(active))
            rounds = min(9, max(5, 4 + size // 8 + rng.randint(0, 1)))
            kind = rng.random()
            if kind < 0.6:  # one day or a weekend
                span = rng.randint(0, 1)
            else:  # a festival of a few days, or a weekly league
                span = rng.randint(2, 6) if kind < 0.85 else 7 * (rounds - 1)
            start = date(year, 1, 1) + timedelta(days=rng.randint(0, 364))
            plan.append((start, start + timedelta(days=span), size, rounds))
        plan.sort(key=lambda p: (p[0], p[1]))
        for k, (start, end, size, rounds) in enumerate(plan, 1):
            tid = f"{VARIANT_PREFIX[variant]}-{year}-{k:04d}"
            t_ids.append(tid)
            t_start.append(start)
            t_end.append(end)
            t_validity.append(50 if rng.random() < HALF_VALIDITY_SHARE else 100)
            field: dict[int, None] = {}  # insertion-ordered set of player indices
            while len(field) < size:
                for i in rng.choices(active, cum_weights=cumulative, k=size - len(field)):
                    field[i] = None
            entrants = list(field)
            e_tid.extend([tid] * size)
            e_pid.extend(ids[i] for i in entrants)
            score = dict.fromkeys(entrants, 0.0)
            for _ in range(rounds):
                order = sorted(entrants, key=lambda i: (-score[i], rng.random()))
                for a, b in zip(order[0::2], order[1::2], strict=False):
                    points = _result(rng, strengths[a], strengths[b])
                    score[a] += points
                    score[b] += 1.0 - points
                    g_tid.extend((tid, tid))
                    g_pid.extend((ids[a], ids[b]))
                    g_opp.extend((ids[b], ids[a]))
                    g_pts.extend((points, 1.0 - points))
    capitals_frame = pl.DataFrame({"player_id": ids, "capital": capitals}, schema=CAPITAL_SCHEMA)
    tournaments = pl.DataFrame(
        {"tournament_id": t_ids, "start_date": t_start, "end_date": t_end, "validity": t_validity},
        schema=TOURNAMENT_SCHEMA,
    )
    entries = pl.DataFrame({"tournament_id": e_tid, "player_id": e_pid}, schema=ENTRY_SCHEMA)
    games = pl.DataFrame(
        {"tournament_id": g_tid, "player_id": g_pid, "opponent_id": g_opp, "points": g_pts},
        schema=GAME_SCHEMA,
    )
    return capitals_frame, tournaments, entries, games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--years", type=int, default=30)
    parser.add_argument("--tournaments-per-year", type=int, default=400)
    parser.add_argument("--variant", choices=sorted(VARIANT_PREFIX), default="italiana")
    parser.add_argument(
        "--apply", action="store_true", help="also time transforms.rubele.apply_tournaments"
    )
    args = parser.parse_args(argv)
    began = time.perf_counter()
    capitals, tournaments, entries, games = draughts_history_frames(
        args.seed, args.players, args.years, args.tournaments_per_year, args.variant
    )
    generated = time.perf_counter() - began
    per_year = (
        entries.join(tournaments, on="tournament_id")
        .group_by("player_id", pl.col("start_date").dt.year())
        .len()
        .get_column("len")
    )
    draws = (games.get_column("points") == 0.5).mean()
    print(f"generated in {generated:.1f} s")
    print(f"capitals    {capitals.height:>10,}")
    print(f"tournaments {tournaments.height:>10,}")
    print(f"entries     {entries.height:>10,}")
    print(f"game rows   {games.height:>10,}  ({games.height // 2:,} games, draws {draws:.0%})")
    print(
        "tournaments a player-year: "
        f"median {per_year.median():.0f}, p90 {per_year.quantile(0.9):.0f}, max {per_year.max()}"
    )
    if args.apply:
        from pathlib import Path

        from transforms.rubele.capitals import apply_tournaments
        from transforms.rubele.rulebook import parse_rubele_rulebook

        path = Path(__file__).resolve().parents[1] / f"data/rules/rubele_{args.variant}.toml"
        rulebook = parse_rubele_rulebook(path.read_bytes(), str(path))
        began = time.perf_counter()
        apply_tournaments(capitals, tournaments, entries, games, rulebook)
        print(f"apply_tournaments in {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
