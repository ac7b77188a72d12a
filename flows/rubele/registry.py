"""The ``load-fid-registry`` flow: a dated snapshot of the FID (draughts) registry, kept apart
from the FSI one (other ids), read through the same snapshot machinery."""

from __future__ import annotations

from datetime import date

from prefect import flow

from flows.registry import RegistryKind, load_snapshot
from flows.runtime import failure_recorded
from schemas.draughts import FidPlayer
from transforms.inputs.draughts_csv import type_fid_players

FID_REGISTRY = RegistryKind(
    "fid-registry",
    "FID registry",
    type_fid_players,
    FidPlayer,
    "fid_registry_load",
    "fid_registry_player",
    "fid_registry_membership",
    "fid_registry_load_seq",
)


@flow(name="load-fid-registry")
@failure_recorded("load-fid-registry")
def load_fid_registry_flow(folder: str, as_of: date, warehouse: str) -> dict[str, int]:
    """The FID registry (``players.csv``, ``memberships.csv``) as the snapshot at ``as_of``."""
    return load_snapshot(FID_REGISTRY, folder, as_of, warehouse)
