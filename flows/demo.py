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

from flows.console import say
from flows.elo.ingest import ingest_flow
from flows.elo.registry import load_registry_flow
from flows.import_list import import_list_flow
from flows.rubele.ingest import ingest_draughts_flow
from flows.rubele.registry import load_fid_registry_flow
from flows.status import status_text
from flows.systems import SYSTEMS, rating_system
from flows.warehouse import Warehouse, query_frame, read_sql
from synthetic.demo_files import write_demo_federation, write_draughts_federation
from transforms.lists.periods import assign_list_dates, list_dates_between

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


def lists_to_publish(warehouse: str, system: str, after: date | None) -> list[date]:
    """Every list date after ``after`` (the opening list; None: a system without one starts
    at the first list date that takes a tournament) up to the one that takes the last."""
    with Warehouse(warehouse).reader() as con:
        received = query_frame(
            con, read_sql("queries/lists/list_dates_to_publish.sql"), {"system": system}
        )
    if received.height == 0:
        return []
    first_receipt: date = received.get_column("received_on").min()  # type: ignore[assignment]
    calendar = rating_system(system).calendar_at(after or first_receipt)
    dated = assign_list_dates(received, calendar).get_column("list_date")
    first: date = dated.min() if after is None else after  # type: ignore[assignment]
    last: date = dated.max()  # type: ignore[assignment]
    return [
        day for day in list_dates_between(calendar, first, last) if after is None or day > after
    ]


def ranking_text(warehouse: str, system: str, top: int = 10) -> str:
    with Warehouse(warehouse).reader() as con:
        leaders = query_frame(
            con,
            read_sql("queries/lists/latest_ranking.sql"),
            {"system": system, "ranking": "overall", "top": top},
        )
        latest = query_frame(
            con, read_sql("queries/lists/latest_listed_date.sql"), {"system": system}
        )["day"][0]
    lines = [f"\nTop {top} of the {system} overall ranking, list of {latest}:"]
    lines += [
        f"  {position:>3}. {name:<36} {rating:>5}  {category or '':<3} ({player_id})"
        for position, player_id, name, rating, category in leaders.rows()
    ]
    return "\n".join(lines)


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
    opening = {system: list_date for system, list_date, _ in published_lists(demo_dir)}
    published = []
    # the chess systems, in the registry's order: Elo Italia first, rapid newcomers may enter
    # with it
    for system in (rating for rating in SYSTEMS.values() if rating.family == "elo"):
        for list_date in lists_to_publish(warehouse, system.name, opening.get(system.name)):
            say(f"demo: publishing the {system.name} list of {list_date}")
            system.publish(list_date, warehouse)
            published.append(system.name)
    draughts = write_draughts_federation(demo_dir, seed=seed)
    say(
        f"demo: the draughts federation: {draughts.tournaments} tournaments, "
        f"{len(draughts.snapshots)} FID registry snapshots; deliberate faults: "
        f"{len(draughts.faults)}"
    )
    for as_of, folder in draughts.snapshots:
        say(f"demo: loading the FID registry snapshot {as_of}")
        load_fid_registry_flow(str(folder), as_of, warehouse)
    say("demo: ingesting draughts deliveries")
    ingest_draughts_flow(str(draughts.inbox), warehouse)
    for system in (rating for rating in SYSTEMS.values() if rating.family == "rubele"):
        for list_date in lists_to_publish(warehouse, system.name, None):
            say(f"demo: publishing the {system.name} list of {list_date}")
            system.publish(list_date, warehouse)
            published.append(system.name)
    say(status_text(warehouse))
    for system in dict.fromkeys([*opening, *published]):
        say(ranking_text(warehouse, system))
    say(f"\nThe warehouse is {Warehouse(warehouse).path}")
    say("Open it read-only with any DuckDB client; with this project's Python, e.g.:")
    say(f"  {example_query_command(Warehouse(warehouse).path)}")


# the latest Elo Italia list (the first system by name), best first: the columns an analyst looks
# at first (no quote inside: the command line quotes the query)
EXAMPLE_QUERY = (
    "SELECT system, list_date, player_id, name, rating, category, is_active FROM rating_list "
    "ORDER BY system, list_date DESC, rating DESC LIMIT 10"
)


def example_query_command(path: Path) -> str:
    """A shell command reading the warehouse read-only (the duckdb command-line program is not
    part of the environment; its Python module is)."""
    connect = f"duckdb.connect({str(path)!r}, read_only=True)"
    code = f"import duckdb; {connect}.sql({EXAMPLE_QUERY!r}).show()"
    return f'.venv/bin/python -c "{code}"'
