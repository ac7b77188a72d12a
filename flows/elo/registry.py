"""The ``load-registry`` flow: a dated snapshot of the FSI member registry (players and
memberships). Besides storing it, a snapshot identifies the provisional players it now knows
and gives the Elo lists imported for its dates the names and membership it holds, so the
order in which the registry, the federation's list and the deliveries are loaded does not
change a list."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import duckdb
from prefect import flow

from flows.elo.lists import fsi_list_import
from flows.elo.rulebook import FSI_SYSTEMS
from flows.publishing.importing import imported_lists_completed
from flows.registry import FSI_REGISTRY, load_snapshot, rematch_after_load
from flows.runtime import RunRecord, failure_recorded


def after_fsi_snapshot(con: duckdb.DuckDBPyConnection, run: RunRecord, as_of: date) -> str:
    """What a new FSI snapshot changes besides itself (inside the load's transaction)."""
    report = rematch_after_load(con, run, as_of)
    return report + imported_lists_completed(con, run, FSI_SYSTEMS, fsi_list_import, as_of)


FSI_SNAPSHOT = replace(FSI_REGISTRY, after_load=after_fsi_snapshot)


@flow(name="load-registry")
@failure_recorded("load-registry")
def load_registry_flow(folder: str, as_of: date, warehouse: str) -> dict[str, int]:
    """Load ``players.csv`` and ``memberships.csv`` from ``folder`` as the snapshot at ``as_of``."""
    return load_snapshot(FSI_SNAPSHOT, folder, as_of, warehouse)
