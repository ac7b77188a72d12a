"""Benchmark of a full Elo Italia recalculation at national scale.

    .venv/bin/python -m bench.recalc_benchmark            # national scale (see bench/history.py)
    .venv/bin/python -m bench.recalc_benchmark --small    # a quick run of the same code

Reports, on one synthetic history:
1. the full recalculation end to end (``recalculate`` flow: reading the warehouse, every list
   date in order, DuckDB writes, the atomic swap), after Prefect's server has started, on the
   history as a warehouse in service (written once before, so it has its standby);
2. the rating engine alone (``compute_period`` on every period's inputs) in games per second;
3. a plain-Python per-game loop (``tests/reference``) on the same inputs, the ratio, and whether
   both give identical numbers;
4. peak memory of the process;
5. for 1-3, the process's CPU seconds and the share of the machine's time its host took for
   others (``*_steal_share``, see ``bench/machine.py``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import resource
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import polars as pl

from bench.history import HistorySize, write_history
from bench.machine import Stopwatch
from flows.runtime import code_version, configure_prefect_environment
from flows.warehouse import Warehouse, fsync_file
from transforms.elo.rulebook import EloEra, Rulebook

if TYPE_CHECKING:  # imported by the functions, after Prefect's environment is set
    from flows.elo.history import StreamedHistory

OUT = Path(__file__).resolve().parent / "out"
SMALL = HistorySize(players=2_000, first_year=2017, last_year=2019, tournaments_per_year=40)


def _peak_memory_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def list_dates(size: HistorySize) -> tuple[date, date]:
    """The first and last list dates of a history of ``size``."""
    return date(size.first_year, 4, 1), date(size.last_year, 10, 1)


def history_file(out: Path, small: bool) -> tuple[Path, HistorySize]:
    """The benchmark's history in ``out``, generated the first time it is asked for."""
    size = SMALL if small else HistorySize()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"history-{'small' if small else 'national'}.duckdb"
    if not path.exists():
        print(f"generating the history into {path} …", flush=True)
        print(write_history(path, size), flush=True)
    return path, size


def run_flow(warehouse: Path, first: date, last: date) -> dict[str, float | None]:
    from prefect import flow

    from flows.elo.recalculate import recalculate_flow
    from flows.runtime import quiet_flow_settings

    @flow(name="warm-up")
    def warm_up() -> None:
        """Start Prefect's temporary server outside the measured time."""

    with quiet_flow_settings():
        warm_up()
        end_to_end = Stopwatch()
        with end_to_end.running():
            counts = recalculate_flow("elo_italia", str(warehouse), first, last)
    return {
        "seconds": end_to_end.seconds,
        "lists": counts["lists"],
        "new_revisions": counts["new_revisions"],
        **end_to_end.cpu.figures("end_to_end"),
    }


@dataclass(frozen=True)
class PeriodInputs:
    """What ``compute_period`` takes for one list date of the replay."""

    list_date: date
    era: EloEra
    players: pl.DataFrame
    entries: pl.DataFrame
    games: pl.DataFrame


def period_inputs(warehouse: Path, first: date, last: date) -> Iterator[PeriodInputs]:
    """Every list date's engine inputs, in order, as the recalculation builds them: each list
    is built (untimed) from the one before."""
    from flows.elo.history import StreamedHistory
    from flows.elo.rulebook import load_rulebook
    from flows.warehouse import Warehouse
    from transforms.lists.periods import cutoff_for, list_dates_between

    rulebook = load_rulebook("elo_italia")
    calendar = rulebook.era_at(first).calendar
    dates = list_dates_between(calendar, first, last)
    # the history read as the recalculation reads it: a year of list dates at a time
    with (
        Warehouse(warehouse).reader() as con,
        StreamedHistory(
            con, "elo_italia", calendar, dates, cutoff_for(calendar, dates[-1])
        ) as history,
    ):
        yield from _periods(history, rulebook, dates)


def _periods(
    history: StreamedHistory, rulebook: Rulebook, dates: list[date]
) -> Iterator[PeriodInputs]:
    """The engine's inputs of each list date of ``history``, each list built from the last."""
    from transforms.elo.lists import build_list, period_facts, period_players
    from transforms.elo.period import engine_frames
    from transforms.lists.periods import ratings_day

    played = history.played_before(dates[0], lambda day: rulebook.era_at(day).validity)
    previous = pl.DataFrame(
        schema={
            "list_date": pl.Date,
            "revision": pl.Int32,
            "scenario": pl.Utf8,
            "player_id": pl.Utf8,
            "name": pl.Utf8,
            "rating": pl.Int32,
            "rating_type": pl.Utf8,
            "total_games": pl.Int32,
            "category": pl.Utf8,
            "last_played": pl.Date,
        }
    )
    for list_date in dates:
        era = rulebook.era_at(list_date)
        facts = period_facts(
            history,
            previous,
            played,
            list_date,
            ratings_day(era.calendar, era.ratings_snapshot, list_date),
            era,
        )
        played = facts.played_through
        entries, over_the_board = engine_frames(facts.entries, facts.games)
        yield PeriodInputs(list_date, era, period_players(facts, era), entries, over_the_board)
        published = build_list(facts, era, list_date)
        previous = published.rows.select(
            pl.lit(list_date).alias("list_date"),
            pl.lit(1).alias("revision"),
            pl.lit("official").alias("scenario"),
            "player_id",
            "name",
            "rating",
            "rating_type",
            "total_games",
            "category",
            "last_played",
        )


def run_engine_and_loop(warehouse: Path, first: date, last: date, loop: bool) -> dict:
    """The engine alone, the reference loop and the compiled yardstick (``bench/yardstick.py``,
    where numba is installed: ``requirements-bench.lock``) on every period's inputs, compared.
    The yardstick is compiled on the first period, outside its timing; what is timed is its
    loop over the period's arrays (its reading of the frames into them is reported apart)."""
    from tests.reference.elo_italia import games_with_ids, reference_period_frames
    from transforms.elo.period import compute_period

    yardstick = _yardstick()
    engine, plain_loop = Stopwatch(), Stopwatch()
    compiled, reading = Stopwatch(), Stopwatch()
    games = periods = mismatches = yardstick_mismatches = 0
    for period in period_inputs(warehouse, first, last):
        with engine.running():
            result = compute_period(period.players, period.entries, period.games, period.era)
        games += period.games.height // 2
        periods += 1
        if yardstick is not None:
            with reading.running():
                arrays = yardstick.prepare(period.players, period.entries, period.games, period.era)
            if periods == 1:
                yardstick.compile_yardstick(arrays)
            with compiled.running():
                numbers = yardstick.run(arrays)
            yardstick_mismatches += not yardstick.check(arrays, numbers, result.ratings)
        if loop:
            named_games = games_with_ids(period.entries, period.games)
            with plain_loop.running():
                reference = reference_period_frames(
                    period.players, period.entries, named_games, period.era
                )
            expected = pl.DataFrame(reference.ratings).select("player_id", "rating", "k", "games")
            got = result.ratings.select("player_id", "rating", "k", "games")
            if not got.sort("player_id").equals(expected.sort("player_id").cast(got.schema)):
                mismatches += 1
    engine_seconds, loop_seconds = engine.seconds, plain_loop.seconds
    yardstick_seconds = compiled.seconds if yardstick is not None else None
    return {
        "periods": periods,
        "games": games,
        "engine_seconds": engine_seconds,
        "engine_games_per_second": games / engine_seconds if engine_seconds else 0.0,
        "loop_seconds": loop_seconds if loop else None,
        "loop_games_per_second": games / loop_seconds if loop and loop_seconds else None,
        "speedup": loop_seconds / engine_seconds if loop and engine_seconds else None,
        "periods_with_different_numbers": mismatches if loop else None,
        # issue 33: the engine within 10x of a compiled per-game loop on the same inputs
        "yardstick_seconds": yardstick_seconds,
        "yardstick_reading_seconds": reading.seconds if yardstick is not None else None,
        "engine_vs_yardstick": (engine_seconds / yardstick_seconds if yardstick_seconds else None),
        "yardstick_periods_with_different_numbers": (
            yardstick_mismatches if yardstick is not None else None
        ),
        **engine.cpu.figures("engine"),
        **(plain_loop.cpu.figures("loop") if loop else {}),
        **(compiled.cpu.figures("yardstick") if yardstick is not None else {}),
    }


def _yardstick() -> ModuleType | None:
    """``bench.yardstick`` where numba is installed (a bench-only dependency), else None with
    a note saying so."""
    if importlib.util.find_spec("numba") is None:
        print(
            "numba is not installed: no compiled yardstick "
            "(pip install --require-hashes -r requirements-bench.lock)",
            flush=True,
        )
        return None
    return importlib.import_module("bench.yardstick")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a quick run on a small history")
    parser.add_argument("--no-loop", action="store_true", help="skip the plain-Python loop")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    configure_prefect_environment()
    base, size = history_file(args.out, args.small)
    first, last = list_dates(size)
    run_copy = args.out / "recalculation.duckdb"
    for leftover in args.out.glob(f".{run_copy.name}.standby*"):
        leftover.unlink()
    shutil.copyfile(base, run_copy)
    # The history put in service, untimed: one write that changes nothing leaves the standby
    # beside the file (docs/OPERATIONS.md), so the replay writes as it does in an analyst's
    # warehouse, in the standby rather than in a copy of the whole file.
    with Warehouse(run_copy).transaction():
        pass
    # The files' dirty pages would otherwise be written back during the timed replay, whose
    # own syncs then wait for them: a cost of this harness, not of the recalculation.
    for written in (run_copy, run_copy.with_name(f".{run_copy.name}.standby")):
        fsync_file(written)
    print(f"recalculating {first} .. {last} end to end …", flush=True)
    flow_figures = run_flow(run_copy, first, last)
    # the recalculation runs first: the process's peak so far is the replay's own
    replay_peak_mb = _peak_memory_mb()
    print(f"engine alone{' and the plain loop' if not args.no_loop else ''} …", flush=True)
    engine_figures = run_engine_and_loop(run_copy, first, last, loop=not args.no_loop)
    figures = {
        "code_version": code_version(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **flow_figures,
        **engine_figures,
        "end_to_end_games_per_second": engine_figures["games"] / flow_figures["seconds"],
        "end_to_end_peak_memory_mb": replay_peak_mb,
        "peak_memory_mb": _peak_memory_mb(),
        "warehouse_mb": run_copy.stat().st_size / 2**20,
    }
    (args.out / "results.json").write_text(json.dumps(figures, indent=2, default=str))
    print(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
