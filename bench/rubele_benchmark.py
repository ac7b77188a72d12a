"""Benchmark of a full FID Elo-Rubele recalculation: 30 years of a draughts federation.

    .venv/bin/python -m bench.rubele_benchmark            # 5,000 players, 400 tournaments a year
    .venv/bin/python -m bench.rubele_benchmark --years 3  # a quick run of the same code

Generates the history (``bench/draughts_history.py``: 30 years from 1995, so the minimum of
1994 and the Q term of 2022 are both in force at some point), then times the wave engine
(``transforms/rubele/capitals.py``) applying every tournament in order from the entry
capitals, and the plain per-tournament loop of ``tests/reference/rubele.py`` on the same
frames; reports whether they agree on every capital and variation, and the peak memory of the
process.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import polars as pl

from bench.draughts_history import draughts_history_frames
from bench.machine import Stopwatch
from flows.runtime import code_version
from transforms.lists.eras import default_rulebook_path
from transforms.rubele.capitals import apply_tournaments, tournament_order, waves
from transforms.rubele.rulebook import parse_rubele_rulebook

OUT = Path(__file__).resolve().parent / "out"


def _peak_memory_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=int, default=30)
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--per-year", type=int, default=400)
    parser.add_argument("--variant", default="italiana", choices=["italiana", "internazionale"])
    parser.add_argument("--no-loop", action="store_true", help="skip the plain-Python loop")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    system = f"rubele_{args.variant}"
    rulebook = parse_rubele_rulebook(default_rulebook_path(system).read_bytes(), system)

    began = time.perf_counter()
    capitals, tournaments, entries, games = draughts_history_frames(
        7, players=args.players, years=args.years, tournaments_per_year=args.per_year,
        variant=args.variant,
    )  # fmt: skip
    generated = time.perf_counter() - began
    print(
        f"history: {tournaments.height:,} tournaments, {entries.height:,} entries, "
        f"{games.height // 2:,} games ({generated:.1f} s to generate)",
        flush=True,
    )
    ordered = tournament_order(tournaments, rulebook).select("tournament_id", "order")
    positions = capitals.select("player_id", pl.int_range(pl.len()).alias("p"))
    depth = (
        int(
            waves(entries.join(ordered, on="tournament_id").join(positions, on="player_id")).max()  # type: ignore[arg-type]
        )
        + 1
    )

    print("engine …", flush=True)
    engine = Stopwatch()
    with engine.running():
        result = apply_tournaments(capitals, tournaments, entries, games, rulebook)
    engine_seconds = engine.seconds
    figures: dict[str, object] = {
        "code_version": code_version(),
        "system": system,
        "years": args.years,
        "players": capitals.height,
        "tournaments": tournaments.height,
        "entries": entries.height,
        "games": games.height // 2,
        "waves": depth,
        "engine_seconds": engine_seconds,
        "engine_tournaments_per_second": tournaments.height / engine_seconds,
        "engine_games_per_second": games.height / 2 / engine_seconds,
        **engine.cpu.figures("engine"),
    }
    if not args.no_loop:
        from tests.reference.rubele import reference_history_frames

        print("plain loop …", flush=True)
        plain_loop = Stopwatch()
        with plain_loop.running():
            loop_capitals, loop_variations = reference_history_frames(
                capitals, tournaments, entries, games, rulebook
            ).frames()
        loop_seconds = plain_loop.seconds
        keys = ["tournament_id", "player_id"]
        engine_rows = result.variations.sort(keys)
        loop_rows = loop_variations.sort(keys).select(engine_rows.columns)
        differing = engine_rows.join(loop_rows, on=keys, suffix="_loop").filter(
            pl.any_horizontal(
                pl.col(name).ne_missing(pl.col(f"{name}_loop"))
                for name in engine_rows.columns
                if name not in keys
            )
        )
        figures |= {
            "loop_seconds": loop_seconds,
            "loop_games_per_second": games.height / 2 / loop_seconds,
            "engine_vs_loop": loop_seconds / engine_seconds,
            "entries_differing": differing.height,
            "final_capitals_equal": result.capitals.sort("player_id")
            .select("player_id", "capital")
            .equals(loop_capitals.sort("player_id").select("player_id", "capital")),
            **plain_loop.cpu.figures("loop"),
        }
    figures["peak_memory_mb"] = _peak_memory_mb()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rubele_results.json").write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
