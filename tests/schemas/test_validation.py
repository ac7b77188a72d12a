"""Pandera failures as problems a rating officer reads (schemas/validation.py)."""

import polars as pl

from schemas.inputs import Membership
from schemas.validation import validate


def test_a_repeated_key_is_named_by_its_columns_and_values() -> None:
    # not by Pandera's dump of the whole row as JSON
    rows = pl.DataFrame(
        {"line_no": [2, 3, 4], "player_id": ["100001", "100001", "100002"], "year": [2020] * 3},
        schema={"line_no": pl.Int32, "player_id": pl.Utf8, "year": pl.Int64},
    )
    checked = validate(Membership, rows)
    assert checked.valid.get_column("line_no").to_list() == [4]
    assert checked.problems.select("line_no", "field", "value", "reason").rows() == [
        (
            line,
            "player_id, year",
            "player_id=100001, year=2020",
            "player_id, year is repeated: each combination must appear once",
        )
        for line in (2, 3)
    ]
