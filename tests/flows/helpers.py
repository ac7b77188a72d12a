"""Building test deliveries from the real TRF files in ../shared/data/trf."""

import csv
import shutil
from pathlib import Path

from transforms.manifest import MANIFEST_FIELDS

MANIFEST_COLUMNS = [spec.name for spec in MANIFEST_FIELDS]
REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_TRF = REPO_ROOT.parent / "shared" / "data" / "trf"


def shared_trf_files() -> list[Path]:
    return sorted(SHARED_TRF.iterdir())


def write_manifest(folder: Path, rows: list[dict[str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "manifest.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MANIFEST_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({column: row.get(column, "") for column in MANIFEST_COLUMNS})
    return path


def shared_delivery(folder: Path) -> list[dict[str, str]]:
    """A delivery holding every shared TRF file, each as an Elo Italia tournament."""
    rows = []
    for number, source in enumerate(shared_trf_files(), start=1):
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / source.name)
        rows.append(
            {
                "tournament_id": f"SH-{number:02d}",
                "file": source.name,
                "system": "elo_italia",
                "received_on": "2026-03-01",
            }
        )
    write_manifest(folder, rows)
    return rows
