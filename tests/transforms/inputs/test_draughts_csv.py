"""Checks of a draughts games file (transforms/inputs/draughts_csv.py)."""

import polars as pl

from tests.transforms.inputs.fuzz_strategies import shipped_own_countries
from transforms.inputs.draughts_csv import game_problems


def test_a_drawn_forfeit_is_an_error_and_a_won_one_is_not() -> None:
    games = pl.DataFrame(
        {
            "line_no": [2, 3, 4],
            "tournament_id": ["DI-1"] * 3,
            "round": [1, 1, 2],
            "player_id": ["D001", "D003", "D001"],
            "opponent_id": ["D002", "D004", "D003"],
            "result": ["1", "2", "1"],  # the FID scale: 2 won, 1 drawn, 0 lost
            "status": ["forfeit", "forfeit", "played"],
        },
        schema_overrides={"line_no": pl.Int32, "round": pl.Int32},
    )
    registered = pl.Series(["D001", "D002", "D003", "D004"])
    problems = game_problems(games, "DI-1", "fid", registered)
    assert problems.select("line_no", "field", "value", "reason").rows() == [
        (2, "result", "1", "a forfeit is won or lost, not drawn")
    ]


def test_a_withdrawal_not_won_by_the_player_of_its_row_is_an_error() -> None:
    # withdrawn: the opponent left, and the row is the present player's, who won; drawn, or
    # lost (the point to the player who left), the row is wrong
    games = pl.DataFrame(
        {
            "line_no": [2, 3, 4],
            "tournament_id": ["DI-1"] * 3,
            "round": [1, 2, 3],
            "player_id": ["D001", "D001", "D001"],
            "opponent_id": ["D002", "D003", "D004"],
            "result": ["1", "2", "0"],
            "status": ["withdrawn", "withdrawn", "withdrawn"],
        },
        schema_overrides={"line_no": pl.Int32, "round": pl.Int32},
    )
    registered = pl.Series(["D001", "D002", "D003", "D004"])
    problems = game_problems(games, "DI-1", "fid", registered)
    assert problems.select("line_no", "field", "reason").rows() == [
        (2, "result", "a withdrawal is won or lost, not drawn"),
        (
            4,
            "result",
            "a withdrawal's row is the player who stayed, and he wins it (the opponent left): a "
            "loss here gives the point to the player who withdrew",
        ),
    ]


def test_a_file_on_the_fid_scale_without_a_single_2_is_doubted() -> None:
    # written on the 1 / 0 scale and declared fid: read as it stands, D001's and D003's wins
    # would be draws; a warning on the first game says so (the file is still applied)
    games = pl.DataFrame(
        {
            "line_no": [2, 3, 4],
            "tournament_id": ["DI-1"] * 3,
            "round": [1, 1, 2],
            "player_id": ["D001", "D003", "D002"],
            "opponent_id": ["D002", "D004", None],
            "result": ["1", "1", "2"],
            "status": ["played", "played", "bye"],
        },
        schema_overrides={"line_no": pl.Int32, "round": pl.Int32},
    )
    registered = pl.Series(["D001", "D002", "D003", "D004"])
    doubts = game_problems(games, "DI-1", "fid", registered)
    assert doubts.select("line_no", "field", "severity").rows() == [(2, "result", "warning")]
    assert "its points_scale is one" in doubts.get_column("reason")[0]
    won = games.with_columns(pl.Series("result", ["2", "1", "2"]))
    assert game_problems(won, "DI-1", "fid", registered).height == 0


def test_a_capital_given_for_an_italian_player_is_a_warning() -> None:
    from transforms.inputs.draughts_csv import type_fid_players

    columns = [
        "player_id",
        "name",
        "sex",
        "birth_date",
        "country",
        "category_italiana",
        "category_internazionale",
        "capital_italiana",
        "capital_internazionale",
    ]
    raw = pl.DataFrame(
        [
            ["D1", "Rossi", "M", "1980-01-01", "ita", "N", "", "2600", ""],
            ["F1", "Dupont", "M", "1980-01-01", "FRA", "", "", "2600", "2100"],
        ],
        schema=columns,
        orient="row",
    ).with_columns(pl.Series("line_no", [2, 3], dtype=pl.Int32))
    typed, problems = type_fid_players(raw, shipped_own_countries())
    assert typed.height == 2
    assert problems.select("line_no", "field", "value", "severity").rows() == [
        (2, "capital_italiana", "2600", "warning")
    ]
    assert "only a foreign player enters with the registry's capital" in problems["reason"][0]


def test_a_player_seated_twice_in_a_round_is_named_on_the_later_line() -> None:
    # line 4 repeats the game of line 2; line 5 seats D001 again in round 1; line 6 writes
    # the game of line 3 from the other side
    games = pl.DataFrame(
        {
            "line_no": [2, 3, 4, 5, 6],
            "tournament_id": ["DI-1"] * 5,
            "round": [1, 1, 1, 1, 1],
            "player_id": ["D001", "D003", "D001", "D001", "D004"],
            "opponent_id": ["D002", "D004", "D002", "D005", "D003"],
            "result": ["2", "0", "2", "1", "2"],
            "status": ["played"] * 5,
        },
        schema_overrides={"line_no": pl.Int32, "round": pl.Int32},
    )
    registered = pl.Series(["D001", "D002", "D003", "D004", "D005"])
    problems = game_problems(games, "DI-1", "fid", registered)
    # a game written twice is one rejection, not one for each of its players
    assert problems.select("line_no", "reason").rows() == [
        (4, "the game of D001 and D002 in round 1 is written twice (line 2 already)"),
        (5, "player D001 appears twice in round 1 (line 2 already)"),
        (6, "the game of D004 and D003 in round 1 is written twice (line 3 already)"),
    ]
