"""The ``import-list`` flow: start a system from the last list its federation published."""

from __future__ import annotations

from datetime import date

from prefect import flow

from flows.publishing.importing import import_published_list
from flows.runtime import failure_recorded
from flows.systems import rating_system


@flow(name="import-list")
@failure_recorded("import-list")
def import_list_flow(file: str, system: str, list_date: date, warehouse: str) -> dict[str, int]:
    """Bootstrap ``system`` from its last official list (player_id, rating, games, k, category;
    for a draughts system the rating is the capital and k is empty).

    The list becomes revision 1 of that list date, so the next list starts from it.
    """
    importer = rating_system(system).importer(list_date)
    return import_published_list(file, system, list_date, warehouse, importer)
