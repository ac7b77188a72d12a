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


def test_a_draughts_validity_is_any_positive_percentage() -> None:
    # which validities count is the rulebook's (validity.factors): 75 % passes the file check
    # and is set aside by a list whose era does not know it; 0 and -50 are no validity at all
    from datetime import date

    from schemas.draughts import DraughtsTournamentRow

    rows = pl.DataFrame(
        {
            "line_no": [2, 3, 4, 5],
            "tournament_id": ["D-1", "D-2", "D-3", "D-4"],
            "variant": ["italiana"] * 4,
            "name": [None] * 4,
            "city": [None] * 4,
            "start_date": [date(2021, 3, 1)] * 4,
            "end_date": [date(2021, 3, 1)] * 4,
            "validity": [100, 75, 0, -50],
            "received_on": [date(2021, 3, 2)] * 4,
            "file": ["d.csv"] * 4,
            "points_scale": ["fid"] * 4,
        },
        schema_overrides={"line_no": pl.Int32, "name": pl.Utf8, "city": pl.Utf8},
    )
    checked = validate(DraughtsTournamentRow, rows)
    assert checked.valid.get_column("line_no").to_list() == [2, 3]
    assert checked.problems.select("line_no", "field", "reason").rows() == [
        (4, "validity", "validity must be more than 0"),
        (5, "validity", "validity must be more than 0"),
    ]
