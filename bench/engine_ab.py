"""Compare two versions of the Elo rating engine on the benchmark's periods.

    .venv/bin/python -m bench.engine_ab --base ../other-checkout        # national history
    .venv/bin/python -m bench.engine_ab --base ../other-checkout --small

``--base`` is another checkout of this project (``git worktree add ../base REV`` makes one).
Its engine module (``transforms/elo/period.py``, or ``transforms/elo_period.py`` in a checkout
before the transforms were grouped) and this checkout's run ``compute_period`` alternately, on
every period's inputs, each ``--runs`` times (in turn first, then second); the results must be
identical. Reported per version: the sum over the periods of its fastest run. This machine's
speed moves by a factor of two within minutes, so a single timed pass says little about a
change of a few per cent; the minima of alternated runs come close to what each version costs
on an undisturbed machine (two runs of the same code differ by under 0.5 %).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

from bench.recalc_benchmark import OUT, PeriodInputs, history_file, list_dates, period_inputs

# where the engine module stands: today, and in checkouts before transforms/ was grouped
ENGINE_FILES = (Path("transforms/elo/period.py"), Path("transforms/elo_period.py"))


def load_engine(checkout: Path, name: str) -> ModuleType:
    """A checkout's engine module under its own name (it shares the rest of this checkout)."""
    path = next(
        (checkout / file for file in ENGINE_FILES if (checkout / file).is_file()),
        checkout / ENGINE_FILES[0],
    )
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"no engine at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def compare(
    base: ModuleType, new: ModuleType, periods: list[PeriodInputs], runs: int
) -> dict[str, float]:
    """Sums of per-period minima of both engines; refuses results that differ."""
    totals = {"base": 0.0, "new": 0.0}
    new_faster = 0
    for period in periods:
        inputs = (period.players, period.entries, period.games, period.era)
        of_base, of_new = base.compute_period(*inputs), new.compute_period(*inputs)
        if not (
            of_base.ratings.equals(of_new.ratings) and of_base.variations.equals(of_new.variations)
        ):
            raise SystemExit(f"the two engines differ on the period of {period.list_date}")
        best = {"base": float("inf"), "new": float("inf")}
        for turn in range(runs):
            order = [("base", base), ("new", new)]
            for name, engine in order if turn % 2 == 0 else reversed(order):
                began = time.perf_counter()
                engine.compute_period(*inputs)
                best[name] = min(best[name], time.perf_counter() - began)
        totals["base"] += best["base"]
        totals["new"] += best["new"]
        new_faster += best["new"] < best["base"]
    return {**totals, "periods": len(periods), "new_faster_in": new_faster}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--runs", type=int, default=7, help="runs of each engine per period")
    parser.add_argument("--small", action="store_true", help="the small history")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    base = load_engine(args.base.resolve(), "engine_under_comparison_base")
    new = load_engine(here, "engine_under_comparison_new")
    history, size = history_file(args.out, args.small)
    first, last = list_dates(size)
    print(f"reading every period's inputs from {history} …", flush=True)
    periods = list(period_inputs(history, first, last))
    games = sum(period.games.height // 2 for period in periods)
    print(f"{len(periods)} periods, {games:,} games; {args.runs} runs of each engine a period …")
    figures = compare(base, new, periods, args.runs)
    change = figures["new"] / figures["base"] - 1
    print(
        f"base ({args.base}): {figures['base']:.3f} s, {games / figures['base']:,.0f} games/s\n"
        f"new  ({here}): {figures['new']:.3f} s, {games / figures['new']:,.0f} games/s\n"
        f"new - base: {change:+.1%}; new faster in {figures['new_faster_in']} of "
        f"{figures['periods']} periods; identical results in every period"
    )


if __name__ == "__main__":
    main()
