"""Writes shared by the flows: the raw-file archive and the rejection / warning records."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb
import polars as pl

from flows.inputs import InputFile
from flows.reports import problems_section
from flows.warehouse import execute, query_frame, read_sql, registered

RECORD_COLUMNS = [
    "severity",
    "source",
    "file_name",
    "file_sha256",
    "line_no",
    "field",
    "value",
    "reason",
    "tournament_id",
]
# what names a problem's file: its checksum when known, else its name
FILE_COLUMNS = ("file_name", "file_sha256")


@dataclass
class KnownTournaments:
    """The tournament ids the warehouse already holds (chess and draughts share one list of
    ids), read once inside an ingest's transaction and kept current as it adds versions."""

    versions: dict[str, tuple[int, set[str]]]  # id -> (latest version, every version key)
    games: dict[str, str]  # id -> "chess" or "draughts"
    # id -> SHA-256 of the file its latest version rates (accepted versions only)
    rated_file: dict[str, str]
    received_on: dict[str, date]  # id -> receipt date of its latest version
    quarantined: set[str]  # ids whose latest version is quarantined
    latest_key: dict[str, str]  # id -> version key of its latest version
    # id -> "delivery|version key" of every version ("*" for one ingested before deliveries
    # were recorded: it counts for any delivery)
    delivered: dict[str, set[str]]
    # and the other way round: SHA-256 of a file -> the ids rating it
    rated_files: dict[str, set[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.rated_files = {}
        for tournament_id, file_sha256 in self.rated_file.items():
            self.rated_files.setdefault(file_sha256, set()).add(tournament_id)

    def taken_by_other_game(self, tournament_id: str, game: str) -> str | None:
        """Why ``tournament_id`` cannot be a ``game`` tournament, or None when it can."""
        other = self.games.get(tournament_id)
        if other is None or other == game:
            return None
        return (
            f"tournament id {tournament_id} is already a {other} tournament in this warehouse: "
            f"chess and draughts tournaments share one list of ids, so this {game} tournament "
            "needs another id"
        )

    def same_file_as(self, tournament_id: str, file_sha256: str | None) -> str | None:
        """Another tournament whose rated version is this very file, if any (the first by id:
        the reason names one)."""
        holders = self.rated_files.get(file_sha256, set()) if file_sha256 else set()
        others = sorted(holders - {tournament_id})
        return others[0] if others else None

    def unchanged(self, tournament_id: str, key: str, accepted: bool, delivery: str) -> bool:
        """Whether this delivery of ``tournament_id`` adds nothing: it carries the latest
        version's key (unless that version is quarantined and this one passes: its quarantine
        came from what the warehouse held then, a registry loaded since typically), or this
        very delivery brought this key before. An inbox is read again whole, so an older
        delivery read again never displaces a later version; a new delivery of an earlier
        version's file brings that version back (a correction undone)."""
        if self.latest_key.get(tournament_id) == key:
            return not (accepted and tournament_id in self.quarantined)
        delivered = self.delivered.get(tournament_id, set())
        return f"{delivery}|{key}" in delivered or f"*|{key}" in delivered

    def receipt_moved(self, tournament_id: str, received_on: date | None) -> str | None:
        """Why a new version with this receipt date deserves the analyst's eye, or None.

        A tournament is rated in the period of its receipt date, so a version received with
        another date moves it to another list: right for a corrected receipt date, wrong for
        a corrected crosstable sent later (which keeps the first receipt date).
        """
        before = self.received_on.get(tournament_id)
        if before is None or received_on is None or before == received_on:
            return None
        return (
            f"receipt date {received_on} differs from {before}, that of the version before: "
            "this version moves the tournament to the period of its new receipt date (a "
            f"corrected file of a tournament received on {before} keeps that date)"
        )

    def add(
        self,
        tournament_id: str,
        key: str,
        game: str,
        file_sha256: str | None,
        accepted: bool,
        received_on: date | None,
        delivery: str,
    ) -> int:
        """Record a new version of ``tournament_id``; returns its number."""
        latest, keys = self.versions.get(tournament_id, (0, set()))
        self.versions[tournament_id] = (latest + 1, keys | {key})
        self.delivered.setdefault(tournament_id, set()).add(f"{delivery}|{key}")
        self.games.setdefault(tournament_id, game)
        self.latest_key[tournament_id] = key
        if received_on is not None:
            self.received_on[tournament_id] = received_on
        if accepted:
            self.quarantined.discard(tournament_id)
        else:
            self.quarantined.add(tournament_id)
        # the new version replaces whatever file the id rated before
        before = self.rated_file.pop(tournament_id, None)
        if before is not None:
            self.rated_files[before].discard(tournament_id)
        if file_sha256 and accepted:
            self.rated_file[tournament_id] = file_sha256
            self.rated_files.setdefault(file_sha256, set()).add(tournament_id)
        return latest + 1


def known_tournaments(con: duckdb.DuckDBPyConnection) -> KnownTournaments:
    known = query_frame(con, read_sql("queries/tournament_version_keys.sql")).rows(named=True)
    return KnownTournaments(
        versions={
            row["tournament_id"]: (row["latest_version"], set(row["version_keys"])) for row in known
        },
        games={row["tournament_id"]: row["game"] for row in known},
        rated_file={
            row["tournament_id"]: row["rated_file_sha256"]
            for row in known
            if row["rated_file_sha256"] is not None
        },
        received_on={
            row["tournament_id"]: row["received_on"]
            for row in known
            if row["received_on"] is not None
        },
        quarantined={row["tournament_id"] for row in known if row["latest_quarantined"]},
        latest_key={row["tournament_id"]: row["latest_key"] for row in known},
        delivered={row["tournament_id"]: set(row["delivered_keys"]) for row in known},
    )


ARCHIVE_SCHEMA: dict[str, pl.DataType] = {
    "sha256": pl.String(),
    "file_name": pl.String(),
    "kind": pl.String(),
    "size_bytes": pl.Int64(),
    "content": pl.Binary(),
}


def archive_files(
    con: duckdb.DuckDBPyConnection, run_id: str, files: list[tuple[InputFile, str]]
) -> int:
    """Keep every raw input by checksum, in one insert; a file already archived (or earlier
    in ``files``) is not stored again. Returns how many were stored."""
    first: dict[str, tuple[InputFile, str]] = {}
    for file, kind in files:  # one iteration per file
        first.setdefault(file.sha256, (file, kind))
    if not first:
        return 0
    incoming = pl.DataFrame(
        [
            (file.sha256, file.name, kind, len(file.content), file.content)
            for file, kind in first.values()
        ],
        schema=ARCHIVE_SCHEMA,
        orient="row",
    )
    with registered(con, "_incoming_files", incoming):
        inserted = execute(con, read_sql("queries/insert_new_raw_files.sql"), {"run_id": run_id})
    return int(inserted[0][0]) if inserted else 0


def record_problems(
    con: duckdb.DuckDBPyConnection, run_id: str, problems: pl.DataFrame
) -> tuple[int, int]:
    """Store problems not seen before; returns (new errors, new warnings).

    ``problems`` has PROBLEM_SCHEMA plus source, file_name, file_sha256 and tournament_id.
    """
    if problems.height == 0:
        return 0, 0
    # a problem found twice (the same file delivered twice, say) is recorded once: as first
    # found, the file's name included (the query keeps any one of a problem's rows)
    problems = (
        problems.select(RECORD_COLUMNS)
        .with_columns(pl.coalesce("file_sha256", "file_name").alias("_file"))
        .unique(
            subset=[column for column in RECORD_COLUMNS if column not in FILE_COLUMNS] + ["_file"],
            keep="first",
            maintain_order=True,
        )
        .drop("_file")
    )
    count_by_severity = read_sql("queries/problem_counts.sql")
    before = dict(execute(con, count_by_severity))
    with registered(con, "_incoming_problems", problems):
        execute(con, read_sql("queries/insert_new_problems.sql"), {"run_id": run_id})
    after = dict(execute(con, count_by_severity))
    return tuple(  # type: ignore[return-value]
        after.get(severity, 0) - before.get(severity, 0) for severity in ("error", "warning")
    )


def recorded_problems_section(con: duckdb.DuckDBPyConnection, run_id: str) -> str:
    """The report sections listing what this run rejected and warned of (inside its
    transaction, after :func:`record_problems`)."""
    return problems_section(
        query_frame(con, read_sql("queries/run_problems.sql"), {"run_id": run_id})
    )
