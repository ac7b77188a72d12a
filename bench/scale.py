"""How the recalculation scales: the national history at 1×, 4×, 8× and 16× (players and
tournaments a year), the national history over twice the years, and a projection to FIDE's
size.

    .venv/bin/python -m bench.scale                      # 1x, 4x, 8x, 16x, 1x-12y
    .venv/bin/python -m bench.scale --sizes 1x 4x        # some of them

For each size the history is generated once into ``bench/out/history-<size>.duckdb``
(:mod:`bench.history`), then two fresh processes measure it (the end-to-end one needs about
twice the history's size free beside it: 16x's history is 6.6 GB, so 16x needs about 20 GB):

1. the full recalculation end to end (``recalculate`` flow, Prefect's server already started),
   its wall time and the process's peak memory;
2. the engine alone over every period, and the plain per-game loop of ``tests/reference`` on
   a sample of the periods (every one at 1×; the loop takes about two minutes per national
   history), with the engine's time on the same sample: the ratio, and whether both give
   identical numbers.

The figures go to ``bench/out/scale.json``; the table printed at the end, with the FIDE
projection (1M players, 10M games a year, 10 years) fitted on the measured sizes (a
least-squares line through every size of the same years: end-to-end time against all the
games, peak memory against the games of a period), is the one of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from bench.history import HistorySize, write_history
from bench.machine import Stopwatch
from flows.runtime import code_version, configure_prefect_environment
from flows.warehouse import Warehouse, fsync_file

OUT = Path(__file__).resolve().parent / "out"
NATIONAL = HistorySize()
SIZES: dict[str, HistorySize] = {
    "1x": NATIONAL,
    "4x": HistorySize(players=4 * NATIONAL.players, tournaments_per_year=4 * 480),
    "8x": HistorySize(players=8 * NATIONAL.players, tournaments_per_year=8 * 480),
    "16x": HistorySize(players=16 * NATIONAL.players, tournaments_per_year=16 * 480),
    # the national history's first half (1998-2009): against 1x, the history doubles in years
    # and memory should not follow it (the rulebook's first era starts in 1990, so the
    # doubling is measured downwards)
    "1x-12y": NATIONAL,
}
# the last list year of a size, when it stops before its history does
LAST_LIST_YEAR = {"1x-12y": 2009}
# FIDE's size, as the issue gives it
FIDE_PLAYERS = 1_000_000
FIDE_GAMES_A_YEAR = 10_000_000
FIDE_YEARS = 10
MACHINE_GB = 24
HEADROOM = 0.8  # of the machine's memory a run may count on
# every how many periods the plain loop is run beside the engine, by size (at 16x the loop
# takes about 20 s a period: 8 periods, one every 2.75 years of the history)
LOOP_EVERY = {"1x": 1, "4x": 6, "8x": 12, "16x": 12, "1x-12y": 1}


@dataclass(frozen=True)
class Measured:
    size: str
    players: int
    games: int
    list_dates: int
    games_per_period: float
    end_to_end_seconds: float
    # the machine is shared: the process's own CPU seconds (all its threads) and the load
    # average at the end say how much of the wall time was waiting for others
    end_to_end_cpu_seconds: float
    end_to_end_load: float
    end_to_end_peak_mb: float
    engine_seconds: float
    loop_periods: int
    loop_seconds: float
    engine_seconds_on_loop_periods: float
    periods_with_different_numbers: int
    history_mb: float


def history_for(size: str, out: Path) -> Path:
    """The history of ``size``, generated the first time."""
    # the national history is the one `make bench` measures
    national = size.startswith("1x")
    path = out / ("history-national.duckdb" if national else f"history-{size}.duckdb")
    if not path.exists():
        # drawn a year at a time, and renamed into place only when complete
        print(f"[{size}] generating the history into {path} …", flush=True)
        summary = write_history(path, SIZES[size])
        print("\n".join(f"  {line}" for line in summary.lines()), flush=True)
    return path


def list_range(size: str) -> tuple[date, date]:
    history = SIZES[size]
    return date(history.first_year, 4, 1), date(LAST_LIST_YEAR.get(size, history.last_year), 10, 1)


def measure_end_to_end(history: Path, first: date, last: date) -> dict[str, float]:
    """In this (fresh) process: the recalculation of a copy of ``history``, and peak memory."""
    from bench.recalc_benchmark import run_flow

    run_copy = history.with_name(history.stem + "-run.duckdb")
    standby = run_copy.with_name(f".{run_copy.name}.standby")
    _remove_standby(run_copy)
    try:
        shutil.copyfile(history, run_copy)
        # The history put in service, untimed, as bench/recalc_benchmark.py does: one write
        # that changes nothing leaves the standby beside the file (docs/OPERATIONS.md), so the
        # replay writes as in an analyst's warehouse, into the standby, not a copy of the file.
        with Warehouse(run_copy).transaction():
            pass
        # dirty pages written back during the timed replay would be this harness's cost
        for written in (run_copy, standby):
            fsync_file(written)
        before = _peak_mb()
        figures = run_flow(run_copy, first, last)
    finally:
        # two copies of the history (13 GB at 16x) must not outlive a failed run either
        for leftover in (run_copy, run_copy.with_name(run_copy.name + ".wal")):
            leftover.unlink(missing_ok=True)
        _remove_standby(run_copy)
    return {
        "seconds": float(figures["seconds"] or 0.0),
        "cpu_seconds": float(figures["end_to_end_process_cpu_seconds"] or 0.0),
        "load": os.getloadavg()[0],
        "peak_mb": _peak_mb(),
        "start_mb": before,
    }


def measure_engine(history: Path, first: date, last: date, loop_every: int) -> dict[str, float]:
    """In this (fresh) process: the engine on every period, the loop on every
    ``loop_every``-th, both timed, and compared where both ran."""
    import polars as pl

    from bench.recalc_benchmark import period_inputs
    from tests.reference.elo_italia import games_with_ids, reference_period_frames
    from transforms.elo.period import compute_period

    engine, engine_sampled, plain_loop = Stopwatch(), Stopwatch(), Stopwatch()
    games = periods = sampled = mismatches = 0
    for index, period in enumerate(period_inputs(history, first, last)):
        on_sample = index % loop_every == 0
        timer = engine_sampled if on_sample else engine
        with timer.running():
            result = compute_period(period.players, period.entries, period.games, period.era)
        games += period.games.height // 2
        periods += 1
        if not on_sample:
            continue
        sampled += 1
        named = games_with_ids(period.entries, period.games)
        with plain_loop.running():
            reference = reference_period_frames(period.players, period.entries, named, period.era)
        expected = pl.DataFrame(reference.ratings).select("player_id", "rating", "k", "games")
        got = result.ratings.select("player_id", "rating", "k", "games")
        if not got.sort("player_id").equals(expected.sort("player_id").cast(got.schema)):
            mismatches += 1
        print(f"  {period.list_date}: loop {plain_loop.seconds:.1f} s so far", flush=True)
    return {
        "games": games,
        "periods": periods,
        "engine_seconds": engine.seconds + engine_sampled.seconds,
        "engine_seconds_on_loop_periods": engine_sampled.seconds,
        "loop_periods": sampled,
        "loop_seconds": plain_loop.seconds,
        "mismatches": mismatches,
    }


def _remove_standby(warehouse: Path) -> None:
    """The standby of ``warehouse`` and its record (16x's is 6.6 GB)."""
    for leftover in warehouse.parent.glob(f".{warehouse.name}.standby*"):
        leftover.unlink()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(*arguments: str) -> dict[str, float]:
    """Run one measurement in a fresh process (its peak memory is its own)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.scale", *arguments],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    *progress, last = done.stdout.strip().splitlines()
    for line in progress:
        print(line, flush=True)
    return json.loads(last)


def measure(size: str, out: Path) -> Measured:
    import duckdb

    history = history_for(size, out)
    first, last = list_range(size)
    with duckdb.connect(str(history), read_only=True) as con:
        players = con.sql("SELECT count(DISTINCT player_id) FROM registry_player").fetchall()[0][0]
    # the run copies the history and its standby (another copy) sit beside it while it runs
    needed = 2.2 * history.stat().st_size
    free = shutil.disk_usage(history.parent).free
    if free < needed:
        raise SystemExit(
            f"[{size}] {free / 2**30:.1f} GB free beside {history}: the end-to-end run needs "
            f"about {needed / 2**30:.1f} GB (a copy of the history and its standby)"
        )
    span = [str(history), first.isoformat(), last.isoformat()]
    print(f"[{size}] end to end …", flush=True)
    flow = _child("--end-to-end", *span)
    print(f"[{size}]   {flow['seconds']:.1f} s, peak {flow['peak_mb']:.0f} MB", flush=True)
    print(f"[{size}] engine, and the loop on every {LOOP_EVERY[size]} period(s) …", flush=True)
    engine = _child("--engine", *span, str(LOOP_EVERY[size]))
    return Measured(
        size=size,
        players=int(players),
        games=int(engine["games"]),
        list_dates=int(engine["periods"]),
        games_per_period=engine["games"] / engine["periods"],
        end_to_end_seconds=flow["seconds"],
        end_to_end_cpu_seconds=flow["cpu_seconds"],
        end_to_end_load=flow["load"],
        end_to_end_peak_mb=flow["peak_mb"],
        engine_seconds=engine["engine_seconds"],
        loop_periods=int(engine["loop_periods"]),
        loop_seconds=engine["loop_seconds"],
        engine_seconds_on_loop_periods=engine["engine_seconds_on_loop_periods"],
        periods_with_different_numbers=int(engine["mismatches"]),
        history_mb=history.stat().st_size / 2**20,
    )


def table(rows: list[Measured]) -> str:
    lines = [
        "| size | players | games | games a period | end to end | its CPU | load | peak memory "
        "| engine | loop on the sample (periods) | engine vs loop | identical |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row.loop_seconds / row.engine_seconds_on_loop_periods
        lines.append(
            f"| {row.size} | {row.players:,} | {row.games:,} | {row.games_per_period:,.0f} "
            f"| {row.end_to_end_seconds:.1f} s | {row.end_to_end_cpu_seconds:.1f} s "
            f"| {row.end_to_end_load:.1f} | {row.end_to_end_peak_mb / 1024:.2f} GB "
            f"| {row.engine_seconds:.1f} s | {row.loop_seconds:.1f} s ({row.loop_periods}) "
            f"| {ratio:.0f}× | {'yes' if row.periods_with_different_numbers == 0 else 'NO'} |"
        )
    return "\n".join(lines)


def fide_projection(rows: list[Measured]) -> str:
    """A least-squares line through the sizes measured of the same years (end-to-end time
    against all the games, peak memory against the games of a period), extended to FIDE's
    size."""
    same_years = sorted(
        (row for row in rows if row.size not in LAST_LIST_YEAR), key=lambda row: row.games
    )
    if len(same_years) < 2:
        return "(the projection needs two sizes of the same years)"
    fide_games = FIDE_GAMES_A_YEAR * FIDE_YEARS
    fide_per_period = FIDE_GAMES_A_YEAR / 4
    # every size counts, not only the two ends: one noisy run (the machine is shared) moves
    # the line less
    time_line = _fit([(row.games, row.end_to_end_seconds) for row in same_years])
    memory_line = _fit([(row.games_per_period, row.end_to_end_peak_mb) for row in same_years])
    seconds = time_line(fide_games)
    cpu_line = _fit([(row.games, row.end_to_end_cpu_seconds) for row in same_years])
    peak_mb = memory_line(fide_per_period)
    # how straight the lines are: the largest gap between a measured size and its line
    time_gap = max(abs(time_line(row.games) / row.end_to_end_seconds - 1) for row in same_years)
    memory_gap = max(
        abs(memory_line(row.games_per_period) / row.end_to_end_peak_mb - 1) for row in same_years
    )
    # a machine needs room beside the process: its system, DuckDB's buffers past the estimate
    fits = (
        "fits in"
        if peak_mb / 1024 <= HEADROOM * MACHINE_GB
        else f"does not fit, keeping {1 - HEADROOM:.0%} for the rest, in"
    )
    sizes = ", ".join(row.size for row in same_years)
    return (
        f"FIDE ({FIDE_PLAYERS:,} players, {fide_games:,} games over {FIDE_YEARS} years, "
        f"{fide_per_period:,.0f} a quarterly period), projected by least squares on {sizes} "
        f"(the lines miss a measured size by at most {time_gap:.0%} in time and "
        f"{memory_gap:.0%} in memory): end to end about {seconds / 60:.0f} min (the process's "
        f"CPU about {cpu_line(fide_games) / 60:.0f} min), peak memory about "
        f"{peak_mb / 1024:.1f} GB: it {fits} this machine's {MACHINE_GB} GB."
    )


def _fit(points: list[tuple[float, float]]) -> Callable[[float], float]:
    """The least-squares straight line through ``points``."""
    count = len(points)
    mean_x = sum(x for x, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    return lambda x: mean_y + slope * (x - mean_x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", nargs="*", default=["1x", "4x", "8x", "16x", "1x-12y"], choices=list(SIZES)
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--generate-only", action="store_true", help="write the histories only")
    parser.add_argument("--end-to-end", nargs=3, metavar=("HISTORY", "FIRST", "LAST"))
    parser.add_argument("--engine", nargs=4, metavar=("HISTORY", "FIRST", "LAST", "EVERY"))
    args = parser.parse_args()
    configure_prefect_environment()
    if args.end_to_end:
        path, first, last = args.end_to_end
        figures = measure_end_to_end(
            Path(path), date.fromisoformat(first), date.fromisoformat(last)
        )
        print(json.dumps(figures))
        return
    if args.engine:
        path, first, last, every = args.engine
        figures = measure_engine(
            Path(path), date.fromisoformat(first), date.fromisoformat(last), int(every)
        )
        print(json.dumps(figures))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    if args.generate_only:
        for size in args.sizes:
            history_for(size, args.out)
        return
    rows = [measure(size, args.out) for size in args.sizes]
    report = {
        "code_version": code_version(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": time.perf_counter() - began,
        "rows": [asdict(row) for row in rows],
    }
    (args.out / "scale.json").write_text(json.dumps(report, indent=2))
    print(table(rows))
    print()
    print(fide_projection(rows))


if __name__ == "__main__":
    main()
