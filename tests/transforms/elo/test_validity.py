"""The time-control condition of RULES.md §1.0, as transforms.elo.validity states it."""

from transforms.elo.rulebook import TimeControlRange
from transforms.elo.validity import system_name, time_control_reason
from transforms.inputs.time_control import read_encoded, read_written

STANDARD = TimeControlRange(min_minutes=120, max_minutes=None)
RAPID = TimeControlRange(min_minutes=15, max_minutes=60)


def test_a_time_per_player_in_the_range_gives_no_reason():
    # 90 + 30 = 120 (the lowest standard); 15 + 0 and 45 + 15 = 60 (both rapid ends)
    assert time_control_reason("90+30", read_written("90+30"), STANDARD, "elo_italia") is None
    assert time_control_reason("15'", read_written("15'"), RAPID, "elo_rapid") is None
    assert time_control_reason("45+15", read_written("45+15"), RAPID, "elo_rapid") is None


def test_a_time_per_player_outside_the_range_is_named_with_the_range():
    assert time_control_reason("25'+10\"", read_written("25'+10\""), STANDARD, "elo_italia") == (
        "time control 25'+10\" is 35 minutes per player: Elo Italia rates games of at least 120 "
        "minutes per player"
    )
    # 5430 s = 90 minutes 30 seconds
    assert time_control_reason("5430", read_encoded("5430"), STANDARD, "elo_italia") == (
        "time control 5430 is 90.5 minutes per player: Elo Italia rates games of at least 120 "
        "minutes per player"
    )
    assert time_control_reason("90+30", read_written("90+30"), RAPID, "elo_rapid") == (
        "time control 90+30 is 120 minutes per player: Elo Rapid rates games of 15 to 60 "
        "minutes per player"
    )


def test_a_coloured_control_must_be_in_the_range_for_both_players():
    # Armageddon, White 5 minutes + 60 x 10 s = 15, Black 4 + 10 = 14: Black's is out
    control = read_encoded("W300+10-B240+10")
    assert control is not None and control.seconds_per_player == (900, 840)
    assert time_control_reason("W300+10-B240+10", control, RAPID, "elo_rapid") == (
        "time control W300+10-B240+10 is 15 minutes for White and 14 for Black: Elo Rapid "
        "rates games of 15 to 60 minutes per player"
    )


def test_a_system_is_named_as_the_federation_names_it():
    assert [system_name(s) for s in ("elo_italia", "elo_rapid", "other")] == [
        "Elo Italia",
        "Elo Rapid",
        "other",
    ]
