"""Building test deliveries from the real TRF files in ../shared/data/trf."""

import csv
import shutil
from datetime import date
from pathlib import Path

from transforms.inputs.manifest import MANIFEST_FIELDS

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


# the dates of the shared files that give none (no 042 or 052 line), as the analyst gives them
# in the manifest when the ingest asks for them
UNDATED_SHARED_FILES = {
    "Sharly-Chess_bbpPairings__test_tests_team_utf8_names.input": ("2026-02-21", "2026-02-22")
}


def shared_delivery(folder: Path) -> list[dict[str, str]]:
    """A delivery holding every shared TRF file, each as an Elo Italia tournament."""
    rows = []
    for number, source in enumerate(shared_trf_files(), start=1):
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / source.name)
        start, end = UNDATED_SHARED_FILES.get(source.name, ("", ""))
        rows.append(
            {
                "tournament_id": f"SH-{number:02d}",
                "file": source.name,
                "system": "elo_italia",
                "received_on": "2026-03-01",
                "start_date": start,
                "end_date": end,
            }
        )
    write_manifest(folder, rows)
    return rows


def flip_one_decisive_game(trf: str) -> str:
    """Reverse the first decisive game of round 1 on both players' lines."""
    lines = trf.splitlines(keepends=True)
    column = 91 + 7  # round 1 result, 0-based
    by_start = {int(line[4:8]): i for i, line in enumerate(lines) if line.startswith("001 ")}
    for index in by_start.values():
        line = lines[index]
        if len(line) > column and line[column] in "10":
            opponent = int(line[91:95])
            other = by_start[opponent]
            flipped = {"1": "0", "0": "1"}
            for row in (index, other):
                text = lines[row]
                lines[row] = text[:column] + flipped[text[column]] + text[column + 1 :]
            return "".join(lines)
    raise AssertionError("no decisive game in round 1")


def deliver_a_corrected_tournament(
    warehouse: Path, inbox: Path, received_on: str | None = None
) -> tuple[str, int]:
    """Re-deliver the first Elo Italia tournament received in 2019's second quarter with one
    decisive game reversed (with its first receipt date, or ``received_on``), and ingest it;
    returns the tournament's id and the number of new tournament versions."""
    from flows.elo.ingest import ingest_flow
    from flows.warehouse import Warehouse

    with Warehouse(warehouse).reader() as con:
        tournament_id, file_name, received, content = con.execute(
            "SELECT t.tournament_id, t.file_name, t.received_on, f.content FROM tournament t "
            "JOIN raw_file f ON f.sha256 = t.file_sha256 WHERE t.status = 'accepted' "
            "AND t.system = 'elo_italia' AND t.received_on BETWEEN '2019-03-16' AND '2019-06-15' "
            "ORDER BY t.tournament_id LIMIT 1"
        ).fetchone()
    delivery = inbox / "2019-08"
    delivery.mkdir(parents=True)
    (delivery / file_name).write_text(flip_one_decisive_game(content.decode("ascii")))
    write_manifest(
        delivery,
        [
            {
                "tournament_id": tournament_id,
                "file": file_name,
                "system": "elo_italia",
                "received_on": received_on or str(received),
            }
        ],
    )
    return tournament_id, ingest_flow(str(inbox), str(warehouse))["tournaments_new_versions"]


def deliver_a_tournament_before_the_first_list(
    warehouse: Path, delivery: Path
) -> tuple[date, dict[str, int]]:
    """Deliver in ``delivery`` (a new folder) and ingest, as OLD-1, the earliest-ending Elo
    Italia tournament of a demo season with one game reversed, received on its end date: by the
    cut-off (2018-12-15) of the season's imported list of 2019-01-01, so no list rates it.
    Returns the receipt date and the ingest's counts."""
    from flows.elo.ingest import ingest_flow
    from flows.warehouse import Warehouse

    with Warehouse(warehouse).reader() as con:
        ended, content = con.execute(
            "SELECT t.end_date, f.content FROM tournament t "
            "JOIN raw_file f ON f.sha256 = t.file_sha256 WHERE t.status = 'accepted' "
            "AND t.system = 'elo_italia' ORDER BY t.end_date, t.tournament_id LIMIT 1"
        ).fetchone()
    assert ended <= date(2018, 12, 15)
    delivery.mkdir(parents=True)
    (delivery / "OLD.trf").write_text(flip_one_decisive_game(content.decode("ascii")))
    write_manifest(
        delivery,
        [
            {
                "tournament_id": "OLD-1",
                "file": "OLD.trf",
                "system": "elo_italia",
                "received_on": str(ended),
            }
        ],
    )
    return ended, ingest_flow(str(delivery.parent), str(warehouse))
