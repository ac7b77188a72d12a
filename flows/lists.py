"""Publishing FSI Elo lists: the ``quarterly`` flow and the pieces recalculation reuses.

One list date of one system: read the previous list, the tournaments received in the period
and the registry as it stood, run the pure engine, and write a new revision of the list with
its variations and rankings in one transaction. Equal content means no new revision.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from flows.inputs import read_csv_text
from flows.registry import checked_csv
from flows.report import list_report
from flows.runtime import RunRecord, counted, failure_recorded, publish_markdown, say
from flows.warehouse import (
    BatchedInserts,
    Warehouse,
    execute,
    insert_frame,
    query_frame,
    read_sql,
    scalar,
)
from flows.writes import archive_files, record_problems, recorded_problems_section
from schemas.inputs import PublishedListRow
from schemas.problems import empty_problems
from transforms.elo.lists import (
    History,
    PeriodFacts,
    SplitHistory,
    build_list,
    imported_list_warnings,
    imported_rows,
    period_facts,
    split_history,
)
from transforms.elo.period import key_seated_games
from transforms.elo.rapid_letters import label_problems, normalise_labels
from transforms.elo.rulebook import EloEra, Rulebook, parse_rulebook, size_rules_difference
from transforms.inputs.registry import type_published_list
from transforms.lists.diffs import list_diff
from transforms.lists.eras import Calendar, RulebookError, default_rulebook_path
from transforms.lists.periods import (
    cutoff_for,
    first_list_taking,
    is_list_date,
    list_dates_between,
    previous_list_date,
    ratings_day,
    receipt_window,
)
from transforms.lists.published import PublishedList, ranking_input
from transforms.lists.rankings import rankings

OFFICIAL = "official"
FSI_SYSTEMS = ("elo_italia", "elo_rapid")
# The entry source "elo_italia" of a rulebook reads this system's official list
ELO_ITALIA = "elo_italia"


def reference_system(era: EloEra) -> str | None:
    """The other list whose ratings newcomers may enter with under ``era`` (or None)."""
    return ELO_ITALIA if ELO_ITALIA in era.entry_precedence else None


class ListError(RuntimeError):
    """A list cannot be computed as asked (one clear line for the analyst)."""


def load_rulebook(system: str, path: str | None = None) -> Rulebook:
    source = Path(path) if path else default_rulebook_path(system)
    if not source.is_file():
        raise RulebookError(f"no rulebook at {source}")
    rulebook = parse_rulebook(source.read_bytes(), source.name)
    if rulebook.system != system:
        raise RulebookError(f"{source.name} is the rulebook of {rulebook.system}, not {system}")
    if path:
        default = default_rulebook_path(system)
        difference = size_rules_difference(
            rulebook, parse_rulebook(default.read_bytes(), default.name)
        )
        if difference is not None:
            raise RulebookError(
                f"{source.name} changes the tournament size rules ({difference}): they are "
                f"applied when tournaments are ingested, under {default.name}, so a list or a "
                "replay cannot change them"
            )
    return rulebook


@dataclass(frozen=True)
class PeriodContext:
    system: str
    scenario: str
    list_date: date
    era: EloEra
    rulebook: Rulebook
    after: date
    up_to: date
    ratings_day: date
    previous_date: date | None
    previous_revision: int | None
    previous_scenario: str | None
    inputs_hash: str
    reference_ratings: pl.DataFrame | None  # the Elo Italia list newcomers may enter with


def load_history(
    con: duckdb.DuckDBPyConnection, system: str, up_to: date, last_list_date: date
) -> History:
    """Every input of the lists of ``system`` up to ``last_list_date`` (whose cut-off is
    ``up_to``), read once: the tournaments received up to the cut-off, the registry snapshots
    and memberships up to the list date itself (a list reads the snapshot of its date, however
    many lists the read serves)."""
    window = {"system": system, "up_to": up_to}
    # in entry key order, which the engine takes each period's entries in (and the split
    # keeps): one sort of the history here instead of one in every period, and cheaper than
    # DuckDB's ORDER BY (0.15 s against 0.5 s at national scale)
    entries = query_frame(con, read_sql("queries/lists/history_entries.sql"), window).sort(
        "entry_key"
    )
    # the games take their tournaments' codes from the entries just read, not from the keys
    # computed again (half a second at national scale)
    tournaments = entries.select(
        "tournament_id",
        pl.col("tournament_version").alias("version"),
        "tournament_code",
        "received_on",
    ).unique()
    con.register("history_tournaments", tournaments.to_arrow())
    try:
        games = query_frame(con, read_sql("queries/lists/history_games.sql"))
    finally:
        con.unregister("history_tournaments")
    return History(
        entries=entries,
        games=key_seated_games(games, entries),
        registry=query_frame(
            con, read_sql("queries/lists/registry_history.sql"), {"day": last_list_date}
        ),
        memberships=query_frame(
            con, read_sql("queries/lists/membership_history.sql"), {"day": last_list_date}
        ),
        quarantined=query_frame(con, read_sql("queries/lists/history_quarantined.sql"), window),
    )


def read_previous(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, list_date: date
) -> pl.DataFrame:
    """The list in force before ``list_date`` (a scenario's own, else the official one)."""
    return query_frame(
        con,
        read_sql("queries/lists/previous_list.sql"),
        {"system": system, "scenario": scenario, "list_date": list_date},
    )


def list_context(
    system: str,
    scenario: str,
    list_date: date,
    era: Any,
    rulebook: Any,
    previous: pl.DataFrame,
    ratings_day: date,
    inputs_hash: Callable[[date], str],
    reference_ratings: pl.DataFrame | None = None,
    first_receipt: Callable[[], date | None] | None = None,
) -> PeriodContext:
    """Where a list date of any system stands: its receipt window and the list it follows.

    Refuses a date that is not a list date, a list whose predecessor is not published, or a
    first list (none before it) whose window would leave out tournaments received before it
    (``first_receipt`` reads the first receipt date of the system's accepted tournaments);
    ``inputs_hash`` gives the fingerprint of the inputs received up to the cut-off.
    """
    calendar = era.calendar
    refuse_a_day_off_the_calendar(system, calendar, list_date)
    refuse_an_open_window(system, calendar, list_date)
    after, up_to = receipt_window(calendar, list_date)
    expected_previous = previous_list_date(calendar, list_date)
    previous_date = previous.get_column("list_date")[0] if previous.height else None
    if previous_date is not None and previous_date != expected_previous:
        where = "" if scenario == OFFICIAL else f" in scenario {scenario}"
        raise ListError(
            f"the {system} list of {expected_previous} has not been published{where} (the last "
            f"one is {previous_date}): publish it first"
        )
    first = first_receipt() if previous_date is None and first_receipt is not None else None
    if first is not None and first <= after:
        first_list = first_list_taking(calendar, first)
        raise ListError(
            f"no {system} list precedes {list_date}, and its window (received after {after}) "
            f"would leave out the tournaments received before, the first on {first}: publish "
            f"the list of {first_list} first, or import the federation's list before it"
        )
    return PeriodContext(
        system=system,
        scenario=scenario,
        list_date=list_date,
        era=era,
        rulebook=rulebook,
        after=after,
        up_to=up_to,
        ratings_day=ratings_day,
        previous_date=previous_date,
        previous_revision=previous.get_column("revision")[0] if previous.height else None,
        previous_scenario=previous.get_column("scenario")[0] if previous.height else None,
        inputs_hash=inputs_hash(up_to),
        reference_ratings=reference_ratings,
    )


def period_context(
    con: duckdb.DuckDBPyConnection,
    system: str,
    scenario: str,
    list_date: date,
    rulebook: Rulebook,
    previous: pl.DataFrame,
    fingerprints: Mapping[date, str] | None = None,
) -> PeriodContext:
    """Where an FSI list date stands: its era, receipt window and the list it follows
    (``fingerprints``: the inputs' fingerprints of a replay's dates, read at once)."""
    era = rulebook.era_at(list_date)
    day = ratings_day(era.calendar, era.ratings_snapshot, list_date)
    reference = reference_system(era)

    def inputs_hash(up_to: date) -> str:
        if fingerprints is not None and list_date in fingerprints:
            return fingerprints[list_date]
        return inputs_fingerprint(con, system, list_date, up_to, reference)

    return list_context(
        system,
        scenario,
        list_date,
        era,
        rulebook,
        previous,
        day,
        inputs_hash,
        read_reference_ratings(con, era, day),
        lambda: first_receipt(con, system),
    )


def first_receipt(con: duckdb.DuckDBPyConnection, system: str) -> date | None:
    """When the first accepted tournament of ``system`` was received (None: none yet)."""
    first = scalar(con, read_sql("queries/lists/first_receipt.sql"), {"system": system})
    return first if isinstance(first, date) else None


def read_reference_ratings(
    con: duckdb.DuckDBPyConnection, era: EloEra, day: date
) -> pl.DataFrame | None:
    """The official list in force on ``day`` that the era's newcomers may enter with."""
    system = reference_system(era)
    if system is None:
        return None
    return query_frame(
        con, read_sql("queries/lists/reference_ratings.sql"), {"system": system, "day": day}
    )


def validity_in_force(rulebook: Rulebook) -> Callable[[date], Any]:
    """The validity rules of the era in force at a list date (to replay earlier lists)."""
    return lambda list_date: rulebook.era_at(list_date).validity


def read_period(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, list_date: date, rulebook: Rulebook
) -> tuple[PeriodContext, PeriodFacts]:
    """Everything the engine needs for one list date, as the warehouse holds it now."""
    previous = read_previous(con, system, scenario, list_date)
    context = period_context(con, system, scenario, list_date, rulebook, previous)
    history = split_history(
        load_history(con, system, context.up_to, list_date), context.era.calendar
    )
    played = history.played_before(list_date, validity_in_force(rulebook))
    return context, facts_of(context, history, previous, played)


def facts_of(
    context: PeriodContext,
    history: SplitHistory,
    previous: pl.DataFrame,
    played_before: pl.DataFrame,
) -> PeriodFacts:
    return period_facts(
        history,
        previous,
        played_before,
        context.list_date,
        context.ratings_day,
        context.era,
        context.reference_ratings,
    )


def inputs_fingerprint(
    con: duckdb.DuckDBPyConnection,
    system: str,
    list_date: date,
    up_to: date,
    reference: str | None = None,
) -> str:
    """A hash of every input a list reads: tells a stale revision from a current one."""
    return inputs_fingerprints(con, system, [(list_date, up_to, reference)])[list_date]


def inputs_fingerprints(
    con: duckdb.DuckDBPyConnection,
    system: str,
    lists: Sequence[tuple[date, date, str | None]],
) -> dict[date, str]:
    """:func:`inputs_fingerprint` of many lists at once (list date, cut-off, reference system):
    a replay reads them in one query."""
    if not lists:
        return {}
    list_dates, cutoffs, references = (list(column) for column in zip(*lists, strict=True))
    found = execute(
        con,
        read_sql("queries/lists/inputs_fingerprint.sql"),
        {
            "system": system,
            "list_dates": list_dates,
            "cutoffs": cutoffs,
            "reference_systems": references,
        },
    )
    return {list_date: str(fingerprint) for list_date, fingerprint in found}


def fsi_fingerprints(
    con: duckdb.DuckDBPyConnection, system: str, rulebook: Rulebook, list_dates: Sequence[date]
) -> dict[date, str]:
    """What the FSI lists of ``list_dates`` would be computed from, now."""
    lists = []
    for list_date in list_dates:
        era = rulebook.era_at(list_date)
        lists.append((list_date, cutoff_for(era.calendar, list_date), reference_system(era)))
    return inputs_fingerprints(con, system, lists)


def content_hash(context: PeriodContext, published: PublishedList) -> str:
    """What the revision says, independent of row order: equal hash, nothing new to write."""
    digest = hashlib.sha256()
    digest.update(
        "|".join(
            str(part)
            for part in (
                context.rulebook.content_hash,
                context.previous_scenario,
                context.previous_date,
                context.previous_revision,
            )
        ).encode()
    )
    # each frame in an order its content fixes, the one the list builder already gives (sorting
    # a sorted frame is nearly free; re-sorting by another key cost a third of the hash)
    for frame, keys in (
        (published.rows, ["player_id"]),
        (published.variations, ["player_id", "tournament_id"]),
        (published.rankings, ["ranking", "position", "player_id"]),
    ):
        digest.update(f"{frame.height}|{frame.schema!r}".encode())
        digest.update(_row_hashes(frame.sort(keys)))
    if published.excluded.height:
        # the tournaments it names as not rated are part of what a list says (a tournament
        # moved to another list leaves it); none adds nothing, so lists without keep their hash
        excluded = published.excluded.select("tournament_id", "reason")
        digest.update(f"excluded|{excluded.height}".encode())
        digest.update(_row_hashes(excluded.sort(["tournament_id", "reason"])))
    return digest.hexdigest()


def _row_hashes(frame: pl.DataFrame) -> bytes:
    """A 64-bit hash per row (Polars' row hash), in row order, as bytes.

    Writing whole frames as Arrow IPC bytes for sha256 cost about 20 ms a national list, most
    of it turning string columns into plain offsets; the row hashes cost a fraction of that.
    A changed list would keep its digest only if every changed row kept its 64-bit hash: a
    chance of about one in 2**64. Polars promises these hashes only within one version, so
    the version is part of the digest: after an upgrade a replay writes each list once more,
    with the same content.
    """
    buffer = io.BytesIO()
    pl.DataFrame([frame.hash_rows(seed=0).alias("row_hash")]).write_ipc(
        buffer, compression="uncompressed"
    )
    return pl.__version__.encode() + buffer.getvalue()


@dataclass(frozen=True)
class WrittenList:
    revision: int
    written: bool  # False when the content equals the revision in force
    published: PublishedList
    context: PeriodContext


def write_list(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    context: PeriodContext,
    published: PublishedList,
    report: str,
    rows: BatchedInserts | None = None,
    in_force: Mapping[date, tuple[int, str]] | None = None,
) -> WrittenList:
    """Write the list as a new revision unless the revision in force says the same; its rows go
    through ``rows`` (a recalculation batches them; by default they are written at once).
    ``in_force``: the revision and content hash in force of each list date, when the caller
    read them all at once (a replay); otherwise this list's is read here."""
    rows = rows if rows is not None else BatchedInserts(con)
    key = {"system": context.system, "scenario": context.scenario, "list_date": context.list_date}
    if in_force is None:
        current = execute(con, read_sql("queries/lists/current_revision.sql"), key)
    else:
        current = [in_force[context.list_date]] if context.list_date in in_force else []
    fingerprint = content_hash(context, published)
    if current and current[0][1] == fingerprint:
        # same list from these inputs: record that the revision in force is current for them
        execute(
            con,
            "UPDATE list_revision SET inputs_hash = $inputs_hash WHERE system = $system "
            "AND scenario = $scenario AND list_date = $list_date AND revision = $revision",
            {**key, "revision": current[0][0], "inputs_hash": context.inputs_hash},
        )
        return WrittenList(current[0][0], False, published, context)
    revision = (current[0][0] if current else 0) + 1
    execute(
        con,
        read_sql("queries/lists/insert_revision.sql"),
        {
            **key,
            "revision": revision,
            "source": "computed",
            "run_id": run.run_id,
            "rulebook_hash": context.rulebook.content_hash,
            "era_from": context.era.effective_from,
            "previous_list_date": context.previous_date,
            "previous_revision": context.previous_revision,
            "content_hash": fingerprint,
            "inputs_hash": context.inputs_hash,
            "players": published.rows.height,
            "tournaments": published.variations.get_column("tournament_id").n_unique(),
            "report": report,
        },
    )
    tag = [pl.lit(value).alias(name) for name, value in {**key, "revision": revision}.items()]
    rows.add("list_entry", published.rows.with_columns(tag))
    rows.add("list_variation", published.variations.with_columns(tag), table_columns_only=True)
    rows.add("list_ranking", published.rankings.with_columns(tag))
    rows.add("list_exclusion", published.excluded.with_columns(tag))
    if rows.flush_rows == 0:
        rows.flush()
    return WrittenList(revision, True, published, context)


@task(cache_policy=NO_CACHE)
def compute_list(facts: PeriodFacts, era: EloEra, list_date: date) -> PublishedList:
    """The pure part, as one Prefect task: engine, flags, rankings."""
    return build_list(facts, era, list_date)


def publish(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    context: PeriodContext,
    facts: PeriodFacts,
    rows: BatchedInserts | None = None,
    in_force: Mapping[date, tuple[int, str]] | None = None,
) -> WrittenList:
    """Compute one list from its facts and write it (a new revision only if it changed)."""
    # quoted: Prefect would otherwise walk every field of the facts and the era's tables
    published = compute_list(quote(facts), quote(context.era), context.list_date)
    report = list_report(context, facts, published)
    return write_list(con, run, context, published, report, rows, in_force)


def revisions_in_force(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str
) -> dict[date, tuple[int, str]]:
    """The revision and content hash in force of every list of a system and scenario."""
    current = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": scenario},
    )
    return {row[0]: (row[1], row[5]) for row in current.rows()}


def as_previous(context: PeriodContext, rows: pl.DataFrame, revision: int | None) -> pl.DataFrame:
    """A just-computed list's rows (published, or closed: see
    :class:`transforms.elo_list.ClosedList`) in the shape the next list date reads them
    (``revision`` None: not settled yet, see :class:`flows.recalculate.BackgroundPublisher`)."""
    return rows.select(
        pl.lit(context.list_date).alias("list_date"),
        pl.lit(revision, dtype=pl.Int32).alias("revision"),
        pl.lit(context.scenario).alias("scenario"),
        "player_id",
        "name",
        "rating",
        "rating_type",
        "total_games",
        "category",
        "last_played",
        "letter",
        "letter_provisional",
        "letter_held",
    )


def publish_one(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    list_date: date,
    rulebook: Rulebook,
    scenario: str = OFFICIAL,
) -> WrittenList:
    context, facts = read_period(con, system, scenario, list_date, rulebook)
    return publish(con, run, context, facts)


def diff_against(
    con: duckdb.DuckDBPyConnection, run: RunRecord, written: WrittenList, scenario: str
) -> pl.DataFrame | None:
    """Compare a new revision with the one it supersedes, or a scenario's list (new or left as
    it was) with the official one (None when there is nothing to compare with: a first
    computation). New differences are recorded in ``list_diff``."""
    context = written.context
    key = {"system": context.system, "list_date": context.list_date}
    if scenario == OFFICIAL:
        against_scenario, against_revision = OFFICIAL, written.revision - 1
    else:
        base = execute(
            con,
            "SELECT max(revision) FROM list_revision WHERE system = $system "
            "AND scenario = 'official' AND list_date = $list_date",
            key,
        )[0][0]
        against_scenario, against_revision = OFFICIAL, base
    if not against_revision:
        return None
    if not written.written:
        # a scenario's list the replay left as it was: its differences from this official
        # revision were recorded when first compared (none recorded: none, or not compared yet)
        recorded = query_frame(
            con,
            read_sql("queries/lists/recorded_diff.sql"),
            {
                **key,
                "scenario": scenario,
                "revision": written.revision,
                "against_scenario": against_scenario,
                "against_revision": against_revision,
            },
        )
        if recorded.height:
            return recorded
    against = {**key, "scenario": against_scenario, "revision": against_revision}
    old_rows = query_frame(con, read_sql("queries/lists/revision_rows.sql"), against)
    old_rankings = query_frame(con, read_sql("queries/lists/revision_rankings.sql"), against)
    diff = list_diff(
        old_rows, old_rankings, written.published.rows, written.published.rankings
    ).with_columns(
        pl.lit(context.system).alias("system"),
        pl.lit(scenario).alias("scenario"),
        pl.lit(context.list_date).alias("list_date"),
        pl.lit(written.revision).alias("revision"),
        pl.lit(against_scenario).alias("against_scenario"),
        pl.lit(against_revision).alias("against_revision"),
        pl.lit(run.run_id).alias("run_id"),
    )
    insert_frame(con, "list_diff", diff)
    return diff


def superseded_note(con: duckdb.DuckDBPyConnection, run: RunRecord, written: WrittenList) -> str:
    """How a quarterly run's list stands to the revision before it (its differences are stored
    in ``list_diff``, as a recalculation's are)."""
    if not written.written:
        return f"Unchanged: revision {written.revision} already holds this list.\n\n"
    diff = diff_against(con, run, written, OFFICIAL)
    if diff is None:
        return ""
    return (
        f"Revision {written.revision} replaces revision {written.revision - 1}: "
        f"{diff.height} players differ (list_diff).\n\n"
    )


def refuse_imported_dates(con: duckdb.DuckDBPyConnection, system: str, dates: list[date]) -> None:
    """A list the federation published and the warehouse imported (the opening list,
    typically) cannot be computed: it holds what no history does, and computed from nothing it
    would replace every player's rating. Nor can an official list before the first imported
    one: the system's lists start from it."""
    imported = [
        day
        for day, source in query_frame(
            con,
            read_sql("queries/lists/current_revisions.sql"),
            {"system": system, "scenario": OFFICIAL},
        )
        .select("list_date", "source")
        .rows()
        if source == "imported"
    ]
    if imported and dates[0] < imported[0]:
        raise ListError(
            f"the {system} lists start from the list of {imported[0]}, imported as the "
            f"federation published it: a list before it ({dates[0]}) cannot be computed"
        )
    inside = [day for day in imported if dates[0] <= day <= dates[-1]]
    if inside:
        after = [day for day in dates if day > inside[-1]]
        start_after = f"--from {after[0]}" if after else "a later date"
        raise ListError(
            f"the {system} list of {inside[-1]} was imported as the federation published it: "
            f"it cannot be computed; start from the list after it ({start_after})"
        )


def inputs_checksums(written: list[WrittenList]) -> dict[str, str]:
    """A list run's input checksums: the fingerprint of every input each list read (tournament
    versions, merges, registry loads, reference lists), as the run record keeps files' ones."""
    return {
        f"inputs of the {item.context.system} list of {item.context.list_date}": (
            item.context.inputs_hash
        )
        for item in written
    }


@flow(name="quarterly")
@failure_recorded("quarterly")
def quarterly_flow(
    system: str, list_date: date, warehouse: str, rulebook_path: str | None = None
) -> dict[str, int]:
    """Publish the list of ``system`` at ``list_date`` (a new revision if anything changed)."""
    if system not in FSI_SYSTEMS:
        raise ListError(f"unknown system {system!r}; expected one of {', '.join(FSI_SYSTEMS)}")
    rulebook = load_rulebook(system, rulebook_path)
    run = RunRecord(
        flow="quarterly",
        parameters={"system": system, "list_date": list_date, "rulebook": rulebook.source},
        rulebook_hash=rulebook.content_hash,
    )
    with Warehouse(warehouse).transaction(create=False) as con:
        refuse_imported_dates(con, system, [list_date])
        refuse_stale_lists_before(con, system, list_date)
        refuse_an_empty_first_list(con, system, list_date, rulebook.era_at(list_date).calendar)
        written = publish_one(con, run, system, list_date, rulebook)
        report = execute(
            con,
            "SELECT report FROM list_revision WHERE system = ? AND scenario = ? "
            "AND list_date = ? AND revision = ?",
            [system, OFFICIAL, list_date, written.revision],
        )[0][0]
        report = superseded_note(con, run, written) + report
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


def refuse_an_empty_first_list(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date, calendar: Calendar
) -> None:
    """Refuse to publish a system's first list while the system has no tournament at all: an
    empty list would stand as the system's start, and the federation's list could no longer
    be imported at its date. (A replay of a list published before stays possible.)"""
    if not is_list_date(calendar, list_date):
        return  # the list's context refuses it, saying why
    key = {"system": system, "scenario": OFFICIAL, "list_date": list_date}
    if read_previous(con, system, OFFICIAL, list_date).height or execute(
        con, read_sql("queries/lists/current_revision.sql"), key
    ):
        return  # not the first list, or one published before
    if not scalar(con, read_sql("queries/lists/tournaments_received.sql"), {"system": system}):
        raise ListError(
            f"no {system} list precedes {list_date} and no {system} tournament has been "
            f"received: nothing to list. Import the federation's list of {list_date} "
            "(graduatoria import-list), or ingest its tournaments first"
        )


def today() -> date:
    """The day a run happens (a function, so tests can move it)."""
    return date.today()


def refuse_a_day_off_the_calendar(system: str, calendar: Calendar, list_date: date) -> None:
    if not is_list_date(calendar, list_date):
        days = ", ".join(f"{m:02d}-{d:02d}" for m, d in calendar.list_dates)
        raise ListError(f"{list_date} is not a list date of {system} (list dates: {days})")


def replay_dates(system: str, calendar: Calendar, start: date, end: date) -> list[date]:
    """The list dates of a replay from ``start`` to ``end``; refused when there is none."""
    dates = list_dates_between(calendar, start, end)
    if not dates:
        raise ListError(f"no list date of {system} between {start} and {end}")
    return dates


def refuse_an_open_window(system: str, calendar: Calendar, list_date: date) -> None:
    """The tournaments received up to a list's cut-off belong to it: computed before its
    window closes, it would miss those still to arrive (and a replay would run into the
    future: list dates no tournament can have reached yet)."""
    up_to = receipt_window(calendar, list_date)[1]
    if up_to >= today():
        raise ListError(
            f"the {system} list of {list_date} takes the tournaments received up to {up_to}, "
            f"a window still open: publish it from {up_to + timedelta(days=1)} on"
        )


# a scenario's name: it names the scenario's rows and its report's Prefect artifact key, whose
# letters are lowercase (so "K20" and "k20" would share one)
SCENARIO_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def refuse_bad_scenario_name(scenario: str) -> None:
    if not SCENARIO_NAME.fullmatch(scenario):
        raise ListError(
            f"scenario name {scenario!r}: use lowercase letters, digits, '-' and '_', "
            "beginning with a letter or a digit"
        )


def refuse_a_scenario_on_another_rulebook(
    con: duckdb.DuckDBPyConnection, system: str, scenario: str, first: date, rulebook: Any
) -> None:
    """A scenario replayed from ``first`` builds on its own list before it: refuse when that
    list was computed under another rulebook, or the scenario would mix two sets of rules
    without a word (an edited what-if rulebook, or another file under the same name)."""
    if scenario == OFFICIAL:
        return  # the official lists follow the system's rulebook: a change makes them stale
    before = execute(
        con,
        read_sql("queries/lists/scenario_list_before.sql"),
        {"system": system, "scenario": scenario, "list_date": first},
    )
    if before and before[0][1] != rulebook.content_hash:
        list_date, _, scenario_start = before[0]
        raise ListError(
            f"scenario {scenario}'s list of {list_date}, which a replay from {first} builds on, "
            f"was computed under another rulebook than {rulebook.source}: replay the scenario "
            f"from its first list date ({scenario_start}), or name a new scenario"
        )


def refuse_stale_lists_before(con: duckdb.DuckDBPyConnection, system: str, list_date: date) -> None:
    """A list is built on the one before: refuse it while an earlier list of the system is
    stale (a late or corrected tournament, a merge), or it would carry that list's error on."""
    from flows.status import stale_of

    earlier = [stale for stale in stale_of(con, system) if stale.list_date < list_date]
    if earlier:
        first = earlier[0]
        raise ListError(
            f"the {system} list of {first.list_date} is stale ({first.reason})"
            + (f", and {len(earlier) - 1} more after it" if len(earlier) > 1 else "")
            + f": replay {'it' if len(earlier) == 1 else 'them'} first with `graduatoria "
            f"recalculate --system {system} --stale`, then publish the list of {list_date}"
        )


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


def fsi_list_import(system: str, list_date: date) -> ListImport:
    rulebook = load_rulebook(system)
    era = rulebook.era_at(list_date)

    def prepare(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        if era.letters is None or rows.height == 0:
            return rows, empty_problems()
        rows = rows.with_columns(normalise_labels(pl.col("category"), era.letters))
        wrong = label_problems(rows, era.letters)
        return rows.filter(~pl.col("line_no").is_in(wrong.get_column("line_no").implode())), wrong

    def read_people(con: duckdb.DuckDBPyConnection) -> tuple[pl.DataFrame, pl.DataFrame]:
        registry = query_frame(con, read_sql("queries/lists/registry_at.sql"), {"day": list_date})
        members = query_frame(
            con,
            read_sql("queries/lists/members_at.sql"),
            {"day": list_date, "year": list_date.year},
        )
        return registry, members

    return ListImport(
        rulebook=rulebook,
        era=era,
        row_schema=PublishedListRow,
        categories=None if era.letters is not None else era.category_order,
        prepare=prepare,
        read_people=read_people,
        build_rows=lambda published, registry, members: imported_rows(
            published, registry, members, era, list_date
        ),
    )


def refuse_an_import_after_computed_lists(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date
) -> None:
    """An imported list starts a system: it cannot follow lists computed from nothing, which
    would then stand before the system's first list, stale and never to be replayed."""
    earlier = query_frame(
        con,
        read_sql("queries/lists/current_revisions.sql"),
        {"system": system, "scenario": OFFICIAL},
    ).filter(pl.col("list_date") < list_date)
    if earlier.height and earlier.get_column("source")[0] == "computed":
        first, last = earlier.get_column("list_date")[0], earlier.get_column("list_date")[-1]
        raise ListError(
            f"the {system} lists of {first} … {last} were computed before {list_date}: an "
            "imported list starts a system, so import the federation's list of a date before "
            f"{first} (the lists after it then show as stale, and a replay rebuilds them)"
        )


@flow(name="import-list")
@failure_recorded("import-list")
def import_list_flow(file: str, system: str, list_date: date, warehouse: str) -> dict[str, int]:
    """Bootstrap a system from its last official list (player_id, rating, games, k, category;
    for a draughts system the rating is the capital and k is empty).

    The list becomes revision 1 of that list date, so the next list starts from it.
    """
    from flows.draughts import RUBELE_SYSTEMS, rubele_list_import

    if system in RUBELE_SYSTEMS:
        importer = rubele_list_import(system, list_date)
    elif system in FSI_SYSTEMS:
        importer = fsi_list_import(system, list_date)
    else:
        known = ", ".join([*FSI_SYSTEMS, *RUBELE_SYSTEMS])
        raise ListError(f"unknown system {system!r}; expected one of {known}")
    era, rulebook = importer.era, importer.rulebook
    # the lists after it could never follow it: each needs the list date before it
    refuse_a_day_off_the_calendar(system, era.calendar, list_date)
    run = RunRecord(
        flow="import-list",
        parameters={"file": file, "system": system, "list_date": list_date},
        rulebook_hash=rulebook.content_hash,
    )
    source = read_csv_text(Path(file))
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
        errors = problems.filter(pl.col("severity") == "error").height
        # the federation's list is taken whole or not at all: a player left out would enter
        # the next list as a newcomer, and an official list is never replaced
        refused = bool(errors) and not current
        if refused:
            run.counts = {"players": 0, "rejections_new": rejected, "refused": 1}
            report = (
                f"# Import of the {system} list at {list_date} refused\n\n- nothing was "
                f"imported: {counted(errors, 'row')} rejected; correct the file and import it "
                "again\n"
            ) + recorded_problems_section(con, run.run_id)
            run.write(con, "refused", report)
        elif not current:
            archive_files(con, run.run_id, [(source.file, "list")])
            registry, members = importer.read_people(con)
            warnings = imported_list_warnings(
                rows, registry, system, importer.categories, list_date
            ).with_columns(pl.lit("list").alias("source"), *tag_file)
            record_problems(con, run.run_id, warnings)
            listed = importer.build_rows(rows.drop("line_no"), registry, members)
            execute(
                con,
                read_sql("queries/lists/insert_revision.sql"),
                {
                    **key,
                    "revision": 1,
                    "source": "imported",
                    "run_id": run.run_id,
                    "rulebook_hash": rulebook.content_hash,
                    "era_from": era.effective_from,
                    "previous_list_date": None,
                    "previous_revision": None,
                    "content_hash": source.file.sha256,
                    "inputs_hash": None,
                    "players": listed.height,
                    "tournaments": 0,
                    "report": f"Imported from {source.file.name}",
                },
            )
            tag = [pl.lit(value).alias(name) for name, value in {**key, "revision": 1}.items()]
            imported = insert_frame(con, "list_entry", listed.with_columns(tag))
            insert_frame(
                con,
                "list_ranking",
                rankings(ranking_input(listed, era, list_date)).with_columns(tag),
            )
        if not refused:  # the list stored now, or the same file imported before
            run.counts = {"players": imported, "rejections_new": rejected}
            warned = problems.height - errors
            report = (
                f"# Imported {system} list at {list_date}\n\n- players imported: {imported}"
                f"{' (already imported)' if current else ''}\n"
                + (f"- warnings (rows kept): {warned}\n" if warned else "")
            ) + recorded_problems_section(con, run.run_id)
            run.write(con, "succeeded", report)
    say(report)
    if refused:
        raise ListError(
            f"{source.file.name}: {counted(errors, 'row')} rejected, nothing imported (a list with "
            "players left out would enter them as newcomers): correct the file and import it "
            "again"
        )
    return run.counts
