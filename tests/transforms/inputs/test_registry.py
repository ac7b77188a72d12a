from datetime import date

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.inputs.registry import latest_identity, snapshot_at

SNAPSHOTS = pl.DataFrame(
    {
        "as_of": [date(2026, 1, 1)] * 2 + [date(2026, 7, 1)] * 2,
        "player_id": ["1", "2", "1", "2"],
        "fide_standard": [None, 1650, 1810, 1702],
    }
)


def test_the_registry_is_read_as_it_stood():
    assert snapshot_at(SNAPSHOTS, date(2025, 12, 31)).height == 0
    assert snapshot_at(SNAPSHOTS, date(2026, 1, 1))["fide_standard"].to_list() == [None, 1650]
    assert snapshot_at(SNAPSHOTS, date(2026, 6, 30))["fide_standard"].to_list() == [None, 1650]
    assert snapshot_at(SNAPSHOTS, date(2027, 1, 1))["fide_standard"].to_list() == [1810, 1702]


@settings(max_examples=50, deadline=None)
@given(st.permutations(list(range(SNAPSHOTS.height))))
def test_latest_identity_does_not_depend_on_row_order(order):
    shuffled = SNAPSHOTS[order]
    assert latest_identity(shuffled).equals(latest_identity(SNAPSHOTS))
    assert latest_identity(SNAPSHOTS)["fide_standard"].to_list() == [1810, 1702]


def test_dated_snapshots_read_like_snapshot_at():
    from transforms.inputs.registry import DatedSnapshots

    dated = DatedSnapshots.of(SNAPSHOTS)
    for day in (date(2025, 12, 31), date(2026, 1, 1), date(2026, 6, 30), date(2027, 1, 1)):
        assert dated.at(day).equals(snapshot_at(SNAPSHOTS, day))


def test_a_birth_date_before_1900_or_after_the_snapshot_is_rejected() -> None:
    from transforms.inputs.registry import implausible_births

    players = pl.DataFrame(
        {
            "line_no": [2, 3, 4, 5, 6],
            "player_id": ["P1", "P2", "P3", "P4", "P5"],
            "birth_date": [
                date(1, 1, 1),
                date(1899, 12, 31),
                date(1900, 1, 1),
                date(2026, 7, 1),
                date(2031, 1, 2),
            ],
        },
        schema_overrides={"line_no": pl.Int32},
    ).vstack(
        pl.DataFrame(
            {"line_no": [7], "player_id": ["P6"], "birth_date": [None]},
            schema={"line_no": pl.Int32, "player_id": pl.Utf8, "birth_date": pl.Date},
        )
    )
    kept, problems = implausible_births(players, date(2026, 7, 1))
    assert kept.get_column("player_id").to_list() == ["P3", "P4", "P6"]
    assert problems.select("line_no", "field", "value").rows() == [
        (2, "birth_date", "0001-01-01"),
        (3, "birth_date", "1899-12-31"),
        (6, "birth_date", "2031-01-02"),
    ]
    assert problems.get_column("reason")[2] == (
        "birth_date 2031-01-02 is not a plausible date of birth (from 1900-01-01 to the "
        "snapshot's date 2026-07-01)"
    )


def test_a_repeated_row_is_found_whatever_the_file_names_its_other_columns():
    # the columns were named to pl.col: one a file names "^[$" (a pattern that does not
    # compile) raised, and "*" (every column, line_no too) found no repeat
    from transforms.inputs.registry import repeated_rows_read_once

    for odd in ("^[$", "*", "^.*$"):
        raw = pl.DataFrame(
            {
                "line_no": pl.Series([2, 3, 4], dtype=pl.Int32),
                "player_id": ["100001", "100001", "100001"],
                odd: ["x", "x", "y"],
            }
        )
        once, warnings = repeated_rows_read_once(raw)
        assert once.get_column("line_no").to_list() == [2, 4], odd
        assert warnings.select("line_no", "field", "reason", "severity").rows() == [
            (3, "player_id", "this row repeats line 2 exactly; read once", "warning")
        ], odd
