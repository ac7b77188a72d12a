"""How long the analyst waits: median wall time of `graduatoria` commands, run as a user runs
them (a fresh process each), with the lasting local Prefect server up.

    .venv/bin/python -m bench.cli_latency [--runs 5] [--national]

On the demo warehouse (built once into bench/out/cli/): `--help`, `status`, an unchanged
`quarterly`, a new `quarterly` (each run alternates between two rulebooks that differ in the
newcomers' K, so each writes a new revision), the `ingest` of one new delivery, and the first
command with no server running (the server is stopped first; the command starts it). With
`--national`, also `status` and an unchanged `quarterly` on the national benchmark warehouse
(bench/history.py; its 91 lists are published once by a recalculation).

The share that is Prefect is estimated by timing, the same way, a process that imports Prefect
and runs an empty flow against the same server. Figures go to bench/out/cli_latency.json; the
table printed is the one bench/RESULTS.md keeps.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "cli"
CLI = [sys.executable, "-m", "flows.cli"]
TARGETS = {  # the targets, seconds (median)
    "--help": 0.5,
    "status": 1.0,
    "quarterly (unchanged)": 3.0,
    "quarterly (new)": 4.0,
    "ingest (one delivery)": 4.0,
    "first command, no server": 15.0,
    "national status": 1.5,
    "national quarterly (unchanged)": 4.0,
}
EMPTY_FLOW = (
    "from flows.runtime import configure_prefect_environment\n"
    "configure_prefect_environment()\n"
    "from flows.prefect_server import ensure_server\n"
    "ensure_server()\n"
    "from prefect import flow\n"
    "@flow\n"
    "def empty() -> None:\n"
    "    return None\n"
    "empty()\n"
)


@dataclass
class Measure:
    name: str
    runs: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def run(command: Sequence[str], check: bool = True) -> float:
    """Wall time of one process running ``command`` (its output discarded)."""
    started = time.perf_counter()
    done = subprocess.run(
        list(command), cwd=REPO, capture_output=True, text=True, check=False, env=os.environ
    )
    elapsed = time.perf_counter() - started
    if check and done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def measure(name: str, runs: int, command: Callable[[int], Sequence[str]]) -> Measure:
    times = [run(command(index)) for index in range(runs)]
    each = ", ".join(f"{elapsed:.2f}" for elapsed in times)
    print(f"  {name:<32} median {statistics.median(times):6.2f} s  ({each})")
    return Measure(name, times)


def demo_warehouse() -> Path:
    """The demo warehouse and its files, built once (about a minute)."""
    warehouse = OUT / "demo.duckdb"
    if not warehouse.exists():
        print("building the demo warehouse (once)…")
        OUT.mkdir(parents=True, exist_ok=True)
        run([*CLI, "demo", "--out", str(OUT / "demo"), "--warehouse", str(warehouse)])
    return warehouse


def rulebooks() -> tuple[Path, Path]:
    """Two Elo Italia rulebooks differing only in the newcomers' K: alternating them makes
    each quarterly a new revision."""
    text = (REPO / "data" / "rules" / "elo_italia.toml").read_text(encoding="utf-8")
    line = "{ games_below = 30, k = 30 }"
    assert line in text
    paths = []
    OUT.mkdir(parents=True, exist_ok=True)
    for k in (30, 31):
        path = OUT / f"elo_italia_k{k}.toml"
        path.write_text(text.replace(line, f"{{ games_below = 30, k = {k} }}"), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def one_delivery(index: int) -> Path:
    """A new inbox holding one delivery: a demo tournament under a new id."""
    source = next((OUT / "demo").rglob("manifest.csv"))
    header, first, *_ = source.read_text(encoding="utf-8").splitlines()
    fields = header.split(",")
    values = first.split(",")
    trf = source.parent / values[fields.index("file")]
    inbox = OUT / "inboxes" / f"run{time.time_ns()}-{index}"
    delivery = inbox / "d1"
    delivery.mkdir(parents=True)
    shutil.copyfile(trf, delivery / trf.name)
    values[fields.index("tournament_id")] = f"BENCH-{time.time_ns()}"
    (delivery / "manifest.csv").write_text(f"{header}\n{','.join(values)}\n", encoding="utf-8")
    return inbox


def latest_list_date(warehouse: Path, system: str) -> str:
    import duckdb

    with duckdb.connect(str(warehouse), read_only=True) as con:
        found = con.execute(
            "SELECT max(list_date) FROM rating_list WHERE system = ?", [system]
        ).fetchone()
    assert found and found[0], f"no {system} list in {warehouse}"
    return found[0].isoformat()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (median)")
    parser.add_argument(
        "--national", action="store_true", help="also on the national benchmark warehouse"
    )
    args = parser.parse_args()
    os.environ.pop("GRADUATORIA_PREFECT_SERVER", None)  # the lasting server, as a user has it
    warehouse = demo_warehouse()
    list_date = latest_list_date(warehouse, "elo_italia")
    at = ["--warehouse", str(warehouse)]
    quarterly = [*CLI, "quarterly", "--system", "elo_italia", "--list-date", list_date, *at]
    measures: list[Measure] = []

    print("first command with no server running:")
    run([*CLI, "server", "stop"], check=False)
    measures.append(measure("first command, no server", 1, lambda _: quarterly))

    print(f"demo warehouse {warehouse}, server up, {args.runs} runs each:")
    run(quarterly)  # warm: the list is current from here on
    measures.append(measure("--help", args.runs, lambda _: [*CLI, "--help"]))
    measures.append(measure("status", args.runs, lambda _: [*CLI, "status", *at]))
    measures.append(measure("quarterly (unchanged)", args.runs, lambda _: quarterly))
    books = rulebooks()
    measures.append(
        measure(
            "quarterly (new)",
            args.runs,
            lambda index: [*quarterly, "--rulebook", str(books[index % 2])],
        )
    )
    run([*quarterly, "--rulebook", str(books[0])])  # back to a current official list
    measures.append(
        measure(
            "ingest (one delivery)",
            args.runs,
            lambda index: [*CLI, "ingest", str(one_delivery(index)), *at],
        )
    )
    empty = measure(
        "empty Prefect flow (the share)", args.runs, lambda _: [sys.executable, "-c", EMPTY_FLOW]
    )
    measures.append(empty)

    if args.national:
        from bench.recalc_benchmark import history_file

        source, _ = history_file(REPO / "bench" / "out", small=False)
        national = OUT / "national.duckdb"
        if not national.exists():
            shutil.copyfile(source, national)
        national_at = ["--warehouse", str(national)]
        if not _has_lists(national):
            publish_national_lists(national)
        national_quarterly = [
            *CLI,
            "quarterly",
            "--system",
            "elo_italia",
            "--list-date",
            latest_list_date(national, "elo_italia"),
            *national_at,
        ]
        measures.append(
            measure("national status", args.runs, lambda _: [*CLI, "status", *national_at])
        )
        measures.append(
            measure("national quarterly (unchanged)", args.runs, lambda _: national_quarterly)
        )

    print()
    print("| command | median | target | Prefect share (empty flow / median) |")
    print("|---|---|---|---|")
    for item in measures:
        target = TARGETS.get(item.name)
        share = (
            f"{min(1.0, empty.median / item.median):.0%}"
            if item.name not in ("--help", "status", "national status", empty.name)
            else "none (no Prefect)"
            if item is not empty
            else ""
        )
        verdict = (
            ""
            if target is None
            else f"≤ {target:g} s {'ok' if item.median <= target else 'MISSED'}"
        )
        print(f"| {item.name} | {item.median:.2f} s | {verdict} | {share} |")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT.parent / "cli_latency.json").write_text(
        json.dumps([{**asdict(item), "median": item.median} for item in measures], indent=2),
        encoding="utf-8",
    )


def publish_national_lists(warehouse: Path) -> None:
    """Publish the national history's 91 lists into ``warehouse`` (a recalculation)."""
    print("publishing the national lists once (recalculate 1998-2020)…", flush=True)
    run(
        [
            *CLI,
            "recalculate",
            "--system",
            "elo_italia",
            "--from",
            "1998-04-01",
            "--to",
            "2020-10-01",
            "--warehouse",
            str(warehouse),
        ]
    )


def _has_lists(warehouse: Path) -> bool:
    import duckdb

    with duckdb.connect(str(warehouse), read_only=True) as con:
        try:
            found = con.execute("SELECT count(*) FROM rating_list").fetchone()
        except duckdb.Error:
            return False
    return bool(found and found[0])


if __name__ == "__main__":
    main()
