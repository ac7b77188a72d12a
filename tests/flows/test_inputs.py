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


def test_a_large_csv_reads_into_frames_the_typing_steps_can_take(tmp_path):
    # 9,000 memberships and a year written twice: Polars 2.1 panicked on the reader's frame
    # (columns in several chunks, the line numbers in one) in the repeat check
    from transforms.inputs.registry import prepare_memberships

    lines = ["player_id,year", *(f"{100000 + n},2020" for n in range(9_000))]
    path = tmp_path / "memberships.csv"
    path.write_text("\n".join([*lines, "100003,2020", "100007,2020"]) + "\n", encoding="utf-8")
    kept, problems = prepare_memberships(read_csv_text(path).rows)
    assert kept.height == 9_000
    assert problems.get_column("line_no").to_list() == [9_002, 9_003]


def test_rows_after_a_value_spanning_two_lines_keep_the_lines_an_editor_shows(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text('a,b\n1,"Rossi,\nMario"\n\n2,x\r\n3,y\n', encoding="utf-8")
    read = read_csv_text(path)
    assert read.problems.height == 0
    assert read.rows.rows() == [(2, "1", "Rossi,\nMario"), (5, "2", "x"), (6, "3", "y")]


def test_a_row_with_more_values_than_the_header_is_rejected_and_the_others_read(tmp_path):
    # an unquoted comma in a name (the likeliest slip in "Surname, Given" names): that line is
    # rejected, saying where and why; the others keep the lines an editor shows
    path = tmp_path / "players.csv"
    path.write_text(
        'a,b\n1,"Rossi,\nMario"\n2,Verdi, Anna\n3,"Neri\n"\n4,Bruni, Gianni\n5,z\n',
        encoding="utf-8",
    )
    read = read_csv_text(path)
    assert read.problems.height == 0
    assert read.rows.rows() == [(2, "1", "Rossi,\nMario"), (5, "3", "Neri\n"), (8, "5", "z")]
    reason = (
        "the line has 3 values and the header names 2 columns: a value holding a comma must be "
        "written in double quotes"
    )
    assert read.rejected_lines.select("line_no", "reason").rows() == [(4, reason), (7, reason)]


def test_a_file_of_ragged_lines_only_has_no_row(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text("a,b\n1,Verdi, Anna\n", encoding="utf-8")
    read = read_csv_text(path)
    assert (read.problems.height, read.rows.height, read.rejected_lines.height) == (0, 0, 1)


def test_deliveries_are_read_in_the_order_their_numbers_say(tmp_path):
    from flows.inputs import discover_deliveries

    for name in ("delivery-10", "delivery-9", "2019-05", "delivery-1"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.csv").write_text("tournament_id\n", encoding="utf-8")
    found = [folder.name for folder in discover_deliveries(tmp_path)]
    assert found == ["2019-05", "delivery-1", "delivery-9", "delivery-10"]


def test_a_listing_with_a_line_of_a_comma_too_many_is_refused_whole(tmp_path):
    # a manifest's line stands for a tournament: rejected alone, it would vanish without trace
    path = tmp_path / "manifest.csv"
    path.write_text("tournament_id,file\nT1,a.trf\nT2,b,trf\n", encoding="utf-8")
    read = read_csv_text(path, ragged_lines_alone=False)
    assert read.rows.height == 0
    assert read.problems.select("line_no").rows() == [(3,)]


def test_a_line_that_opens_a_quote_it_never_closes_refuses_the_file(tmp_path):
    # read as a quoted value, it would run to the end of the file and take the lines after it
    path = tmp_path / "players.csv"
    path.write_text('a,b\n1,x\n2,y,"z\n3,w\n4,v\n', encoding="utf-8")
    read = read_csv_text(path)
    assert read.rows.height == 0
    assert read.problems.select("line_no").rows() == [(3,)]


def test_delivery_names_alike_but_for_leading_zeros_keep_one_order(tmp_path):
    from flows.inputs import delivery_order

    names = ["d1", "d01", "d1²", "d2"]
    assert sorted(names, key=lambda name: delivery_order(tmp_path / name)) == sorted(
        reversed(names), key=lambda name: delivery_order(tmp_path / name)
    )


def test_a_line_of_commas_wider_than_the_header_is_a_blank_line(tmp_path):
    # the ",,,,,," a spreadsheet leaves below the last row, one column wider than the header
    path = tmp_path / "games.csv"
    path.write_text("a,b\n1,2\n,,,,\n3,4\n", encoding="utf-8")
    for alone in (True, False):
        read = read_csv_text(path, ragged_lines_alone=alone)
        assert read.problems.height == 0 and read.rejected_lines.height == 0
        assert read.rows.rows() == [(2, "1", "2"), (4, "3", "4")]


def test_blank_lines_before_the_header_shift_nothing(tmp_path):
    # the reader skips them: rows keep the lines an editor shows, a ragged line is still
    # rejected on its own (it raised an IndexError)
    path = tmp_path / "memberships.csv"
    path.write_text("\n\nplayer_id,year\n100001,2026\n100002,2026,\n100003,2026\n")
    read = read_csv_text(path)
    assert read.problems.height == 0
    assert read.rows.rows() == [(4, "100001", "2026"), (6, "100003", "2026")]
    assert read.rejected_lines.get_column("line_no").to_list() == [5]
    assert read.rejected_keys.rows() == [(5, "100002")]


def test_a_ragged_value_over_two_lines_with_its_quotes_closed_is_rejected_alone(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text('a,b\n1,"x\ny",z\n3,w\n', encoding="utf-8")
    read = read_csv_text(path)
    assert read.rows.rows() == [(4, "3", "w")]
    assert read.rejected_lines.get_column("line_no").to_list() == [2]


def test_a_listing_names_every_line_of_a_comma_too_many(tmp_path):
    path = tmp_path / "manifest.csv"
    path.write_text("tournament_id,file\nT1,a,trf\nT2,b.trf\nT3,c,trf\n", encoding="utf-8")
    read = read_csv_text(path, ragged_lines_alone=False)
    assert read.problems.get_column("line_no").to_list() == [2, 4]
