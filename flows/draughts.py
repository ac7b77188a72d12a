"""Draughts (FID Elo-Rubele) flows: the FID registry, draughts deliveries, and the lists of
``rubele_italiana`` and ``rubele_internazionale`` (publish one list date, or replay a range).

Tournaments share the chess tables (system = rubele_<variant>); lists share the list tables and
the public views. The pure work is in ``transforms/inputs/draughts_csv.py``,
``transforms/rubele/capitals.py`` and ``transforms/rubele/lists.py``.
"""

from __future__ import annotations

import functools
import hashlib
import time
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import duckdb
import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

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
from flows.lists import (
    OFFICIAL,
    ListError,
    ListImport,
    PeriodContext,
    WrittenList,
    diff_against,
    first_receipt,
    inputs_checksums,
    list_context,
    read_previous,
    refuse_a_scenario_on_another_rulebook,
    refuse_an_empty_first_list,
    refuse_bad_scenario_name,
    refuse_imported_dates,
    refuse_stale_lists_before,
    replay_dates,
    superseded_note,
    write_list,
)
from flows.registry import RegistryKind, checked_csv, load_snapshot
from flows.report import MAX_LISTED, TOP_MOVES, moves_sections
from flows.runtime import (
    RunRecord,
    artifact_key,
    counted,
    failure_recorded,
    publish_markdown,
    say,
)
from flows.warehouse import Warehouse, execute, insert_frame, query_frame, read_sql
from flows.writes import (
    KnownTournaments,
    archive_files,
    known_tournaments,
    record_problems,
    recorded_problems_section,
)
from schemas.draughts import (
    DraughtsGameRow,
    DraughtsTournamentRow,
    FidPlayer,
    PublishedCapitalRow,
)
from schemas.inputs import ALL_SYSTEMS, CHESS_SYSTEMS
from schemas.problems import empty_problems, problem, problems_frame
from transforms.inputs.draughts_csv import (
    DRAUGHTS_GAME_FIELDS,
    DRAUGHTS_TOURNAMENT_FIELDS,
    TOURNAMENTS_FILE,
    both_sides,
    draughts_entries,
    game_problems,
    type_draughts_games,
    type_draughts_tournaments,
    type_fid_players,
)
from transforms.inputs.registry import DatedSnapshots
from transforms.lists.eras import RulebookError, default_rulebook_path
from transforms.lists.periods import cutoff_for, first_list_taking
from transforms.lists.published import PublishedList
from transforms.rubele.lists import RubeleFacts, build_rubele_list, imported_capitals
from transforms.rubele.rulebook import RubeleRulebook, parse_rubele_rulebook

RUBELE_SYSTEMS = tuple(system for system in ALL_SYSTEMS if system not in CHESS_SYSTEMS)
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


def load_rubele_rulebook(system: str, path: str | None = None) -> RubeleRulebook:
    if system not in RUBELE_SYSTEMS:
        raise ListError(f"unknown system {system!r}; expected one of {', '.join(RUBELE_SYSTEMS)}")
    source = Path(path) if path else default_rulebook_path(system)
    if not source.is_file():
        raise RulebookError(f"no rulebook at {source}")
    rulebook = parse_rubele_rulebook(source.read_bytes(), source.name)
    if rulebook.system != system:
        raise RulebookError(f"{source.name} is the rulebook of {rulebook.system}, not {system}")
    return rulebook


@flow(name="load-fid-registry")
@failure_recorded("load-fid-registry")
def load_fid_registry_flow(folder: str, as_of: date, warehouse: str) -> dict[str, int]:
    """The FID registry (``players.csv``, ``memberships.csv``) as the snapshot at ``as_of``."""
    return load_snapshot(FID_REGISTRY, folder, as_of, warehouse)


# --------------------------------------------------------------------------- ingest


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
    calendar = _shipped_rulebook(system).era_at(received).calendar
    return first_list_taking(calendar, received)


@functools.cache
def _shipped_rulebook(system: str) -> RubeleRulebook:
    """The shipped rulebook of a draughts system, read once per process (an ingest asks it for
    every listed tournament's calendar)."""
    return load_rubele_rulebook(system)


# what a draughts ingest counts, per delivery and in all
INGEST_COUNTS = (
    "deliveries",
    "accepted",
    "quarantined",
    "unchanged",
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
    errors = problems.filter(pl.col("severity") == "error")
    bad_lines = set(errors.get_column("line_no").drop_nulls().to_list())
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
        key = _version_key(row, file.sha256 if file else None)
        if known.unchanged(
            tournament_id,
            key,
            accepted=status == "accepted",
            delivery=delivery_name(delivery.folder),
        ):
            counts["unchanged"] += 1
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


@flow(name="ingest-draughts")
@failure_recorded("ingest-draughts")
def ingest_draughts_flow(inbox: str, warehouse: str) -> dict[str, int]:
    """Ingest every draughts delivery (a folder with ``tournaments.csv``) under ``inbox``."""
    run = RunRecord(flow="ingest-draughts", parameters={"inbox": inbox})
    folders = discover_draughts_deliveries(Path(inbox))
    say(f"ingest-draughts: {len(folders)} deliveries found under {inbox}")
    totals = dict.fromkeys(INGEST_COUNTS, 0)
    with Warehouse(warehouse).transaction() as con:
        identities = DatedSnapshots.of(
            query_frame(con, read_sql("queries/rubele/fid_identity_history.sql"))
        )
        known = known_tournaments(con)
        for number, folder in enumerate(folders, start=1):
            counts = ingest_delivery(
                con, run, read_draughts_delivery(folder, Path(inbox)), identities, known
            )
            for name, value in counts.items():
                totals[name] += value
            say(
                f"  [{number}/{len(folders)}] {folder.name}: {counts['accepted']} accepted, "
                f"{counts['quarantined']} quarantined, {counts['unchanged']} unchanged, "
                f"{counts['rejections']} new rejections"
            )
        run.counts = totals
        report = (
            f"# Draughts ingest of {inbox}\n\n- deliveries: {totals['deliveries']}"
            f" (refused whole, nothing of them read: {totals['deliveries_refused']})\n"
            f"- tournaments accepted: {totals['accepted']}, quarantined: {totals['quarantined']}, "
            f"unchanged: {totals['unchanged']}\n- games played over the board: {totals['games']}\n"
            f"- rejections (new): {totals['rejections']}\n"
        ) + recorded_problems_section(con, run.run_id)
        run.write(con, "succeeded", report)
    publish_markdown(report, key="draughts-ingest-report")
    say(report)
    return totals


# --------------------------------------------------------------------------- lists


def rubele_context(
    con: duckdb.DuckDBPyConnection,
    system: str,
    scenario: str,
    list_date: date,
    rulebook: RubeleRulebook,
    previous: pl.DataFrame,
) -> PeriodContext:
    """Where a draughts list date stands (capitals are read at the list date itself)."""
    return list_context(
        system,
        scenario,
        list_date,
        rulebook.era_at(list_date),
        rulebook,
        previous,
        list_date,
        lambda up_to: rubele_fingerprint(con, system, list_date, up_to),
        first_receipt=lambda: first_receipt(con, system),
    )


def rubele_list_fingerprint(
    con: duckdb.DuckDBPyConnection, system: str, rulebook: RubeleRulebook, list_date: date
) -> str:
    """What a draughts list of ``list_date`` would be computed from, now (stale lists)."""
    era = rulebook.era_at(list_date)
    return rubele_fingerprint(con, system, list_date, cutoff_for(era.calendar, list_date))


def rubele_fingerprint(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date, up_to: date
) -> str:
    return str(
        execute(
            con,
            read_sql("queries/rubele/inputs_fingerprint.sql"),
            {"system": system, "list_date": list_date, "up_to": up_to},
        )[0][0]
    )


def fid_people_at(con: duckdb.DuckDBPyConnection, day: date) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The FID registry in force on ``day`` and the players who are members for its year."""
    history = {"day": day}
    registry = DatedSnapshots.of(
        query_frame(con, read_sql("queries/rubele/fid_registry_history.sql"), history)
    ).at(day)
    members = DatedSnapshots.of(
        query_frame(con, read_sql("queries/rubele/fid_membership_history.sql"), history)
    ).at(day)
    return registry, members.filter(pl.col("year") == day.year).select("player_id")


def rubele_list_import(system: str, list_date: date) -> ListImport:
    """How a published FID list of capitals is imported (see ``import_list_flow``)."""
    rulebook = load_rubele_rulebook(system)
    return ListImport(
        rulebook=rulebook,
        era=rulebook.era_at(list_date),
        row_schema=PublishedCapitalRow,
        categories=rulebook.era_at(list_date).category_order,
        prepare=lambda rows: (rows, empty_problems()),
        read_people=lambda con: fid_people_at(con, list_date),
        build_rows=lambda published, registry, members: imported_capitals(
            published, registry, members, rulebook, list_date
        ),
    )


def read_rubele_facts(
    con: duckdb.DuckDBPyConnection, context: PeriodContext, previous: pl.DataFrame
) -> RubeleFacts:
    window = {"system": context.system, "after": context.after, "up_to": context.up_to}
    registry, members = fid_people_at(con, context.list_date)
    return RubeleFacts(
        previous=previous,
        tournaments=query_frame(con, read_sql("queries/rubele/period_tournaments.sql"), window),
        entries=query_frame(con, read_sql("queries/rubele/period_entries.sql"), window),
        games=query_frame(con, read_sql("queries/rubele/period_games.sql"), window),
        registry=registry,
        members=members,
        played_before=query_frame(
            con,
            read_sql("queries/rubele/last_played.sql"),
            {"system": context.system, "after": context.after},
        ),
    )


def rubele_report(
    context: PeriodContext,
    facts: RubeleFacts,
    published: PublishedList,
    quarantined: pl.DataFrame,
) -> str:
    rows = published.rows
    rulebook = context.rulebook
    set_aside = published.excluded.join(quarantined, on="tournament_id", how="anti")
    moved = rows.filter(pl.col("games") > 0).sort("period_change", descending=True)
    promoted = rows.filter(
        pl.col("previous_category").is_not_null()
        & pl.col("category").ne_missing(pl.col("previous_category"))
    ).sort("player_id")
    lines = [
        f"# {context.system} list of {context.list_date}",
        "",
        f"- tournaments received after {context.after} up to {context.up_to}: "
        f"{facts.tournaments.height}, applied in order of "
        f"{', '.join(rulebook.tournament_order).replace('_', ' ')}; quarantined (not "
        f"applied): {quarantined.height}; set aside by the list: {set_aside.height}",
        f"- previous list: {context.previous_date or 'none (everyone enters as a debutant)'}",
        f"- rules: rulebook {context.rulebook.source} sha256 {context.rulebook.content_hash[:12]}",
        f"- players on the list: {rows.height}; with counted games: {moved.height}; in the "
        f"national ranking: {int(rows.get_column('in_ranking').sum())}",
        f"- debutants: {rows.filter(pl.col('rating_basis') == 'debutant').height}; foreign "
        f"entries: {rows.filter(pl.col('rating_basis') == 'foreign').height}; category "
        f"promotions: {promoted.height}",
    ]
    # ties in player id order, so the same list always reports the same players
    moves = moved.with_columns(pl.col("period_change").alias("change"))
    lines += moves_sections(
        moves.filter(pl.col("change") > 0)
        .sort(["change", "player_id"], descending=[True, False])
        .head(TOP_MOVES),
        moves.filter(pl.col("change") < 0).sort(["change", "player_id"]).head(TOP_MOVES),
    )
    if quarantined.height:
        lines += ["", "## Quarantined tournaments (not applied)"]
        lines += [
            f"- {row['tournament_id']} ({row['file_name']}): {row['reason']}"
            for row in quarantined.iter_rows(named=True)
        ]
    if set_aside.height:
        lines += ["", "## Tournaments set aside by the list (not applied)"]
        lines += [
            f"- {row['tournament_id']}: {row['reason']}" for row in set_aside.iter_rows(named=True)
        ]
    if promoted.height:
        lines += ["", f"## Promotions ({promoted.height}, first {MAX_LISTED})"]
        lines += [
            f"- {row['name'] or row['player_id']} ({row['player_id']}): "
            f"{row['previous_category']} -> {row['category']}"
            for row in promoted.head(MAX_LISTED).iter_rows(named=True)
        ]
    newcomers = rows.filter(pl.col("rating_basis").is_in(["debutant", "foreign"]))
    if newcomers.height:
        lines += ["", f"## New players ({newcomers.height}, first {MAX_LISTED})"]
        lines += [
            f"- {row['name'] or row['player_id']} ({row['player_id']}): entered at "
            f"{row['frozen_rating']} ({row['rating_basis']})"
            for row in newcomers.sort("player_id").head(MAX_LISTED).iter_rows(named=True)
        ]
    return "\n".join(lines) + "\n"


@task(cache_policy=NO_CACHE)
def compute_rubele_list(
    facts: RubeleFacts, rulebook: RubeleRulebook, list_date: date
) -> PublishedList:
    return build_rubele_list(facts, rulebook, list_date)


def publish_rubele(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    scenario: str,
    list_date: date,
    rulebook: RubeleRulebook,
) -> WrittenList:
    previous = read_previous(con, system, scenario, list_date)
    context = rubele_context(con, system, scenario, list_date, rulebook, previous)
    facts = read_rubele_facts(con, context, previous)
    # quoted: Prefect would otherwise walk every field of the facts and the rulebook
    published = compute_rubele_list(quote(facts), quote(rulebook), list_date)
    quarantined = query_frame(
        con,
        read_sql("queries/rubele/period_quarantined.sql"),
        {"system": system, "after": context.after, "up_to": context.up_to},
    )
    # the list's own exclusions (a validity its era does not know) beside the quarantined ones
    published = replace(
        published,
        excluded=pl.concat([quarantined.select("tournament_id", "reason"), published.excluded]),
    )
    report = rubele_report(context, facts, published, quarantined)
    return write_list(con, run, context, published, report)


@flow(name="rubele-quarterly")
@failure_recorded("quarterly")
def rubele_quarterly_flow(
    system: str, list_date: date, warehouse: str, rulebook_path: str | None = None
) -> dict[str, int]:
    """Publish the draughts list of ``system`` at ``list_date``: every tournament received up
    to its cut-off and not applied by the previous list, in order."""
    rulebook = load_rubele_rulebook(system, rulebook_path)
    run = RunRecord(
        flow="quarterly",
        parameters={"system": system, "list_date": list_date, "rulebook": rulebook.source},
        rulebook_hash=rulebook.content_hash,
    )
    with Warehouse(warehouse).transaction(create=False) as con:
        refuse_imported_dates(con, system, [list_date])
        refuse_stale_lists_before(con, system, list_date)
        refuse_an_empty_first_list(con, system, list_date, rulebook.era_at(list_date).calendar)
        written = publish_rubele(con, run, system, OFFICIAL, list_date, rulebook)
        report = rubele_report_of(con, run, system, list_date, written)
        run.input_checksums = inputs_checksums([written])
        run.counts = {
            "revision": written.revision,
            "new_revision": int(written.written),
            "players": written.published.rows.height,
            "in_ranking": int(written.published.rows.get_column("in_ranking").sum()),
        }
        run.write(con, "succeeded", report)
    publish_markdown(report, key=f"{system.replace('_', '-')}-list")
    say(report)
    return run.counts


def rubele_report_of(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    list_date: date,
    written: WrittenList,
) -> str:
    report = execute(
        con,
        "SELECT report FROM list_revision WHERE system = ? AND scenario = ? AND list_date = ? "
        "AND revision = ?",
        [system, OFFICIAL, list_date, written.revision],
    )[0][0]
    return superseded_note(con, run, written) + str(report)


@flow(name="rubele-recalculate")
@failure_recorded("recalculate")
def rubele_recalculate_flow(
    system: str,
    warehouse: str,
    start: date | None = None,
    end: date | None = None,
    rulebook_path: str | None = None,
    scenario: str = OFFICIAL,
    stale: bool = False,
) -> dict[str, int]:
    """Replay the draughts list dates from ``start`` to ``end`` (or the stale ones) in order,
    in one transaction; a new revision only where a list changes."""
    from flows.recalculate import finish_recalculation, stale_lists

    if stale and scenario != OFFICIAL:
        raise ListError("--stale replays official lists; a scenario names its own range")
    refuse_bad_scenario_name(scenario)
    if stale:
        rulebook = load_rubele_rulebook(system, rulebook_path)
        with Warehouse(warehouse).reader() as con:
            found = stale_lists(con, system, rulebook, rubele_list_fingerprint)
        if not found:
            say(f"recalculate: every {system} list is current; nothing to do")
            return {"lists": 0, "new_revisions": 0, "players_changed": 0}
        start, end = found[0].list_date, found[-1].list_date
    if start is None or end is None:
        raise ListError("give --from and --to, or --stale")

    rulebook = load_rubele_rulebook(system, rulebook_path)
    run = RunRecord(
        flow="recalculate",
        parameters={
            "system": system,
            "start": start,
            "end": end,
            "rulebook": rulebook.source,
            "scenario": scenario,
        },
        rulebook_hash=rulebook.content_hash,
    )
    began = time.perf_counter()
    dates = replay_dates(system, rulebook.era_at(start).calendar, start, end)
    say(
        f"recalculate: {counted(len(dates), f'{system} list date')} ({scenario}) "
        f"from {start} to {end}"
    )
    with Warehouse(warehouse).transaction(create=False) as con:
        refuse_imported_dates(con, system, dates)
        refuse_a_scenario_on_another_rulebook(con, system, scenario, dates[0], rulebook)
        results = []
        for number, list_date in enumerate(dates, start=1):
            written = publish_rubele(con, run, system, scenario, list_date, rulebook)
            compare = written.written or scenario != OFFICIAL
            diff = diff_against(con, run, written, scenario) if compare else None
            results.append((written, diff))
            state = f"revision {written.revision}" if written.written else "unchanged"
            say(f"  [{number}/{len(dates)}] {list_date}: {state}")
        report = finish_recalculation(con, run, system, scenario, results, began)
    scenario_part = () if scenario == OFFICIAL else ("scenario", scenario)
    publish_markdown(report, key=artifact_key(system, *scenario_part, "recalculation"))
    say(report)
    return run.counts
