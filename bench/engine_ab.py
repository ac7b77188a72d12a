"""Compare two versions of the Elo rating engine on the benchmark's periods.

    .venv/bin/python -m bench.engine_ab --base ../other-checkout        # national history
    .venv/bin/python -m bench.engine_ab --base ../other-checkout --small
    .venv/bin/python -m bench.engine_ab --alone                         # this engine only

``--base`` is another checkout of this project (``git worktree add ../base REV`` makes one).
Its engine module (``transforms/elo/period.py``, or ``transforms/elo_period.py`` in a checkout
before the transforms were grouped) and this checkout's run ``compute_period`` alternately, on
every period's inputs, each ``--runs`` times (in turn first, then second); the results must be
identical. Reported per version: the sum over the periods of its fastest run. This machine's
speed moves by a factor of two within minutes, so a single timed pass says little about a
change of a few per cent; the minima of alternated runs come close to what each version costs
on an undisturbed machine (two runs of the same code differ by under 0.5 %).

``--alone`` times this checkout's engine by itself over every period (its first run and the
fastest of ``--runs``), and with it, where numba is installed, the compiled yardstick
(``bench/yardstick.py``: its loop only, checked against the engine on every period): the
engine's side of ``make bench`` in about a minute, without the plain loop's minutes. A
checkout without its own numbers to compare (``git archive REV | tar -x -C DIR`` makes one
without touching this repository's git metadata) works as ``--base`` too.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

from bench.recalc_benchmark import (
    OUT,
    PeriodInputs,
    _yardstick,
    history_file,
    list_dates,
    period_inputs,
)

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


def alone(engine: ModuleType, periods: list[PeriodInputs], runs: int) -> dict[str, float]:
    """The engine's first run and fastest of ``runs`` summed over the periods, and the
    yardstick's compiled loop (fastest of ``runs``, run right after the engine) where numba is
    installed; refuses a period where the two disagree."""
    yardstick = _yardstick()
    prepared = [
        yardstick.prepare(p.players, p.entries, p.games, p.era) if yardstick else None
        for p in periods
    ]
    if yardstick is not None and prepared:
        yardstick.compile_yardstick(prepared[0])
    totals = {"first": 0.0, "fastest": 0.0, "yardstick": 0.0}
    for period, arrays in zip(periods, prepared, strict=True):
        inputs = (period.players, period.entries, period.games, period.era)
        fastest = compiled = float("inf")
        for turn in range(runs):
            began = time.perf_counter()
            result = engine.compute_period(*inputs)
            took = time.perf_counter() - began
            totals["first"] += took if turn == 0 else 0.0
            fastest = min(fastest, took)
            if yardstick is not None:
                began = time.perf_counter()
                numbers = yardstick.run(arrays)
                compiled = min(compiled, time.perf_counter() - began)
                if turn == 0 and not yardstick.check(arrays, numbers, result.ratings):
                    raise SystemExit(f"engine and yardstick differ on {period.list_date}")
        totals["fastest"] += fastest
        totals["yardstick"] += compiled if yardstick is not None else 0.0
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="the other checkout")
    parser.add_argument(
        "--alone", action="store_true", help="time this engine alone (and the yardstick)"
    )
    parser.add_argument("--runs", type=int, default=7, help="runs of each engine per period")
    parser.add_argument("--small", action="store_true", help="the small history")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if (args.base is None) == (not args.alone):
        parser.error("give either --base or --alone")
    here = Path(__file__).resolve().parents[1]
    new = load_engine(here, "engine_under_comparison_new")
    history, size = history_file(args.out, args.small)
    first, last = list_dates(size)
    print(f"reading every period's inputs from {history} …", flush=True)
    periods = list(period_inputs(history, first, last))
    games = sum(period.games.height // 2 for period in periods)
    if args.alone:
        print(f"{len(periods)} periods, {games:,} games; {args.runs} runs of the engine a period …")
        times = alone(new, periods, args.runs)
        line = (
            f"engine ({here}): first runs {times['first']:.3f} s, "
            f"fastest {times['fastest']:.3f} s, {games / times['fastest']:,.0f} games/s"
        )
        if times["yardstick"]:
            line += (
                f"\nyardstick (compiled loop): {times['yardstick']:.4f} s; engine vs "
                f"yardstick: first runs {times['first'] / times['yardstick']:.2f}x, fastest "
                f"{times['fastest'] / times['yardstick']:.2f}x; identical in every period"
            )
        print(line)
        return
    base = load_engine(args.base.resolve(), "engine_under_comparison_base")
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
