"""One Prefect test server for the whole session (it takes 10-15 s to start)."""

import random
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[None]:
    import websockets.asyncio.connection
    import websockets.client
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    with (
        prefect_test_harness(server_startup_timeout=120),
        temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
        pytest.MonkeyPatch.context() as patch,
    ):
        # Prefect's events client stays connected after the flow tests, and its websocket
        # keepalive pings (and reconnection backoff) draw from the global ``random``: drawn
        # while a Hypothesis test generates its examples, Hypothesis takes them for the
        # test's own and warns. Their own generator keeps the global one to the tests.
        own = random.Random()
        patch.setattr(websockets.asyncio.connection, "random", own)
        patch.setattr(websockets.client, "random", own)
        yield


@pytest.fixture(scope="session")
def _season_bases(tmp_path_factory, prefect_server) -> dict:
    return {}


@pytest.fixture
def season_warehouse(_season_bases, tmp_path, tmp_path_factory):
    """A copy of a warehouse holding a small demo season: registry, opening list, deliveries.

    Each season is generated and ingested once per session; every test gets its own copy.
    """
    import shutil

    def build(season: int):
        if season not in _season_bases:
            _season_bases[season] = _build_season(
                tmp_path_factory.mktemp(f"season{season}"), season
            )
        base_warehouse = _season_bases[season][0]
        copy = tmp_path / "w.duckdb"
        shutil.copyfile(base_warehouse, copy)
        return copy

    build.demo_dir = lambda season: _season_bases[season][1]  # type: ignore[attr-defined]
    return build


def _build_season(folder, season: int):
    from flows.demo import published_lists, registry_snapshots
    from flows.elo.ingest import ingest_flow
    from flows.elo.registry import load_registry_flow
    from flows.import_list import import_list_flow
    from synthetic.chess import generate_federation
    from synthetic.demo_files import write_federation

    demo = folder / "demo"
    federation = generate_federation(
        11, season=season, n_players=500, tournaments_per_quarter=(5, 7)
    )
    write_federation(federation, demo)
    warehouse = folder / "w.duckdb"
    for as_of, snapshot in registry_snapshots(demo):
        load_registry_flow(str(snapshot), as_of, str(warehouse))
    for system, list_date, path in published_lists(demo):
        import_list_flow(str(path), system, list_date, str(warehouse))
    ingest_flow(str(demo / "deliveries"), str(warehouse))
    return warehouse, demo
