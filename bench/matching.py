"""Matching tournament lines to a national-size registry: per tournament, with the registry's
lookups built once per ingest (as the ingest runs) against built for every tournament (as it ran
before), in one run, with identical results.

    .venv/bin/python -m bench.matching [--players 48000] [--tournaments 30]
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import date

import polars as pl

from transforms.inputs import matching

SURNAMES = ("Rossi", "Bianchi", "De Luca", "Russo", "Ferrari", "Esposito", "Romano", "Niccolò")
GIVEN = ("Mario", "Luca", "Anna", "Giulia", "Paolo", "Marco", "Sara", "Elena")
MERGES = pl.DataFrame(schema={"provisional_id": pl.Utf8, "player_id": pl.Utf8})


def registry(players: int) -> pl.DataFrame:
    rnd = random.Random(1)
    return pl.DataFrame(
        {
            "player_id": [str(100000 + i) for i in range(players)],
            "name": [
                f"{rnd.choice(SURNAMES)}{i % 97}, {rnd.choice(GIVEN)}" for i in range(players)
            ],
            "birth_date": [date(1950 + i % 60, 1 + i % 12, 1 + i % 28) for i in range(players)],
            "fide_id": [2_000_000 + i if i % 3 == 0 else None for i in range(players)],
        },
        schema_overrides={"fide_id": pl.Int64},
    )


def tournament(registered: pl.DataFrame, seed: int, size: int = 80) -> pl.DataFrame:
    rows = registered.sample(size, seed=seed)
    return pl.DataFrame(
        {
            "start_number": list(range(1, size + 1)),
            "name": rows.get_column("name"),
            "birth_date": rows.get_column("birth_date"),
            "birth_year": rows.get_column("birth_date").dt.year(),
            "federation": ["ITA"] * size,
            "fide_id": rows.get_column("fide_id"),
            "national_id": [None] * size,
        },
        schema_overrides={"national_id": pl.Utf8},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=48_000, help="registered players")
    parser.add_argument("--tournaments", type=int, default=30, help="tournaments matched")
    args = parser.parse_args()
    registered = registry(args.players)
    entries = [tournament(registered, seed) for seed in range(args.tournaments)]
    results: dict[str, list[pl.DataFrame]] = {}
    for rebuilt in (True, False, True, False):
        label = "lookups built every tournament" if rebuilt else "lookups built once"
        started = time.perf_counter()
        outcome = []
        for lines in entries:
            if rebuilt:
                matching._built_lookups.clear()
            outcome.append(matching.match_players(lines, registered, MERGES))
        per = (time.perf_counter() - started) / len(entries)
        results[label] = outcome
        print(f"{label:<32} {per * 1000:7.1f} ms a tournament")
    same = all(
        a.equals(b)
        for a, b in zip(*results.values(), strict=True)  # type: ignore[call-overload]
    )
    print(f"identical matches: {same}")


if __name__ == "__main__":
    main()
