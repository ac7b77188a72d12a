"""The benchmark's engine-vs-loop comparison on a tiny generated history (no Prefect)."""

from datetime import date

from bench.history import HistorySize, write_history
from bench.recalc_benchmark import run_engine_and_loop

TINY = HistorySize(players=300, first_year=2018, last_year=2019, tournaments_per_year=10)


def test_engine_and_plain_loop_agree_on_a_generated_history(tmp_path):
    warehouse = tmp_path / "history.duckdb"
    write_history(warehouse, TINY)
    figures = run_engine_and_loop(warehouse, date(2018, 4, 1), date(2019, 10, 1), loop=True)
    assert figures["periods"] == 7
    assert figures["games"] > 0
    assert figures["periods_with_different_numbers"] == 0
