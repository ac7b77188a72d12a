"""Tests of the TRF parser (transforms.trf) and the date helper (transforms.dates).

The expected numbers for the real files in shared/data/trf were NOT produced by the
parser. They were read off the files by hand and with small awk scripts that only cut
fixed columns (TRF-16: round r is columns 92+10(r-1) .. +7, result in the 8th column):

* players  = `grep -c '^001' FILE`
* rounds   = max(XXR / 142 header value, number of 10-column round blocks on the longest
             001 line after stripping trailing blanks)
* pairs    = (number of round blocks whose result is 1, = or 0 and whose opponent is not
             0000) / 2, i.e. each played game counted once
* warnings = blocks with a colour marker but no result (awk: `substr(block, 8, 1) == " "`
             on a non-blank block) + players whose points column differs from the sum
             of their round scores (awk, same scoring table as the FIDE spec)
* no errors: an awk self-check found every opponent's line naming the player back in
             the same round with the complementary result, in all nine files.
"""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.inputs.dates import (
    birth_date_exprs,
    read_date,
    resolve_period,
    two_digit_year,
    with_birth_dates,
)
from transforms.inputs.trf import (
    GAMES_SCHEMA,
    NATIONAL_SCHEMA,
    PLAYERS_SCHEMA,
    PROBLEMS_SCHEMA,
    TOURNAMENT_SCHEMA,
    ParsedTrf,
    decode_trf,
    parse_trf,
    parse_trf_files,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
# real files written by other programs, beside the repository (absent from a fresh clone)
TRF_DIR = REPO_ROOT.parent / "shared" / "data" / "trf"
TRF_DIR = REPO_ROOT.parent / "shared" / "data" / "trf"

COMPETICHESS = "GrzegorzKi_CompetiChess__test_backend_testTrfFile.txt"
MOLRN_TRF26 = "Molrn_TRF__tests_example_trf26.trf"
SHARLY_TEAM = "Sharly-Chess_bbpPairings__test_tests_team_utf8_names.input"
ERRAL = "erral_fidetournament__tests_test_demo.trf"
ARMSTRONG_BOM = "sanichi_icu_tournament__spec_samples_krause_armstrong_2012_with_bom.tab"
BUNRATTY = "sanichi_icu_tournament__spec_samples_krause_bunratty_major_2011.tab"
IRISH_JUNIORS = "sanichi_icu_tournament__spec_samples_krause_irish_junior_champs_2011.tab"
LATIN1 = "sanichi_icu_tournament__spec_samples_krause_latin-1.tab"
SKLANGEN = "sklangen_TRF__tests_example1.trf"

# file: (players, rounds, played pairs, format, encoding, is_team, warnings, start, end)
# How each number was checked: see the module docstring; notes per file below.
EXPECTED: dict[str, tuple[int, int, int, str, str, bool, int, date | None, date | None]] = {
    # XXR 9 but only 4 rounds paired and a fifth of byes entered ahead (tournament in
    # progress): 4 rounds, two warnings, and a third for player 43, whose points count the
    # half-point bye entered ahead; 178 played rows. 51 birth dates give only the year ("1978"):
    # one warning for the file.
    COMPETICHESS: (52, 4, 89, "TRF-16", "utf-8", False, 4, date(2010, 9, 24), date(2010, 10, 2)),
    # 142 14 and 14 blocks; 2060 played rows; team records 013/240/.../802 present; every birth
    # date is "YYYY/00/00": one warning for the file.
    MOLRN_TRF26: (249, 14, 1030, "TRF-26", "utf-8", True, 1, date(2024, 1, 1), date(2024, 1, 14)),
    # 142 3 but 2 blocks (2 rounds, a warning); 310 team lines with UTF-8 names; no 042/052.
    SHARLY_TEAM: (8, 2, 8, "TRF-26", "utf-8", True, 1, None, None),
    # 042 08/04/2018 .. 052 10/06/2018, day first (132 round dates 18/04/08 .. agree); every
    # birth date is a year alone ("1951"): one warning for the file.
    ERRAL: (137, 7, 396, "TRF-16", "utf-8", False, 1, date(2018, 4, 8), date(2018, 6, 10)),
    # 042 11.09.26 / 052 12.04.01: only yy.mm.dd keeps start <= end. The ICU exports write
    # the Irish federation's ids in the FIDE id column: one warning each, ids left out.
    ARMSTRONG_BOM: (2, 1, 1, "KRAUSE", "utf-8-sig", False, 1, date(2011, 9, 26), date(2012, 4, 1)),
    # 16 blocks "     -" without result + 11 players (1 2 10 14 16 26 27 28 42 43 49)
    # whose points column counts those blocks as half points.
    BUNRATTY: (56, 6, 158, "KRAUSE", "utf-8", False, 28, date(2011, 2, 25), date(2011, 2, 27)),
    # 6 blocks "0000 -" without result + 5 points mismatches (players 4 14 19 24 31).
    IRISH_JUNIORS: (34, 5, 82, "KRAUSE", "latin-1", False, 12, date(2011, 7, 2), date(2011, 7, 3)),
    LATIN1: (3, 3, 3, "TRF-06", "latin-1", False, 0, date(2008, 6, 7), None),
    # 042 "28. 07. 2005"; forfeits written "153 - -" with an opponent.
    # the 284th line is "spielfrei", the pairing program's bye: left out, with a warning
    SKLANGEN: (283, 7, 970, "TRF-06", "utf-8", False, 1, date(2005, 7, 28), date(2005, 7, 31)),
}


def _load(name: str) -> ParsedTrf:
    return parse_trf((TRF_DIR / name).read_bytes())


def _game(parsed: ParsedTrf, start_number: int, rnd: int) -> dict[str, object]:
    rows = parsed.games.filter(
        (pl.col("start_number") == start_number) & (pl.col("round") == rnd)
    ).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def _player(parsed: ParsedTrf, start_number: int) -> dict[str, object]:
    rows = parsed.players.filter(pl.col("start_number") == start_number).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def _errors(parsed: ParsedTrf) -> pl.DataFrame:
    return parsed.problems.filter(pl.col("severity") == "error")


def _warnings(parsed: ParsedTrf) -> pl.DataFrame:
    return parsed.problems.filter(pl.col("severity") == "warning")


def _assert_schemas(parsed: ParsedTrf) -> None:
    assert dict(parsed.tournament.schema) == TOURNAMENT_SCHEMA
    assert parsed.tournament.height == 1
    assert dict(parsed.players.schema) == PLAYERS_SCHEMA
    assert dict(parsed.games.schema) == GAMES_SCHEMA
    assert dict(parsed.national.schema) == NATIONAL_SCHEMA
    assert dict(parsed.problems.schema) == PROBLEMS_SCHEMA


# --------------------------------------------------------------------------- real files


def test_every_shared_file_has_expectations() -> None:
    assert TRF_DIR.is_dir(), f"shared TRF samples missing: {TRF_DIR}"
    on_disk = {p.name for p in TRF_DIR.iterdir() if p.is_file()}
    assert on_disk == set(EXPECTED), "add hand-checked expectations for new sample files"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_file_counts(name: str) -> None:
    players, rounds, pairs, fmt, encoding, is_team, warnings, start, end = EXPECTED[name]
    parsed = _load(name)
    _assert_schemas(parsed)
    t = parsed.tournament.row(0, named=True)
    assert parsed.players.height == players
    assert t["rounds"] == rounds
    assert parsed.games.height == players * rounds  # one row per player per round
    played = parsed.games.filter(pl.col("played")).height
    assert played % 2 == 0
    assert played // 2 == pairs
    assert (t["format"], t["encoding"], t["is_team"]) == (fmt, encoding, is_team)
    assert (t["start_date"], t["end_date"]) == (start, end)
    assert _errors(parsed).height == 0, _errors(parsed)
    assert _warnings(parsed).height == warnings, _warnings(parsed)


def test_real_files_pass_the_warehouse_schemas_in_one_batch() -> None:
    """Clean files must not be quarantined by the Pandera models the ingest applies."""
    from transforms.elo.intake import validate_parsed

    problems = validate_parsed({name: _load(name) for name in sorted(EXPECTED)})
    assert set(problems) == set(EXPECTED)
    for name, found in problems.items():
        assert found.height == 0, (name, found)


def test_batch_validation_attributes_a_problem_to_its_tournament() -> None:
    from transforms.elo.intake import validate_parsed

    clean = _load(sorted(EXPECTED)[0])
    broken = ParsedTrf(
        tournament=clean.tournament,
        players=clean.players.with_columns(
            pl.when(pl.col("start_number") == 2)
            .then(9999)
            .otherwise(pl.col("rating"))
            .cast(pl.Int32)
            .alias("rating")
        ),
        games=clean.games,
        national=clean.national,
        problems=clean.problems,
    )
    problems = validate_parsed({"clean": clean, "broken": broken})
    assert problems["clean"].height == 0
    line_of_two = clean.players.filter(pl.col("start_number") == 2)["line_no"][0]
    assert problems["broken"].select("line_no", "field", "value", "reason").rows() == [
        (line_of_two, "rating", "9999", "rating must be between 0 and 3500")
    ]


def test_competichess_by_hand() -> None:
    parsed = _load(COMPETICHESS)
    t = parsed.tournament.row(0, named=True)
    assert t["name"] == "XX Open Internacional de Gros"
    assert t["declared_players"] == 52
    assert t["chief_arbiter"] == "IA Mikel Larreategi Arana (22232540)"
    # line 21: "001    8 ... 21 w -" -> player 8 round 4: forfeit loss to 21
    g = _game(parsed, 8, 4)
    assert g == {
        "start_number": 8,
        "round": 4,
        "opponent": 21,
        "color": "w",
        "result_code": "-",
        "score": 0.0,
        "kind": "forfeit",
        "played": False,
        "line_no": 21,
    }
    # line 34: player 21 round 4 "8 b +"
    assert _game(parsed, 21, 4)["result_code"] == "+"
    assert _game(parsed, 21, 4)["score"] == 1.0
    # line 27: player 14 round 3 "0000 - H"
    g = _game(parsed, 14, 3)
    assert (g["opponent"], g["color"], g["kind"], g["score"]) == (None, None, "bye", 0.5)
    # line 61: player 48 round 4 "0000 - U" (pairing-allocated bye)
    assert (_game(parsed, 48, 4)["result_code"], _game(parsed, 48, 4)["score"]) == ("U", 1.0)
    # line 41: player 28 has five "0000 - Z" then nothing; nobody is paired in round 5, which
    # holds only byes entered ahead (lines 35, 41, 56): the tournament has 4 rounds, not the 9
    # its XXR record declares (line 13)
    p28 = parsed.games.filter(pl.col("start_number") == 28).sort("round")
    assert p28["result_code"].to_list() == ["Z"] * 4
    assert p28["kind"].to_list() == ["bye"] * 4
    # every birth date but one (line 47, blank) gives only the year: one warning for the file
    assert _warnings(parsed).select("line_no", "field", "value").rows() == [
        (13, "number of rounds", "9"),
        (14, "birth date", "1978"),
        (35, "number of rounds", "5"),
        (56, "points", "1.0"),
    ]
    assert "51 players' birth dates give only the year" in _warnings(parsed)["reason"][1]
    assert "3 byes entered ahead" in _warnings(parsed)["reason"][2]
    p1 = _player(parsed, 1)
    assert p1["line_no"] == 14
    assert (p1["name"], p1["sex"], p1["title"], p1["rating"]) == ("Mirzoev Azer", "M", "g", 2527)
    assert (p1["federation"], p1["fide_id"], p1["birth_year"]) == ("AZE", 13400304, 1978)
    assert p1["birth_date"] is None  # only a year is given
    assert _player(parsed, 23)["sex"] == "F"  # 'w'
    assert _player(parsed, 6)["rating"] is None  # rating 0 = unrated
    assert _player(parsed, 6)["fide_id"] is None  # FIDE id 0
    assert _player(parsed, 34)["birth_year"] is None  # blank birth field


def test_molrn_trf26_by_hand() -> None:
    parsed = _load(MOLRN_TRF26)
    # line 34: player 2 round 6 "0000 - -": no opponent, forfeit loss
    g = _game(parsed, 2, 6)
    assert (g["opponent"], g["kind"], g["score"], g["line_no"]) == (None, "forfeit", 0.0, 34)
    # line 35: player 3 round 7 "0000 - +"
    assert (_game(parsed, 3, 7)["kind"], _game(parsed, 3, 7)["score"]) == ("forfeit", 1.0)
    # lines 33 and 83: 1 vs 51 round 1, "51 b =" and "1 w ="
    assert (_game(parsed, 1, 1)["opponent"], _game(parsed, 1, 1)["color"]) == (51, "b")
    assert (_game(parsed, 51, 1)["opponent"], _game(parsed, 51, 1)["color"]) == (1, "w")
    p1 = _player(parsed, 1)
    assert p1["fide_id"] == 70123454321  # 11 digits
    assert (p1["birth_year"], p1["birth_date"]) == (1987, None)  # "1987/00/00"
    assert p1["sex"] is None
    p101 = _player(parsed, 101)
    assert (p101["points"], p101["rank"], p101["line_no"]) == (10.5, 1, 133)
    # 3-capital legend lines ("DDD SSSS ...", "III TT ...") are not national records.
    assert parsed.national.height == 0


def test_sharly_team_by_hand() -> None:
    parsed = _load(SHARLY_TEAM)
    t = parsed.tournament.row(0, named=True)
    assert t["name"] == "UTF-8 team names must not shift the 310 member columns"
    # line 13: player 8 round 2 "2 w ="
    g = _game(parsed, 8, 2)
    assert (g["opponent"], g["color"], g["result_code"], g["score"]) == (2, "w", "=", 0.5)
    # 142 3, but nobody has an entry in round 3 yet: the file holds 2 rounds
    assert parsed.games["round"].unique().sort().to_list() == [1, 2]
    assert _warnings(parsed).select("field", "value").rows() == [("number of rounds", "3")]


def test_erral_by_hand() -> None:
    parsed = _load(ERRAL)
    # line 14: "0000 - Z  0000 - F    76 w 1 ..."
    g1 = _game(parsed, 1, 1)
    assert (g1["opponent"], g1["result_code"], g1["kind"], g1["score"]) == (None, "Z", "bye", 0.0)
    assert (_game(parsed, 1, 2)["result_code"], _game(parsed, 1, 2)["score"]) == ("F", 1.0)
    assert _game(parsed, 1, 3)["opponent"] == 76
    assert _game(parsed, 1, 3)["played"] is True
    # line 55: player 42 round 5 "101 b -"; line 114: player 101 round 5 "42 w +"
    assert (_game(parsed, 42, 5)["opponent"], _game(parsed, 42, 5)["result_code"]) == (101, "-")
    assert (_game(parsed, 101, 5)["opponent"], _game(parsed, 101, 5)["result_code"]) == (42, "+")


def test_armstrong_bom_by_hand() -> None:
    parsed = _load(ARMSTRONG_BOM)
    t = parsed.tournament.row(0, named=True)
    assert t["name"] == "Leinster Chess Union Div 1 Armstrong Cup 2011 - 2012"  # no BOM char
    assert t["federation"] == "IRL"
    # line 10 (BOM does not shift line numbers)
    p1 = _player(parsed, 1)
    assert (p1["name"], p1["rating"], p1["line_no"]) == ("Griffiths, Ryan-Rhys", 2322, 10)
    g = _game(parsed, 1, 1)
    assert (g["opponent"], g["color"], g["result_code"]) == (2, "w", "1")


def test_bunratty_by_hand() -> None:
    parsed = _load(BUNRATTY)
    assert parsed.tournament["federation"].to_list() == [None]  # "032 " blank
    # line 14 (CRLF file): "0000 - +       -       8 w 1"
    g = _game(parsed, 1, 1)
    assert (g["opponent"], g["kind"], g["score"], g["line_no"]) == (None, "forfeit", 1.0, 14)
    g = _game(parsed, 1, 2)  # "     -  ": no result -> not paired, and a warning
    assert (g["result_code"], g["kind"], g["score"]) == ("", "unpaired", 0.0)
    warned = _warnings(parsed).filter(pl.col("line_no") == 14)["reason"].to_list()
    assert any("round 2" in r and "no result" in r for r in warned)
    assert any("points column says 4.0" in r and "3.5" in r for r in warned)
    assert _player(parsed, 1)["sex"] == "M"  # upper-case 'M'


def test_irish_juniors_by_hand() -> None:
    parsed = _load(IRISH_JUNIORS)
    names = dict(parsed.players.select("start_number", "name").iter_rows())
    assert names[24] == "Morgan, Mícheál"  # line 38, Latin-1 bytes
    assert names[27] == "Ó Muireagáin, Colm"  # line 41
    assert names[29] == "Ní Mhuireagáin, Eibhia"  # line 43
    assert _player(parsed, 24)["rating"] == 951  # "0951"
    assert _player(parsed, 32)["rating"] is None  # "0000"
    p30 = _player(parsed, 30)  # birth "    .  .  " = blank
    assert (p30["birth_date"], p30["birth_year"]) == (None, None)
    assert _player(parsed, 1)["birth_date"] == date(1967, 9, 12)
    g = _game(parsed, 4, 1)  # line 18: "0000 -  " without result
    assert (g["opponent"], g["result_code"], g["kind"]) == (None, "", "unpaired")


def test_latin1_by_hand() -> None:
    parsed = _load(LATIN1)
    assert parsed.tournament["name"].to_list() == ["Läs Végas National Opeñ"]
    names = parsed.players.sort("start_number")["name"].to_list()
    assert names == ["Uì Laighlèis,Gearoìdin", "Örr,Mârk", "Bologan,Viktor"]
    assert parsed.players.sort("start_number")["title"].to_list() == [None, "m", "g"]
    assert parsed.players["rank"].to_list() == [None, None, None]
    # player 2 line 4: round 2 blank; player 3 line 5: round 1 blank
    assert _game(parsed, 2, 2)["kind"] == "unpaired"
    assert _game(parsed, 3, 1)["kind"] == "unpaired"
    assert (_game(parsed, 2, 3)["opponent"], _game(parsed, 2, 3)["result_code"]) == (3, "1")


def test_sklangen_by_hand() -> None:
    parsed = _load(SKLANGEN)
    assert parsed.tournament["federation"].to_list() == [None]
    # line 26: "001   13    f Bakhmatov ... 0.0    0   153 - -"
    p13 = _player(parsed, 13)
    assert (p13["title"], p13["sex"], p13["rank"], p13["points"]) == ("f", None, None, 0.0)
    assert p13["birth_date"] == date(1934, 6, 20)  # "1934.06.20"
    g = _game(parsed, 13, 1)
    assert (g["opponent"], g["color"], g["kind"], g["score"]) == (153, None, "forfeit", 0.0)
    assert _game(parsed, 153, 1)["result_code"] == "+"  # line 166 "13 - +"
    assert _game(parsed, 13, 2)["kind"] == "unpaired"  # withdrew
    # line 297: the "spielfrei" dummy has only "0000 - -" in round 5: it is the bye of player
    # 282 (line 295 "0000 - +"), not a player
    assert parsed.players.filter(pl.col("start_number") == 284).height == 0
    assert parsed.games.filter(pl.col("start_number") == 284).height == 0
    assert _warnings(parsed).select("line_no", "value").rows() == [(297, "spielfrei")]
    assert _game(parsed, 282, 5)["score"] == 1.0


def test_the_irish_federations_ids_are_no_fide_ids() -> None:
    parsed = _load(ARMSTRONG_BOM)
    # lines 10-11: "6897" and "159" in the FIDE id column are ICU ids
    assert parsed.players.select("fide_id", "rating").rows() == [(None, 2322), (None, 1982)]
    warning = _warnings(parsed).filter(pl.col("field") == "FIDE id")
    assert warning["reason"].str.contains("Irish ICU export").to_list() == [True]
    # the same dialect (a bare "-" bye) with a FIDE id keeps every id
    fide = parse_trf(
        trf(
            line001(1, "Rossi, Mario", 1.0, [entry(2, "w", "1"), "     -  "], fide=850012),
            line001(2, "Conti, Ada", 0.0, [entry(1, "b", "0")], fide=4191),
        )
    )
    assert fide.tournament["format"].to_list() == ["KRAUSE"]
    assert fide.players["fide_id"].to_list() == [850012, 4191]


def test_a_bye_stand_in_is_left_out_only_when_it_meets_nobody() -> None:
    parsed = parse_trf(
        trf(
            line001(1, "Free", 2.0, [entry(2, "w", "1"), entry(None, "-", "+")]),
            line001(2, "Bianchi, Anna", 0.0, [entry(1, "b", "0"), entry(3, "w", "0")]),
            line001(3, "BYE", 1.0, [" " * 8, entry(2, "b", "1")]),
            line001(4, "Spielfrei", 0.0, [" " * 8, entry(None, "-", "-")]),
        )
    )
    # "Free" and "BYE" meet opponents: players, whatever their names
    assert parsed.players["name"].to_list() == ["Free", "Bianchi, Anna", "BYE"]
    assert parsed.games.get_column("start_number").unique().sort().to_list() == [1, 2, 3]
    assert _warnings(parsed).select("line_no", "field", "value").rows() == [
        (5, "player line", "Spielfrei")
    ]


# --------------------------------------------------------------------------- synthetic


def entry(opponent: int | None, color: str, result: str) -> str:
    """One 8-character round entry, e.g. entry(12, 'w', '1') == '  12 w 1'."""
    opp = "0000" if opponent is None else f"{opponent:>4}"
    return f"{opp} {color} {result}"


def line001(
    sn: int | str,
    name: str,
    points: float | str,
    rounds: list[str] | tuple[str, ...] = (),
    *,
    sex: str = "m",
    title: str = "",
    rating: int | str = "",
    fed: str = "",
    fide: int | str = "",
    birth: str = "",
    rank: int | str = "",
) -> str:
    """A TRF-16 player line with every field in its FIDE columns."""
    pts = points if isinstance(points, str) else f"{points:.1f}"
    head = (
        f"001 {sn!s:>4} {sex:1}{title:>3} {name:<33} {rating!s:>4} {fed:<3} {fide!s:>11} "
        f"{birth:<10} {pts:>4} {rank!s:>4}"
    )
    assert len(head) == 89
    return (head + "".join(f"  {r:<8}" for r in rounds)).rstrip()


def trf(*lines: str, header: tuple[str, ...] = ("012 Test Open",)) -> bytes:
    return ("\n".join([*header, *lines]) + "\n").encode("utf-8")


def test_line_helper_matches_fide_columns() -> None:
    line = line001(7, "Rossi, Mario", 1.5, [entry(3, "w", "1")], sex="m", title="f", rating=2100)
    assert line[4:8] == "   7" and line[9] == "m" and line[10:13] == "  f"
    assert line[14:26] == "Rossi, Mario" and line[48:52] == "2100" and line[80:84] == " 1.5"
    assert line[91:99] == "   3 w 1"


ALL_CODES = [
    # (player a, player b, a's entry, b's entry)
    (1, 2, entry(2, "w", "1"), entry(1, "b", "0")),
    (3, 4, entry(4, "w", "="), entry(3, "b", "=")),
    (5, 6, entry(6, "w", "+"), entry(5, "b", "-")),
    (7, 8, entry(8, "w", "W"), entry(7, "b", "L")),
    (9, 10, entry(10, "b", "D"), entry(9, "w", "D")),
    (11, 12, entry(12, "-", "-"), entry(11, "-", "-")),  # double forfeit
]
BYES = {13: entry(None, "-", "H"), 14: entry(None, "-", "F"), 15: entry(None, "-", "U"),
        16: entry(None, "-", "Z"), 17: " " * 8, 18: entry(None, "-", "+")}  # fmt: skip
SCORE = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0,
         "H": 0.5, "F": 1.0, "U": 1.0, "Z": 0.0, "": 0.0}  # fmt: skip


def _all_codes_file(lower: bool = False) -> bytes:
    entries: dict[int, str] = {}
    for a, b, ea, eb in ALL_CODES:
        entries[a], entries[b] = ea, eb
    entries.update(BYES)
    lines = []
    for sn, e in sorted(entries.items()):
        code = e[7].strip()
        lines.append(line001(sn, f"Player {sn}", SCORE[code], [e.lower() if lower else e]))
    return trf(*lines)


@pytest.mark.parametrize("lower", [False, True])
def test_every_result_code(lower: bool) -> None:
    parsed = parse_trf(_all_codes_file(lower))
    assert parsed.problems.height == 0, parsed.problems
    got = {
        row["start_number"]: (row["result_code"], row["score"], row["kind"], row["played"])
        for row in parsed.games.to_dicts()
    }
    assert got == {
        1: ("1", 1.0, "played", True),
        2: ("0", 0.0, "played", True),
        3: ("=", 0.5, "played", True),
        4: ("=", 0.5, "played", True),
        5: ("+", 1.0, "forfeit", False),
        6: ("-", 0.0, "forfeit", False),
        7: ("W", 1.0, "unrated", False),
        8: ("L", 0.0, "unrated", False),
        9: ("D", 0.5, "unrated", False),
        10: ("D", 0.5, "unrated", False),
        11: ("-", 0.0, "forfeit", False),
        12: ("-", 0.0, "forfeit", False),
        13: ("H", 0.5, "bye", False),
        14: ("F", 1.0, "bye", False),
        15: ("U", 1.0, "bye", False),
        16: ("Z", 0.0, "bye", False),
        17: ("", 0.0, "unpaired", False),
        18: ("+", 1.0, "forfeit", False),
    }
    colors = dict(parsed.games.select("start_number", "color").iter_rows())
    assert (colors[1], colors[2], colors[9], colors[11], colors[13]) == ("w", "b", "b", None, None)
    assert parsed.tournament["format"].to_list() == ["TRF-16"]


def test_bom_is_removed_and_reported() -> None:
    raw = b"\xef\xbb\xbf" + trf(line001(1, "Solo", 0.0))
    text, encoding = decode_trf(raw)
    assert encoding == "utf-8-sig" and text.startswith("012 Test Open")
    parsed = parse_trf(raw)
    assert parsed.tournament["name"].to_list() == ["Test Open"]
    assert parsed.tournament["encoding"].to_list() == ["utf-8-sig"]
    assert parsed.players["line_no"].to_list() == [2]


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8"])
def test_accented_names_in_both_encodings(encoding: str) -> None:
    text = "\n".join(
        [
            "012 Torneo Città di Sé",
            line001(1, "Ó Sé, Máire", 1.0, [entry(2, "w", "1")], sex="w", rating=1500),
            line001(2, "Müller, Jürgen", 0.0, [entry(1, "b", "0")], rating=1600),
        ]
    )
    parsed = parse_trf(text.encode(encoding))
    assert parsed.problems.height == 0, parsed.problems
    assert parsed.tournament["encoding"].to_list() == [encoding]
    assert parsed.tournament["name"].to_list() == ["Torneo Città di Sé"]
    assert parsed.players["name"].to_list() == ["Ó Sé, Máire", "Müller, Jürgen"]
    # Character-based columns: the multi-byte UTF-8 letters do not shift the rating.
    assert parsed.players["rating"].to_list() == [1500, 1600]
    assert parsed.players["sex"].to_list() == ["F", "M"]


def test_a_windows_1252_file_gives_its_letters_not_control_characters() -> None:
    # ’ (0x92), Š (0x8A) and ž (0x9E) are letters in Windows-1252 and control characters in
    # Latin-1: read as Latin-1 the names were stored as "D\x92Angelo" with no error
    text = "\n".join(
        [
            "012 Torneo di Città",
            line001(1, "D’Angelo, Nicolò", 1.0, [entry(2, "w", "1")], rating=1500),
            line001(2, "Šimun, Žarko", 0.0, [entry(1, "b", "0")], rating=1600),
        ]
    )
    parsed = parse_trf(text.encode("cp1252"))
    assert parsed.problems.height == 0, parsed.problems
    assert parsed.tournament["encoding"].to_list() == ["cp1252"]
    assert parsed.players["name"].to_list() == ["D’Angelo, Nicolò", "Šimun, Žarko"]
    assert parsed.players["rating"].to_list() == [1500, 1600]


def test_a_single_byte_file_without_windows_letters_stays_latin_1() -> None:
    # the two encodings agree outside 0x80-0x9F: such a file keeps its Latin-1 label, and a
    # byte Windows-1252 leaves undefined (0x81) outside the names is read as Latin-1 with a
    # warning (in a name it is the code page 850's ü)
    plain = trf(line001(1, "Müller, Jürgen", 0.0))
    assert decode_trf(plain.decode("utf-8").encode("latin-1"))[1] == "latin-1"
    odd = parse_trf(
        trf(line001(1, "Rossi", 0.0), header=("012 Torneo Solo",)).replace(b"Solo", b"So\x81o")
    )
    assert odd.tournament["encoding"].to_list() == ["latin-1"]
    assert "Windows-1252" in _warnings(odd).filter(pl.col("field") == "encoding")["reason"][0]


def test_a_dos_file_is_read_in_the_code_page_850_with_a_warning() -> None:
    # in Windows-1252 the code page 850's ò ù à é are • — … ‚, and its ì is no character
    text = "\r\n".join(
        [
            "012 Torneo di Forlì",
            line001(1, "Rossi, Mario", 1.0, [entry(2, "w", "1")], rating=1500),
            line001(2, "Bertù, Niccolò", 1.0, [entry(1, "b", "0"), entry(3, "w", "1")]),
            line001(3, "Pèrez, José Ìñigo", 0.0, [entry(0, "-", "-"), entry(2, "b", "0")]),
        ]
    )
    parsed = parse_trf(text.encode("cp850"))
    assert parsed.tournament["encoding"].to_list() == ["cp850"]
    assert parsed.tournament["name"].to_list() == ["Torneo di Forlì"]
    assert parsed.players["name"].to_list() == [
        "Rossi, Mario",
        "Bertù, Niccolò",
        "Pèrez, José Ìñigo",
    ]
    warning = _warnings(parsed).filter(pl.col("field") == "encoding")
    assert warning.select("line_no", "value").rows() == [(3, "Bertù, Niccolò")]
    assert "code page 850" in warning["reason"][0]


@pytest.mark.parametrize(
    "names",
    [
        # only Windows-1252 punctuation a name may hold: ’ is Æ, – is û in the code page 850
        ["D’Angelo, Mario", "Rossi–Bianchi, Carla"],
        # letters in both (è is Þ there), but ò is ‗ in the code page 850
        ["Sè, Niccolò", "Ferri, Luca"],
    ],
)
def test_a_windows_file_whose_names_read_in_both_stays_windows(names: list[str]) -> None:
    text = "\n".join(["012 Torneo", *(line001(n, name, 0.0) for n, name in enumerate(names, 1))])
    parsed = parse_trf(text.encode("cp1252"))
    assert parsed.tournament["encoding"].to_list() in (["cp1252"], ["latin-1"])
    assert parsed.players["name"].to_list() == names
    assert _warnings(parsed).filter(pl.col("field") == "encoding").height == 0


def test_crlf_and_lf_give_the_same_frames() -> None:
    lf = _all_codes_file()
    crlf = lf.replace(b"\n", b"\r\n")
    a, b = parse_trf(lf), parse_trf(crlf)
    assert decode_trf(crlf)[0] == decode_trf(lf)[0]
    for frame in ("tournament", "players", "games", "national", "problems"):
        assert getattr(a, frame).equals(getattr(b, frame)), frame


def test_empty_file_has_full_schemas() -> None:
    parsed = parse_trf(b"")
    _assert_schemas(parsed)
    assert parsed.players.height == parsed.games.height == parsed.national.height == 0
    assert parsed.tournament.row(0, named=True)["rounds"] == 0
    errors = _errors(parsed)
    assert errors.height == 1 and errors["line_no"].to_list() == [None]
    assert "empty" in errors["reason"][0]


def test_binary_garbage_is_an_error() -> None:
    rng = random.Random(7)
    garbage = bytes(rng.randrange(256) for _ in range(500)) + b"\x00\x01"
    parsed = parse_trf(garbage)
    _assert_schemas(parsed)
    assert parsed.players.height == 0
    assert any("NUL" in r for r in _errors(parsed)["reason"])


def test_text_without_players_is_an_error() -> None:
    parsed = parse_trf(b"\xff\xfe this is not a tournament report\n")
    assert parsed.tournament["encoding"].to_list() == ["latin-1"]
    assert "no player lines (001 records) found" in _errors(parsed)["reason"].to_list()


def _corrupt() -> bytes:
    return trf(
        line001(1, "Alpha", 1.0, [entry(2, "w", "1"), entry(3, "b", "1")]),  # line 2
        line001(2, "Beta", 0.0, [entry(1, "b", "0"), entry(57, "w", "0")]),  # line 3
        line001(3, "Gamma", 1.0, [entry(4, "b", "0"), entry(1, "w", "1")]),  # line 4
        line001(4, "Delta", 2.0, [entry(5, "w", "1"), entry(None, "-", "Z")]),  # line 5
        line001("4x", "Epsilon", 0.0),  # line 6
        line001(5, "Zeta", "1,O"),  # line 7
        line001(6, "Eta", 0.0, [" 12 w 1"]),  # line 8: entry shifted one column left
    )


def test_corrupt_file_errors_carry_line_numbers() -> None:
    parsed = parse_trf(_corrupt())
    _assert_schemas(parsed)
    errors = _errors(parsed).select("line_no", "field", "reason").rows()

    def has(line_no: int, field: str, text: str) -> bool:
        return any(n == line_no and f == field and text in r for n, f, r in errors)

    # letters in the start number (line 6): reported, line left out of players
    assert has(6, "start number", "start number '4x' (columns 5-8) is not a number")
    assert 6 not in parsed.players["line_no"].to_list()
    # unreadable points (line 7)
    assert has(7, "points", "player 5: points '1,O' (columns 81-84) are not a number")
    # opponent that does not exist (line 3, round 2)
    assert has(3, "opponent", "player 2 round 2: opponent 57 does not exist in this tournament")
    # asymmetric pairing: 3 says it met 4 in round 1 (line 4), 4's line says 5
    assert has(4, "opponent", "player 3 is paired with 4, but player 4's line shows opponent 5")
    # 4 says it met 5 (line 5), but 5's line (line 7) has no round entries at all
    assert has(5, "opponent", "player 4 is paired with 5, but player 5's line shows no opponent")
    # both claim the win in round 2 (1 vs 3): reported once, on the lower number's line
    assert has(2, "result", "round 2: results of players 1 ('1') and 3 ('1') do not fit together")
    # misaligned round entry (line 8)
    assert has(8, "round entry", "player 6 round 1: cannot read the entry ' 12 w 1'")
    assert len(errors) == 7, errors


def test_pairing_problems_are_symmetric_once() -> None:
    # 1 and 2 both write "1": exactly one error, not two.
    raw = trf(
        line001(1, "A", 1.0, [entry(2, "w", "1")]),
        line001(2, "B", 1.0, [entry(1, "b", "1")]),
    )
    errors = _errors(parse_trf(raw))
    assert errors.height == 1
    assert errors["line_no"].to_list() == [2]


def test_duplicate_start_number_is_an_error() -> None:
    raw = trf(line001(1, "A", 0.0), line001(1, "B", 0.0))
    errors = _errors(parse_trf(raw))
    assert errors["line_no"].to_list() == [2, 3]
    assert "lines 2, 3" in errors["reason"][0]


def test_bye_with_opponent_and_result_without_opponent_are_errors() -> None:
    raw = trf(
        line001(1, "A", 0.5, [entry(2, "-", "H")]),
        line001(2, "B", 1.0, [entry(None, "w", "1")]),
    )
    reasons = _errors(parse_trf(raw))["reason"].to_list()
    assert any("bye code 'H' is given together with opponent 2" in r for r in reasons)
    assert any("result '1' is a game result but no opponent is given" in r for r in reasons)


def test_warnings_points_declared_players_and_dates() -> None:
    raw = trf(
        line001(1, "A", 1.5, [entry(2, "w", "1")]),  # says 1.5, results give 1.0
        line001(2, "B", 0.0, [entry(1, "b", "0")]),
        header=("012 Warn Open", "042 05.06.07", "052 05.06.07", "062 3", "XXR 1"),
    )
    parsed = parse_trf(raw)
    assert _errors(parsed).height == 0
    reasons = _warnings(parsed)["reason"].to_list()
    assert "player 1: points column says 1.5 but the round results add up to 1.0" in reasons
    assert "the header declares 3 players but the file has 2 player lines" in reasons
    # Same two-digit date for start and end: every reading is consistent -> left empty.
    assert sum("can be read as" in r for r in reasons) == 2
    t = parsed.tournament.row(0, named=True)
    assert (t["start_date"], t["end_date"], t["declared_players"]) == (None, None, 3)


def test_unreadable_date_is_a_warning_not_a_guess() -> None:
    raw = trf(line001(1, "A", 0.0), header=("012 X", "042 next week", "052 2024/02/30"))
    parsed = parse_trf(raw)
    warn = _warnings(parsed).select("line_no", "field").rows()
    assert warn == [(2, "start date"), (3, "end date")]
    assert parsed.tournament.row(0, named=True)["start_date"] is None


def test_birth_date_spellings() -> None:
    raw = trf(
        line001(1, "A", 0.0, birth="1987/00/00"),
        line001(2, "B", 0.0, birth="1990.02.03"),
        line001(3, "C", 0.0, birth="1991/02/30"),
        line001(4, "D", 0.0, birth="born 1990"),
        line001(5, "E", 0.0, birth="1975"),
    )
    parsed = parse_trf(raw)
    got = parsed.players.select("birth_date", "birth_year").rows()
    assert got == [
        (None, 1987),
        (date(1990, 2, 3), 1990),
        (None, 1991),
        (None, None),
        (None, 1975),
    ]
    # 1987/00/00 and 1975 give only the year: one warning for the file, on the first (line 2);
    # then 1991/02/30 and "born 1990"
    assert _warnings(parsed)["line_no"].to_list() == [2, 4, 5]
    assert "2 players' birth dates give only the year" in _warnings(parsed)["reason"][0]


def test_a_pairing_without_result_is_an_error_and_a_colour_clash_a_warning() -> None:
    # a paired game with no result on either line would be lost from the rating (it was a
    # warning): the file was written before the round ended, or the result was left out
    raw = trf(
        line001(1, "A", 0.0, [entry(2, "w", " ")]),
        line001(2, "B", 0.0, [entry(1, "w", " ")]),
    )
    parsed = parse_trf(raw)
    errors = _errors(parsed)["reason"].to_list()
    assert errors == [
        f"player {me} round 1: paired with {other} but no result is recorded; give the result "
        "(a file written before the round ended lacks it)"
        for me, other in ((1, 2), (2, 1))
    ]
    assert "round 1: players 1 and 2 both have colour 'w'" in _warnings(parsed)["reason"]
    assert _game(parsed, 1, 1)["opponent"] == 2


def test_national_lines_and_team_flag() -> None:
    def national(sn: int, name: str, **fields: str | int) -> str:
        # Same columns 5-79 as a 001 line, record id = federation code.
        return ("ITA" + line001(sn, name, 0.0, **fields)[3:79]).rstrip()  # type: ignore[arg-type]

    nat = national(1, "Rossi, Mario", title="CM", rating=1850, fed="ITA", fide="IT12345678",
                   birth="1970/05/04")  # fmt: skip
    assert nat[57:68] == " IT12345678" and nat[10:13] == " CM"
    raw = trf(
        line001(1, "Rossi, Mario", 1.0, [entry(2, "w", "1")], rating=1900, fide=123456),
        line001(2, "Bianchi, Ugo", 0.0, [entry(1, "b", "0")]),
        nat,
        national(9, "Ghost, Nobody", rating=0, fed="ITA", fide=777),
        "DDD SSSS sTTT NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR FFF IIIIIIIIIII BBBB/BB/BB",
        "XXR 1",
        "013 Squadra                              1    2",
    )
    parsed = parse_trf(raw)
    _assert_schemas(parsed)
    assert parsed.national.to_dicts() == [
        {
            "federation_code": "ITA",
            "start_number": 1,
            "national_id": "IT12345678",
            "national_rating": 1850,
            "classification": "CM",
            "name": "Rossi, Mario",
            "birth_date": date(1970, 5, 4),
            "line_no": 4,
        },
        {
            "federation_code": "ITA",
            "start_number": 9,
            "national_id": "777",
            "national_rating": None,
            "classification": None,
            "name": "Ghost, Nobody",
            "birth_date": None,
            "line_no": 5,
        },
    ]
    warn = _warnings(parsed)
    assert warn["line_no"].to_list() == [5]  # start number 9 has no 001 line
    assert _errors(parsed).height == 0
    t = parsed.tournament.row(0, named=True)
    assert (t["is_team"], t["format"], t["rounds"]) == (True, "TRF-26", 1)


def test_rounds_are_those_the_player_lines_pair() -> None:
    raw = trf(
        line001(1, "A", 2.0, [entry(2, "w", "1"), " " * 8, entry(3, "w", "+")]),
        line001(2, "B", 0.5, [entry(1, "b", "0"), entry(None, "-", "H")]),
        line001(3, "C", 0.0, [" " * 8, " " * 8, entry(1, "b", "-")]),
        header=("012 X", "XXR 2"),
    )
    parsed = parse_trf(raw)
    # a forfeit pairs two players: round 3 is a round
    assert parsed.tournament["rounds"].to_list() == [3]
    assert parsed.games.height == 9
    warn = _warnings(parsed).select("line_no", "reason").rows()
    assert warn == [
        (
            2,
            "the header declares 2 rounds but the player lines pair players in 3: the "
            "tournament has 3",
        )
    ]
    # byes entered ahead for rounds nobody was paired in make no round
    ahead = parse_trf(
        trf(
            line001(
                1, "A", 1.0, [entry(2, "w", "1"), entry(None, "-", "H"), entry(None, "-", "Z")]
            ),
            line001(2, "B", 0.0, [entry(1, "b", "0"), " " * 8, entry(None, "-", "H")]),
            header=("012 X", "XXR 3"),
        )
    )
    assert ahead.tournament["rounds"].to_list() == [1]
    assert ahead.games.select("start_number", "round").rows() == [(1, 1), (2, 1)]
    assert _warnings(ahead).select("line_no", "value", "reason").rows() == [
        (
            2,
            "3",
            "the header declares 3 rounds but the player lines pair players in 1: the "
            "tournament has 1",
        ),
        (
            3,
            "2, 3",
            "rounds 2, 3 pair nobody: 3 byes entered ahead, left out; the tournament has 1 round",
        ),
    ]
    # a typo (or a file cut short) declaring more rounds adds none that nobody played
    typo = parse_trf(
        trf(
            line001(1, "A", 1.0, [entry(2, "w", "1")]),
            line001(2, "B", 0.0, [entry(1, "b", "0")]),
            header=("012 X", "XXR 99"),
        )
    )
    assert typo.tournament["rounds"].to_list() == [1]
    assert typo.games.height == 2
    assert _warnings(typo).select("line_no", "value").rows() == [(2, "99")]


def test_declared_rounds_from_xxr_and_142() -> None:
    body = [line001(1, "A", 0.0), line001(2, "B", 0.0)]
    both = parse_trf(trf(*body, header=("012 X", "XXR 5", "142 7")))
    # the larger declared count is the one compared with the rounds written (none here)
    assert both.tournament["rounds"].to_list() == [0]
    assert _warnings(both).select("line_no", "value").rows() == [(3, "7")]
    bad = parse_trf(trf(*body, header=("012 X", "XXR nine")))
    assert bad.tournament["rounds"].to_list() == [0]
    assert _warnings(bad).select("line_no", "field").rows() == [(2, "number of rounds")]


def test_national_line_with_start_number_zero_is_dropped_with_a_warning() -> None:
    nat = ("ITA" + line001(0, "Nobody", 0.0, rating=1500)[3:79]).rstrip()
    parsed = parse_trf(trf(line001(1, "A", 0.0), nat))
    assert parsed.national.height == 0
    assert _warnings(parsed)["line_no"].to_list() == [3]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    edits=st.integers(min_value=1, max_value=30),
    name=st.sampled_from(sorted(EXPECTED)),
)
def test_damaged_real_files_never_raise(seed: int, edits: int, name: str) -> None:
    """Random edits (typing slips, lost characters, stray bytes) give problems, not crashes."""
    rng = random.Random(seed)
    raw = bytearray((TRF_DIR / name).read_bytes())
    alphabet = b" 0123456789-+=wbWBHFUZ./x\n\r\t\xe9\xc3"
    for _ in range(edits):
        i = rng.randrange(len(raw))
        op = rng.random()
        if op < 0.6:
            raw[i] = rng.choice(alphabet)
        elif op < 0.8:
            del raw[i]
        else:
            raw.insert(i, rng.choice(alphabet))
    parsed = parse_trf(bytes(raw))
    _assert_schemas(parsed)
    assert set(parsed.problems["severity"].to_list()) <= {"error", "warning"}
    assert parsed.games.height == parsed.players.height * parsed.tournament["rounds"][0]


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24/09/2010", date(2010, 9, 24)),
        ("2024/01/01", date(2024, 1, 1)),
        ("25.02.2011", date(2011, 2, 25)),
        ("2008-06-07", date(2008, 6, 7)),
        ("28. 07. 2005", date(2005, 7, 28)),
        ("08/04/2018", date(2018, 4, 8)),  # day first, the European / FIDE convention
        ("20100924", date(2010, 9, 24)),
        ("31.12.99", date(1999, 12, 31)),  # two-digit, but only d.m.y is a real date
    ],
)
def test_read_date_single_reading(text: str, expected: date) -> None:
    reading = read_date(text)
    assert reading.status == "ok"
    assert reading.value == expected


def test_read_date_blank_year_only_and_ambiguous() -> None:
    assert read_date("").status == "blank"
    assert read_date("    .  .  ").status == "blank"
    assert read_date("1987/00/00").status == "year_only"
    assert read_date("1987/00/00").year == 1987
    assert read_date("11.09.26").status == "ambiguous"
    assert read_date("11.09.26").value is None
    # 98.13.05: month 13 for d.m.y and y.m.d, month 98 for m.d.y: no reading at all.
    assert read_date("98.13.05").status == "invalid"
    assert read_date("2023/02/30").status == "invalid"
    assert read_date("next week").status == "unreadable"


def test_resolve_period_uses_start_before_end() -> None:
    # The Irish Armstrong file: 11.09.26 .. 12.04.01 is only consistent as yy.mm.dd.
    assert resolve_period(read_date("11.09.26"), read_date("12.04.01")) == (
        date(2011, 9, 26),
        date(2012, 4, 1),
    )
    # One side fixed, the other ambiguous but only one reading is not before it.
    assert resolve_period(read_date("2011-09-20"), read_date("11.09.05")) == (
        date(2011, 9, 20),
        None,  # 2005-09-11, 2011-09-05 and 2005-11-09 are all earlier: none is consistent
    )
    assert resolve_period(read_date("2011-09-01"), read_date("11.09.05")) == (
        date(2011, 9, 1),
        date(2011, 9, 5),
    )
    assert resolve_period(read_date("05.06.07"), read_date("05.06.07")) == (None, None)
    assert resolve_period(read_date("11.09.26"), read_date("")) == (None, None)
    # a one-day tournament: the ambiguous end date may equal the start date (start <= end)
    assert resolve_period(read_date("2011-09-05"), read_date("11.09.05")) == (
        date(2011, 9, 5),
        date(2011, 9, 5),
    )


def test_two_digit_years_pivot_at_70() -> None:
    assert [two_digit_year(yy) for yy in (0, 69, 70, 99)] == [2000, 2069, 1970, 1999]


def test_birth_date_exprs_statuses() -> None:
    frame = pl.DataFrame({"t": ["1987/00/00", "12.09.1967", "1991/02/30", "x", "  .  .", None]})
    d, y, s = birth_date_exprs(pl.col("t"))
    got = frame.select(d.alias("d"), y.alias("y"), s.alias("s")).rows()
    assert got == [
        (None, 1987, "year_only"),
        (date(1967, 9, 12), 1967, "ok"),
        (None, 1991, "invalid"),
        (None, None, "unreadable"),
        (None, None, "blank"),
        (None, None, "blank"),
    ]


def test_birth_dates_read_once_as_the_expressions_read_them() -> None:
    texts = ["1987/00/00", "12.09.1967", "1991/02/30", "x", "  .  .", None, "1975.  .", "87/2/3"]
    frame = pl.DataFrame({"t": texts})
    d, y, s = birth_date_exprs(pl.col("t"))
    assert with_birth_dates(frame, pl.col("t"), "d", "y", "s").equals(
        frame.with_columns(d=d, y=y, s=s)
    )


def test_a_batch_of_files_parses_as_each_file_alone() -> None:
    # an ingest parses every file of its inbox at once: each file gets the frames, and the
    # problems in their order, that parsing it alone gives (an empty file and a file of no
    # player line among them)
    raws = [(TRF_DIR / name).read_bytes() for name in EXPECTED] + [b"", b"012 No players\n"]
    alone = [parse_trf(raw) for raw in raws]
    for together, one in zip(parse_trf_files(raws[::-1])[::-1], alone, strict=True):
        for frame in ("tournament", "players", "games", "national", "problems"):
            assert getattr(together, frame).equals(getattr(one, frame)), frame
    assert parse_trf_files([]) == []


# --------------------------------------------------------------------------- property


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[int, int, list[tuple[int, int, int | None, str, str]]]:
    """A random Swiss-like event: (players, rounds, [(player, round, opp, colour, code)])."""
    n = draw(st.integers(min_value=2, max_value=10))
    rounds = draw(st.integers(min_value=1, max_value=5))
    pair_results = ["1|0", "0|1", "=|=", "+|-", "-|+", "-|-", "W|L", "L|W", "D|D"]
    rows: list[tuple[int, int, int | None, str, str]] = []
    for rnd in range(1, rounds + 1):
        order = draw(st.permutations(list(range(1, n + 1))))
        for i in range(0, len(order) - 1, 2):
            a, b = order[i], order[i + 1]
            mine, theirs = draw(st.sampled_from(pair_results)).split("|")
            ca, cb = draw(st.sampled_from([("w", "b"), ("b", "w"), ("-", "-")]))
            rows += [(a, rnd, b, ca, mine), (b, rnd, a, cb, theirs)]
        if len(order) % 2:
            code = draw(st.sampled_from(["H", "F", "U", "Z", "", "+", "-"]))
            rows.append((order[-1], rnd, None, "-" if code else " ", code))
    return n, rounds, rows


def _render(n: int, rounds: int, rows: list[tuple[int, int, int | None, str, str]]) -> bytes:
    by_player: dict[int, list[str]] = {sn: [" " * 8] * rounds for sn in range(1, n + 1)}
    points = dict.fromkeys(range(1, n + 1), 0.0)
    for sn, rnd, opp, col, code in rows:
        by_player[sn][rnd - 1] = entry(opp, col, code or " ") if code or opp else " " * 8
        points[sn] += SCORE[code]
    lines = [line001(sn, f"P{sn}", points[sn], by_player[sn]) for sn in range(1, n + 1)]
    return trf(*lines, header=("012 Property", f"XXR {rounds}"))


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_rendered_tournament_round_trips(event: tuple[int, int, list]) -> None:
    n, rounds, rows = event
    parsed = parse_trf(_render(n, rounds, rows))
    assert parsed.problems.height == 0, parsed.problems
    assert parsed.players.height == n
    assert parsed.games.height == n * rounds
    expected = {
        (sn, rnd): (opp, None if col in "- " else col, code) for sn, rnd, opp, col, code in rows
    }
    got = {
        (r["start_number"], r["round"]): (r["opponent"], r["color"], r["result_code"])
        for r in parsed.games.to_dicts()
    }
    for key, value in got.items():
        assert value == expected.get(key, (None, None, "")), key
    played = sum(1 for *_, opp, _col, code in rows if opp and code in ("1", "=", "0"))
    assert parsed.games.filter(pl.col("played")).height == played


def test_a_file_mixing_utf8_and_latin1_says_so_at_the_first_byte_that_is_not_utf8() -> None:
    raw = (TRF_DIR / ERRAL).read_bytes()
    five = raw.index(b"\n001    5 ") + 1
    raw = raw.replace(b"Baltasar", "Baltasàr".encode(), 1)  # UTF-8: two bytes
    six = raw.index(b"\n001    6 ") + 1
    name = six + 14  # the name starts in column 15
    raw = raw[:name] + b"\xe9" + raw[name + 1 :]  # Latin-1: one byte
    parsed = parse_trf(raw)
    assert parsed.tournament["encoding"].to_list() == ["latin-1"]
    line_of_six = raw.count(b"\n", 0, six) + 1
    assert raw.count(b"\n", 0, five) + 1 < line_of_six
    encoding = _warnings(parsed).filter(pl.col("field") == "encoding")
    assert encoding.select("line_no", "value").rows() == [(line_of_six, "0xE9")]
    assert "mixes UTF-8 with another encoding" in encoding["reason"][0]


# --------------------------------------------------------------------------- real-world files


def round_dates(*dates: str) -> str:
    """A TRF-16 "132" line: one date per round, 8 characters each from column 92."""
    return ("132" + " " * 88 + "  ".join(f"{d:<8}" for d in dates)).rstrip()


@pytest.mark.parametrize("color", ["-", "w", "b"])
def test_a_krause_half_point_bye_without_opponent_is_a_bye(color: str) -> None:
    # the Irish ICU exports write a half-point bye "0000 - =" (their own reader takes it for a
    # half point without opponent, whatever the colour marker); it was read as a drawn game
    # without opponent: an error, and a game too many in the tournament's count
    raw = trf(
        line001(1, "A", 1.5, [entry(2, "w", "1"), entry(None, color, "=")]),
        line001(2, "B", 0.5, [entry(1, "b", "0"), entry(3, "w", "=")]),
        line001(3, "C", 1.5, [entry(None, "-", "+"), entry(2, "b", "=")]),
        header=("012 Bye Open", "042 2011/07/02", "052 2011/07/03"),
    )
    parsed = parse_trf(raw)
    assert parsed.problems.height == 0, parsed.problems
    g = _game(parsed, 1, 2)
    assert (g["opponent"], g["result_code"], g["score"], g["kind"], g["played"]) == (
        None,
        "=",
        0.5,
        "bye",
        False,
    )
    assert parsed.games.filter(pl.col("played")).height // 2 == 2  # the two real games
    from transforms.elo.intake import validate_parsed

    assert validate_parsed({"bye": parsed})["bye"].height == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("May 10, 2020", date(2020, 5, 10)),  # lichess
        ("May 10 2020", date(2020, 5, 10)),
        ("10 May 2020", date(2020, 5, 10)),
        ("September 3, 2021", date(2021, 9, 3)),
        ("Sep 3, 2021", date(2021, 9, 3)),
        ("dec 31, 1999", date(1999, 12, 31)),
        ("Feb. 1, 2024", date(2024, 2, 1)),
    ],
)
def test_read_date_english_month_names(text: str, expected: date) -> None:
    reading = read_date(text)
    assert (reading.status, reading.value) == ("ok", expected)


def test_an_english_date_is_read_and_a_wrong_day_is_not() -> None:
    assert read_date("Feb 30, 2024").status == "invalid"
    assert read_date("Mayday 10, 2020").status == "unreadable"
    parsed = parse_trf(
        trf(line001(1, "A", 0.0), header=("012 Lichess", "042 May 10, 2020", "052 May 12, 2020"))
    )
    t = parsed.tournament.row(0, named=True)
    assert (t["start_date"], t["end_date"]) == (date(2020, 5, 10), date(2020, 5, 12))
    assert parsed.problems.height == 0, parsed.problems


def test_round_dates_settle_an_ambiguous_start_date() -> None:
    # "10.09.13" (yy.mm.dd) alone reads 2010-09-13, 2013-09-10 or 2013-10-09; the weekly round
    # dates of line 132, in the same spelling, are in order only as yy.mm.dd (as d.m.y they
    # would run 2013, 2020, 2027, then 2004)
    weekly = ("10.09.13", "10.09.20", "10.09.27", "10.10.04")
    parsed = parse_trf(
        trf(line001(1, "A", 0.0), header=("012 ICU League", "042 10.09.13", round_dates(*weekly)))
    )
    assert parsed.tournament["start_date"].to_list() == [date(2010, 9, 13)]
    assert parsed.problems.height == 0, parsed.problems
    # an end date alone is settled the same way: it cannot be before the last round
    rounds = [read_date(d) for d in weekly]
    assert resolve_period(read_date(""), read_date("10.10.04"), rounds) == (None, date(2010, 10, 4))
    # round dates that fit no reading of the start leave it as it was (ambiguous)
    assert resolve_period(
        read_date("10.09.13"), read_date(""), [read_date("99.99.99"), read_date("x")]
    ) == (None, None)
    # rounds that fit every reading settle nothing
    assert resolve_period(read_date("10.09.13"), read_date(""), [read_date("10.09.13")]) == (
        None,
        None,
    )


def test_unreadable_dates_quote_the_line_and_the_value() -> None:
    raw = trf(line001(1, "A", 0.0), header=("012 X", "042 next week", "052 10.09.13"))
    reasons = dict(_warnings(parse_trf(raw)).select("line_no", "reason").iter_rows())
    assert "'next week'" in reasons[2] and "line 2" in reasons[2]
    assert "'10.09.13'" in reasons[3] and "line 3" in reasons[3]
    births = parse_trf(trf(line001(1, "A", 0.0, birth="born 1990")))
    (reason,) = _warnings(births)["reason"].to_list()
    assert "'born 1990'" in reason and "line 2" in reason


def test_year_only_birth_dates_keep_the_year_with_one_warning() -> None:
    raw = trf(
        line001(1, "A", 0.0, birth="1980/05/06"),
        line001(2, "B", 0.0, birth="1975.  ."),
        line001(3, "C", 0.0, birth="1975/00/00"),
        line001(4, "D", 0.0, birth="1975"),
        line001(5, "E", 0.0, birth="1962/  /  "),
    )
    parsed = parse_trf(raw)
    assert parsed.players.select("birth_date", "birth_year").rows() == [
        (date(1980, 5, 6), 1980),
        (None, 1975),
        (None, 1975),
        (None, 1975),
        (None, 1962),
    ]
    assert _warnings(parsed).select("line_no", "field", "value", "reason").rows() == [
        (
            3,
            "birth date",
            "1975.  .",
            "4 players' birth dates give only the year (the first: player 2, line 3, "
            "'1975.  .'): the year is kept, the day is left empty",
        )
    ]
    assert _errors(parsed).height == 0


def test_a_negative_rating_is_out_of_range_not_no_number() -> None:
    parsed = parse_trf(trf(line001(1, "A", 0.0, rating=-5), line001(2, "B", 0.0, rating="x")))
    assert _warnings(parsed).select("line_no", "value", "reason").rows() == [
        (
            2,
            "-5",
            "player 1: rating '-5' (columns 49-52) is negative, outside the ratings from 0 to "
            "3500; left empty",
        ),
        (3, "x", "player 2: rating 'x' (columns 49-52) is not a number; left empty"),
    ]
    assert parsed.players["rating"].to_list() == [None, None]


def test_a_blank_points_column_is_the_sum_of_the_round_scores() -> None:
    raw = trf(
        line001(1, "A", "", [entry(2, "w", "1"), entry(None, "-", "H")]),
        line001(2, "B", "", [entry(1, "b", "0"), entry(3, "w", "=")]),
        line001(3, "C", 1.5, [entry(None, "-", "F"), entry(2, "b", "=")]),
    )
    parsed = parse_trf(raw)
    assert _errors(parsed).height == 0, _errors(parsed)
    assert parsed.players["points"].to_list() == [1.5, 0.5, 1.5]
    assert _warnings(parsed).select("line_no", "field", "reason").rows() == [
        (
            2,
            "points",
            "the points column (columns 81-84) is blank for 2 players (the first: player 1, "
            "line 2): their points are the sum of their round results",
        )
    ]


def _truncated(parsed: ParsedTrf) -> list[tuple[int, str, str]]:
    cut = _errors(parsed).filter(pl.col("reason").str.contains("looks truncated"))
    return cut.select("line_no", "value", "reason").rows()


def test_a_file_cut_in_its_last_line_looks_truncated() -> None:
    whole = [
        line001(1, "A", 1.5, [entry(2, "w", "1"), entry(3, "b", "=")], rank=1),
        line001(2, "B", 0.5, [entry(1, "b", "0"), entry(None, "-", "H")], rank=3),
        line001(3, "C", 1.5, [entry(None, "-", "+"), entry(1, "w", "=")], rank=2),
    ]
    assert parse_trf(trf(*whole)).problems.height == 0
    head = "the file looks truncated: its last line (line 4) "
    tail = "; the players and rounds after it may be missing: deliver the whole file"
    # cut in the middle of the last round's entry ("   1 w" without its result): the generic
    # error of the entry stays, and says less
    cut_entry = parse_trf(trf(*whole[:2], whole[2][:-2]))
    assert _truncated(cut_entry) == [
        (
            4,
            "1 w",
            head + "stops in the middle of round 2's entry ('1 w', columns 102-109)" + tail,
        )
    ]
    assert _errors(cut_entry).filter(pl.col("field") == "result").height == 2
    # cut in the opponent's number
    cut_number = parse_trf(trf(*whole[:2], whole[2][:-4]))
    assert [row[:2] for row in _truncated(cut_number)] == [(4, "1")]
    # cut before the points: the other lines give theirs
    cut_name = parse_trf(trf(*whole[:2], whole[2][:30]))
    assert _truncated(cut_name) == [
        (
            4,
            "001    3 m    C",
            head + "stops at column 15, before the points (columns 81-84) and the round entries "
            "the other player lines give" + tail,
        )
    ]
    # cut after a whole entry: a round short, and its points count a result not there
    cut_round = parse_trf(trf(*whole[:2], whole[2][:99]))
    assert _truncated(cut_round) == [
        (
            4,
            "1.5",
            head + "holds 1 of the 2 rounds, and its points column says 1.5 where its results "
            "add up to 1.0" + tail,
        )
    ]
    # a real file cut short: its last entry "0000 - Z" loses its result (which leaves the ICU
    # bye without result, but the only one of a file that writes none), or more
    real = (TRF_DIR / ERRAL).read_bytes().rstrip()
    assert real.endswith(b"0000 - Z")
    last = real.count(b"\n") + 1
    for cut in (2, 4, 6):
        found = _truncated(parse_trf(real[:-cut]))
        assert [line_no for line_no, *_ in found] == [last], cut


def test_a_short_last_line_that_is_whole_is_not_truncated() -> None:
    # a player who withdrew after round 1 (his line ends there), an ICU bye without result at the
    # end of the last line: complete records
    withdrawn = parse_trf(
        trf(
            line001(1, "A", 2.0, [entry(3, "w", "1"), entry(2, "w", "1")]),
            line001(2, "B", 0.0, [" " * 8, entry(1, "b", "0")]),
            line001(3, "C", 0.0, [entry(1, "b", "0")]),
        )
    )
    assert withdrawn.problems.height == 0, withdrawn.problems
    icu = parse_trf(
        trf(
            line001(1, "A", 1.0, [entry(2, "w", "1"), " " * 8]),
            line001(2, "B", 0.0, [entry(1, "b", "0"), "     -  "]),
        )
    )
    assert not _truncated(icu)
    assert _errors(icu).height == 0


def test_a_header_count_too_large_for_any_tournament_is_ignored_with_a_warning():
    # found by the fuzz test: 062 2147483648 overflowed the tournament row's count column
    parsed = parse_trf(b"062 2147483648\n")
    warned = parsed.problems.filter(pl.col("field") == "number of players")
    assert warned.select("value", "reason").rows() == [
        ("2147483648", "number of players '2147483648' is not a count of players; ignored")
    ]
    assert parsed.tournament.get_column("declared_players").to_list() == [None]


def test_the_time_control_lines_are_kept_as_written_with_their_line_numbers():
    # the TRF-26 sample writes 122 on line 21 and the encoded 222 on line 27 (grep -n); the
    # parser keeps the text, and intake reads what it gives per player
    parsed = parse_trf((TRF_DIR / "Molrn_TRF__tests_example_trf26.trf").read_bytes())
    header = parsed.tournament.row(0, named=True)
    assert (
        header["time_control"],
        header["time_control_line"],
        header["encoded_time_control"],
        header["encoded_time_control_line"],
    ) == ("100'x40+15'+30\"", 21, "40/6000+30:900+30", 27)
    # a 222 line written twice keeps the first, with a warning, as every header record does
    twice = parse_trf(b"222 5400+30\n222 40/6000+30:900+30\n")
    assert twice.tournament.row(0, named=True)["encoded_time_control"] == "5400+30"
    assert twice.problems.filter(pl.col("field") == "encoded time control").select(
        "line_no", "severity"
    ).rows() == [(2, "warning")]
    blank = parse_trf(b"122 \n")
    assert blank.tournament.select("time_control", "time_control_line").row(0) == (None, None)


def test_a_cut_file_is_named_first_by_its_cut() -> None:
    # a real file cut in the middle of a player's line: the opponents and rounds it lost are
    # errors of their own lines, further up; the cut, which explains them, comes first (a
    # quarantined tournament is named by its first error)
    real = None
    if (TRF_DIR / "sklangen_TRF__tests_example1.trf").is_file():
        raw = (TRF_DIR / "sklangen_TRF__tests_example1.trf").read_bytes()
        # cut 50 bytes into the fourth-last player line
        real = raw[: raw.rindex(b"\n001 ", 0, raw.rindex(b"\n001 ", 0, raw.rindex(b"\n001 "))) + 51]
    whole = [
        line001(1, "A", 1.5, [entry(4, "w", "1"), entry(3, "b", "=")], rank=1),
        line001(2, "B", 0.5, [entry(3, "b", "0"), entry(4, "w", "=")], rank=3),
        line001(3, "C", 1.5, [entry(2, "w", "1"), entry(1, "w", "=")], rank=2),
        line001(4, "D", 0.5, [entry(1, "b", "0"), entry(2, "b", "=")], rank=4),
    ]
    for cut in [trf(*whole[:2], whole[2][:30]), *([real] if real else [])]:
        errors = _errors(parse_trf(cut))
        assert errors.height > 1
        assert errors.get_column("reason")[0].startswith("the file looks truncated"), errors
