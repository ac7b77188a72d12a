"""What the command line's verbs share when they read their arguments: dates written
YYYY-MM-DD and the systems a list belongs to. Standard library only: `graduatoria --help`
builds every verb's parser, and must not wait for Polars, DuckDB or Prefect."""

from __future__ import annotations

import argparse
import re
from datetime import date

# the four systems a list belongs to (schemas.inputs.ALL_SYSTEMS, which a test keeps equal:
# importing schemas loads Polars and Pandera)
LIST_SYSTEMS = ("elo_italia", "elo_rapid", "rubele_italiana", "rubele_internazionale")


def iso_date(text: str) -> date:
    """An argparse type: a date written YYYY-MM-DD, refused plainly otherwise."""
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise argparse.ArgumentTypeError(
                f"{text!r} is written YYYY-MM-DD, but there is no such day ({error})"
            ) from error
        raise argparse.ArgumentTypeError(f"{text!r} is not a date written YYYY-MM-DD") from error
