"""The TRF-16 writer: fixed columns checked by hand against the FIDE layout."""

from datetime import date

import polars as pl
import pytest

from synthetic.trf_writer import TrfHeader, national_lines, render_trf, round_block


def col(line: str, first: int, last: int) -> str:
    """Columns first..last, 1-based and inclusive, as the FIDE TRF description counts them."""
    return line[first - 1 : last]


HEADER = TrfHeader(
    name="Open di Prova",
    city="Arco",
    federation="ITA",
    start_date=date(2019, 3, 7),
    end_date=date(2019, 3, 8),
    rounds=3,
    tournament_type="Individual: Swiss-System Dutch",
    chief_arbiter="AN Marco Tessitore",
    time_control="90 min + 30 s",
    round_dates=(date(2019, 3, 7), date(2019, 3, 7), date(2019, 3, 8)),
)


def players() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "start_number": [1, 2, 3, 12],
            "sex": ["M", "F", "M", "M"],
            "title": ["FM", None, None, None],
            "name": ["Rossi, Marco", "Bianchi, Anna Maria", "Martin, Pierre", "Verdi, Luca"],
            "rating": [2312, None, 1850, None],
            "federation": ["ITA", "ITA", "FRA", "ITA"],
            "fide_id": ["85012345", None, "12345678", None],
            "birth_date": [date(1990, 1, 2), date(2011, 12, 31), None, date(1960, 7, 4)],
            "points": [2.5, 1.5, 1.0, 10.5],
            "rank": [1, 2, 3, 4],
            "national_id": ["123456", "234567", None, "345678"],
            "national_rating": [None, 1543, None, 1440],
            "classification": ["CM", "2N", None, "NC"],
        }
    )


def games() -> pl.DataFrame:
    rows = [
        # start_number, round, opponent, color, result
        (1, 1, 2, "w", "1"),
        (2, 1, 1, "b", "0"),
        (3, 1, 0, "-", "U"),  # pairing-allocated bye, full point
        (1, 2, 3, "b", "="),
        (3, 2, 1, "w", "="),
        (2, 2, 0, "-", "H"),  # requested half-point bye
        (1, 3, 12, "w", "+"),  # forfeit won ...
        (12, 3, 1, "b", "-"),  # ... and lost
        (2, 3, 3, "w", "="),
        (3, 3, 2, "b", "0"),
        (12, 1, 0, "-", "Z"),  # absent; round 2 deliberately missing -> blank block
    ]
    return pl.DataFrame(
        rows,
        schema=["start_number", "round", "opponent", "color", "result_code"],
        orient="row",
    )


def lines_by_record(text: str, record: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith(record)]


def test_001_line_columns_by_hand() -> None:
    text = render_trf(HEADER, players(), games())
    first = lines_by_record(text, "001")[0]
    assert col(first, 1, 3) == "001"
    assert col(first, 5, 8) == "   1"
    assert col(first, 10, 10) == "m"
    assert col(first, 11, 13) == " FM"
    assert col(first, 15, 47) == "Rossi, Marco".ljust(33)
    assert col(first, 49, 52) == "2312"
    assert col(first, 54, 56) == "ITA"
    assert col(first, 58, 68) == "   85012345"
    assert col(first, 70, 79) == "1990/01/02"
    assert col(first, 81, 84) == " 2.5"
    assert col(first, 86, 89) == "   1"
    assert col(first, 92, 99) == "   2 w 1"
    assert col(first, 102, 109) == "   3 b ="
    assert col(first, 112, 119) == "  12 w +"
    # Separators between fields are blank.
    for c in (4, 9, 14, 48, 53, 57, 69, 80, 85, 90, 91, 100, 101):
        assert col(first, c, c) == " ", c
    assert len(first) == 119


def test_unrated_woman_without_fide_id() -> None:
    second = lines_by_record(render_trf(HEADER, players(), games()), "001")[1]
    assert col(second, 10, 10) == "w"  # registry F -> TRF w
    assert col(second, 11, 13) == "   "
    assert col(second, 49, 52) == "    "
    assert col(second, 58, 68) == " " * 11
    assert col(second, 70, 79) == "2011/12/31"


def test_bye_and_forfeit_codes() -> None:
    lines = lines_by_record(render_trf(HEADER, players(), games()), "001")
    by_sn = {int(col(line, 5, 8)): line for line in lines}
    assert col(by_sn[3], 92, 99) == "0000 - U"
    assert col(by_sn[2], 102, 109) == "0000 - H"
    assert col(by_sn[12], 112, 119) == "   1 b -"
    assert col(by_sn[12], 92, 99) == "0000 - Z"
    # Missing round: a blank block keeps round 3 in its own columns.
    assert col(by_sn[12], 102, 111) == " " * 10
    assert col(by_sn[12], 81, 84) == "10.5"
    assert col(by_sn[12], 5, 8) == "  12"


def test_round_block_helper() -> None:
    assert round_block(None, "-", "U") == "0000 - U  "
    assert round_block(0, "-", "F") == "0000 - F  "
    assert round_block(123, "b", "+") == " 123 b +  "
    with pytest.raises(ValueError, match="unknown TRF result code"):
        round_block(4, "w", "X")


def test_header_records() -> None:
    text = render_trf(HEADER, players(), games())
    head = text.split("\n")[:13]
    assert head[:11] == [
        "012 Open di Prova",
        "022 Arco",
        "032 ITA",
        "042 2019/03/07",
        "052 2019/03/08",
        "062 4",
        "072 2",
        "082 0",
        "092 Individual: Swiss-System Dutch",
        "102 AN Marco Tessitore",
        "122 90 min + 30 s",
    ]
    dates = head[11]
    assert col(dates, 1, 3) == "132"
    assert col(dates, 92, 99) == "19/03/07" and col(dates, 112, 119) == "19/03/08"
    assert head[12] == "XXR 3"


def test_lines_end_cleanly_and_in_start_number_order() -> None:
    text = render_trf(HEADER, players().reverse(), games().reverse())
    assert text.endswith("\n") and "\r" not in text
    assert all(line == line.rstrip(" ") for line in text.split("\n"))
    assert [int(col(line, 5, 8)) for line in lines_by_record(text, "001")] == [1, 2, 3, 12]


def test_national_lines() -> None:
    text = render_trf(HEADER, players(), games(), national=True)
    ita = lines_by_record(text, "ITA")
    assert len(ita) == 3  # the French guest has no national id
    second = ita[1]
    assert col(second, 1, 3) == "ITA"
    assert col(second, 5, 8) == "   2"
    assert col(second, 10, 10) == "w"
    assert col(second, 11, 13) == " 2N"
    assert col(second, 15, 47) == "Bianchi, Anna Maria".ljust(33)
    assert col(second, 49, 52) == "1543"
    assert col(second, 54, 56) == "ITA"
    assert col(second, 58, 68) == "     234567"
    assert col(second, 70, 79) == "2011/12/31"
    assert len(second) == 79
    # Off by default: plain TRF-16.
    assert not lines_by_record(render_trf(HEADER, players(), games()), "ITA")
    assert national_lines(players()) == ita


def test_names_are_cut_to_the_field_width() -> None:
    long = players().with_columns(
        pl.when(pl.col("start_number") == 1)
        .then(pl.lit("Bonaccorsi-Dell'Acqua, Gianluca Maurizio"))
        .otherwise(pl.col("name"))
        .alias("name")
    )
    first = lines_by_record(render_trf(HEADER, long, games()), "001")[0]
    assert col(first, 15, 47) == "Bonaccorsi-Dell'Acqua, Gianluca Maurizio"[:33]
    assert col(first, 49, 52) == "2312"


def test_unknown_result_code_is_refused() -> None:
    bad = games().with_columns(pl.lit("X").alias("result_code"))
    with pytest.raises(ValueError, match="unknown TRF result codes"):
        render_trf(HEADER, players(), bad)


def test_string_birth_dates_and_british_colour_column() -> None:
    p = players().with_columns(pl.col("birth_date").cast(pl.String))
    g = games().rename({"color": "colour"})
    first = lines_by_record(render_trf(HEADER, p, g), "001")[0]
    assert col(first, 70, 79) == "1990/01/02"
    assert col(first, 92, 99) == "   2 w 1"
