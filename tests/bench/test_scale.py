"""The scale benchmark's FIDE projection (no measurement, no Prefect)."""

from bench.scale import Measured, _fit, fide_projection


def _row(size: str, games: int, seconds: float, peak_mb: float) -> Measured:
    return Measured(
        size=size,
        players=0,
        games=games,
        list_dates=91,
        games_per_period=games / 91,
        end_to_end_seconds=seconds,
        end_to_end_cpu_seconds=2 * seconds,
        end_to_end_load=1.0,
        end_to_end_peak_mb=peak_mb,
        engine_seconds=1.0,
        loop_periods=1,
        loop_seconds=1.0,
        engine_seconds_on_loop_periods=1.0,
        periods_with_different_numbers=0,
        history_mb=0.0,
    )


def test_fit_is_the_least_squares_line():
    line = _fit([(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)])
    assert line(10.0) == 21.0
    # off the line, the fit is the least-squares one (through the means, slope 1.5)
    noisy = _fit([(0.0, 0.0), (1.0, 2.0), (2.0, 3.0)])
    assert abs(noisy(1.0) - 5 / 3) < 1e-12 and abs(noisy(2.0) - noisy(1.0) - 1.5) < 1e-12


def test_fide_projection_uses_every_size_of_the_same_years():
    # 1 s and 1 MB per 91,000 games, plus 500 MB: exactly on a line, and a row over other
    # years that would bend it is left out
    rows = [
        _row(size, 91_000 * n, float(n), 500.0 + n)
        for size, n in (("1x", 10), ("4x", 40), ("16x", 160))
    ]
    rows.append(_row("1x-12y", 910_000, 100.0, 9_000.0))
    text = fide_projection(rows)
    assert "1x, 4x, 16x" in text and "1x-12y" not in text
    assert "at most 0% in time and 0% in memory" in text
    # 100M games: 1,099 s (18 min); 2.5M a period: 500 + 2,500,000 / 1,000 MB = 2.9 GB
    assert "about 18 min (the process's CPU about 37 min)" in text
    assert "about 2.9 GB" in text and "fits in" in text
