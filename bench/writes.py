"""What a quarterly run costs as the warehouse grows: the same new Elo Italia list published,
by the command an analyst runs, into the national warehouse and into one ten times larger,
writing in the standby (the default) and copying the whole file (as every run did before).

    .venv/bin/python -m bench.writes [--runs 5] [--times 10]

The national warehouse is the benchmark's history (bench/history.py) with its 91 lists
published once by a recalculation (built once into bench/out/writes/). The larger one is the
same warehouse plus copies of its tournaments until the file is ten times the size (their
entries and games relabelled as Elo Rapid tournaments under new ids): data the Elo Italia
quarterly does not read, so both runs have the same work and the lists they write must be the
same, which is checked. Each run alternates two rulebooks that differ in the newcomers' K, so
each writes a new revision of the last list (2020-10-01, 40,000 players). A run "copying" has
the standby's record removed first, which makes it copy the live file. The runs on the two
warehouses alternate, so that the machine's drift falls on both alike.

Figures go to bench/out/writes.json; the table printed is the one bench/RESULTS.md keeps.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path

import duckdb

from bench.cli_latency import CLI, REPO, publish_national_lists, rulebooks, run
from bench.recalc_benchmark import history_file

OUT = REPO / "bench" / "out" / "writes"
LIST_DATE = "2020-10-01"  # the last list of the history, computed with a K


def national_warehouse() -> Path:
    """The national history with its lists published (built once, a few minutes)."""
    warehouse = OUT / "national.duckdb"
    if warehouse.exists():
        return warehouse
    source, _ = history_file(REPO / "bench" / "out", small=False)
    OUT.mkdir(parents=True, exist_ok=True)
    building = OUT / "national-building.duckdb"
    shutil.copyfile(source, building)
    publish_national_lists(building)
    building.replace(warehouse)
    # the standby and the lock of the file's building name would never be used again
    for leftover in [*OUT.glob(f".{building.name}.standby*"), OUT / f"{building.name}.lock"]:
        leftover.unlink(missing_ok=True)
    return warehouse


def larger_warehouse(national: Path, times: int) -> Path:
    """``national`` plus relabelled copies of its tournaments, until it is ``times`` its size
    (built once)."""
    warehouse = OUT / f"national-x{times}.duckdb"
    if warehouse.exists():
        return warehouse
    building = OUT / f"national-x{times}-building.duckdb"
    shutil.copyfile(national, building)
    wanted = times * national.stat().st_size
    con = duckdb.connect(str(building))
    try:
        copy = 0
        while building.stat().st_size < wanted:
            copy += 1
            print(f"ballast: copy {copy} of the tournaments…", flush=True)
            prefix = f"'BALLAST{copy}-' || tournament_id"
            con.execute(
                f"INSERT INTO tournament_version SELECT * REPLACE ({prefix} AS tournament_id,"
                " 'elo_rapid' AS system) FROM tournament_version WHERE system = 'elo_italia'"
            )
            for table in ("tournament_entry", "tournament_game"):
                con.execute(
                    f"INSERT INTO {table} SELECT * REPLACE ({prefix} AS tournament_id)"
                    f" FROM {table} WHERE tournament_id NOT LIKE 'BALLAST%'"
                )
            con.execute("CHECKPOINT")
    finally:
        con.close()
    building.replace(warehouse)
    return warehouse


def quarterly_command(warehouse: Path, rulebook: Path) -> list[str]:
    return [
        *CLI,
        "quarterly",
        "--system",
        "elo_italia",
        "--list-date",
        LIST_DATE,
        "--rulebook",
        str(rulebook),
        "--warehouse",
        str(warehouse),
    ]


def quarterly_runs(warehouses: list[Path], runs: int, copying: bool) -> dict[Path, list[float]]:
    """Wall times of ``runs`` quarterly commands on each warehouse, alternating between them,
    each writing a new revision."""
    books = rulebooks()
    for warehouse in warehouses:
        # one run first, outside the times: it leaves a standby beside the file
        run(quarterly_command(warehouse, books[1]))
    times: dict[Path, list[float]] = {warehouse: [] for warehouse in warehouses}
    for index in range(runs):
        for warehouse in warehouses:
            if copying:
                warehouse.with_name(f".{warehouse.name}.standby.json").unlink(missing_ok=True)
            times[warehouse].append(run(quarterly_command(warehouse, books[index % 2])))
    return times


def latest_list(warehouse: Path) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(
            "SELECT * EXCLUDE (run_id, created_at) FROM rating_list WHERE list_date = ?"
            " ORDER BY ALL",
            [LIST_DATE],
        ).fetchall()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="quarterly runs of each kind")
    parser.add_argument("--times", type=int, default=10, help="how much larger the large one is")
    args = parser.parse_args(argv)
    national = national_warehouse()
    larger = larger_warehouse(national, args.times)
    sizes = {path: path.stat().st_size / 1e9 for path in (national, larger)}
    rows = []
    for copying in (True, False):
        measured = quarterly_runs([national, larger], args.runs, copying)
        for warehouse, times in measured.items():
            rows.append(
                {
                    "warehouse": warehouse.name,
                    "size_gb": round(sizes[warehouse], 2),
                    "writes": "copy of the file" if copying else "standby",
                    "runs": [round(elapsed, 2) for elapsed in times],
                    "median": round(statistics.median(times), 2),
                }
            )
            print(
                f"  {warehouse.name:<22} {sizes[warehouse]:5.2f} GB  "
                f"{rows[-1]['writes']:<17} median {rows[-1]['median']:6.2f} s  {rows[-1]['runs']}",
                flush=True,
            )
    same = latest_list(national) == latest_list(larger)
    print()
    print("| warehouse | size | writes | quarterly (median) | runs |")
    print("|---|---|---|---|---|")
    for row in rows:
        each = ", ".join(f"{elapsed:.2f}" for elapsed in row["runs"])
        print(
            f"| {row['warehouse']} | {row['size_gb']:.2f} GB | {row['writes']} |"
            f" {row['median']:.2f} s | {each} |"
        )
    by = {(row["warehouse"], row["writes"]): row["median"] for row in rows}
    for writes in ("copy of the file", "standby"):
        ratio = by[(larger.name, writes)] / by[(national.name, writes)]
        print(f"{writes}: the larger warehouse's quarterly takes {ratio:.2f}× the national one's")
    print(f"the lists written in both are {'identical' if same else 'DIFFERENT'}")
    (OUT.parent / "writes.json").write_text(
        json.dumps({"rows": rows, "identical_lists": same}, indent=2), encoding="utf-8"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
