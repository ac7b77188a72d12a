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


STRAY_CR = (
    "the line holds a carriage return (CR) that ends no line, inside a value not in double "
    "quotes: a CSV's lines end with LF or CR LF (a file saved with old Mac line ends has CR "
    "alone); save the file as CSV again, or quote the value"
)


def test_a_carriage_return_in_an_unquoted_value_refuses_the_file_naming_its_line(tmp_path):
    # Polars reads the CR as a letter, the csv module that tells ragged lines apart as the end
    # of a line it must not end: its error escaped the reader
    path = tmp_path / "memberships.csv"
    path.write_bytes(b"player_id,year\n100001,2020\n100002,20\r21,x\n100003,2020\n")
    read = read_csv_text(path)
    assert read.rows.height == 0
    assert read.problems.select("line_no", "value", "reason").rows() == [
        (3, "100002,20\r21,x", STRAY_CR)
    ]


def test_a_carriage_return_after_a_value_over_two_lines_refuses_the_file(tmp_path):
    # a value spanning lines makes the reader number the rows with the csv module, which stops
    # at the CR Polars read as a letter
    path = tmp_path / "players.csv"
    path.write_bytes(b'player_id,name\n100001,"Rossi,\nMario"\n100002,Verdi\rAnna\n')
    read = read_csv_text(path)
    assert read.rows.height == 0
    assert read.problems.select("line_no", "value", "reason").rows() == [
        (4, "100002,Verdi\rAnna", STRAY_CR)
    ]


def test_a_quote_never_closed_in_a_long_file_refuses_it_naming_the_line_it_opens_on(tmp_path):
    # the quoted value runs past the csv module's limit on a value's length (131,072
    # characters): its error escaped the reader
    path = tmp_path / "players.csv"
    rows = [f"{100000 + number},Player {number},2020" for number in range(2, 20_000)]
    lines = ["player_id,name,year", '100001,"Rossi, Mario,2020', *rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = read_csv_text(path)
    assert read.rows.height == 0
    assert read.problems.select("line_no", "value").rows() == [(2, '100001,"Rossi, Mario,2020')]
    assert read.problems.get_column("reason").str.contains("double quote opened and never").all()


def test_a_column_the_header_names_twice_in_two_cases_is_read_once(tmp_path):
    # "plaYer_id" and "player_id" are one name to the typing steps: renamed alike, they made
    # two columns of one name, and Polars' DuplicateError escaped the reader
    from transforms.inputs.registry import prepare_memberships

    path = tmp_path / "memberships.csv"
    path.write_text("plaYer_id,year,Player_ID \n100001,2020,100009\n", encoding="utf-8")
    read = read_csv_text(path)
    assert read.problems.height == 0
    kept, problems = prepare_memberships(read.rows)
    assert kept.select("line_no", "player_id", "year").rows() == [(2, "100001", 2020)]
    assert problems.select("line_no", "field", "severity", "reason").rows() == [
        (
            1,
            "player_id",
            "warning",
            "column 'player_id' is in the header twice (in any case, blanks aside): the values "
            "of the second are ignored",
        )
    ]


def test_a_column_named_line_no_leaves_the_rows_their_line_numbers(tmp_path):
    # the reader numbers the rows under line_no: a column of that name made two, and Polars'
    # DuplicateError escaped the reader
    from transforms.inputs.registry import prepare_memberships

    path = tmp_path / "memberships.csv"
    path.write_text("player_id,year,LINE_NO\n100001,2020,7\n100002,2020,8\n", encoding="utf-8")
    read = read_csv_text(path)
    assert read.problems.height == 0
    kept, problems = prepare_memberships(read.rows)
    assert kept.select("line_no", "player_id").rows() == [(2, "100001"), (3, "100002")]
    assert problems.select("field", "severity").rows() == [("line_no", "warning")]
    assert problems.get_column("reason").to_list() == [
        "column 'line_no' is the name each row's line number is read under, not one of this "
        "file's (player_id, year): its values are ignored"
    ]


def test_a_column_named_as_polars_names_every_column_is_read_as_any_other(tmp_path):
    # the reader named the file's columns to pl.col, which reads "*" as every column (the line
    # numbers too) and "^...$" as a pattern: Polars' SchemaError escaped the reader
    for odd in ("*", "^.*$", "^[$"):
        path = tmp_path / "memberships.csv"
        path.write_text(f"player_id,year,{odd}\n100001,2020,x\n,,\n", encoding="utf-8")
        read = read_csv_text(path)
        assert read.problems.height == 0, odd
        assert read.rows.rows() == [(2, "100001", "2020", "x")], odd


def test_a_line_rejected_in_a_file_whose_first_column_is_line_no_keeps_its_line(tmp_path):
    # the value under the first column went under its name, line_no, over the line numbers
    path = tmp_path / "players.csv"
    path.write_text("line_no,player_id\n1,100001\n2,100002,x\n", encoding="utf-8")
    read = read_csv_text(path)
    assert read.rejected_lines.get_column("line_no").to_list() == [3]
    assert read.rejected_keys.rows(named=True) == [{"line_no": 3, "line_no_duplicated_0": "2"}]


def test_a_quote_inside_a_value_written_without_quotes_is_part_of_it(tmp_path):
    # a manifest's time control written as a TRF writes it (docs/INPUTS.md): Polars' reader
    # refused the whole delivery ("CSV malformed"); the csv module reads the quote as a
    # character of the value, as a spreadsheet does
    path = tmp_path / "manifest.csv"
    path.write_text(
        "tournament_id,file,time_control,note\n"
        "T-1,a.trf,90'+30\",first\n"
        "\n"
        'T-2,b.trf,"60\'+30""",second\n'
        "T-3,c.trf,25'\n",
        encoding="utf-8",
    )
    read = read_csv_text(path)
    assert read.problems.height == 0
    assert read.rows.rows() == [
        (2, "T-1", "a.trf", "90'+30\"", "first"),
        (4, "T-2", "b.trf", "60'+30\"", "second"),
        (5, "T-3", "c.trf", "25'", None),
    ]
    assert read.rows.columns == ["line_no", "tournament_id", "file", "time_control", "note"]
