"""Reading the CSV inputs (flows/inputs.py): every value as text, numbered as an editor shows."""

from pathlib import Path

from flows.inputs import read_csv_text


def test_empty_lines_are_skipped_and_the_others_keep_their_line_numbers(tmp_path: Path) -> None:
    # a blank line, a line of spaces between commas and the ",,,," a spreadsheet leaves after
    # the last row hold nothing: they are not rows (which would be rejected as incomplete)
    path = tmp_path / "games.csv"
    path.write_text("a,b,c\n1,2,3\n\n4,,6\n , ,\n7,8,9\n,,\n", encoding="utf-8")
    read = read_csv_text(path)
    assert read.problems.height == 0
    assert read.rows.rows() == [(2, "1", "2", "3"), (4, "4", None, "6"), (6, "7", "8", "9")]
