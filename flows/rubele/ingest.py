"""The ``ingest-draughts`` flow: draughts deliveries (``tournaments.csv`` and one games file per
tournament) into the warehouse, in one transaction; a changed file is a new version."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import duckdb
import polars as pl
from prefect import flow

from flows.console import Progress, counted, phase, say
from flows.csv_checks import checked_csv
from flows.inputs import (
    CsvInput,
    InputFile,
    csv_text,
    delivery_file_name,
    delivery_name,
    delivery_order,
    listed_files,
    read_csv_text,
    unlisted_files,
    unlisted_problems,
)
from flows.publishing.unrated import (
    fill_receipt_windows,
    quarantined_section,
    unrated_section,
    unrated_tournaments,
)
from flows.reports import MAX_LISTED, quarantine_reason
from flows.rubele.rulebook import RUBELE_SYSTEMS, load_rubele_rulebook
from flows.runtime import RunRecord, failure_recorded, publish_markdown
from flows.warehouse import Warehouse, execute, insert_frame, query_frame, read_sql
from flows.writes import (
    KnownTournaments,
    archive_files,
    known_tournaments,
    record_problems,
    recorded_problems_section,
)
from schemas.draughts import DraughtsGameRow, DraughtsTournamentRow
from schemas.problems import problem, problem_rows, problems_frame
from transforms.inputs.draughts_csv import (
    DRAUGHTS_GAME_FIELDS,
    DRAUGHTS_TOURNAMENT_FIELDS,
    TOURNAMENTS_FILE,
    both_sides,
    draughts_entries,
    game_problems,
    type_draughts_games,
    type_draughts_tournaments,
)
from transforms.inputs.registry import DatedSnapshots
from transforms.inputs.tabular import late_receipt
from transforms.lists.periods import first_list_taking
from transforms.rubele.rulebook import RubeleRulebook


@dataclass(frozen=True)
class DraughtsDelivery:
    """A folder holding ``tournaments.csv`` and the games files it names."""

    folder: Path
    tournaments: CsvInput
    files: dict[str, InputFile]
    unlisted: tuple[str, ...] = ()  # files in the folder no listing names (not read)
    unreadable: dict[str, str] = field(default_factory=dict)  # listed files: why not read


def discover_draughts_deliveries(inbox: Path) -> list[Path]:
    if not inbox.is_dir():
        raise FileNotFoundError(f"inbox {inbox} is not a folder")
    return sorted((path.parent for path in inbox.rglob(TOURNAMENTS_FILE)), key=delivery_order)


def read_draughts_delivery(folder: Path, inbox: Path | None = None) -> DraughtsDelivery:
    """The delivery in ``folder``; its files are named from ``inbox`` when given."""
    required = [spec.name for spec in DRAUGHTS_TOURNAMENT_FIELDS if spec.required]
    listing = read_csv_text(
        folder / TOURNAMENTS_FILE,
        required,
        delivery_file_name(folder, TOURNAMENTS_FILE, inbox),
        ragged_lines_alone=False,
    )
    unreadable: dict[str, str] = {}
    return DraughtsDelivery(
        folder,
        listing,
        listed_files(folder, listing, inbox, unreadable),
        unlisted_files(folder),
        unreadable,
    )


def _tagged(
    problems: pl.DataFrame, source: str, file: InputFile, tournament: str | None
) -> pl.DataFrame:
    return problems.with_columns(
        pl.lit(source).alias("source"),
        pl.lit(file.name).alias("file_name"),
        pl.lit(file.sha256).alias("file_sha256"),
        pl.lit(tournament, dtype=pl.Utf8).alias("tournament_id"),
    )


def _version_key(row: dict[str, object], file_sha: str | None) -> str:
    facts = "|".join(
        str(row.get(name))
        for name in ("variant", "start_date", "end_date", "validity", "received_on", "points_scale")
    )
    return hashlib.sha256(f"{file_sha}|{facts}".encode()).hexdigest()


def applying_list_date(row: dict[str, object]) -> date | None:
    """The list date whose window takes a listed tournament (by its variant's rulebook and
    receipt date); None when the row names no known variant or no receipt date."""
    system = f"rubele_{row.get('variant')}"
    received = row.get("received_on")
    if system not in RUBELE_SYSTEMS or not isinstance(received, date):
        return None
    # the calendar is one for every era, also before the variant is rated (no era then)
    return first_list_taking(_shipped_rulebook(system).calendar, received)


@functools.cache
def _shipped_rulebook(system: str) -> RubeleRulebook:
    """The shipped rulebook of a draughts system, read once per process (an ingest asks it for
    every listed tournament's calendar)."""
    return load_rubele_rulebook(system)


def before_variant_start(typed: pl.DataFrame) -> pl.DataFrame:
    """A warning for each listed tournament ending before its variant is rated (the shipped
    rulebook's first era, RULES.md §3 Art. 9): it is stored, and every list sets it aside with
    the reason; the analyst hears of it now."""
    starts = pl.DataFrame(
        [
            {"variant": system.removeprefix("rubele_"), "rated_from": book.rated_from}
            for system in RUBELE_SYSTEMS
            for book in (_shipped_rulebook(system),)
        ],
        schema={"variant": pl.Utf8, "rated_from": pl.Date},
    )
    early = typed.join(starts, on="variant").filter(pl.col("end_date") < pl.col("rated_from"))
    return problem_rows(
        early,
        "end_date",
        pl.col("end_date"),
        pl.format(
            "ends before dama {} is rated (from {}, the rulebook's first era): no list will "
            "rate it, each sets it aside",
            pl.col("variant"),
            pl.col("rated_from"),
        ),
        severity="warning",
    )


def _received_long_after(typed: pl.DataFrame) -> pl.DataFrame:
    """A warning for each listed tournament received long after it ended (:func:`late_receipt`:
    a wrong file or receipt date, more often than a late arbiter)."""
    found = [
        problem(reason, field="received_on", value=received, line_no=line_no, severity="warning")
        for line_no, start, end, received in typed.select(
            "line_no", "start_date", "end_date", "received_on"
        ).rows()
        if (reason := late_receipt(end or start, received)) is not None
    ]
    return problems_frame(found)


# the report's line when no FID registry snapshot is loaded: every player is unknown to it
NO_FID_REGISTRY = (
    "- WARNING: no FID registry snapshot is loaded, so every player is unknown and every "
    "tournament is quarantined: load the FID registry (graduatoria load-fid-registry FOLDER "
    "--as-of DATE); its load checks the quarantined tournaments again"
)


# what a draughts ingest counts, per delivery and in all
INGEST_COUNTS = (
    "deliveries",
    "accepted",
    "quarantined",
    "unchanged",
    "unchanged_quarantined",  # of the unchanged, those still quarantined
    "rejections",
    "games",
    "deliveries_refused",
)


def ingest_delivery(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    delivery: DraughtsDelivery,
    identities: DatedSnapshots,
    known: KnownTournaments,
) -> dict[str, int]:
    """Check and store every tournament of one draughts delivery (a new version if changed).

    ``identities``: the FID registry's players by snapshot. A tournament's players must be in
    the snapshot that the list applying it reads (the one in force on that list date), or the
    list would enter them as strangers."""
    counts = dict.fromkeys(INGEST_COUNTS, 0) | {"deliveries": 1}
    listing = delivery.tournaments
    run.input_checksums[str(listing.file.path)] = listing.file.sha256
    archive_files(con, run.run_id, [(listing.file, "draughts tournaments")])
    _, problems = checked_csv(listing, type_draughts_tournaments, DraughtsTournamentRow)
    if listing.problems.height:
        counts["rejections"] += record_problems(
            con, run.run_id, problems.with_columns(pl.lit("draughts tournaments").alias("source"))
        )[0]
        counts["deliveries_refused"] = 1  # what it lists is unknown: nothing of it is read
        return counts
    typed, _ = type_draughts_tournaments(listing.rows)
    problems = pl.concat(
        [
            problems,
            _tagged(
                unlisted_problems(delivery.unlisted, TOURNAMENTS_FILE),
                "draughts tournaments",
                listing.file,
                None,
            ),
            _tagged(before_variant_start(typed), "draughts tournaments", listing.file, None),
            _tagged(_received_long_after(typed), "draughts tournaments", listing.file, None),
        ],
        how="diagonal_relaxed",
    )
    if typed.height == 0:
        nothing = problem(f"{listing.file.name} lists no tournament")
        problems = pl.concat(
            [
                problems,
                _tagged(problems_frame([nothing]), "draughts tournaments", listing.file, None),
            ],
            how="diagonal_relaxed",
        )
        counts["deliveries_refused"] = 1
    # a rejected row still names its tournament, which is quarantined
    named = typed.select("line_no", pl.col("tournament_id").alias("row_tournament"))
    problems = (
        problems.join(named, on="line_no", how="left")
        .with_columns(
            pl.coalesce("tournament_id", "row_tournament").alias("tournament_id"),
            pl.lit("draughts tournaments").alias("source"),
        )
        .drop("row_tournament")
    )
    counts["rejections"] += record_problems(con, run.run_id, problems)[0]
    listing_errors = problems.filter(pl.col("severity") == "error")
    bad_lines = set(listing_errors.get_column("line_no").drop_nulls().to_list())
    for row in typed.iter_rows(named=True):  # one iteration per tournament, not per game
        tournament_id, name = row["tournament_id"], row["file"]
        if tournament_id is None or name is None:
            continue  # nothing to attach a version to: the rejection says why
        taken = known.taken_by_other_game(tournament_id, "draughts")
        if taken is not None:
            counts["rejections"] += record_problems(
                con,
                run.run_id,
                _tagged(
                    problems_frame(
                        [problem(taken, "tournament_id", tournament_id, row["line_no"])]
                    ),
                    "draughts tournaments",
                    listing.file,
                    tournament_id,
                ),
            )[0]
            continue
        file = delivery.files.get(name)
        status = "quarantined" if row["line_no"] in bad_lines else "accepted"
        # what this check finds wrong with the tournament: the first is its quarantine's reason
        reasons = (
            listing_errors.filter(pl.col("line_no") == row["line_no"])
            .get_column("reason")
            .to_list()
        )
        sides = entries = pl.DataFrame()
        if file is None:
            status = "quarantined"
            missing = problems_frame(
                [
                    problem(
                        f"the games file {name} "
                        + delivery.unreadable.get(name.strip(), "is not in the delivery"),
                        "file",
                        name,
                        row["line_no"],
                    )
                ]
            )
            counts["rejections"] += record_problems(
                con,
                run.run_id,
                _tagged(missing, "draughts tournaments", listing.file, tournament_id),
            )[0]
            reasons += missing.get_column("reason").to_list()
        else:
            run.input_checksums[str(file.path)] = file.sha256
            # the bytes read with the delivery: the ones archived and fingerprinted
            # every column in the header, opponent_id too (a bye leaves it empty): without one,
            # each row would be rejected for it; the file is refused once, saying which
            source = csv_text(file, [spec.name for spec in DRAUGHTS_GAME_FIELDS])
            games, game_errors = checked_csv(source, type_draughts_games, DraughtsGameRow)
            scale = row["points_scale"] if row["points_scale"] in ("fid", "one") else None
            registry_day = applying_list_date(row)
            registered = identities.at(registry_day or date.max)
            if scale is not None and games.height:
                extra = game_problems(
                    games, tournament_id, scale, registered.get_column("player_id"), registry_day
                )
                game_errors = pl.concat(
                    [game_errors, _tagged(extra, "draughts games", file, None).drop("source")],
                    how="diagonal_relaxed",
                )
            # warnings (an unknown column, a repeated membership) are reported, never disqualify
            errors = game_errors.filter(pl.col("severity") == "error").height
            if games.height == 0 and errors == 0:
                empty = problem(f"the games file {name} holds no game", "file", name)
                game_errors = pl.concat(
                    [
                        game_errors,
                        _tagged(problems_frame([empty]), "draughts games", file, None).drop(
                            "source"
                        ),
                    ],
                    how="diagonal_relaxed",
                )
            if errors or scale is None or games.height == 0:
                status = "quarantined"
            if errors == 0 and scale is not None and games.height:
                sides = both_sides(games, scale)
                entries = draughts_entries(sides, registered)
            game_errors = game_errors.with_columns(
                pl.lit("draughts games").alias("source"),
                pl.lit(tournament_id).alias("tournament_id"),
            )
            counts["rejections"] += record_problems(con, run.run_id, game_errors)[0]
            # in the order of the file: the checks find them check by check, not line by line
            # (a line-less one, of the whole file, first)
            reasons += (
                game_errors.filter(pl.col("severity") == "error")
                .sort("line_no", nulls_last=False, maintain_order=True)
                .get_column("reason")
                .to_list()
            )
        key = _version_key(row, file.sha256 if file else None)
        reason = quarantine_reason(reasons) if status == "quarantined" else None
        if known.unchanged(
            tournament_id,
            key,
            accepted=status == "accepted",
            delivery=delivery_name(delivery.folder),
        ):
            counts["unchanged"] += 1
            counts["unchanged_quarantined"] += status == "quarantined"
            if status == "quarantined" and known.latest_key.get(tournament_id) == key:
                # checked again (a registry loaded since): what still holds it back
                execute(
                    con,
                    read_sql("queries/rubele/set_quarantine_reason.sql"),
                    {
                        "tournament_id": tournament_id,
                        "version": known.versions[tournament_id][0],
                        "reason": reason,
                    },
                )
            continue
        moved = known.receipt_moved(tournament_id, row["received_on"])
        if moved is not None:
            warning = problem(moved, "received_on", row["received_on"], row["line_no"], "warning")
            record_problems(
                con,
                run.run_id,
                _tagged(
                    problems_frame([warning]), "draughts tournaments", listing.file, tournament_id
                ),
            )
        version = known.add(
            tournament_id,
            key,
            "draughts",
            file.sha256 if file else None,
            status == "accepted",
            row["received_on"],
            delivery_name(delivery.folder),
        )
        if file is not None:
            archive_files(con, run.run_id, [(file, "draughts games")])
        played = sides.filter(pl.col("played")).height // 2 if sides.height else 0
        execute(
            con,
            read_sql("queries/rubele/insert_tournament_version.sql"),
            {
                "tournament_id": tournament_id,
                "version": version,
                "version_key": key,
                "status": status,
                # a variant the schema refused names no system (its rejection says why)
                "system": system
                if (system := f"rubele_{row['variant']}") in RUBELE_SYSTEMS
                else None,
                "file_name": name,
                "file_sha256": file.sha256 if file else None,
                "manifest_sha256": listing.file.sha256,
                "delivery": delivery_name(delivery.folder),
                "manifest_line": row["line_no"],
                "received_on": row["received_on"],
                "start_date": row["start_date"],
                "end_date": row["end_date"],
                "name": row["name"],
                "city": row["city"],
                "rounds": int(sides.get_column("round").max()) if sides.height else None,  # type: ignore[arg-type]
                "players": entries.height,
                "played_games": played,
                "validity": row["validity"],
                "points_scale": row["points_scale"],
                "run_id": run.run_id,
                "quarantine_reason": reason,
            },
        )
        if entries.height:
            numbers = entries.select("player_id", "start_number")
            tag = [pl.lit(tournament_id).alias("tournament_id"), pl.lit(version).alias("version")]
            insert_frame(
                con,
                "tournament_entry",
                entries.select(
                    "start_number",
                    "name",
                    "points",
                    "player_id",
                    pl.lit("registry").alias("match_method"),
                ).with_columns(tag),
            )
            insert_frame(
                con,
                "tournament_game",
                sides.join(numbers, on="player_id")
                .join(
                    numbers.rename({"player_id": "opponent_id", "start_number": "opponent"}),
                    on="opponent_id",
                    how="left",
                )
                .select(
                    "start_number", "round", "opponent", "result_code", "score", "kind", "played"
                )
                .with_columns(tag),
            )
        counts[status] += 1
        counts["games"] += played
    return counts


def recheck_quarantined(con: duckdb.DuckDBPyConnection, run: RunRecord) -> str:
    """Check again, from their archived files, the draughts tournaments quarantined in their
    latest version, against the FID registry as it stands now (a snapshot loaded after their
    delivery: their players were not registered yet). One that passes becomes a new, accepted
    version, as if it had been delivered again; the others stay as they are. Returns the
    report's line."""
    waiting = query_frame(con, read_sql("queries/rubele/quarantined_files.sql"))
    if waiting.height == 0:
        return ""
    identities = DatedSnapshots.of(
        query_frame(con, read_sql("queries/rubele/fid_identity_history.sql"))
    )
    known = known_tournaments(con)
    required = [spec.name for spec in DRAUGHTS_TOURNAMENT_FIELDS if spec.required]
    accepted = []
    # one delivery per quarantined tournament: a few, never one per game or player
    for row in waiting.iter_rows(named=True):
        listing = csv_text(
            InputFile(Path(row["listing_name"]), bytes(row["listing_content"])),
            required,
            ragged_lines_alone=False,
        )
        own_row = listing.rows.filter(
            pl.col("tournament_id").str.strip_chars() == row["tournament_id"]
        )
        files = {}
        if row["games_content"] is not None:
            typed, _ = type_draughts_tournaments(own_row)
            listed_as = typed.get_column("file")[0] if typed.height else None
            if listed_as is not None:
                files[listed_as] = InputFile(Path(row["games_name"]), bytes(row["games_content"]))
        delivery = DraughtsDelivery(
            Path(row["delivery"] or "archive"), replace(listing, rows=own_row), files
        )
        if ingest_delivery(con, run, delivery, identities, known)["accepted"]:
            accepted.append(row["tournament_id"])
    run.counts["draughts_tournaments_accepted_now"] = len(accepted)
    if not accepted:
        return ""
    return (
        f"- draughts tournaments quarantined before and accepted now that this snapshot "
        f"registers their players: {len(accepted)} ({', '.join(accepted)})\n"
    )


@flow(name="ingest-draughts")
@failure_recorded("ingest-draughts")
def ingest_draughts_flow(inbox: str, warehouse: str) -> dict[str, int]:
    """Ingest every draughts delivery (a folder with ``tournaments.csv``) under ``inbox``."""
    run = RunRecord(flow="ingest-draughts", parameters={"inbox": inbox})
    folders = discover_draughts_deliveries(Path(inbox))
    say(f"ingest-draughts: {counted(len(folders), 'delivery', 'deliveries')} found under {inbox}")
    totals = dict.fromkeys(INGEST_COUNTS, 0)
    with Warehouse(warehouse).transaction() as con:
        identities = DatedSnapshots.of(
            query_frame(con, read_sql("queries/rubele/fid_identity_history.sql"))
        )
        known = known_tournaments(con)
        with Progress(len(folders)) as progress:
            for folder in folders:
                counts = ingest_delivery(
                    con, run, read_draughts_delivery(folder, Path(inbox)), identities, known
                )
                for name, value in counts.items():
                    totals[name] += value
                progress.advance(
                    f"{folder.name}: {counts['accepted']} accepted, "
                    f"{counts['quarantined']} quarantined, {counts['unchanged']} unchanged, "
                    f"{counts['rejections']} new rejections"
                )
        with phase("ingest-draughts: finding the tournaments no list will rate"):
            for system in RUBELE_SYSTEMS:
                fill_receipt_windows(
                    con,
                    system,
                    lambda _day, system=system: _shipped_rulebook(system).calendar,
                )
            unrated = unrated_tournaments(con, run.run_id)
        totals["unrated"] = unrated.height
        run.counts = totals
        # without a FID snapshot every player is unknown: say why nothing was accepted
        unregistered = not identities.dates and totals["quarantined"] + totals["unchanged"] > 0
        report = (
            (
                f"# Draughts ingest of {inbox}\n\n- deliveries: {totals['deliveries']}"
                f" (refused whole, nothing of them read: {totals['deliveries_refused']})\n"
                f"- tournaments accepted: {totals['accepted']}, quarantined: "
                f"{totals['quarantined']}, unchanged: {totals['unchanged']}"
                + (
                    f" ({totals['unchanged_quarantined']} of them still quarantined: "
                    "graduatoria problems says why)"
                    if totals["unchanged_quarantined"]
                    else ""
                )
                + "\n"
                f"- games played over the board: {totals['games']}\n"
                f"- rejections (new): {totals['rejections']}\n"
            )
            + (NO_FID_REGISTRY + "\n" if unregistered else "")
            + "".join(line + "\n" for line in quarantined_section(con, run.run_id))
            + "".join(line + "\n" for line in unrated_section(unrated, MAX_LISTED))
            + recorded_problems_section(con, run.run_id)
        )
        run.write(con, "succeeded", report)
    publish_markdown(report, key="draughts-ingest-report")
    say(report)
    return totals
