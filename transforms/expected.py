"""Expected scores per game: the FIDE table with the era's difference cap, in hundredths.

Scores are kept as integer hundredths (the table has two decimals) so that every sum and every
rounding of the engine is exact: a period sum of 2.5 is never 2.4999999.
"""

from __future__ import annotations

import polars as pl


def expected_hundredths(
    difference: pl.Expr, bands: tuple[tuple[int, int], ...], cap: int
) -> pl.Expr:
    """We of the player whose rating difference (own - opponent, integers) is ``difference``.

    ``bands`` are (lowest |D|, expected score of the higher-rated player in hundredths);
    with ``cap`` > 0, a |D| above the cap is treated as the cap.
    """
    last_start = bands[-1][0]
    lookup: list[int] = []
    for (start, score), following in zip(bands, [*bands[1:], (last_start + 1, 0)], strict=True):
        lookup.extend([score] * (following[0] - start))
    absolute = difference.abs()
    if cap > 0:
        absolute = absolute.clip(upper_bound=cap)
    higher = (
        absolute.clip(upper_bound=last_start)
        .cast(pl.Int64)
        .replace_strict(old=list(range(last_start + 1)), new=lookup, return_dtype=pl.Int64)
    )
    return pl.when(difference >= 0).then(higher).otherwise(100 - higher)
