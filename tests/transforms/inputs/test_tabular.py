from datetime import date

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.inputs.tabular import FieldSpec, refused_file, type_columns, with_line_numbers

SPECS = [FieldSpec("id", "text", required=True), FieldSpec("when", "date"), FieldSpec("n", "int")]


def test_every_bad_cell_is_reported_with_its_line():
    raw = with_line_numbers(
        pl.DataFrame({"id": ["a", "", "c"], "when": ["2026-01-02", "x", ""], "n": ["1", "2", "z"]})
    )
    typed, problems = type_columns(raw, SPECS)
    assert typed["when"].to_list() == [date(2026, 1, 2), None, None]
    assert problems.sort("line_no", "field").select("line_no", "field", "value").rows() == [
        (3, "id", ""),
        (3, "when", "x"),
        (4, "n", "z"),
    ]


def test_optional_columns_absent_from_the_header_are_null():
    typed, problems = type_columns(with_line_numbers(pl.DataFrame({"id": ["a"]})), SPECS)
    assert problems.height == 0
    assert typed.schema["when"] == pl.Date and typed["n"].to_list() == [None]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=-(10**6), max_value=10**6), min_size=1, max_size=30))
def test_integers_survive_typing_and_nothing_is_reported(values):
    raw = with_line_numbers(
        pl.DataFrame({"id": ["x"] * len(values), "n": [str(v) for v in values]})
    )
    typed, problems = type_columns(raw, SPECS)
    assert problems.height == 0
    assert typed["n"].to_list() == values


def test_a_column_the_file_does_not_have_is_reported_not_silently_ignored() -> None:
    # "fide id" for fide_id: the values would be ignored and the players read without FIDE ids
    raw = pl.DataFrame({"line_no": [2], "player_id": ["100001"], "fide id": ["2250001"]})
    specs = [FieldSpec("player_id", "text", required=True), FieldSpec("fide_id", "int")]
    typed, problems = type_columns(raw, specs)
    assert typed.select("player_id", "fide_id").rows() == [("100001", None)]
    assert problems.rows() == [
        (
            1,
            "fide id",
            "fide id",
            "column 'fide id' is not one of this file's (player_id, fide_id): its values are "
            "ignored",
            "warning",
        )
    ]


def test_a_misspelt_required_column_is_named_with_the_spelling_found():
    from transforms.inputs.tabular import header_fault

    required = ["tournament_id", "file", "system", "received_on"]
    assert header_fault("tournament_id,file,system,Recieved_On", required) == (
        "the header lacks the required column received_on (the header has 'recieved_on' for "
        "received_on: correct its spelling)"
    )
    # nothing close: the plain reason
    assert header_fault("tournament_id,file,system,notes", required) == (
        "the header lacks the required column received_on"
    )


def test_a_file_whose_lines_end_with_a_carriage_return_alone_is_refused_saying_so():
    # an old Mac program ends every line with CR alone: the file is one line, with a CR in
    # each value, which the csv module cannot split (its error escaped the reader)
    content = b"player_id,year\r100001,2020\r100002,2020\r"
    found = refused_file(content, ["player_id", "year"])
    assert found.select("line_no", "value", "severity").rows() == [
        (1, "player_id,year\r100001,2020\r100002,2020", "error")
    ]
    assert found.get_column("reason").to_list() == [
        "the first line holds a carriage return (CR) that ends no line, inside a value not in "
        "double quotes: a CSV's lines end with LF or CR LF (a file saved with old Mac line ends "
        "has CR alone); save the file as CSV again, or quote the value"
    ]
