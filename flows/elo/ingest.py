"""The ``ingest`` flow: deliveries (manifest + TRF files) into the warehouse, in one transaction.

Re-running the same inbox adds nothing but the run record: a tournament whose file and manifest
facts are unchanged is skipped, a changed one becomes a new version (the old one is kept), and
rejections are keyed by their content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.console import Progress, phase, say
from flows.elo.rulebook import FSI_SYSTEMS, load_rulebook
from flows.inputs import (
    MANIFEST_NAME,
    Delivery,
    discover_deliveries,
    manifest_rows,
    read_delivery,
    unlisted_problems,
)
from flows.publishing.unrated import fill_receipt_windows, unrated_section, unrated_tournaments
from flows.reports import MAX_LISTED, problems_section
from flows.runtime import RunRecord, failure_recorded, publish_markdown
from flows.warehouse import Warehouse, execute, insert_frame, query_frame, read_sql
from flows.writes import KnownTournaments, archive_files, known_tournaments, record_problems
from schemas.inputs import CHESS_SYSTEMS
from schemas.problems import empty_problems, problem, problems_frame
from transforms.elo.intake import ACCEPTED, TournamentIntake, build_intake, validate_parsed
from transforms.elo.rulebook import Rulebook
from transforms.inputs.matching import provisional_aliases
from transforms.inputs.registry import latest_identity
from transforms.inputs.trf import parse_trf


@dataclass
class MatchingContext:
    """What the warehouse already knows, read once inside the write transaction."""

    registry_identity: pl.DataFrame
    merges: pl.DataFrame
    # every tournament id with its versions (an inbox is cumulative, so a delivery already
    # ingested must stay "unchanged" even after a later correction), game and latest file
    known: KnownTournaments
    # each system's rulebook: the size conditions of a valid tournament (Elo Rapid), the time
    # per player, the ratings the chief arbiter may give, the federation's country
    rulebooks: dict[str, Rulebook] = field(default_factory=dict)
    # the earlier provisional ids unidentified players keep (transforms.matching)
    aliases: pl.DataFrame | None = None


@dataclass
class DeliveryOutcome:
    """A delivery after parsing: new tournament versions and manifest-level problems."""

    delivery: Delivery
    intakes: list[TournamentIntake] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    manifest_problems: pl.DataFrame = field(default_factory=empty_problems)
    # nothing of the delivery could be read (its manifest refused, or listing nothing)
    refused: bool = False


def load_matching_context(con: duckdb.DuckDBPyConnection) -> MatchingContext:
    snapshots = query_frame(con, read_sql("queries/registry_identity.sql"))
    merges = query_frame(con, "SELECT provisional_id, player_id FROM player_merge")
    stored = query_frame(con, read_sql("queries/provisional_entries.sql"))
    return MatchingContext(
        registry_identity=latest_identity(snapshots),
        merges=merges,
        known=known_tournaments(con),
        rulebooks={system: load_rulebook(system) for system in CHESS_SYSTEMS},
        aliases=provisional_aliases(stored),
    )


@task(cache_policy=NO_CACHE)
def prepare_delivery(
    delivery: Delivery, context: MatchingContext, national_federation: str | None = None
) -> DeliveryOutcome:
    """Parse and check every tournament of a delivery (pure work: no warehouse access)."""
    typed, ratings, problems = manifest_rows(delivery)
    if typed.height == 0 and problems.filter(pl.col("severity") == "error").height == 0:
        # a manifest with a header and no row (or only empty ones): say so, or the delivery
        # would pass without a trace
        problems = pl.concat(
            [problems, problems_frame([problem("the manifest lists no tournament")])]
        )
    problems = pl.concat([problems, unlisted_problems(delivery.unlisted, MANIFEST_NAME)])
    outcome = DeliveryOutcome(delivery=delivery, manifest_problems=problems)
    if typed.height == 0:
        outcome.refused = problems.filter(pl.col("severity") == "error").height > 0
        return outcome
    lines_with_errors = set(
        problems.filter(pl.col("severity") == "error").get_column("line_no").drop_nulls().to_list()
    )
    repeated = typed.filter(pl.len().over("tournament_id") > 1)
    repeated_ids = set(repeated.get_column("tournament_id").drop_nulls().to_list())
    usable = [
        row
        for row in typed.iter_rows(named=True)
        # without a unique id there is nothing to attach a version to, and without a file name
        # nothing to read: the manifest's rejection of the row says why
        if row["tournament_id"] is not None
        and row["tournament_id"] not in repeated_ids
        and row["file"] is not None
    ]
    taken = [
        (row, reason)
        for row in usable
        if (reason := context.known.taken_by_other_game(row["tournament_id"], "chess"))
    ]
    if taken:
        outcome.manifest_problems = pl.concat(
            [
                outcome.manifest_problems,
                problems_frame(
                    [
                        problem(reason, "tournament_id", row["tournament_id"], row["line_no"])
                        for row, reason in taken
                    ]
                ),
            ]
        )
        refused = {row["tournament_id"] for row, _ in taken}
        usable = [row for row in usable if row["tournament_id"] not in refused]
    files = {row["tournament_id"]: delivery.files.get(row["file"] or "") for row in usable}
    parsed = {tid: parse_trf(file.content) for tid, file in files.items() if file is not None}
    schema_problems = validate_parsed(parsed)
    for row in usable:  # one iteration per tournament file, not per game
        tournament_id = row["tournament_id"]
        file = files[tournament_id]
        intake = build_intake(
            manifest_row=row,
            manifest_name=delivery.manifest.file.name,
            manifest_sha256=delivery.manifest.file.sha256,
            parsed=parsed.get(tournament_id),
            schema_problems=schema_problems.get(tournament_id, empty_problems()),
            file_sha256=file.sha256 if file else None,
            trf_name=file.name if file else None,
            aliases=context.aliases,
            arbiter_ratings=ratings.filter(pl.col("tournament_id") == tournament_id)
            if ratings.height
            else pl.DataFrame(schema={"start_number": pl.Int32, "arbiter_rating": pl.Int32}),
            registry_identity=context.registry_identity,
            merges=context.merges,
            national_federation=national_federation,
            manifest_rejected=row["line_no"] in lines_with_errors,
            rulebook=context.rulebooks.get(str(row["system"])),
            unreadable=delivery.unreadable.get((row["file"] or "").strip()),
        )
        twin = context.known.same_file_as(tournament_id, file.sha256 if file else None)
        if twin is not None:
            intake = intake.quarantined_for(
                problem(
                    f"this file is the very file of tournament {twin}: its games would be rated "
                    "twice (deliver it under one id only)",
                    "file",
                    row["file"],
                    row["line_no"],
                ),
                source="manifest",
                file_name=delivery.manifest.file.name,
            )
        # after the twin check: a twin's quarantine is no reason to write it again
        if context.known.unchanged(
            tournament_id,
            intake.version_key,
            accepted=intake.status == ACCEPTED,
            delivery=delivery.name,
        ):
            outcome.unchanged.append(tournament_id)
            continue
        moved = context.known.receipt_moved(tournament_id, row["received_on"])
        if moved is not None:
            intake = intake.warned_of(
                problem(moved, "received_on", row["received_on"], row["line_no"], "warning"),
                source="manifest",
                file_name=delivery.manifest.file.name,
            )
        version = context.known.add(
            tournament_id,
            intake.version_key,
            "chess",
            file.sha256 if file else None,
            accepted=intake.status == ACCEPTED,
            received_on=row["received_on"],
            delivery=delivery.name,
        )
        outcome.intakes.append(intake.with_version(version))
    # a problem of a manifest row belongs to the tournament the row names
    outcome.manifest_problems = outcome.manifest_problems.join(
        typed.select("line_no", "tournament_id"), on="line_no", how="left"
    )
    return outcome


def write_intake(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    intake: TournamentIntake,
    trf_sha: str | None,
    delivery: str,
) -> None:
    """Store one new tournament version with its entries, games and unmatched players."""
    header = intake.header
    execute(
        con,
        read_sql("queries/insert_tournament_version.sql"),
        {
            **{column: header.get(column) for column in TOURNAMENT_COLUMNS},
            "tournament_id": intake.tournament_id,
            "version": intake.version,
            "version_key": intake.version_key,
            "status": intake.status,
            "file_sha256": trf_sha,
            "run_id": run.run_id,
            "delivery": delivery,
        },
    )
    tag = {"tournament_id": intake.tournament_id, "version": intake.version}
    if intake.entries.height:
        insert_tagged(con, "tournament_entry", intake.entries, tag)
        insert_tagged(con, "tournament_game", intake.games, tag)
    if intake.unmatched.height:
        insert_tagged(con, "player_match", intake.unmatched, {**tag, "run_id": run.run_id})


TOURNAMENT_COLUMNS = [
    "system",
    "file_name",
    "manifest_sha256",
    "manifest_line",
    "received_on",
    "start_date",
    "end_date",
    "time_control",
    "name",
    "city",
    "federation",
    "rounds",
    "players",
    "played_games",
    "format",
    "encoding",
    "is_team",
]


def insert_tagged(
    con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, tag: dict[str, object]
) -> None:
    insert_frame(con, table, frame.with_columns([pl.lit(v).alias(k) for k, v in tag.items()]))


def write_outcomes(
    con: duckdb.DuckDBPyConnection, run: RunRecord, outcomes: list[DeliveryOutcome]
) -> dict[str, int]:
    counts = {
        "deliveries": len(outcomes),
        "deliveries_refused": sum(outcome.refused for outcome in outcomes),
        "tournaments_new_versions": 0,
        "tournaments_accepted": 0,
        "tournaments_quarantined": 0,
        "tournaments_unchanged": 0,
        "games_played": 0,
        "players_unmatched": 0,
        "rejections_new": 0,
        "warnings_new": 0,
    }
    provisional: set[str] = set()  # a player unmatched in two tournaments is one player
    for outcome in outcomes:
        manifest = outcome.delivery.manifest.file
        run.input_checksums[str(manifest.path)] = manifest.sha256
        archive_files(con, run.run_id, [(manifest, "manifest")])
        new_rejections, new_warnings = record_problems(
            con,
            run.run_id,
            outcome.manifest_problems.with_columns(
                pl.lit("manifest").alias("source"),
                pl.lit(manifest.name).alias("file_name"),
                pl.lit(manifest.sha256).alias("file_sha256"),
                pl.col("tournament_id")
                if "tournament_id" in outcome.manifest_problems.columns
                else pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
            ),
        )
        counts["rejections_new"] += new_rejections
        counts["warnings_new"] += new_warnings
        counts["tournaments_unchanged"] += len(outcome.unchanged)
        for intake in outcome.intakes:
            file = outcome.delivery.files.get(str(intake.header.get("file_name")))
            if file is not None:
                run.input_checksums[str(file.path)] = file.sha256
                archive_files(con, run.run_id, [(file, "trf")])
            write_intake(
                con,
                run,
                intake,
                file.sha256 if file else None,
                outcome.delivery.name,
            )
            new_rejections, new_warnings = record_problems(
                con, run.run_id, intake.problems_for_record(file.sha256 if file else None)
            )
            counts["rejections_new"] += new_rejections
            counts["warnings_new"] += new_warnings
            counts["tournaments_new_versions"] += 1
            accepted = intake.status == ACCEPTED
            counts["tournaments_accepted" if accepted else "tournaments_quarantined"] += 1
            counts["games_played"] += int(intake.header.get("played_games") or 0)
            if intake.unmatched.height:
                provisional.update(intake.unmatched.get_column("provisional_id").to_list())
    counts["players_unmatched"] = len(provisional)
    return counts


@flow(name="ingest")
@failure_recorded("ingest")
def ingest_flow(
    inbox: str, warehouse: str, national_federation: str | None = None
) -> dict[str, int]:
    """Ingest every delivery under ``inbox`` into ``warehouse``; return the counts.

    ``national_federation`` overrides the federation's country code, which is otherwise the
    rulebook's (``federation.country`` of the era each tournament was played in)."""
    run = RunRecord(
        flow="ingest",
        parameters={"inbox": inbox, "national_federation": national_federation},
    )
    folders = discover_deliveries(Path(inbox))
    say(f"ingest: {len(folders)} deliveries found under {inbox}")
    # the phases that grow with the inbox and the warehouse say what they do and how long it
    # took: a national ingest is otherwise seconds of silence
    with phase("ingest: reading the files"):
        deliveries = [read_delivery(folder, Path(inbox)) for folder in folders]
    with Warehouse(warehouse).transaction() as con:
        with phase("ingest: reading the registry and the tournaments known"):
            context = load_matching_context(con)
        outcomes = []
        with Progress(len(deliveries)) as progress:
            for delivery in deliveries:
                outcomes.append(prepare_delivery(delivery, context, national_federation))
                progress.advance(f"{delivery.folder.name}: parsed")
        with phase("ingest: writing the tournaments"):
            run.counts = write_outcomes(con, run, outcomes)
            unrated = unrated_among_new(con, run)
        run.counts["tournaments_unrated"] = unrated.height
        report = ingest_report(run, outcomes, unrated, context.registry_identity.height > 0)
        run.write(con, "succeeded", report)
    publish_markdown(report, key="ingest-report")
    say(report)
    return run.counts


def unrated_among_new(con: duckdb.DuckDBPyConnection, run: RunRecord) -> pl.DataFrame:
    """The tournaments this ingest accepted that no list will rate (received before their
    system's first list takes tournaments)."""
    for system in FSI_SYSTEMS:
        rulebook = load_rulebook(system)
        fill_receipt_windows(
            con, system, lambda day, rulebook=rulebook: rulebook.era_at(day).calendar
        )
    return unrated_tournaments(con, run.run_id)


def ingest_report(
    run: RunRecord, outcomes: list[DeliveryOutcome], unrated: pl.DataFrame, registry_loaded: bool
) -> str:
    counts = run.counts
    lines = [
        f"# Ingest run {run.run_id}",
        "",
        f"- deliveries read: {counts['deliveries']}",
        f"- new tournament versions: {counts['tournaments_new_versions']} "
        f"({counts['tournaments_accepted']} accepted, "
        f"{counts['tournaments_quarantined']} quarantined)",
        f"- tournaments unchanged since an earlier ingest: {counts['tournaments_unchanged']}",
        f"- played games in new versions: {counts['games_played']}",
        f"- players not found in the registry (provisional ids): {counts['players_unmatched']}",
        *(
            []
            if registry_loaded or not counts["players_unmatched"]
            else [
                "- WARNING: no registry snapshot is loaded, so every player is provisional: "
                "load the registry (graduatoria load-registry FOLDER --as-of DATE); its "
                "snapshot will identify them"
            ]
        ),
    ]
    problem_frames = [
        outcome.manifest_problems.with_columns(
            pl.lit(outcome.delivery.manifest.file.name).alias("file_name"),
            pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
        ).select("file_name", "tournament_id", "line_no", "field", "value", "reason", "severity")
        for outcome in outcomes
    ] + [
        intake.problems.with_columns(pl.lit(intake.tournament_id).alias("tournament_id")).select(
            "file_name", "tournament_id", "line_no", "field", "value", "reason", "severity"
        )
        for outcome in outcomes
        for intake in outcome.intakes
    ]
    problems = pl.concat(problem_frames) if problem_frames else pl.DataFrame()
    # what this run read (listed below), and of it what no earlier run had recorded
    errors = problems.filter(pl.col("severity") == "error").height if problems.height else 0
    lines.append(
        f"- rejections: {errors} (new: {counts['rejections_new']}); warnings: "
        f"{problems.height - errors} (new: {counts['warnings_new']})"
    )
    quarantined = [
        intake for outcome in outcomes for intake in outcome.intakes if intake.status != "accepted"
    ]
    if quarantined:
        lines += ["", "## Quarantined tournaments (not rated until delivered again)"]
        for intake in quarantined:
            first = intake.errors.row(0, named=True) if intake.errors.height else None
            reason = first["reason"] if first else "the manifest row was rejected"
            lines.append(f"- {intake.tournament_id}: {reason}")
    lines += unrated_section(unrated, MAX_LISTED)
    report = "\n".join(lines) + "\n"
    return report + (problems_section(problems) if problems.height else "")
