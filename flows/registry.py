"""Flows for the member registry: dated snapshots, published lists, and player merges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import polars as pl
from prefect import flow

from flows.console import say
from flows.csv_checks import checked_csv, refusal, repeats_read_once, tagged
from flows.inputs import CsvInput, read_csv_text
from flows.reports import MAX_LISTED
from flows.runtime import RunRecord, failure_recorded, publish_markdown
from flows.warehouse import (
    Warehouse,
    execute,
    insert_frame,
    query_frame,
    read_sql,
    registered,
    scalar,
)
from flows.writes import archive_files, record_problems, recorded_problems_section
from schemas.inputs import Membership, RegistryPlayer
from schemas.problems import problem, problems_frame
from transforms.inputs.matching import merge_disagreements, place_provisional
from transforms.inputs.registry import (
    identity_changes,
    implausible_births,
    latest_identity,
    membership_orphans,
    prepare_memberships,
    prepare_registry_players,
    rejected_rows,
    rows_kept_from_before,
)

PLAYERS_FILE = "players.csv"
MEMBERSHIPS_FILE = "memberships.csv"


class RegistryError(RuntimeError):
    """The request cannot be carried out (one clear line for the analyst)."""


@dataclass(frozen=True)
class RegistryKind:
    """Which registry a snapshot belongs to: the FSI (chess) one or the FID (draughts) one."""

    name: str  # for the run record and the report's key
    title: str  # the report's heading
    typer: Callable[[pl.DataFrame], tuple[pl.DataFrame, pl.DataFrame]]
    model: type
    load_table: str
    player_table: str
    membership_table: str
    sequence: str
    # run inside the load's transaction after a new snapshot is stored; returns a report line
    after_load: Callable[[duckdb.DuckDBPyConnection, RunRecord, date], str] | None = None


def rematch_after_load(con: duckdb.DuckDBPyConnection, run: RunRecord, as_of: date) -> str:
    """Merge the provisional players that the registry now identifies (national id, FIDE id,
    name and birth date, as at ingest): later lists read them under their real id. The report
    names those still waiting, and why."""
    waiting = query_frame(con, read_sql("queries/unmatched_identities.sql"))
    registry = latest_identity(query_frame(con, read_sql("queries/registry_identity.sql")))
    placed = place_provisional(waiting, registry)
    found = placed.filter(pl.col("player_id").is_not_null()).with_columns(
        pl.format(
            "matched by the registry snapshot of {} ({})", pl.lit(str(as_of)), "match_method"
        ).alias("note")
    )
    # a match that would make one person play twice in a tournament is left to the analyst
    twice = merge_conflicts(con, found.select("provisional_id", "player_id"))
    found = found.filter(
        ~pl.col("provisional_id").is_in(twice.get_column("provisional_id").implode())
    )
    if found.height:
        merges = found.select("provisional_id", "player_id", "match_method", "note")
        with registered(con, "_incoming_merges", merges):
            execute(con, read_sql("queries/insert_registry_merges.sql"), {"run_id": run.run_id})
    run.counts["players_rematched"] = found.height
    report = f"- provisional players now identified and merged: {found.height}\n"
    if twice.height:
        report += (
            "- identified but left to the analyst, because the merge would make one person "
            f"play twice in a tournament: {', '.join(twice.get_column('provisional_id'))}\n"
        )
    unplaced = placed.filter(pl.col("player_id").is_null())
    run.counts["players_still_provisional"] = unplaced.height + twice.height
    if unplaced.height:
        report += f"- provisional players this snapshot could not place: {unplaced.height}\n"
        report += "".join(
            f"  - {provisional_id}: {reason}\n"
            for provisional_id, reason in unplaced.head(MAX_LISTED)
            .select("provisional_id", "reason")
            .rows()
        )
        if unplaced.height > MAX_LISTED:
            report += (
                f"  - … and {unplaced.height - MAX_LISTED} more in the `unmatched_player` "
                "view (merge them with `graduatoria merge`)\n"
            )
    return report


def merge_conflicts(con: duckdb.DuckDBPyConnection, proposed: pl.DataFrame) -> pl.DataFrame:
    """The proposed merges (provisional_id, player_id) that would give one person two entries
    in a tournament: provisional_id and the tournaments."""
    with registered(con, "_proposed_merges", proposed):
        return query_frame(con, read_sql("queries/merge_conflicts.sql"))


FSI_REGISTRY = RegistryKind(
    "registry",
    "Registry",
    prepare_registry_players,
    RegistryPlayer,
    "registry_load",
    "registry_player",
    "registry_membership",
    "registry_load_seq",
    rematch_after_load,
)


def _rows_in_force(con: duckdb.DuckDBPyConnection, kind: RegistryKind, as_of: date) -> pl.DataFrame:
    """The rows of the snapshot in force on ``as_of``, with its ``as_of`` (none: no rows)."""
    sql = read_sql("queries/registry_rows_in_force.sql").format(
        load_table=kind.load_table, player_table=kind.player_table
    )
    return query_frame(con, sql, [as_of])


def _existing_load(
    con: duckdb.DuckDBPyConnection, kind: RegistryKind, as_of: date
) -> tuple[str, str] | None:
    rows = execute(
        con,
        f"SELECT players_sha256, memberships_sha256 FROM {kind.load_table} WHERE as_of = ? "
        "ORDER BY load_id DESC LIMIT 1",
        [as_of],
    )
    return (rows[0][0], rows[0][1]) if rows else None


def load_snapshot(kind: RegistryKind, folder: str, as_of: date, warehouse: str) -> dict[str, int]:
    """A registry snapshot of ``kind`` into the warehouse (the same files twice: nothing new).

    A file that cannot be read as a whole refuses the load: no snapshot is stored, so the one
    in force before ``as_of`` stays in force, rather than an empty registry from that date.
    """
    run = RunRecord(flow=f"load-{kind.name}", parameters={"folder": folder, "as_of": as_of})
    missing = [
        name for name in (PLAYERS_FILE, MEMBERSHIPS_FILE) if not (Path(folder) / name).is_file()
    ]
    if missing:
        absent = [
            problem(f"{name} is not in {folder}: a snapshot needs both files") for name in missing
        ]
        refused = problems_frame(absent).with_columns(
            pl.Series("file_name", missing),
            pl.lit(None, dtype=pl.Utf8).alias("file_sha256"),
            pl.lit(None, dtype=pl.Utf8).alias("tournament_id"),
        )
        return _refuse(kind, run, as_of, warehouse, refused)
    players_csv = read_csv_text(Path(folder) / PLAYERS_FILE)
    memberships_csv = read_csv_text(Path(folder) / MEMBERSHIPS_FILE)
    run.input_checksums = {
        str(players_csv.file.path): players_csv.file.sha256,
        str(memberships_csv.file.path): memberships_csv.file.sha256,
    }
    refused = pl.concat([refusal(players_csv, kind.model), refusal(memberships_csv, Membership)])
    if refused.height:
        return _refuse(kind, run, as_of, warehouse, refused)
    players, player_problems = checked_csv(players_csv, repeats_read_once(kind.typer), kind.model)
    players, birth_problems = implausible_births(players, as_of)
    player_problems = pl.concat([player_problems, tagged(birth_problems, players_csv)])
    memberships, membership_problems = checked_csv(memberships_csv, prepare_memberships, Membership)
    nothing_usable = [
        tagged(problems_frame([_nothing_left(what, as_of)]), source)
        for source, kept, what in (
            (players_csv, players, "players"),
            (memberships_csv, memberships, "members"),
        )
        if kept.height == 0
    ]
    if nothing_usable:
        refused = pl.concat(
            [player_problems, membership_problems, *nothing_usable], how="diagonal_relaxed"
        ).filter(pl.col("severity") == "error")
        return _refuse(kind, run, as_of, warehouse, refused)
    try:
        return _store_snapshot(
            kind,
            run,
            as_of,
            warehouse,
            (players_csv, players, player_problems),
            (memberships_csv, memberships, membership_problems),
        )
    except _NoMemberLeft as nobody:
        # the transaction was given up: the warehouse is as it was
        return _refuse(kind, run, as_of, warehouse, nobody.problems)


def _nothing_left(what: str, as_of: date) -> dict[str, object]:
    """Why a file none of whose rows is usable refuses the snapshot."""
    return problem(
        "every row was rejected (each row's rejection says why): a snapshot of them would say "
        f"the federation has no {what} from {as_of}"
    )


class _NoMemberLeft(Exception):
    """Every membership of a snapshot named a player it does not hold: refused whole."""

    def __init__(self, problems: pl.DataFrame) -> None:
        super().__init__("every membership names a player the snapshot does not hold")
        self.problems = problems


def _store_snapshot(
    kind: RegistryKind,
    run: RunRecord,
    as_of: date,
    warehouse: str,
    players_read: tuple[CsvInput, pl.DataFrame, pl.DataFrame],
    memberships_read: tuple[CsvInput, pl.DataFrame, pl.DataFrame],
) -> dict[str, int]:
    """Store a snapshot whose files have usable rows (the same files twice: nothing new)."""
    players_csv, players, player_problems = players_read
    memberships_csv, memberships, membership_problems = memberships_read
    # every line naming a player, a line with a comma too many included: its player keeps
    # his earlier row, as one with a bad cell does
    listed = pl.concat(
        [
            players_csv.rows.select("line_no", "player_id"),
            *(
                [players_csv.rejected_keys.select("line_no", "player_id")]
                if "player_id" in players_csv.rejected_keys.columns
                else []
            ),
        ]
    )
    with Warehouse(warehouse).transaction() as con:
        rejected_players = rejected_rows(players, listed)
        in_force = _rows_in_force(con, kind, as_of)
        kept, kept_warnings = rows_kept_from_before(
            players, rejected_players, in_force, PLAYERS_FILE
        )
        changed = identity_changes(players, in_force, rejected_players)
        players = pl.concat([players, kept])
        # every membership needs a player of this snapshot, even when no player was accepted
        memberships, orphan_problems = membership_orphans(
            memberships, players.select("player_id"), listed, PLAYERS_FILE
        )
        if memberships.height == 0:
            nobody = _nothing_left("members", as_of)
            raise _NoMemberLeft(
                pl.concat(
                    [
                        player_problems,
                        membership_problems,
                        tagged(orphan_problems, memberships_csv),
                        tagged(problems_frame([nobody]), memberships_csv),
                    ],
                    how="diagonal_relaxed",
                ).filter(pl.col("severity") == "error")
            )
        problems = pl.concat(
            [
                player_problems,
                tagged(kept_warnings, players_csv),
                tagged(changed, players_csv),
                membership_problems,
                tagged(orphan_problems, memberships_csv),
            ]
        ).with_columns(pl.lit("registry").alias("source"))
        errors = problems.filter(pl.col("severity") == "error").height
        checksums = (players_csv.file.sha256, memberships_csv.file.sha256)
        unchanged = _existing_load(con, kind, as_of) == checksums
        rejected, warned = record_problems(con, run.run_id, problems)
        if not unchanged:
            archive_files(
                con,
                run.run_id,
                [(players_csv.file, "registry"), (memberships_csv.file, "registry")],
            )
            load_id = scalar(con, f"SELECT nextval('{kind.sequence}')")
            execute(
                con,
                f"INSERT INTO {kind.load_table} VALUES (?, ?, ?, ?, ?, ?, ?, current_timestamp)",
                [load_id, as_of, *checksums, players.height, memberships.height, run.run_id],
            )
            insert_frame(
                con,
                kind.player_table,
                players.drop("line_no").with_columns(load_id=pl.lit(load_id)),
            )
            insert_frame(
                con,
                kind.membership_table,
                memberships.drop("line_no").with_columns(load_id=pl.lit(load_id)),
            )
        run.counts = {
            "players": 0 if unchanged else players.height,
            "memberships": 0 if unchanged else memberships.height,
            "rejections_new": rejected,
        }
        rematched = ""
        if kind.after_load is not None:
            run.counts["players_rematched"] = 0
            if not unchanged:
                rematched = kind.after_load(con, run, as_of)
        report = (
            f"# {kind.title} snapshot {as_of}\n\n"
            + (
                "- unchanged: the same files were already loaded for this date\n"
                if unchanged
                else f"- players: {players.height}\n- memberships: {memberships.height}\n"
            )
            + f"- rows rejected: {errors} (new: {rejected})\n"
            + (
                f"- warnings: {problems.height - errors} (new: {warned})\n"
                if problems.height > errors
                else ""
            )
            # the players a snapshot leaves out are one warning, without a line: named here,
            # where a long list of row warnings cannot push it out of sight
            + "".join(
                f"- {reason}\n"
                for reason in changed.filter(pl.col("line_no").is_null()).get_column("reason")
            )
            + rematched
            + recorded_problems_section(con, run.run_id)
        )
        run.write(con, "succeeded", report)
    publish_markdown(report, key=f"{kind.name}-report")
    say(report)
    return run.counts


# a refusal's report names this many problems; the rejection view holds them all
REFUSAL_LINES_SHOWN = 20


def _refuse(
    kind: RegistryKind, run: RunRecord, as_of: date, warehouse: str, refused: pl.DataFrame
) -> dict[str, int]:
    """Record why the snapshot's files were refused, and nothing else (no snapshot, no archive
    of the files): the warehouse is as it was but for the rejection and the run record."""
    with Warehouse(warehouse).transaction() as con:
        rejected, _ = record_problems(
            con, run.run_id, refused.with_columns(pl.lit("registry").alias("source"))
        )
        run.counts = {"players": 0, "memberships": 0, "rejections_new": rejected, "refused": 1}
        if kind.after_load is not None:
            run.counts["players_rematched"] = 0
        shown = refused.head(REFUSAL_LINES_SHOWN)
        lines = "".join(
            f"- {name}" + (f", line {line}" if line is not None else "") + f": {reason}\n"
            for name, line, reason in shown.select("file_name", "line_no", "reason").rows()
        )
        if refused.height > shown.height:
            lines += (
                f"- … and {refused.height - shown.height} more (the `rejection` view lists "
                "them all)\n"
            )
        report = (
            f"# {kind.title} snapshot {as_of}\n\n"
            "- refused: nothing was loaded; the snapshot in force before this date stays in "
            "force\n" + lines + f"- rejections new: {rejected}\n"
        )
        run.write(con, "refused", report)
    publish_markdown(report, key=f"{kind.name}-report")
    say(report)
    return run.counts


@flow(name="merge-player")
@failure_recorded("merge-player")
def merge_player_flow(
    provisional_id: str, player_id: str, warehouse: str, note: str = "", force: bool = False
) -> str:
    """Record that a provisional id is a registered player; later runs use the real id. A merge
    whose name and birth both disagree with the registry is refused unless ``force``: it would
    most likely put one person's games on another."""
    run = RunRecord(
        flow="merge-player",
        parameters={"provisional_id": provisional_id, "player_id": player_id, "force": force},
    )
    # refused on a read-only session first: a mistyped id costs no write (whose failure would
    # drop the standby, and the next run would copy the warehouse)
    with Warehouse(warehouse).reader() as con:
        refuse_a_merge(con, provisional_id, player_id, force)
    with Warehouse(warehouse).transaction(create=False) as con:
        entries, differs = refuse_a_merge(con, provisional_id, player_id, force)
        execute(
            con,
            read_sql("queries/upsert_player_merge.sql"),
            [provisional_id, player_id, note, run.run_id],
        )
        message = f"{provisional_id} is now {player_id} ({entries} tournament entries)" + (
            f"; note that {' and '.join(differs)} {'differ' if len(differs) > 1 else 'differs'}"
            if differs
            else ""
        )
        run.write(con, "succeeded", message)
    say(message)
    return message


def refuse_a_merge(
    con: duckdb.DuckDBPyConnection, provisional_id: str, player_id: str, force: bool
) -> tuple[int, list[str]]:
    """The provisional player's tournament entries, and what of his identity differs from the
    registry player's (name, birth), unless the merge is refused: an unknown provisional id or
    registry player, both differing without ``force``, or both ids playing in one tournament."""
    known = scalar(
        con, read_sql("queries/provisional_known.sql"), {"provisional_id": provisional_id}
    )
    if not known:
        raise RegistryError(f"no unmatched player has the provisional id {provisional_id}")
    registered = scalar(
        con, read_sql("queries/registry_player_known.sql"), {"player_id": player_id}
    )
    if not registered:
        raise RegistryError(f"player {player_id} is not in any registry snapshot")
    entered = query_frame(
        con, read_sql("queries/provisional_identity.sql"), {"provisional_id": provisional_id}
    )
    person = latest_identity(query_frame(con, read_sql("queries/registry_identity.sql"))).filter(
        pl.col("player_id") == player_id
    )
    differs = merge_disagreements(entered, person)
    if len(differs) == 2 and not force:
        raise RegistryError(
            f"{provisional_id} does not look like {player_id}: {' and '.join(differs)} "
            "differ; if they are one person all the same, merge with --force"
        )
    proposed = pl.DataFrame({"provisional_id": [provisional_id], "player_id": [player_id]})
    twice = merge_conflicts(con, proposed)
    if twice.height:
        raise RegistryError(
            f"{provisional_id} cannot be {player_id}: both play in "
            f"{twice.get_column('tournaments')[0]}, and one person cannot play twice in a "
            "tournament"
        )
    return int(known), differs  # type: ignore[call-overload]
