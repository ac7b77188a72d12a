"""Reading time controls (RULES.md §1.0): time per player = base times of all stages + 60 x the
increment per move. Every expected number below is worked by hand in the comment beside it."""

from pathlib import Path

import pytest

from transforms.inputs.time_control import (
    Stage,
    TimeControl,
    describe_minutes,
    read_encoded,
    read_written,
)
from transforms.inputs.trf import parse_trf

SHARED_TRF = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "trf"


def _minutes(control: TimeControl | None) -> tuple[float, ...] | None:
    return None if control is None else tuple(s / 60 for s in control.seconds_per_player)


@pytest.mark.parametrize(
    ("written", "minutes"),
    [
        ("90'+30\"", 120),  # 90 + 60 x 30 s = 90 + 30
        ("90+30", 120),  # no units: minutes, then seconds per move after "+"
        ("40/120+30", 150),  # 120 min for 40 moves (counted) + 30
        ("90 min + 30 sec", 120),
        ("G/60", 60),  # game in 60 minutes
        ("60'", 60),
        ("15+10", 25),  # 15 + 10
        ("2h", 120),
        ("120'/40+30'", 150),  # 120 for 40 moves, then 30 for the rest
        ("90'/40 + 30' + 30\"", 150),  # 90 + 30 + 30
        ("100'x40+15'+30\"", 145),  # 100 + 15 + 30
        ("90 minutes + 30 seconds per move", 120),
        ("1:30 + 10 from move 1", 100),  # 1 h 30 = 90, + 10; the "1" of "move 1" is no time
        ('15:00 + 10"', 25),  # a first number of 10 or more: minutes and seconds
        ("All moves in 90 minutes, plus 10 seconds per move", 100),
        ("40/120, 60", 180),  # 120 for 40 moves, then 60: a number after a comma is minutes
        ("90 min/40 moves + 30 min + 30 s", 150),
        ("90 minuti + 30 secondi a mossa", 120),
        ("90' + 30'' a mossa", 120),  # '' is the seconds mark
        ("90’+30”", 120),  # typographic marks
        ("2 ore", 120),
        ("1 ora e 30 minuti", 90),
        ("Rapid 15'+10''", 25),
        ("15 min + 10 sec/mossa", 25),
        ("1h30", 90),
        ('1h30+30"', 120),  # 90 + 30
        ("2h/40+1h", 180),  # 120 for 40 moves, then 60
        ("40 moves in 2 hours, then 1 hour", 180),
        ("1.5 h", 90),
        ('1,5 ore + 30"', 120),
        ("90/40+30", 120),  # the larger number is the time: 90 for 40 moves, + 30
        ("40/120, SD/60", 180),
        ("Game in 60", 60),
        ("3+2", 5),
        ("25'+10\"", 35),
        ("90'/40 mosse + 30'/fine partita + 30''", 150),
    ],
)
def test_written_forms_give_the_time_per_player(written, minutes):
    assert _minutes(read_written(written)) == (minutes,)


@pytest.mark.parametrize(
    "written",
    [
        "moves/time, increment",  # a template, not a time control
        "standard",  # no number
        "G/90;d5",  # a delay: not an increment, not counted here
        "5400+30",  # the TRF-26 encoding (seconds) on the written line: not 5400 minutes
        '90\' + 30" + 10"',  # two increments
        "+30",  # an increment without a time
        "30 seconds per move",
        "circa 90 minuti",  # a word not in the grammar: not half read
        "",
        "   ",
        None,
    ],
)
def test_what_cannot_be_read_whole_is_not_read(written):
    assert read_written(written) is None


@pytest.mark.parametrize(
    ("encoded", "minutes"),
    [
        ("5400+30", (120,)),  # 5400 s = 90 min, + 60 x 30 s = 30 min
        ("40/6000+30:900+30", (145,)),  # 100 + 15 + 60 x 30 s
        ("40/7200:3600", (180,)),  # 120 for 40 moves, then 60; no increment
        ("5430", (90.5,)),  # 90 min 30 s
        ("W300-B240", (5, 4)),  # Armageddon: White 5 minutes, Black 4
        # a first stage of 40 moves at 30 s, then 15 min at no increment: 60 moves count 40
        # increments of 30 s (20 min) and 20 of 0 s: 100 + 15 + 20
        ("40/6000+30:900", (135,)),
        # a repeated "moves/seconds" stage: 40 moves at 10 s, the next 20 at 10 s too
        ("40/3600+10", (70,)),  # 60 + 60 x 10 s
    ],
)
def test_the_trf26_encoding_of_line_222(encoded, minutes):
    assert _minutes(read_encoded(encoded)) == minutes


@pytest.mark.parametrize(
    "encoded", ["90'+30\"", "90 min", "40/6000+30:", "W300", "0", "0/600", "", None]
)
def test_what_is_not_the_encoding_is_not_read_as_it(encoded):
    assert read_encoded(encoded) is None


def test_a_multi_stage_control_counts_every_stage_and_its_moves():
    control = read_written("120'/40+30'")
    assert control == TimeControl(
        stages=(Stage(seconds=7200, moves=40, increment=0), Stage(1800, None, 0))
    )
    assert control.describe() == "150 minutes per player"


def test_minutes_are_written_whole_or_with_their_fraction():
    assert describe_minutes(7200) == "120"
    assert describe_minutes(5430) == "90.5"
    assert describe_minutes(100) == "1.67"


# Every real file of ../shared/data/trf: its line 122 (and TRF-26 line 222), and what each
# gives per player; None: not given, or not readable (then the tournament is rated with a
# warning saying so)
SHARED_READINGS = {
    "GrzegorzKi_CompetiChess__test_backend_testTrfFile.txt": (
        ("moves/time, increment", None),  # the template of the spec: unreadable
        (None, None),
    ),
    "Molrn_TRF__tests_example_trf26.trf": (
        ("100'x40+15'+30\"", 145),  # 100 for 40 moves + 15 + 60 x 30 s
        ("40/6000+30:900+30", 145),  # the same, encoded: 6000 s + 900 s + 60 x 30 s
    ),
    "Sharly-Chess_bbpPairings__test_tests_team_utf8_names.input": ((None, None), (None, None)),
    "erral_fidetournament__tests_test_demo.trf": (
        ("90 minutes + 30 seconds per move", 120),
        (None, None),
    ),
    "sanichi_icu_tournament__spec_samples_krause_armstrong_2012_with_bom.tab": (
        (None, None),
        (None, None),
    ),
    "sanichi_icu_tournament__spec_samples_krause_bunratty_major_2011.tab": (
        ("1:30 + 10 from move 1", 100),  # 1 h 30 + 60 x 10 s
        (None, None),
    ),
    "sanichi_icu_tournament__spec_samples_krause_irish_junior_champs_2011.tab": (
        ("All moves in 90 minutes, plus 10 seconds per move", 100),
        (None, None),
    ),
    "sanichi_icu_tournament__spec_samples_krause_latin-1.tab": ((None, None), (None, None)),
    "sklangen_TRF__tests_example1.trf": (
        ("40/120, 60", 180),  # 120 for 40 moves, then 60
        (None, None),
    ),
}


def test_every_shared_file_time_control_is_read_or_said_unreadable():
    assert sorted(SHARED_READINGS) == sorted(path.name for path in SHARED_TRF.iterdir())
    for name, ((written, written_minutes), (encoded, encoded_minutes)) in SHARED_READINGS.items():
        header = parse_trf((SHARED_TRF / name).read_bytes()).tournament.row(0, named=True)
        assert (header["time_control"], header["encoded_time_control"]) == (written, encoded)
        assert _minutes(read_written(header["time_control"])) == (
            None if written_minutes is None else (written_minutes,)
        ), name
        assert _minutes(read_encoded(header["encoded_time_control"])) == (
            None if encoded_minutes is None else (encoded_minutes,)
        ), name
