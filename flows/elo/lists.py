"""Publishing FSI Elo lists: the ``quarterly`` flow, and the import of a published list.

One list date of one system: read the previous list, the tournaments received in the period
and the registry as it stood, run the pure engine, and write a new revision of the list with
its variations and rankings in one transaction. Equal content means no new revision.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import duckdb
import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from flows.elo.periods import read_period, stale_fsi_lists
from flows.elo.report import list_report
from flows.elo.rulebook import FSI_SYSTEMS, load_rulebook
from flows.publishing.arguments import OFFICIAL, ListError
from flows.publishing.context import PeriodContext
from flows.publishing.importing import ListImport
from flows.publishing.quarterly import publish_quarterly
from flows.publishing.revisions import WrittenList, write_list
from flows.runtime import RunRecord, failure_recorded
from flows.warehouse import BatchedInserts, query_frame, read_sql
from schemas.inputs import PublishedListRow
from schemas.problems import empty_problems
from transforms.elo.lists import PeriodFacts, build_list, imported_rows
from transforms.elo.rapid_letters import label_problems, normalise_labels
from transforms.elo.rulebook import EloEra, Rulebook
from transforms.lists.published import PublishedList


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


def as_previous(context: PeriodContext, rows: pl.DataFrame, revision: int | None) -> pl.DataFrame:
    """A just-computed list's rows (published, or closed: see
    :class:`transforms.elo_list.ClosedList`) in the shape the next list date reads them
    (``revision`` None: not settled yet, see :class:`flows.elo.recalculate.BackgroundPublisher`)."""
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


@flow(name="quarterly")
@failure_recorded("quarterly")
def quarterly_flow(
    system: str, list_date: date, warehouse: str, rulebook_path: str | None = None
) -> dict[str, int]:
    """Publish the list of ``system`` at ``list_date`` (a new revision if anything changed)."""
    if system not in FSI_SYSTEMS:
        raise ListError(f"unknown system {system!r}; expected one of {', '.join(FSI_SYSTEMS)}")
    rulebook = load_rulebook(system, rulebook_path)
    return publish_quarterly(
        system,
        list_date,
        warehouse,
        rulebook,
        stale=lambda con: stale_fsi_lists(con, system),
        publish=lambda con, run: publish_one(con, run, system, list_date, rulebook),
    )


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
