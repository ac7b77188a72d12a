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
from prefect.utilities.annotations import quote

from flows.console import Progress, counted, phase, say
from flows.elo.rulebook import FSI_SYSTEMS, load_rulebook
from flows.inputs import (
    MANIFEST_NAME,
    Delivery,
    InputFile,
    discover_deliveries,
    manifest_rows,
    read_delivery,
    unlisted_problems,
)
from flows.publishing.unrated import (
    fill_receipt_windows,
    quarantined_section,
    unrated_section,
    unrated_tournaments,
)
from flows.reports import MAX_LISTED, problems_section, quarantine_reason
from flows.runtime import RunRecord, failure_recorded, publish_markdown
from flows.warehouse import Warehouse, execute, insert_frame, query_frame, read_sql, registered
from flows.writes import (
    RECORD_COLUMNS,
    KnownTournaments,
    archive_files,
    known_tournaments,
    record_problems,
)
from schemas.problems import empty_problems, problem, problems_frame
from schemas.vocabulary import CHESS_SYSTEMS
from transforms.elo.intake import ACCEPTED, TournamentIntake, build_intake, validate_parsed
from transforms.elo.rulebook import Rulebook
from transforms.inputs.matching import provisional_aliases, remember_matches
from transforms.inputs.registry import latest_identity
from transforms.inputs.trf import ParsedTrf, parse_trf_files

# a delivery without arbiter ratings gives each tournament this frame (cleared: a new one)
NO_ARBITER_RATINGS = pl.DataFrame(schema={"start_number": pl.Int32, "arbiter_rating": pl.Int32})


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
    merges = query_frame(con, read_sql("queries/player_merges.sql"))
    stored = query_frame(con, read_sql("queries/provisional_entries.sql"))
    return MatchingContext(
        registry_identity=latest_identity(snapshots),
        merges=merges,
        known=known_tournaments(con),
        rulebooks={system: load_rulebook(system) for system in CHESS_SYSTEMS},
        aliases=provisional_aliases(stored),
    )


@dataclass
class ParsedFiles:
    """A delivery's TRF files parsed, with what the schemas found in each, by file name as
    the delivery holds them (:attr:`Delivery.files`)."""

    parsed: dict[str, ParsedTrf] = field(default_factory=dict)
    schema_problems: dict[str, pl.DataFrame] = field(default_factory=dict)


@task(cache_policy=NO_CACHE)
def parse_deliveries(deliveries: list[Delivery], context: MatchingContext) -> list[ParsedFiles]:
    """Every TRF file of every delivery, parsed in one batch and checked against the schemas in
    one pass, and their players matched to the registry at once (pure work: no warehouse
    access). Each check costs about as much for a thousand files as for one: file by file, the
    checks took 30-45 ms a file, more than all the rest of an ingest."""
    named = [
        (index, name, file)
        for index, delivery in enumerate(deliveries)
        for name, file in delivery.files.items()
    ]
    parsed = parse_trf_files([file.content for _, _, file in named])
    # the files keyed apart, whatever their deliveries call them
    keys = [f"{index}/{name}" for index, name, _ in named]
    schema_problems = validate_parsed(dict(zip(keys, parsed, strict=True)))
    found = [ParsedFiles() for _ in deliveries]
    for (index, name, _), key, one in zip(named, keys, parsed, strict=True):
        found[index].parsed[name] = one
        found[index].schema_problems[name] = schema_problems[key]
    if parsed:
        # each tournament's intake then finds its lines' matches instead of matching them
        # again (a line of the national federation's TRF-26 records, which gives a national
        # id, is matched with its tournament)
        remember_matches(
            pl.concat([one.players for one in parsed]).with_columns(
                pl.lit(None, pl.String).alias("national_id")
            ),
            context.registry_identity,
            context.merges,
            context.aliases,
        )
    return found


@task(cache_policy=NO_CACHE)
def prepare_delivery(
    delivery: Delivery,
    context: MatchingContext,
    national_federation: str | None,
    files_parsed: ParsedFiles,
) -> DeliveryOutcome:
    """Check every tournament of a delivery (pure work: no warehouse access), its files as
    :func:`parse_deliveries` parsed them."""
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
    for row in usable:  # one iteration per tournament file, not per game
        tournament_id = row["tournament_id"]
        file = files[tournament_id]
        intake = build_intake(
            manifest_row=row,
            manifest_name=delivery.manifest.file.name,
            manifest_sha256=delivery.manifest.file.sha256,
            parsed=files_parsed.parsed.get(row["file"]),
            schema_problems=files_parsed.schema_problems.get(row["file"], empty_problems()),
            file_sha256=file.sha256 if file else None,
            trf_name=file.name if file else None,
            aliases=context.aliases,
            arbiter_ratings=ratings.filter(pl.col("tournament_id") == tournament_id)
            if ratings.height
            else NO_ARBITER_RATINGS.clear(),
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


# the columns of _incoming_versions (queries/insert_tournament_versions.sql)
VERSION_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.String(),
    "version": pl.Int32(),
    "version_key": pl.String(),
    "status": pl.String(),
    "system": pl.String(),
    "file_name": pl.String(),
    "file_sha256": pl.String(),
    "manifest_sha256": pl.String(),
    "manifest_line": pl.Int32(),
    "received_on": pl.Date(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "time_control": pl.String(),
    "name": pl.String(),
    "city": pl.String(),
    "federation": pl.String(),
    "rounds": pl.Int32(),
    "players": pl.Int32(),
    "played_games": pl.Int32(),
    "format": pl.String(),
    "encoding": pl.String(),
    "is_team": pl.Boolean(),
    "run_id": pl.String(),
    "delivery": pl.String(),
    "quarantine_reason": pl.String(),
}
# what a version takes from its file's header and its manifest row: the rest of its columns
# say which version it is and what became of it
TOURNAMENT_COLUMNS = [
    column
    for column in VERSION_SCHEMA
    if column
    not in {
        "tournament_id",
        "version",
        "version_key",
        "status",
        "file_sha256",
        "run_id",
        "delivery",
        "quarantine_reason",
    }
]


@dataclass
class NewRows:
    """The rows an ingest writes, gathered over every tournament and written in a few large
    inserts: one per table, where a tournament at a time took a dozen statements each."""

    run: RunRecord
    files: list[tuple[InputFile, str]] = field(default_factory=list)
    versions: list[dict[str, object]] = field(default_factory=list)
    entries: list[tuple[pl.DataFrame, dict[str, object]]] = field(default_factory=list)
    games: list[tuple[pl.DataFrame, dict[str, object]]] = field(default_factory=list)
    unmatched: list[tuple[pl.DataFrame, dict[str, object]]] = field(default_factory=list)
    problems: list[pl.DataFrame] = field(default_factory=list)

    def add_intake(self, intake: TournamentIntake, trf_sha: str | None, delivery: str) -> None:
        """One new tournament version with its entries, games and unmatched players."""
        header = intake.header
        self.versions.append(
            {
                **{column: header.get(column) for column in TOURNAMENT_COLUMNS},
                "tournament_id": intake.tournament_id,
                "version": intake.version,
                "version_key": intake.version_key,
                "status": intake.status,
                "file_sha256": trf_sha,
                "run_id": self.run.run_id,
                "delivery": delivery,
                "quarantine_reason": shown_reason(intake),
            }
        )
        tag = {"tournament_id": intake.tournament_id, "version": intake.version}
        if intake.entries.height:
            self.entries.append((intake.entries, tag))
            self.games.append((intake.games, tag))
        if intake.unmatched.height:
            self.unmatched.append((intake.unmatched, {**tag, "run_id": self.run.run_id}))

    def write(self, con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
        """Insert everything gathered; returns the new (rejections, warnings)."""
        archive_files(con, self.run.run_id, self.files)
        if self.versions:
            versions = pl.DataFrame(self.versions, schema=VERSION_SCHEMA, strict=False)
            with registered(con, "_incoming_versions", versions):
                execute(con, read_sql("queries/insert_tournament_versions.sql"))
        for table, frames in (
            ("tournament_entry", self.entries),
            ("tournament_game", self.games),
            ("player_match", self.unmatched),
        ):
            if any(frame.height for frame, _ in frames):
                insert_frame(con, table, tagged_rows(frames))
        if not self.problems:
            return 0, 0
        return record_problems(
            con,
            self.run.run_id,
            pl.concat(
                [problems.select(RECORD_COLUMNS) for problems in self.problems],
                how="vertical_relaxed",
            ),
        )


def tagged_rows(frames: list[tuple[pl.DataFrame, dict[str, object]]]) -> pl.DataFrame:
    """The rows of many frames of one shape, each with its tag's columns (the same keys for
    every frame): one frame, in order."""
    frames = [(frame, tag) for frame, tag in frames if frame.height]
    # one chunk: DuckDB scans a frame of a thousand chunks (one per tournament) much slower
    rows = pl.concat([frame for frame, _ in frames], how="vertical_relaxed", rechunk=True)
    tags = pl.DataFrame([tag for _, tag in frames])
    heights = pl.Series([frame.height for frame, _ in frames])
    # each row's frame: 0 for the rows of the first, 1 for the next, ...
    owner = pl.select(pl.int_range(len(frames)).repeat_by(heights).explode()).to_series()
    return pl.concat([rows, tags[owner]], how="horizontal")


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
    rows = NewRows(run)
    for outcome in outcomes:
        manifest = outcome.delivery.manifest.file
        run.input_checksums[str(manifest.path)] = manifest.sha256
        rows.files.append((manifest, "manifest"))
        rows.problems.append(
            outcome.manifest_problems.with_columns(
                pl.lit("manifest").alias("source"),
                pl.lit(manifest.name).alias("file_name"),
                pl.lit(manifest.sha256).alias("file_sha256"),
                pl.col("tournament_id")
                if "tournament_id" in outcome.manifest_problems.columns
                else pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
            )
        )
        counts["tournaments_unchanged"] += len(outcome.unchanged)
        for intake in outcome.intakes:  # one iteration per tournament, not per game
            file = outcome.delivery.files.get(str(intake.header.get("file_name")))
            if file is not None:
                run.input_checksums[str(file.path)] = file.sha256
                rows.files.append((file, "trf"))
            rows.add_intake(intake, file.sha256 if file else None, outcome.delivery.name)
            if intake.problems.height:
                rows.problems.append(intake.problems_for_record(file.sha256 if file else None))
            counts["tournaments_new_versions"] += 1
            accepted = intake.status == ACCEPTED
            counts["tournaments_accepted" if accepted else "tournaments_quarantined"] += 1
            counts["games_played"] += int(intake.header.get("played_games") or 0)
            if intake.unmatched.height:
                provisional.update(intake.unmatched.get_column("provisional_id").to_list())
    counts["rejections_new"], counts["warnings_new"] = rows.write(con)
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
    say(f"ingest: {counted(len(folders), 'delivery', 'deliveries')} found under {inbox}")
    # the phases that grow with the inbox and the warehouse say what they do and how long it
    # took: a national ingest is otherwise seconds of silence
    with phase("ingest: reading the files"):
        deliveries = [read_delivery(folder, Path(inbox)) for folder in folders]
    with Warehouse(warehouse).transaction() as con:
        with phase("ingest: reading the registry and the tournaments known"):
            context = load_matching_context(con)
        # quoted: Prefect would otherwise walk every file and every known tournament of a
        # task's inputs, looking for the results of other tasks (a second for an inbox of a
        # thousand files)
        with phase("ingest: parsing the TRF files"):
            parsed = parse_deliveries(quote(deliveries), quote(context))
        outcomes = []
        with Progress(len(deliveries)) as progress:
            for delivery, files_parsed in zip(deliveries, parsed, strict=True):
                outcomes.append(
                    prepare_delivery(
                        quote(delivery), quote(context), national_federation, quote(files_parsed)
                    )
                )
                progress.advance(f"{delivery.folder.name}: checked")
        with phase("ingest: writing the tournaments"):
            run.counts = write_outcomes(con, run, outcomes)
            unrated = unrated_among_new(con, run)
        run.counts["tournaments_unrated"] = unrated.height
        recorded = query_frame(con, read_sql("queries/run_problems.sql"), {"run_id": run.run_id})
        report = ingest_report(
            run,
            outcomes,
            unrated,
            context.registry_identity.height > 0,
            recorded,
            quarantined_section(con, run.run_id),
        )
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


def shown_reason(intake: TournamentIntake) -> str | None:
    """Why a quarantined tournament is not rated, as the analyst reads it everywhere (the
    ingest report, `problems`, the lists): its first error in the order of its files, and how
    many more (None for an accepted one)."""
    if intake.status == ACCEPTED:
        return None
    return quarantine_reason(intake.errors.get_column("reason").to_list())


def ingest_report(
    run: RunRecord,
    outcomes: list[DeliveryOutcome],
    unrated: pl.DataFrame,
    registry_loaded: bool,
    new_problems: pl.DataFrame | None = None,
    quarantined: list[str] | None = None,
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
        if intake.problems.height  # most have none: a thousand empty frames take a while
    ]
    problems = pl.concat(problem_frames) if problem_frames else pl.DataFrame()
    # what this run read (listed below), and of it what no earlier run had recorded
    errors = problems.filter(pl.col("severity") == "error").height if problems.height else 0
    lines.append(
        f"- rejections: {errors} (new: {counts['rejections_new']}); warnings: "
        f"{problems.height - errors} (new: {counts['warnings_new']})"
    )
    lines += quarantined or []
    lines += unrated_section(unrated, MAX_LISTED)
    report = "\n".join(lines) + "\n"
    return report + (problems_section(problems, new_problems) if problems.height else "")
