"""Checks of a draughts games file (transforms/draughts_csv.py)."""

import polars as pl

from transforms.draughts_csv import game_problems


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
