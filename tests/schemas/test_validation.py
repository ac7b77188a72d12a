"""Pandera failures as problems a rating officer reads (schemas/validation.py)."""

import importlib
import inspect
import pkgutil
from datetime import date

import pandera.polars as pa
import polars as pl

import schemas
from schemas.inputs import ManifestRow, Membership
from schemas.validation import ROW_CHECK_FIELDS, validate


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


def test_a_draughts_validity_is_any_percentage_up_to_1000() -> None:
    # which validities count is the rulebook's (validity.factors): 75 % passes the file check
    # and is set aside by a list whose era does not know it; 0 and -50 are no validity at all,
    # and 3000000000 (a slip) is refused here rather than failing the warehouse's write
    from schemas.draughts import DraughtsTournamentRow

    rows = pl.DataFrame(
        {
            "line_no": [2, 3, 4, 5, 6],
            "tournament_id": ["D-1", "D-2", "D-3", "D-4", "D-5"],
            "variant": ["italiana"] * 5,
            "name": [None] * 5,
            "city": [None] * 5,
            "start_date": [date(2021, 3, 1)] * 5,
            "end_date": [date(2021, 3, 1)] * 5,
            "validity": [100, 75, 0, -50, 3_000_000_000],
            "received_on": [date(2021, 3, 2)] * 5,
            "file": ["d.csv"] * 5,
            "points_scale": ["fid"] * 5,
        },
        schema_overrides={"line_no": pl.Int32, "name": pl.Utf8, "city": pl.Utf8},
    )
    checked = validate(DraughtsTournamentRow, rows)
    assert checked.valid.get_column("line_no").to_list() == [2, 3]
    assert checked.problems.select("line_no", "field", "reason").rows() == [
        (4, "validity", "validity must be between 1 and 1000"),
        (5, "validity", "validity must be between 1 and 1000"),
        (6, "validity", "validity must be between 1 and 1000"),
    ]


def test_a_failed_row_check_is_named_by_the_fields_it_compares() -> None:
    # not by Pandera's dump of the whole row as JSON
    rows = pl.DataFrame(
        {
            "line_no": [2, 3, 4],
            "tournament_id": ["A", "B", "C"],
            "file": ["a.trf", "b.trf", "c.trf"],
            "system": ["elo_italia"] * 3,
            "received_on": [date(2024, 1, 1), date(2024, 3, 1), date(2024, 3, 1)],
            "start_date": [date(2024, 2, 1), date(2024, 2, 1), date(2024, 2, 1)],
            "end_date": [date(2024, 2, 3), date(2024, 1, 3), date(2024, 2, 3)],
            "time_control": [None] * 3,
            "arbiter_ratings": [None] * 3,
        },
        schema_overrides={"line_no": pl.Int32, "time_control": pl.Utf8, "arbiter_ratings": pl.Utf8},
    )
    checked = validate(ManifestRow, rows)
    assert checked.valid.get_column("line_no").to_list() == [4]
    assert sorted(checked.problems.select("line_no", "field", "value", "reason").rows()) == [
        (
            2,
            "received_on, end_date",
            "received_on=2024-01-01, end_date=2024-02-03",
            "received_on must not be before end_date",
        ),
        (
            3,
            "start_date, end_date",
            "start_date=2024-02-01, end_date=2024-01-03",
            "start_date must not be after end_date",
        ),
    ]


def test_every_row_check_names_fields_of_its_model() -> None:
    # a row-wide check declared without its fields would be reported by a dump of the row
    models = [
        model
        for info in pkgutil.iter_modules(schemas.__path__)
        for _, model in inspect.getmembers(
            importlib.import_module(f"schemas.{info.name}"), inspect.isclass
        )
        if issubclass(model, pa.DataFrameModel) and model is not pa.DataFrameModel
    ]
    checked = 0
    for model in models:
        schema = model.to_schema()
        for check in schema.checks:
            assert check.error in ROW_CHECK_FIELDS, (model.__name__, check.error)
            assert set(ROW_CHECK_FIELDS[check.error]) <= set(schema.columns), model.__name__
            checked += 1
    assert checked >= 7
