"""Importing the last list a federation published, whatever the system: each system says how
(:class:`ListImport`); the import is taken whole or refused whole."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from flows.console import say
from flows.csv_checks import checked_csv, problem_text, refused_rows
from flows.inputs import InputFile, csv_text, read_csv_text
from flows.publishing.arguments import OFFICIAL, ListError, refuse_a_day_off_the_calendar
from flows.publishing.refusals import refuse_an_import_after_computed_lists
from flows.runtime import RunRecord
from flows.warehouse import Warehouse, execute, insert_frame, query_frame, read_sql
from flows.writes import archive_files, record_problems, recorded_problems_section
from transforms.elo.lists import imported_list_warnings
from transforms.inputs.registry import LIST_REQUIRED, type_published_list
from transforms.lists.periods import cutoff_for
from transforms.lists.published import ranking_input
from transforms.lists.rankings import rankings


@dataclass(frozen=True)
class ListImport:
    """What importing one system's published list needs: the FSI and the FID lists differ in
    their rulebook, the rows they accept, the registry they read and the rows they build."""

    rulebook: Any  # Rulebook or RubeleRulebook: content_hash, source, era_at
    era: Any  # its era in force on the list date: calendar, categories, flags
    row_schema: type  # the Pandera model of one published row
    categories: tuple[str, ...] | None  # the categories a row may name (None: checked apart)
    # the published rows, their problems (Elo Rapid: the letter labels, normalised)
    prepare: Callable[[pl.DataFrame], tuple[pl.DataFrame, pl.DataFrame]]
    # (registry, members) in force on the list date
    read_people: Callable[[duckdb.DuckDBPyConnection], tuple[pl.DataFrame, pl.DataFrame]]
    # (published, registry, members) -> the list's rows (LIST_COLUMNS)
    build_rows: Callable[[pl.DataFrame, pl.DataFrame, pl.DataFrame], pl.DataFrame]


def import_published_list(
    file: str, system: str, list_date: date, warehouse: str, importer: ListImport
) -> dict[str, int]:
    """Bootstrap ``system`` from its last official list (player_id, rating, games, k, category;
    for a draughts system the rating is the capital and k is empty), read as ``importer`` says.

    The list becomes revision 1 of that list date, so the next list starts from it.
    """
    era, rulebook = importer.era, importer.rulebook
    # the lists after it could never follow it: each needs the list date before it
    refuse_a_day_off_the_calendar(system, era.calendar, list_date)
    run = RunRecord(
        flow="import-list",
        parameters={"file": file, "system": system, "list_date": list_date},
        rulebook_hash=rulebook.content_hash,
    )
    source = read_csv_text(Path(file), required=LIST_REQUIRED)
    rows, problems = checked_csv(source, type_published_list, importer.row_schema)
    rows, wrong = importer.prepare(rows)
    tag_file = [
        pl.lit(source.file.name).alias("file_name"),
        pl.lit(source.file.sha256).alias("file_sha256"),
        pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
    ]
    if wrong.height:
        tagged = wrong.with_columns(tag_file).select(problems.columns)
        problems = pl.concat([problems, tagged], how="vertical_relaxed")
    problems = problems.with_columns(pl.lit("list").alias("source"))
    run.input_checksums = {str(source.file.path): source.file.sha256}
    key = {"system": system, "scenario": OFFICIAL, "list_date": list_date}
    with Warehouse(warehouse).transaction() as con:
        current = execute(con, read_sql("queries/lists/current_revision.sql"), key)
        if current and current[0][1] != source.file.sha256:
            raise ListError(
                f"the {system} list of {list_date} is already in the warehouse (revision "
                f"{current[0][0]}); an official list is not replaced by an import"
            )
        refuse_an_import_after_computed_lists(con, system, list_date)
        rejected, _ = record_problems(con, run.run_id, problems)
        imported = 0
        unregistered = False
        error_rows = problems.filter(pl.col("severity") == "error")
        errors = error_rows.height
        # the federation's list is taken whole or not at all: a player left out would enter
        # the next list as a newcomer, and an official list is never replaced
        refused = refused_rows(error_rows) if errors and not current else ""
        # the first, in the file's order, says what is wrong (a file separated by ';', say)
        first_refusal = (
            problem_text(error_rows.sort("line_no", nulls_last=False).row(0, named=True))
            if refused
            else ""
        )
        if refused:
            run.counts = {"players": 0, "rejections_new": rejected, "refused": 1}
            report = (
                f"# Import of the {system} list at {list_date} refused\n\n- nothing was "
                f"imported: {refused} rejected; correct the file and import it again\n"
            ) + recorded_problems_section(con, run.run_id)
            run.write(con, "refused", report)
        elif not current:
            archive_files(con, run.run_id, [(source.file, "list")])
            registry, members = importer.read_people(con)
            unregistered = registry.height == 0
            warnings = imported_list_warnings(
                rows, registry, system, importer.categories, list_date
            ).with_columns(pl.lit("list").alias("source"), *tag_file)
            record_problems(con, run.run_id, warnings)
            listed = importer.build_rows(rows.drop("line_no"), registry, members)
            imported = store_imported_list(
                con,
                run,
                key,
                1,
                importer,
                listed,
                f"Imported from {source.file.name}",
                source.file.sha256,
            )
        if not refused:  # the list stored now, or the same file imported before
            run.counts = {"players": imported, "rejections_new": rejected}
            warned = problems.height - errors
            report = (
                f"# Imported {system} list at {list_date}\n\n- players imported: {imported}"
                f"{' (already imported)' if current else ''}\n"
                + (f"- warnings (rows kept): {warned}\n" if warned else "")
                + (
                    f"- WARNING: no registry snapshot in force on {list_date} is loaded, so its "
                    "players are listed without name, sex or birth date (the lists computed "
                    "after it read the registry of their own dates)\n"
                    if unregistered
                    else ""
                )
            ) + recorded_problems_section(con, run.run_id)
            run.write(con, "succeeded", report)
    say(report)
    if refused:
        raise ListError(
            f"{source.file.name}: {refused} rejected ({first_refusal}), nothing imported (a "
            "list with players left out would enter them as newcomers): correct the file and "
            "import it again"
        )
    return run.counts


def store_imported_list(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    key: dict[str, Any],
    revision: int,
    importer: ListImport,
    listed: pl.DataFrame,
    report: str,
    file_sha256: str,
) -> int:
    """Write an imported list as ``revision`` of its list date, with its rankings; its content
    hash is the published file's, which names the file in the archive (``raw_file``)."""
    era = importer.era
    execute(
        con,
        read_sql("queries/lists/insert_revision.sql"),
        {
            **key,
            "revision": revision,
            "source": "imported",
            "run_id": run.run_id,
            "rulebook_hash": importer.rulebook.content_hash,
            "era_from": era.effective_from,
            "previous_list_date": None,
            "previous_revision": None,
            "content_hash": file_sha256,
            "inputs_hash": None,
            # the federation's list stands for everything received up to its cut-off
            "received_after": None,
            "received_up_to": cutoff_for(era.calendar, key["list_date"]),
            "players": listed.height,
            "tournaments": 0,
            "report": report,
        },
    )
    tag = [pl.lit(value).alias(name) for name, value in {**key, "revision": revision}.items()]
    stored = insert_frame(con, "list_entry", listed.with_columns(tag))
    insert_frame(
        con,
        "list_ranking",
        rankings(ranking_input(listed, era, key["list_date"])).with_columns(tag),
    )
    return stored


def refresh_imported_lists(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    importer_at: Callable[[date], ListImport],
    since: date,
) -> list[date]:
    """Build again, from the archived file, each official list of ``system`` imported for a
    date on or after ``since`` (a registry snapshot just loaded): its names, sex, birth dates,
    membership and categories come from the registry in force on its date, so an import made
    before the registry was loaded gets them now. A list that comes out different is a new
    revision (the lists computed from the old one become stale); returns their dates."""
    imported = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": OFFICIAL},
    ).filter((pl.col("source") == "imported") & (pl.col("list_date") >= since))
    refreshed = []
    for list_date, revision, file_sha256 in imported.select(
        "list_date", "revision", "content_hash"
    ).rows():
        name, content = execute(
            con, read_sql("queries/archived_file.sql"), {"sha256": file_sha256}
        )[0]
        importer = importer_at(list_date)
        source = csv_text(InputFile(path=Path(name), content=bytes(content)))
        rows, _ = importer.prepare(checked_csv(source, type_published_list, importer.row_schema)[0])
        registry, members = importer.read_people(con)
        listed = importer.build_rows(rows.drop("line_no"), registry, members)
        key = {"system": system, "scenario": OFFICIAL, "list_date": list_date}
        stored = query_frame(
            con,
            read_sql("queries/lists/revision_entries.sql"),
            {**key, "revision": revision},
        )
        if _same_rows(stored, listed):
            continue
        store_imported_list(
            con,
            run,
            key,
            revision + 1,
            importer,
            listed,
            f"Imported from {name}; names, membership and categories from the registry as "
            f"loaded on {since} and before",
            file_sha256,
        )
        refreshed.append(list_date)
    return refreshed


def _same_rows(stored: pl.DataFrame, listed: pl.DataFrame) -> bool:
    """Whether a list's stored rows say what ``listed`` says, column by column as text (the
    stored types are the warehouse's)."""
    columns = [column for column in stored.columns if column in listed.columns]

    def as_text(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.select(pl.col(columns).cast(pl.Utf8)).sort("player_id")

    return stored.height == listed.height and as_text(stored).equals(as_text(listed))


def imported_lists_completed(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    systems: Sequence[str],
    list_import: Callable[[str, date], ListImport],
    as_of: date,
) -> str:
    """A registry snapshot's report lines on the imported lists of ``systems`` it completed
    (:func:`refresh_imported_lists`), counted in the run as ``imported_lists_refreshed``."""
    lines = []
    for system in systems:
        dates = refresh_imported_lists(
            con, run, system, lambda day, system=system: list_import(system, day), as_of
        )
        lines += [
            f"- the imported {system} list of {day} takes its names and membership from this "
            "snapshot: a new revision (the lists computed from it are stale)\n"
            for day in dates
        ]
    run.counts["imported_lists_refreshed"] = len(lines)
    return "".join(lines)
