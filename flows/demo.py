"""``make run``: generate the demo federation, then run the pipeline on it as an analyst would.

The demo folder is laid out like a federation's own inputs:
``registry/YYYY-MM-DD/`` (dated registry snapshots), ``lists/SYSTEM_YYYY-MM-DD.csv`` (the last
official lists) and ``deliveries/`` (one folder per delivery: manifest.csv + TRF files).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from prefect import flow

from flows.demo_data import write_demo_federation
from flows.ingest import ingest_flow
from flows.lists import import_list_flow
from flows.registry import load_registry_flow
from flows.runtime import say
from flows.status import status_text
from flows.warehouse import Warehouse

LIST_FILE = re.compile(r"^(?P<system>[a-z_]+)_(?P<date>\d{4}-\d{2}-\d{2})\.csv$")


def registry_snapshots(demo_dir: Path) -> list[tuple[date, Path]]:
    folders = sorted(p for p in (demo_dir / "registry").iterdir() if p.is_dir())
    return [(date.fromisoformat(folder.name), folder) for folder in folders]


def published_lists(demo_dir: Path) -> list[tuple[str, date, Path]]:
    found = []
    for path in sorted((demo_dir / "lists").glob("*.csv")):
        match = LIST_FILE.match(path.name)
        if match:
            found.append((match["system"], date.fromisoformat(match["date"]), path))
    return found


@flow(name="demo")
def demo_flow(out: str, warehouse: str, seed: int = 2027) -> None:
    demo_dir = Path(out)
    say(f"demo: generating the demo federation (seed {seed}) into {demo_dir}")
    summary = write_demo_federation(demo_dir, seed=seed)
    say(
        f"demo: {summary.players:,} registered players, {len(summary.snapshots)} registry "
        f"snapshots, {summary.tournaments} tournaments in {len(summary.deliveries)} deliveries, "
        f"{summary.games:,} games played; deliberate faults: {len(summary.faults)}"
    )
    for as_of, folder in registry_snapshots(demo_dir):
        say(f"demo: loading registry snapshot {as_of}")
        load_registry_flow(str(folder), as_of, warehouse)
    for system, list_date, path in published_lists(demo_dir):
        say(f"demo: importing the {system} list of {list_date}")
        import_list_flow(str(path), system, list_date, warehouse)
    say("demo: ingesting deliveries")
    ingest_flow(str(demo_dir / "deliveries"), warehouse)
    say(status_text(warehouse))
    say(f"\nThe warehouse is {Warehouse(warehouse).path}")
    say("Open it read-only with any DuckDB client, e.g.:")
    say(f'  duckdb -readonly {Warehouse(warehouse).path} "SELECT * FROM tournament LIMIT 10"')
