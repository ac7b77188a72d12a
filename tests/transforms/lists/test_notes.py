"""Notes: the sentences of the rules that acted, on the rows they acted on."""

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from transforms.lists.notes import notes_column

RULES = [
    (pl.col("games") == 0, pl.lit("no game")),
    (pl.col("capped") > 0, pl.format("capped in {} game(s)", pl.col("capped"))),
]


def test_sentences_in_rule_order_and_null_where_no_rule_acts():
    frame = pl.DataFrame({"games": [0, 3, 0, 2, None], "capped": [0, 1, 2, 0, None]})
    assert notes_column(frame, RULES).to_list() == [
        "no game",
        "capped in 1 game(s)",
        "no game; capped in 2 game(s)",
        None,
        None,  # an unknown value makes no rule act
    ]


@given(
    st.lists(st.tuples(st.none() | st.integers(0, 3), st.none() | st.integers(0, 3)), max_size=30)
)
def test_equals_formatting_every_row(values):
    frame = pl.DataFrame(values, schema={"games": pl.Int64, "capped": pl.Int64}, orient="row")
    everywhere = frame.select(
        pl.concat_str(
            [pl.when(when).then(text) for when, text in RULES], separator="; ", ignore_nulls=True
        ).replace("", None)
    ).to_series()
    assert notes_column(frame, RULES).to_list() == everywhere.to_list()
