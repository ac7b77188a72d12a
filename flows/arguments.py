"""What the command line's verbs share when they read their arguments: dates written
YYYY-MM-DD and the systems a list belongs to. The standard library and the systems' names
only (schemas.vocabulary imports nothing): `graduatoria --help` builds every verb's parser,
and must not wait for Polars, DuckDB or Prefect."""

from __future__ import annotations

import argparse
import re
from datetime import date

from schemas.vocabulary import ALL_SYSTEMS

# the four systems a list belongs to
LIST_SYSTEMS = tuple(ALL_SYSTEMS)


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
