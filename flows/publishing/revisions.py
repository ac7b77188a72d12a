"""Writing a list as a revision, whatever the system: a new revision only when its content
changed, the differences from the revision it supersedes (``list_diff``), and what a run
records of the inputs its lists read."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

import duckdb
import polars as pl

from flows.publishing.arguments import OFFICIAL
from flows.publishing.context import PeriodContext
from flows.publishing.current import list_checksums
from flows.runtime import RunRecord
from flows.warehouse import BatchedInserts, execute, insert_frame, query_frame, read_sql, registered
from transforms.elo.period import POINT, expected_by_difference
from transforms.elo.rulebook import EloEra
from transforms.lists.diffs import list_diff
from transforms.lists.published import PublishedList
from transforms.rubele.capitals import MAX_DIFFERENCE, PA_UNITS, pa_by_difference


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
    scores_held: set[tuple[str, str, date]] | None = None,
) -> WrittenList:
    """Write the list as a new revision unless the revision in force says the same; its rows go
    through ``rows`` (a recalculation batches them; by default they are written at once).
    ``in_force``: the revision and content hash in force of each list date, when the caller
    read them all at once (a replay); otherwise this list's is read here. ``scores_held``: the
    eras whose expected scores a replay knows the warehouse holds (see
    :func:`record_expected_scores`)."""
    rows = rows if rows is not None else BatchedInserts(con)
    key = {"system": context.system, "scenario": context.scenario, "list_date": context.list_date}
    if in_force is None:
        current = execute(con, read_sql("queries/lists/current_revision.sql"), key)
    else:
        current = [in_force[context.list_date]] if context.list_date in in_force else []
    fingerprint = content_hash(context, published)
    # also for a list written again unchanged: one written before the game_calculation view
    # gets what the view reads of its rulebook
    record_expected_scores(con, context, published, scores_held)
    if current and current[0][1] == fingerprint:
        # same list from these inputs: record that the revision in force is current for them
        execute(
            con,
            read_sql("queries/lists/record_inputs_current.sql"),
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
            "received_after": context.after,
            "received_up_to": context.up_to,
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


def record_expected_scores(
    con: duckdb.DuckDBPyConnection,
    context: PeriodContext,
    published: PublishedList,
    known: set[tuple[str, str, date]] | None = None,
) -> None:
    """The engines' expected score of one game at each difference, for the rulebook and era(s)
    a list was computed under (one era for an FSI list; those of its tournaments for a draughts
    list), unless the warehouse holds them: what the ``game_calculation`` view reads instead
    of storing a row per game (docs/WAREHOUSE.md). A few thousand rows, once per rulebook and
    era; a small query per list otherwise, unless ``known`` (system, rulebook hash, era) says
    the warehouse holds them: a replay keeps it across its lists, whose one writer it is, and
    saves a query per list (about 2.5 ms each on the publishing thread)."""
    key = {"system": context.system, "rulebook_hash": context.rulebook.content_hash}
    if isinstance(context.era, EloEra):
        eras = [context.era]
    else:
        used = set(published.variations.get_column("era_from").drop_nulls().to_list())
        eras = [era for era in context.rulebook.eras if era.effective_from in used]
    ids = {(context.system, key["rulebook_hash"], era.effective_from) for era in eras}
    if known is not None and ids <= known:
        return
    held = {
        row[0] for row in execute(con, read_sql("queries/explain/expected_score_eras.sql"), key)
    }
    missing = [era for era in eras if era.effective_from not in held]
    if known is not None:
        # held now, or once the inserts below are done (a failed one fails the replay)
        known |= ids
    if not missing:
        return
    rules, scores = [], []
    for era in missing:  # a list's eras: one or a few
        if isinstance(era, EloEra):
            limit, table = expected_by_difference(era)
            rule = {
                "family": "elo",
                "method": era.expected_method,
                "difference_cap": era.difference_cap,
                "difference_limit": limit,
                "units_per_point": POINT,
                "points_per_win": 1,
                "counted_for_loser": [],
                "unrated_opponents": None,
            }
        else:
            table = pa_by_difference(era)
            rule = {
                "family": "rubele",
                "method": era.expected_mode,
                "difference_cap": era.difference_cap,
                "difference_limit": MAX_DIFFERENCE,
                "units_per_point": PA_UNITS,
                "points_per_win": era.points_per_win,
                "counted_for_loser": list(era.counted_for_loser),
                "unrated_opponents": era.unrated_opponents,
            }
        rules.append({**key, "era_from": era.effective_from, **rule})
        scores.append(
            table.with_columns(
                pl.lit(context.system).alias("system"),
                pl.lit(key["rulebook_hash"]).alias("rulebook_hash"),
                pl.lit(era.effective_from).alias("era_from"),
            )
        )
    rule_frame = pl.DataFrame(
        rules,
        schema={
            "system": pl.Utf8,
            "rulebook_hash": pl.Utf8,
            "era_from": pl.Date,
            "family": pl.Utf8,
            "method": pl.Utf8,
            "difference_cap": pl.Int32,
            "difference_limit": pl.Int32,
            "units_per_point": pl.Int64,
            "points_per_win": pl.Int32,
            "counted_for_loser": pl.List(pl.Utf8),
            "unrated_opponents": pl.Utf8,
        },
    )
    for name, frame, sql in (
        ("incoming_rules", rule_frame, "queries/explain/insert_expected_score_rules.sql"),
        ("incoming_scores", pl.concat(scores), "queries/explain/insert_expected_scores.sql"),
    ):
        with registered(con, name, frame):
            execute(con, read_sql(sql))


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


def newly_left_out(con: duckdb.DuckDBPyConnection, written: WrittenList) -> list[tuple[str, str]]:
    """The tournaments a new official revision does not apply that the revision it supersedes
    applied (a tournament withdrawn, or quarantined by its new version, since), with why: what
    a replay took out of the list, to name in its report. None for a first revision, or a
    list the replay left as it was; a tournament new to the list and set aside by it was
    never in it (the list's own report names it)."""
    excluded = written.published.excluded
    if not written.written or written.revision < 2 or excluded.height == 0:
        return []
    context = written.context
    before = {
        "system": context.system,
        "scenario": OFFICIAL,
        "list_date": context.list_date,
        "revision": written.revision - 1,
    }
    left_before = query_frame(con, read_sql("queries/lists/revision_exclusions.sql"), before)
    candidates = excluded.filter(
        ~pl.col("tournament_id").is_in(left_before.get_column("tournament_id").implode())
    )
    if candidates.height == 0:
        return []
    applied = query_frame(
        con,
        read_sql("queries/lists/revision_applied.sql"),
        {**before, "tournaments": candidates.get_column("tournament_id").to_list()},
    )
    taken_out = candidates.filter(
        pl.col("tournament_id").is_in(applied.get_column("tournament_id").implode())
    )
    return [
        (str(tournament), str(reason or ""))
        for tournament, reason in taken_out.sort("tournament_id").rows()
    ]


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
            read_sql("queries/lists/latest_official_revision.sql"),
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


def inputs_checksums(contexts: list[PeriodContext]) -> dict[str, str]:
    """A list run's input checksums: the fingerprint of every input each list read (tournament
    versions, merges, registry loads, reference lists), as the run record keeps files' ones,
    and of the code that computed them (:func:`flows.publishing.current.list_checksums`)."""
    checksums: dict[str, str] = {}
    for system in dict.fromkeys(context.system for context in contexts):
        checksums |= list_checksums(
            system,
            (
                (context.list_date, context.inputs_hash)
                for context in contexts
                if context.system == system
            ),
        )
    return checksums
