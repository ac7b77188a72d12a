"""Expected scores per game: the FIDE table with the era's difference cap, in hundredths.

Scores are kept as integer hundredths (the table has two decimals) so that every sum and every
rounding of the engine is exact: a period sum of 2.5 is never 2.4999999. The engine
(:mod:`transforms.elo_period`) reads the table through :func:`expected_table` and
:func:`higher_rated_expected`, so the tests of this module test its lookup.
"""

from __future__ import annotations

import polars as pl


def expected_table(bands: tuple[tuple[int, int], ...]) -> pl.Series:
    """We of the higher-rated player (hundredths) for every |D| from 0 up to the last band's
    start. ``bands`` are (lowest |D|, expected score of the higher-rated player)."""
    last_start = bands[-1][0]
    scores: list[int] = []
    ends = [start for start, _ in bands[1:]] + [last_start + 1]
    for (start, score), end in zip(bands, ends, strict=True):
        scores.extend([score] * (end - start))
    return pl.Series("expected", scores, dtype=pl.Int64)


def higher_rated_expected(absolute: pl.Expr, table: pl.Series, cap: int) -> pl.Expr:
    """We of the higher-rated player for an absolute difference ``absolute``; with ``cap`` > 0,
    a difference above the cap counts as the cap."""
    if cap > 0:
        absolute = absolute.clip(upper_bound=cap)
    return pl.lit(table).gather(absolute.clip(upper_bound=table.len() - 1))


def expected_hundredths(
    difference: pl.Expr, bands: tuple[tuple[int, int], ...], cap: int
) -> pl.Expr:
    """We of the player whose rating difference (own - opponent, integers) is ``difference``."""
    higher = higher_rated_expected(difference.abs(), expected_table(bands), cap)
    return pl.when(difference >= 0).then(higher).otherwise(100 - higher)
