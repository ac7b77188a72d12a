"""The ``load-fid-registry`` flow: a dated snapshot of the FID (draughts) registry, kept apart
from the FSI one (other ids), read through the same snapshot machinery. A snapshot gives the
draughts lists imported for its dates the names, membership and categories it holds."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import duckdb
import polars as pl
from prefect import flow

from flows.publishing.importing import imported_lists_completed
from flows.registry import RegistryKind, load_snapshot
from flows.rubele.ingest import recheck_quarantined
from flows.rubele.lists import rubele_list_import
from flows.rubele.rulebook import RUBELE_SYSTEMS, load_rubele_rulebook
from flows.runtime import RunRecord, failure_recorded
from schemas.draughts import FidPlayer
from transforms.inputs.draughts_csv import type_fid_players


def type_fid_snapshot(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """players.csv typed, with each variant's own country from its shipped rulebook
    (``federation.country``): a capital given to one of its players is a warning."""
    books = [load_rubele_rulebook(system) for system in RUBELE_SYSTEMS]
    return type_fid_players(raw, {book.variant: book.country for book in books})


FID_REGISTRY = RegistryKind(
    "fid-registry",
    "FID registry",
    type_fid_snapshot,
    FidPlayer,
    "fid_registry_load",
    "fid_registry_player",
    "fid_registry_membership",
    "fid_registry_load_seq",
)


def after_fid_snapshot(con: duckdb.DuckDBPyConnection, run: RunRecord, as_of: date) -> str:
    """What a new FID snapshot changes besides itself (inside the load's transaction): the
    draughts tournaments it lets through, and the imported draughts lists it completes."""
    report = recheck_quarantined(con, run)
    return report + imported_lists_completed(con, run, RUBELE_SYSTEMS, rubele_list_import, as_of)


@flow(name="load-fid-registry")
@failure_recorded("load-fid-registry")
def load_fid_registry_flow(folder: str, as_of: date, warehouse: str) -> dict[str, int]:
    """The FID registry (``players.csv``, ``memberships.csv``) as the snapshot at ``as_of``."""
    return load_snapshot(
        replace(FID_REGISTRY, after_load=after_fid_snapshot), folder, as_of, warehouse
    )
