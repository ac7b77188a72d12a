"""A dashboard stand-in: polls the warehouse read-only until told to stop.

Run as ``python -m tests.flows.reader_probe WAREHOUSE STOP_FILE OUT_FILE``; writes one line per
poll to OUT_FILE: ``ok <versions> <games>`` or ``error <message>``.
"""

import sys
import time
from pathlib import Path

import duckdb


def main(warehouse: str, stop_file: str, out_file: str) -> None:
    with open(out_file, "w", encoding="utf-8") as out:
        while not Path(stop_file).exists():
            try:
                con = duckdb.connect(warehouse, read_only=True)
                try:
                    versions, games = con.execute(
                        "SELECT (SELECT count(*) FROM tournament_version), "
                        "(SELECT count(*) FROM tournament_game)"
                    ).fetchall()[0]
                finally:
                    con.close()
                out.write(f"ok {versions} {games}\n")
            except Exception as error:  # every failure is the finding, whatever its type
                out.write(f"error {type(error).__name__}: {error}\n".replace("\n", " ") + "\n")
            out.flush()
            time.sleep(0.005)


if __name__ == "__main__":
    main(*sys.argv[1:4])
