"""Expected score per game: the FIDE table of RULES.md §1.6, in hundredths, with the era's cap.

The table below is typed from RULES.md §1.6 (not read from the rulebook), so a typo in the
rulebook or an off-by-one in the lookup shows up here as a disagreement with the document.
"""

from datetime import date
from itertools import pairwise

import polars as pl
import pytest

from transforms.elo.expected import expected_hundredths
from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import default_rulebook_path

# (lowest |D|, highest |D|, PD in hundredths) exactly as printed in RULES.md §1.6; PD is the
# expected score of the higher-rated player, 100 - PD that of the lower-rated one.
# The last band (736-) is open-ended: None as its upper end.
FIDE_TABLE: list[tuple[int, int | None, int]] = [
    (0, 3, 50),
    (4, 10, 51),
    (11, 17, 52),
    (18, 25, 53),
    (26, 32, 54),
    (33, 39, 55),
    (40, 46, 56),
    (47, 53, 57),
    (54, 61, 58),
    (62, 68, 59),
    (69, 76, 60),
    (77, 83, 61),
    (84, 91, 62),
    (92, 98, 63),
    (99, 106, 64),
    (107, 113, 65),
    (114, 121, 66),
    (122, 129, 67),
    (130, 137, 68),
    (138, 145, 69),
    (146, 153, 70),
    (154, 162, 71),
    (163, 170, 72),
    (171, 179, 73),
    (180, 188, 74),
    (189, 197, 75),
    (198, 206, 76),
    (207, 215, 77),
    (216, 225, 78),
    (226, 235, 79),
    (236, 245, 80),
    (246, 256, 81),
    (257, 267, 82),
    (268, 278, 83),
    (279, 290, 84),
    (291, 302, 85),
    (303, 315, 86),
    (316, 328, 87),
    (329, 344, 88),
    (345, 357, 89),
    (358, 374, 90),
    (375, 391, 91),
    (392, 411, 92),
    (412, 432, 93),
    (433, 456, 94),
    (457, 484, 95),
    (485, 517, 96),
    (518, 559, 97),
    (560, 619, 98),
    (620, 735, 99),
    (736, None, 100),
]

# What expected_hundredths takes: (lowest |D| of the band, PD in hundredths).
BANDS: tuple[tuple[int, int], ...] = tuple((low, pd) for low, _, pd in FIDE_TABLE)


def expected(differences: list[int], cap: int = 0, bands: tuple = BANDS) -> list[int]:
    frame = pl.DataFrame({"d": differences}, schema={"d": pl.Int32})
    we = frame.select(expected_hundredths(pl.col("d"), bands, cap).alias("we"))
    return we["we"].to_list()


def band_edges() -> list[tuple[int, int]]:
    """(D, We) at both ends of every band, for D >= 0 and for D <= 0."""
    cases: list[tuple[int, int]] = []
    for low, high, pd in FIDE_TABLE:
        for d in (low, high if high is not None else low + 1000):
            cases.append((d, pd))
            if d != 0:
                cases.append((-d, 100 - pd))
    return cases


def test_the_typed_table_is_contiguous() -> None:
    # Guards the typing above: every band starts right after the previous one ends, and PD
    # never falls (50 at D=0 up to 100 from 736 on).
    for (_, high, pd), (next_low, _, next_pd) in pairwise(FIDE_TABLE):
        assert high is not None and next_low == high + 1
        assert next_pd == pd + 1  # the FIDE table rises by exactly one hundredth per band
    assert FIDE_TABLE[0] == (0, 3, 50) and FIDE_TABLE[-1] == (736, None, 100)


@pytest.mark.parametrize(("difference", "we"), band_edges())
def test_every_band_edge_without_cap(difference: int, we: int) -> None:
    assert expected([difference]) == [we]


def test_named_edges() -> None:
    # D=3 -> 0.50 (band 0-3), D=4 -> 0.51 (band 4-10), D=-4 -> 1 - 0.51 = 0.49,
    # D=735 -> 0.99 (band 620-735), D=736 -> 1.00, D=-736 -> 1 - 1.00 = 0.00.
    assert expected([0, 3, -3, 4, -4, 735, 736, -736, -735]) == [50, 50, 50, 51, 49, 99, 100, 0, 1]


def test_every_difference_from_minus_900_to_900_matches_the_document() -> None:
    differences = list(range(-900, 901))

    def by_hand(d: int) -> int:
        for low, high, pd in FIDE_TABLE:
            if abs(d) >= low and (high is None or abs(d) <= high):
                return pd if d >= 0 else 100 - pd
        raise AssertionError(d)

    assert expected(differences) == [by_hand(d) for d in differences]


def test_both_sides_of_a_game_add_up_to_one() -> None:
    # We(D) + We(-D) = PD + (1 - PD) = 1.00 for every D, with and without a cap.
    differences = list(range(0, 1000, 7))
    for cap in (0, 350, 400):
        plus = expected(differences, cap)
        minus = expected([-d for d in differences], cap)
        assert [a + b for a, b in zip(plus, minus, strict=True)] == [100] * len(differences)


def test_no_cap() -> None:
    # D=500 lies in 485-517 -> 0.96; D=-500 -> 0.04; D=2000 -> 1.00 (736-).
    assert expected([500, -500, 2000, -2000], cap=0) == [96, 4, 100, 0]


def test_cap_350() -> None:
    # |D|=500 > 350 is treated as 350, in band 345-357 -> 0.89 (0.11 for the lower one).
    # At the cap and just above it: 350 -> 0.89, 351 -> 350 -> 0.89. Below the cap the table
    # is untouched: 344 -> 0.88 (329-344).
    assert expected([500, -500, 350, 351, -351, 344, 2000], cap=350) == [89, 11, 89, 89, 11, 88, 89]


def test_cap_400() -> None:
    # |D|=500 > 400 is treated as 400, in band 392-411 -> 0.92; D=-500 -> 1 - 0.92 = 0.08.
    # 391 -> 0.91 (375-391) is below the cap and unchanged; 401 and 736 -> 400 -> 0.92.
    assert expected([500, -500, 400, 401, 391, 736, -736], cap=400) == [92, 8, 92, 92, 91, 92, 8]


def test_the_rulebook_carries_the_document_table() -> None:
    # The engine reads its bands from the rulebook: they must be this document's table, in
    # every era, and the caps must be the ones of RULES.md §1.4.
    rulebook = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
    for era in rulebook.eras:
        assert era.expected_bands == BANDS
    assert rulebook.era_at(date(2006, 3, 31)).difference_cap == 0
    assert rulebook.era_at(date(2006, 4, 1)).difference_cap == 350
    assert rulebook.era_at(date(2009, 6, 30)).difference_cap == 350
    assert rulebook.era_at(date(2009, 7, 1)).difference_cap == 400
    era = rulebook.era_at(date(2015, 1, 1))
    assert expected([500, -500], era.difference_cap, era.expected_bands) == [92, 8]
