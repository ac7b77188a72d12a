"""``graduatoria export``: one revision of one list as a file, to publish or to read elsewhere.

Read-only: a short read-only DuckDB session, no Prefect, no run record (an export changes
nothing the warehouse holds). Formats (docs/EXPORTS.md): ``csv``, ``parquet`` and ``json`` with
every column of the list, ``txt`` the fixed-width list federations publish, and ``import-list``
the CSV that ``graduatoria import-list`` reads and ``graduatoria reconcile`` compares.

One order for every format and every run (rating, highest first, then player id) and no clock
anywhere in a file: exporting the same revision twice gives byte-identical files. The file is
written beside its target and renamed over it, so an interrupted export leaves no half file.

Polars, DuckDB and the warehouse module are imported inside the functions that use them: the
command line builds its parser from :func:`add_export_parser`, and ``graduatoria --help`` must
not pay for them (tests/flows/test_cli_surface.py).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.arguments import LIST_SYSTEMS, iso_date
from flows.console import counted, keep_stdout_for_data, show, write_data

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FORMATS = ("csv", "parquet", "json", "txt", "import-list")
# ``--out -``: the list to standard output (the command's own lines then go to stderr)
STANDARD_OUTPUT = "-"
OFFICIAL = "official"
ORDER = "rating descending, then player_id"

# The columns every export but txt and import-list gives, in this order (sql/queries/export/
# list_rows.sql): a contract for whoever reads the files, like the public views' names.
COLUMNS = (
    "system",
    "list_date",
    "revision",
    "scenario",
    "player_id",
    "name",
    "federation",
    "sex",
    "birth_date",
    "rating",
    "rating_type",
    "previous_rating",
    "period_change",
    "frozen_rating",
    "rating_basis",
    "games",
    "total_games",
    "k",
    "category",
    "previous_category",
    "letter",
    "letter_provisional",
    "letter_held",
    "last_played",
    "is_active",
    "is_member",
    "in_ranking",
    "note",
)

# The import-list CSV (docs/INPUTS.md, "Published list"): its games are the games to date
IMPORT_LIST_HEADER = ("player_id", "rating", "games", "k", "category", "last_played")

# Parquet written with fixed settings: zstd at a fixed level, statistics, one row group for any
# list (a national list has tens of thousands of players). Polars writes no timestamp; its
# created_by names its version, the same for every run of one installation.
PARQUET_SETTINGS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 9,
    "statistics": True,
    "row_group_size": 1_000_000,
}


@dataclass(frozen=True)
class TxtColumn:
    title: str
    width: int
    right: bool  # numbers are right-aligned, text left-aligned


# The fixed-width list (docs/EXPORTS.md gives the positions): columns one space apart
TXT_COLUMNS = (
    TxtColumn("ID", 10, right=False),
    TxtColumn("Name", 40, right=False),
    TxtColumn("Fed", 3, right=False),
    TxtColumn("Cat", 3, right=False),
    TxtColumn("Rtng", 4, right=True),
    TxtColumn("Gms", 3, right=True),
    TxtColumn("K", 3, right=True),
    TxtColumn("Flags", 5, right=False),
)
# the flags of the txt list, in the order they are written
TXT_FLAGS = (
    ("w", "a woman"),
    ("i", "inactive (no rated tournament in the activity window)"),
    ("x", "not a member in the list's year"),
    ("f", "the rating shown is the FIDE rating (a FIDE-rated player on an Elo Italia list)"),
    ("n", "new on this list (entered at this list date)"),
)
# the bases of a rating carried from the list before (any other is an entry or a re-entry)
CARRIED_BASES = ("list", "imported")


class ExportError(RuntimeError):
    """The list cannot be exported as asked (one clear line for the analyst)."""


@dataclass(frozen=True)
class ListKey:
    """One revision of one list: what an export (or a reconciliation) reads."""

    system: str
    list_date: date
    scenario: str
    revision: int
    source: str  # computed | imported

    def described(self) -> str:
        scenario = "" if self.scenario == OFFICIAL else f", scenario {self.scenario}"
        return (
            f"the {self.system} list of {self.list_date} (revision {self.revision}, "
            f"{self.source}{scenario})"
        )

    def params(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "scenario": self.scenario,
            "list_date": self.list_date,
            "revision": self.revision,
        }


@dataclass(frozen=True)
class Exported:
    key: ListKey
    path: Path
    players: int  # rows written
    left_out: tuple[str, ...] = ()  # txt: ids too long for its ID column


def resolve_list(
    con: duckdb.DuckDBPyConnection,
    system: str,
    list_date: date,
    revision: int | None = None,
    scenario: str | None = None,
) -> ListKey:
    """The revision to read: ``revision`` of ``scenario`` (default official), or its latest.
    Refuses (ExportError) a system, scenario, list date or revision the warehouse lacks, naming
    what it has."""
    from flows.warehouse import query_frame, read_sql

    if system not in LIST_SYSTEMS:
        raise ExportError(f"no system {system!r}: the systems are {', '.join(LIST_SYSTEMS)}")
    scenario = scenario or OFFICIAL
    written = query_frame(con, read_sql("queries/export/revisions.sql"), {"system": system})
    if written.height == 0:
        raise ExportError(f"no {system} list in the warehouse")
    scenarios = sorted(set(written.get_column("scenario")))
    if scenario not in scenarios:
        raise ExportError(
            f"no scenario {scenario!r} of {system} in the warehouse (scenarios: "
            f"{', '.join(scenarios)})"
        )
    mine = [row for row in written.rows(named=True) if row["scenario"] == scenario]
    dates = sorted({row["list_date"] for row in mine})
    if list_date not in dates:
        label = "" if scenario == OFFICIAL else f" of scenario {scenario}"
        raise ExportError(
            f"no {system} list{label} of {list_date} in the warehouse "
            f"({_nearest_dates(dates, list_date)})"
        )
    revisions = {row["revision"]: row["source"] for row in mine if row["list_date"] == list_date}
    chosen = max(revisions) if revision is None else revision
    if chosen not in revisions:
        raise ExportError(
            f"the {system} list of {list_date}"
            f"{'' if scenario == OFFICIAL else f' (scenario {scenario})'} has no revision "
            f"{chosen} (revisions: {', '.join(str(number) for number in sorted(revisions))})"
        )
    return ListKey(system, list_date, scenario, chosen, revisions[chosen])


def _nearest_dates(dates: list[date], wanted: date) -> str:
    """The list dates either side of ``wanted``: a history has a hundred, one wants the two."""
    before = [day for day in dates if day < wanted]
    after = [day for day in dates if day > wanted]
    nearest = ([str(before[-1])] if before else []) + ([str(after[0])] if after else [])
    return (
        f"{counted(len(dates), 'list date')}, from {dates[0]} to {dates[-1]}; the nearest: "
        + " and ".join(nearest)
    )


def list_rows(con: duckdb.DuckDBPyConnection, key: ListKey) -> pl.DataFrame:
    """The rows of one revision, every column of :data:`COLUMNS`, in the export's order."""
    from flows.warehouse import query_frame, read_sql

    rows = query_frame(con, read_sql("queries/export/list_rows.sql"), key.params())
    return rows.select(COLUMNS)


def read_list(
    warehouse: str,
    system: str,
    list_date: date,
    revision: int | None = None,
    scenario: str | None = None,
) -> tuple[ListKey, pl.DataFrame]:
    """One list from a read-only session on the live file (what a dashboard does)."""
    from flows.warehouse import Warehouse

    with Warehouse(warehouse).reader() as con:
        key = resolve_list(con, system, list_date, revision, scenario)
        return key, list_rows(con, key)


def export_list(
    warehouse: str,
    system: str,
    list_date: date,
    fmt: str,
    out: str,
    revision: int | None = None,
    scenario: str | None = None,
    force: bool = False,
) -> Exported:
    """Write one revision of a list to ``out`` in ``fmt`` (see the module's note); ``out`` ``-``
    writes it to standard output."""
    if fmt not in FORMATS:
        raise ExportError(f"no format {fmt!r}: the formats are {', '.join(FORMATS)}")
    to_stdout = out == STANDARD_OUTPUT
    if to_stdout and fmt == "parquet" and sys.stdout is not None and sys.stdout.isatty():
        raise ExportError("parquet is binary: send --out - to a file or a program, not a terminal")
    target = Path(out) if to_stdout else export_target(Path(out), force)
    key, rows = read_list(warehouse, system, list_date, revision, scenario)
    left_out: tuple[str, ...] = ()
    if fmt == "parquet":
        parquet = io.BytesIO()
        rows.write_parquet(parquet, **PARQUET_SETTINGS)
        content = parquet.getvalue()
    elif fmt == "txt":
        content, left_out = txt_list(rows)
    elif fmt == "json":
        content = json_list(key, rows)
    else:
        content = _csv_bytes(rows if fmt == "csv" else import_list_rows(rows))
    if to_stdout:
        write_data(content)
    else:
        _replace_with(target, lambda path: path.write_bytes(content))
    return Exported(key, target, rows.height - len(left_out), left_out)


def export_target(target: Path, force: bool) -> Path:
    """The file an export writes for ``--out target``: a file is replaced only when asked
    (``--force``); never a folder, a device or a pipe (``-`` is standard output), nor into a
    folder that does not exist (a mistyped path). Through a symbolic link, the file it names
    is replaced and the link stays."""
    if target.is_dir():
        raise ExportError(f"{target} is a folder: give the file to write (--out FILE)")
    # /dev/stdout and its kin name a stream, whatever stands behind it (a pipe, a terminal, or
    # the file a shell redirected to, which a rename would replace whole)
    if target.absolute().parts[:2] in (("/", "dev"), ("/", "proc")) or (
        target.exists() and not target.is_file()
    ):
        raise ExportError(
            f"{target} is not a file (a device, a pipe or a socket): give --out - to write "
            "to the standard output"
        )
    final = target.resolve() if target.is_symlink() else target
    if final.exists() and not force:
        raise ExportError(f"{target} exists: give --force to replace it")
    if not final.parent.is_dir():
        raise ExportError(f"no folder {final.parent} to write {final.name} in")
    return final


def _replace_with(target: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file beside ``target``, then rename it over ``target``: a
    reader never sees half a file, and an interrupted export leaves the old file whole."""
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        write(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _csv_bytes(rows: pl.DataFrame) -> bytes:
    # ISO dates, true/false, empty for a missing value, \n line ends: what import-list reads
    text = rows.write_csv(
        include_header=True, line_terminator="\n", null_value="", date_format="%Y-%m-%d"
    )
    return text.encode("utf-8")


def import_list_rows(rows: pl.DataFrame) -> pl.DataFrame:
    """The list as the import-list CSV: its ``games`` are the games to date (the list's
    ``total_games``), ``category`` the category or, for Elo Rapid, the letter as published."""
    import polars as pl

    return rows.select(
        "player_id",
        "rating",
        pl.col("total_games").alias("games"),
        "k",
        "category",
        "last_played",
    )


def json_list(key: ListKey, rows: pl.DataFrame) -> bytes:
    """One JSON document: which list it is, then its entries (every column, in order)."""
    entries = [{name: _json_value(value) for name, value in row.items()} for row in rows.to_dicts()]
    document = {
        "system": key.system,
        "list_date": key.list_date.isoformat(),
        "scenario": key.scenario,
        "revision": key.revision,
        "source": key.source,
        "order": ORDER,
        "players": len(entries),
        "entries": entries,
    }
    return (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _json_value(value: object) -> object:
    return value.isoformat() if isinstance(value, date) else value


def txt_list(rows: pl.DataFrame) -> tuple[bytes, tuple[str, ...]]:
    """The fixed-width list and the ids left out of it.

    An id longer than the ID column (a provisional ``P-…`` id, a player the analyst has not
    merged yet) has no number a federation could publish, and cutting it would make two
    players one: such players are left out of the txt (the caller says so), and kept by every
    other format."""
    width = TXT_COLUMNS[0].width
    lines = [_txt_line([column.title for column in TXT_COLUMNS])]
    left_out = []
    for row in rows.iter_rows(named=True):
        if len(row["player_id"]) > width:
            left_out.append(row["player_id"])
            continue
        lines.append(
            _txt_line(
                [
                    row["player_id"],
                    row["name"] or "",
                    row["federation"] or "",
                    row["category"] or "",
                    _number(row["rating"]),
                    _number(row["games"]),
                    _number(row["k"]),
                    txt_flags(row),
                ]
            )
        )
    return ("\n".join(lines) + "\n").encode("utf-8"), tuple(left_out)


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


def _txt_line(values: list[str]) -> str:
    """Each value in its column, cut to its width (a long name), one space between columns;
    every line is as long as the layout, so a reader may cut by position."""
    cells = []
    for column, value in zip(TXT_COLUMNS, values, strict=True):
        text = value[: column.width]
        cells.append(text.rjust(column.width) if column.right else text.ljust(column.width))
    return " ".join(cells)


def txt_flags(row: dict[str, Any]) -> str:
    """The flags of :data:`TXT_FLAGS` that hold for the player, in their order."""
    holds = {
        "w": row["sex"] == "F",
        "i": not row["is_active"],
        "x": not row["is_member"],
        "f": row["rating_type"] == "fide",
        "n": is_entry(row),
    }
    return "".join(flag for flag, _ in TXT_FLAGS if holds[flag])


def is_entry(row: dict[str, Any]) -> bool:
    """Whether the player entered the list at this date (or re-entered it): his rating was not
    carried from the list before. An imported list carries the federation's list whole."""
    return row["previous_rating"] is None and row["rating_basis"] not in CARRIED_BASES


# The command line


def positive_int(text: str) -> int:
    """An argparse type: a revision number (1 or more)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a revision number (1, 2, …)")
    return int(text)


def add_list_choice(parser: argparse.ArgumentParser) -> None:
    """--system, --list-date, --revision, --scenario: which list (export and reconcile)."""
    parser.add_argument("--system", required=True, choices=LIST_SYSTEMS, help="the list's system")
    parser.add_argument(
        "--list-date",
        type=iso_date,
        required=True,
        metavar="YYYY-MM-DD",
        help="the list date (a list the warehouse holds)",
    )
    parser.add_argument(
        "--revision",
        type=positive_int,
        default=None,
        metavar="N",
        help="this revision of the list (default: its latest, the one in force)",
    )
    parser.add_argument(
        "--scenario",
        default=None,
        metavar="NAME",
        help="a what-if scenario's list instead of the official one (default: official)",
    )


def add_export_parser(verbs: Any) -> argparse.ArgumentParser:
    """The ``export`` verb on the command line's subparsers (the caller adds --warehouse)."""
    export: argparse.ArgumentParser = verbs.add_parser(
        "export",
        help="write a list to a file: csv, parquet, json, the fixed-width txt, or the "
        "import-list CSV (read-only)",
        description="Reads the warehouse only. Writes one revision of a list (the latest "
        "official one unless --revision or --scenario say otherwise) with ratings, categories "
        "or letters, games, K, activity and membership, ordered by rating (highest first), "
        "then player id. Exporting twice gives byte-identical files. Formats and the txt "
        "layout: docs/EXPORTS.md.",
    )
    add_list_choice(export)
    export.add_argument(
        "--format",
        required=True,
        choices=FORMATS,
        help="csv, parquet or json (every column); txt (the fixed-width list federations "
        "publish); import-list (player_id,rating,games,k,category,last_played: what "
        "import-list and reconcile read)",
    )
    export.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="the file to write; - writes to the standard output (the command's own lines "
        "then go to stderr)",
    )
    export.add_argument(
        "--force", action="store_true", help="replace --out when it exists (refused otherwise)"
    )
    return export


def run_export(args: argparse.Namespace) -> None:
    """``graduatoria export``: write the file and say what was written."""
    if args.out == STANDARD_OUTPUT:
        keep_stdout_for_data()
    done = export_list(
        args.warehouse,
        args.system,
        args.list_date,
        args.format,
        args.out,
        revision=args.revision,
        scenario=args.scenario,
        force=args.force,
    )
    where = "the standard output" if args.out == STANDARD_OUTPUT else done.path
    show(
        f"export: {done.key.described()}, {counted(done.players, 'player')}, "
        f"{args.format}, to {where}"
    )
    if done.left_out:
        shown = ", ".join(done.left_out[:3]) + (", …" if len(done.left_out) > 3 else "")
        show(
            f"export: {counted(len(done.left_out), 'player')} left out of the txt list: "
            f"provisional ids longer than its ID column ({shown}); merge them "
            "(view unmatched_player) or export another format"
        )
