"""The compiled yardstick of issue 33 gives the engine's numbers (where numba is installed: it
is a bench-only dependency, requirements-bench.lock)."""

from dataclasses import replace
from datetime import date

import pytest

from bench.history import HistorySize, write_history
from bench.recalc_benchmark import period_inputs

pytest.importorskip("numba")
# numba first: without it the module is skipped (bench.yardstick imports it)
from bench import yardstick
from transforms.elo.period import compute_period

# 1998: the base era (no groups), then groups without a cap; 2018: groups and the cap of 400
HISTORIES = {
    "1998": (
        HistorySize(players=300, first_year=1998, last_year=1998, tournaments_per_year=12),
        date(1998, 4, 1),
        date(1998, 10, 1),
    ),
    "2018": (
        HistorySize(players=300, first_year=2018, last_year=2018, tournaments_per_year=12),
        date(2018, 4, 1),
        date(2018, 10, 1),
    ),
}


@pytest.mark.parametrize("name", list(HISTORIES))
def test_the_yardstick_gives_the_engines_numbers(tmp_path, name: str) -> None:
    size, first, last = HISTORIES[name]
    warehouse = tmp_path / "history.duckdb"
    write_history(warehouse, size)
    periods = list(period_inputs(warehouse, first, last))
    assert len(periods) == 3
    for period in periods:
        inputs = (period.players, period.entries, period.games, period.era)
        arrays = yardstick.prepare(*inputs)
        numbers = yardstick.run(arrays)
        assert yardstick.check(arrays, numbers, compute_period(*inputs).ratings), period.list_date
        # and a wrong number is seen
        wrong = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4] + 1)
        assert not yardstick.check(arrays, wrong, compute_period(*inputs).ratings)


def test_the_yardstick_refuses_what_it_does_not_know(tmp_path) -> None:
    size, first, last = HISTORIES["2018"]
    warehouse = tmp_path / "history.duckdb"
    write_history(warehouse, size)
    period = next(iter(period_inputs(warehouse, first, last)))
    logistic = replace(period.era, expected_method="logistic")
    with pytest.raises(ValueError, match="table method"):
        yardstick.prepare(period.players, period.entries, period.games, logistic)
