"""The same inputs loaded in any order give the same lists: registry snapshots, the federation's
published list and the deliveries, in each of their six orders, then the season's lists."""

from __future__ import annotations

import itertools
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from flows.demo import published_lists, registry_snapshots
from flows.elo.ingest import ingest_flow
from flows.elo.registry import load_registry_flow
from flows.import_list import import_list_flow
from flows.systems import rating_system
from flows.warehouse import Warehouse, query_frame
from synthetic.chess import generate_federation
from synthetic.demo_files import write_federation

LIST_DATES = [date(2019, 4, 1), date(2019, 7, 1), date(2019, 10, 1)]
STEPS = ("registry", "list", "deliveries")
# what a list says, without what tells one run from another: the run, and the revision and
# version numbers (which count how a list came to be: an import made before the registry is
# completed by the registry's load, as a second revision)
PUBLISHED = {
    "rating_list": "SELECT * EXCLUDE (run_id, created_at, revision) FROM rating_list",
    # a tournament checked again when the registry arrives is its second version
    "variation": "SELECT * EXCLUDE (revision, tournament_version) FROM variation",
    "ranking": "SELECT * EXCLUDE (revision) FROM ranking",
    "excluded_tournament": "SELECT * EXCLUDE (revision) FROM excluded_tournament",
}


@pytest.fixture(scope="module")
def federation(tmp_path_factory) -> Path:
    demo = tmp_path_factory.mktemp("order") / "demo"
    write_federation(
        generate_federation(23, season=2019, n_players=400, tournaments_per_quarter=(4, 6)), demo
    )
    return demo


def _load(step: str, demo: Path, warehouse: str) -> None:
    if step == "registry":
        for as_of, folder in registry_snapshots(demo):
            load_registry_flow(str(folder), as_of, warehouse)
    elif step == "list":
        for system, list_date, path in published_lists(demo):
            import_list_flow(str(path), system, list_date, warehouse)
    else:
        ingest_flow(str(demo / "deliveries"), warehouse)


def _season(order: tuple[str, ...], demo: Path, warehouse: str) -> dict[str, pl.DataFrame]:
    for step in order:
        _load(step, demo, warehouse)
    for system in ("elo_italia", "elo_rapid"):
        for list_date in LIST_DATES:
            rating_system(system).publish(list_date, warehouse)
    with Warehouse(warehouse).reader() as con:
        return {
            view: (frame := query_frame(con, query)).sort(frame.columns, nulls_last=True)
            for view, query in PUBLISHED.items()
        }


def test_every_order_of_the_inputs_publishes_the_same_lists(prefect_server, federation, tmp_path):
    orders = list(itertools.permutations(STEPS))
    expected = _season(orders[0], federation, str(tmp_path / "first.duckdb"))
    assert expected["rating_list"].height > 1000
    for number, order in enumerate(orders[1:], start=1):
        published = _season(order, federation, str(tmp_path / f"order{number}.duckdb"))
        for view, frame in expected.items():
            differing = pl.concat(
                [
                    frame.join(published[view], on=frame.columns, how="anti", nulls_equal=True),
                    published[view].join(frame, on=frame.columns, how="anti", nulls_equal=True),
                ]
            )
            assert differing.height == 0, (
                f"loading {' → '.join(order)} gives another {view} than "
                f"{' → '.join(orders[0])}: {_summary(frame, published[view])}"
            )


def _summary(expected: pl.DataFrame, published: pl.DataFrame) -> str:
    """Which lists differ, in how many rows, and in which columns (for the failure message)."""
    keys = [
        c
        for c in ("system", "list_date", "player_id", "tournament_id", "ranking")
        if c in expected.columns
    ]
    both = expected.join(published, on=keys, how="full", suffix="_other", nulls_equal=True)
    lines = []
    for column in (c for c in expected.columns if c not in keys):
        differ = both.filter(pl.col(column).ne_missing(pl.col(f"{column}_other")))
        if differ.height:
            by_list = differ.group_by("system", "list_date").len().sort("system", "list_date")
            lines.append(f"{column}: {by_list.rows()}")
    return "; ".join(lines)


def _draughts_season(order: tuple[str, ...], demo: Path, warehouse: str) -> dict[str, pl.DataFrame]:
    from flows.demo import lists_to_publish
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow
    from synthetic.demo_files import write_draughts_federation

    draughts = write_draughts_federation(demo, seed=5)
    for step in order:
        if step == "registry":
            for as_of, folder in draughts.snapshots:
                load_fid_registry_flow(str(folder), as_of, warehouse)
        else:
            ingest_draughts_flow(str(draughts.inbox), warehouse)
    for system in ("rubele_italiana", "rubele_internazionale"):
        for list_date in lists_to_publish(warehouse, system, None):
            rating_system(system).publish(list_date, warehouse)
    with Warehouse(warehouse).reader() as con:
        return {
            view: (frame := query_frame(con, query)).sort(frame.columns, nulls_last=True)
            for view, query in PUBLISHED.items()
        }


def test_draughts_deliveries_before_the_fid_registry_publish_the_same_lists(
    prefect_server, tmp_path
):
    # a draughts tournament whose players the FID registry does not hold yet is quarantined;
    # the snapshot loaded after it checks it again from its archived files
    expected = _draughts_season(
        ("registry", "deliveries"), tmp_path / "a", str(tmp_path / "a.duckdb")
    )
    published = _draughts_season(
        ("deliveries", "registry"), tmp_path / "b", str(tmp_path / "b.duckdb")
    )
    assert expected["rating_list"].height > 100
    for view, frame in expected.items():
        assert frame.equals(published[view]), (
            f"loading the deliveries before the FID registry gives another {view}: "
            f"{_summary(frame, published[view])}"
        )
