"""The engine's keys of a history's games, read from the entries at their seats."""

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.elo.period import in_entry_order, key_seated_games

ENTRY_SCHEMA = {
    "tournament_code": pl.Int64,
    "start_number": pl.Int32,
    "entry_key": pl.Int64,
    "player_code": pl.Int32,
}
GAME_SCHEMA = {
    "tournament_id": pl.Utf8,
    "score": pl.Float64,
    "tournament_code": pl.Int64,
    "start_number": pl.Int32,
    "opponent": pl.Int32,
}


def _by_joins(games: pl.DataFrame, entries: pl.DataFrame) -> pl.DataFrame:
    """What the warehouse's query gave before: two inner joins on the seats."""
    seats = entries.select("tournament_code", "start_number", "entry_key", "player_code")
    own = games.join(seats, on=["tournament_code", "start_number"])
    return own.join(
        seats.select(
            "tournament_code",
            pl.col("start_number").alias("opponent"),
            pl.col("player_code").alias("opponent_code"),
        ),
        on=["tournament_code", "opponent"],
    ).drop("tournament_code", "start_number", "opponent")


def test_both_sides_are_found_at_their_seats():
    entries = pl.DataFrame(
        {
            "tournament_code": [0, 0, 0, 1, 1],
            "start_number": [1, 2, 3, 1, 2],
            "entry_key": [10, 20, 30, 11, 21],
            "player_code": [1, 2, 3, 1, 2],
        },
        schema=ENTRY_SCHEMA,
    )
    games = pl.DataFrame(
        {
            "tournament_id": ["A", "A", "B", "B", "A", "A"],
            "score": [1.0, 0.0, 0.5, 0.5, 1.0, 1.0],
            "tournament_code": [0, 0, 1, 1, 0, 0],
            "start_number": [1, 3, 1, 2, 2, 3],
            # no one sits at 5 in A: A's seats end at 3, and its seat 5 would be B's seat 1
            "opponent": [3, 1, 2, 1, 5, 9],
        },
        schema=GAME_SCHEMA,
    )
    keyed = key_seated_games(games, entries)
    assert keyed.rows() == [
        ("A", 1.0, 10, 1, 3),
        ("A", 0.0, 30, 3, 1),
        ("B", 0.5, 11, 1, 2),
        ("B", 0.5, 21, 2, 1),
    ]


@st.composite
def seated_history(draw) -> tuple[pl.DataFrame, pl.DataFrame]:
    tournaments = draw(st.integers(1, 6))
    entries, games = [], []
    key = 0
    for code in range(tournaments):
        numbers = draw(st.lists(st.integers(1, 12), min_size=1, max_size=8, unique=True))
        for number in numbers:
            entries.append((code, number, key, draw(st.integers(0, 30))))
            key += 1
        for _ in range(draw(st.integers(0, 10))):
            games.append(
                (
                    f"T{code}",
                    draw(st.sampled_from([0.0, 0.5, 1.0])),
                    code,
                    draw(st.sampled_from([*numbers, 0, 13])),
                    draw(st.integers(-1, 14)),
                )
            )
    return (
        pl.DataFrame(games, schema=GAME_SCHEMA, orient="row"),
        pl.DataFrame(entries, schema=ENTRY_SCHEMA, orient="row"),
    )


@settings(max_examples=200, deadline=None)
@given(seated_history())
def test_gathers_by_seat_give_what_the_joins_gave(history):
    games, entries = history
    keyed = key_seated_games(games, entries)
    expected = _by_joins(games, entries)
    columns = expected.columns
    assert keyed.select(columns).sort(columns).equals(expected.sort(columns))


@settings(max_examples=100, deadline=None)
@given(
    keys=st.lists(st.integers(-5, 5), max_size=40),
    spread=st.sampled_from([1, 2**40, 2**59]),
)
def test_games_in_entry_order_are_a_stable_sort_by_entry_key(keys: list[int], spread: int):
    """The engine's order of a period's games: by entry key, the games of one key in the order
    given, the key flagged sorted; keys too far apart for the packed sort take the frame's."""
    games = pl.DataFrame(
        {
            "tournament_id": [f"T{index % 3}" for index in range(len(keys))],
            "score": [0.5 * (index % 3) for index in range(len(keys))],
            "entry_key": [key * spread for key in keys],
            "row": list(range(len(keys))),
        },
        schema={
            "tournament_id": pl.Utf8,
            "score": pl.Float64,
            "entry_key": pl.Int64,
            "row": pl.Int64,
        },
    )
    ordered = in_entry_order(games)
    assert ordered.equals(games.sort("entry_key", maintain_order=True))
    assert ordered.get_column("entry_key").flags["SORTED_ASC"]
