"""Notes of list rows and variations: one sentence per rule that changed a number; and the short
lists of names that notes, warnings and status lines give."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

# (when the rule acted on a row, what the note says then)
NoteRule = tuple[pl.Expr, pl.Expr]


def notes_column(frame: pl.DataFrame, rules: Sequence[NoteRule], name: str = "note") -> pl.Series:
    """Per row, the sentences of the rules that apply, joined by "; "; null when none does.

    The texts are formatted only on the rows some rule applies to: a quarterly list has notes
    on a few hundred of its tens of thousands of rows, and formatting every row's sentences
    cost more than the rest of the list's columns together.
    """
    applies = frame.select(
        pl.any_horizontal([when for when, _ in rules]).fill_null(False)
    ).to_series()
    texts = (
        frame.filter(applies)
        .select(
            pl.concat_str(
                [pl.when(when).then(text) for when, text in rules],
                separator="; ",
                ignore_nulls=True,
            ).replace("", None)
        )
        .to_series()
    )
    return (
        pl.Series(name, [None], dtype=pl.Utf8)
        .new_from_index(0, frame.height)
        .scatter(applies.arg_true(), texts)
    )


def first_named(names: Sequence[str], shown: int) -> str:
    """The first ``shown`` of ``names``, separated by commas, then how many more there are."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
