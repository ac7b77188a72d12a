"""The engine A/B harness: one checkout against itself agrees; differing engines are refused."""

from dataclasses import replace
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

from bench.engine_ab import compare, load_engine
from bench.history import HistorySize, write_history
from bench.recalc_benchmark import period_inputs

TINY = HistorySize(players=300, first_year=2018, last_year=2018, tournaments_per_year=10)
CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def periods(tmp_path_factory: pytest.TempPathFactory) -> list:
    warehouse = tmp_path_factory.mktemp("ab") / "history.duckdb"
    write_history(warehouse, TINY)
    return list(period_inputs(warehouse, date(2018, 4, 1), date(2018, 10, 1)))


def test_a_checkout_against_itself_gives_identical_results(periods: list) -> None:
    engine = load_engine(CHECKOUT, "engine_ab_test_self")
    figures = compare(engine, engine, periods, runs=2)
    assert figures["periods"] == len(periods) == 3
    assert figures["base"] > 0 and figures["new"] > 0


def test_engines_that_differ_are_refused(periods: list) -> None:
    engine = load_engine(CHECKOUT, "engine_ab_test_base")

    def off_by_one(*inputs: object) -> object:
        result = engine.compute_period(*inputs)
        return replace(result, ratings=result.ratings.with_columns(pl.col("rating") + 1))

    with pytest.raises(SystemExit, match="differ on the period of 2018-04-01"):
        compare(engine, SimpleNamespace(compute_period=off_by_one), periods, runs=1)  # type: ignore[arg-type]
