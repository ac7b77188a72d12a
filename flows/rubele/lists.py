"""The draughts (FID Elo-Rubele) lists of ``rubele_italiana`` and ``rubele_internazionale``:
publish one list date, or replay a range.

Tournaments share the chess tables (system = rubele_<variant>); lists share the list tables and
the public views. The pure work is in ``transforms/inputs/draughts_csv.py``,
``transforms/rubele/capitals.py`` and ``transforms/rubele/lists.py``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from datetime import date

import duckdb
import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from flows.console import Progress, counted, say
from flows.publishing.arguments import OFFICIAL, ListError, refuse_bad_scenario_name, replay_dates
from flows.publishing.context import PeriodContext, read_previous
from flows.publishing.current import (
    CurrentList,
    replay_unless_current,
    unchanged_replay,
)
from flows.publishing.importing import ListImport
from flows.publishing.quarterly import publish_quarterly
from flows.publishing.refusals import refuse_a_range
from flows.publishing.replay import ReplayedList, finish_recalculation
from flows.publishing.revisions import WrittenList, diff_against, newly_left_out, write_list
from flows.publishing.staleness import stale_lists
from flows.reports import MAX_LISTED, TOP_MOVES, moves_sections
from flows.rubele.periods import (
    rubele_context,
    rubele_list_fingerprints,
    stale_rubele_lists,
)
from flows.rubele.rulebook import load_rubele_rulebook
from flows.runtime import RunRecord, failure_recorded
from flows.warehouse import Warehouse, query_frame, read_sql
from schemas.draughts import PublishedCapitalRow
from transforms.inputs.registry import DatedSnapshots
from transforms.lists.notes import first_named
from transforms.lists.published import PublishedList
from transforms.rubele.lists import (
    RubeleFacts,
    build_rubele_list,
    capitals_without_k,
    imported_capitals,
    unrated_entries,
    without_tournaments,
)
from transforms.rubele.rulebook import RubeleRulebook

# --------------------------------------------------------------------------- ingest


# --------------------------------------------------------------------------- lists


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
        prepare=capitals_without_k,
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
        # rescaling.upward = "first": the highest capital each player held before the window
        peaks=query_frame(
            con,
            read_sql("queries/rubele/peak_capitals.sql"),
            {
                "system": context.system,
                "scenario": context.scenario,
                "list_date": context.list_date,
            },
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
    # an era that rates only some categories (rated.categories): who played without a capital
    not_rated = unrated_entries(
        without_tournaments(facts, published.excluded.get_column("tournament_id")), rulebook
    ).get_column("player_id")
    moved = rows.filter(pl.col("games") > 0).sort("period_change", descending=True)
    promoted = rows.filter(
        pl.col("previous_category").is_not_null()
        & pl.col("category").ne_missing(pl.col("previous_category"))
    ).sort("player_id")
    lines = [
        f"# {context.system} list of {context.list_date}",
        "",
        # every tournament of the window once: applied, quarantined, or set aside
        f"- tournaments received after {context.after} up to {context.up_to}: "
        f"{facts.tournaments.height + quarantined.height}: applied "
        f"{facts.tournaments.height - set_aside.height} (in order of "
        f"{', '.join(rulebook.tournament_order).replace('_', ' ')}), quarantined "
        f"{quarantined.height}, set aside by the list {set_aside.height}",
        f"- previous list: {context.previous_date or 'none (everyone enters as a debutant)'}",
        f"- rules: rulebook {context.rulebook.source} sha256 {context.rulebook.content_hash[:12]}",
        f"- players on the list: {rows.height}; with counted games: {moved.height}; in the "
        f"national ranking: {int(rows.get_column('in_ranking').sum())}",
        f"- debutants: {rows.filter(pl.col('rating_basis') == 'debutant').height}; foreign "
        f"entries: {rows.filter(pl.col('rating_basis') == 'foreign').height}; category "
        f"promotions: {promoted.height}",
    ]
    if not_rated.len():
        lines.append(
            f"- players not rated (their category is not rated in the era of their tournaments: "
            f"no capital, no list row): {not_rated.n_unique()} "
            f"({first_named(sorted(set(not_rated.to_list())), MAX_LISTED)})"
        )
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
    fingerprints: Mapping[date, str] | None = None,
) -> WrittenList:
    """Compute one draughts list and write it (a new revision only if it changed);
    ``fingerprints``: the inputs' fingerprints of a replay's dates, read at once."""
    previous = read_previous(con, system, scenario, list_date)
    context = rubele_context(con, system, scenario, list_date, rulebook, previous, fingerprints)
    facts = read_rubele_facts(con, context, previous.rows)
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
    return publish_quarterly(
        system,
        list_date,
        warehouse,
        rulebook,
        stale=lambda con: stale_rubele_lists(con, system),
        publish=lambda con, run: publish_rubele(con, run, system, OFFICIAL, list_date, rulebook),
    )


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
    if stale and scenario != OFFICIAL:
        raise ListError("--stale replays official lists; a scenario names its own range")
    refuse_bad_scenario_name(scenario)
    if stale:
        rulebook = load_rubele_rulebook(system, rulebook_path)
        with Warehouse(warehouse).reader() as con:
            found = stale_lists(con, system, rulebook, rubele_list_fingerprints)
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

    def unchanged(con: duckdb.DuckDBPyConnection) -> list[CurrentList] | None:
        return unchanged_replay(con, system, rulebook, dates, rubele_list_fingerprints)

    return replay_unless_current(
        warehouse,
        run,
        system,
        scenario,
        stale,
        unchanged,
        lambda con: _replay_rubele(con, run, system, scenario, start, end, rulebook, began),
        began,
        lambda con: refuse_a_range(con, system, scenario, dates, rulebook),
    )


def _replay_rubele(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    scenario: str,
    start: date,
    end: date,
    rulebook: RubeleRulebook,
    began: float,
) -> str:
    """Replay the draughts list dates from ``start`` to ``end`` in order, writing a new
    revision where a list changes, and record the run: its report."""
    dates = replay_dates(system, rulebook.era_at(start).calendar, start, end)
    say(
        f"recalculate: {counted(len(dates), f'{system} list date')} ({scenario}) "
        f"from {start} to {end}"
    )
    refuse_a_range(con, system, scenario, dates, rulebook)
    # every date's fingerprint in one query (a replay writes lists, not what they read)
    fingerprints = rubele_list_fingerprints(con, system, rulebook, dates)
    results = []
    with Progress(len(dates)) as progress:
        for list_date in dates:
            written = publish_rubele(con, run, system, scenario, list_date, rulebook, fingerprints)
            compare = written.written or scenario != OFFICIAL
            diff = diff_against(con, run, written, scenario) if compare else None
            left_out = newly_left_out(con, written) if scenario == OFFICIAL else []
            results.append(ReplayedList.of(written, diff, left_out))
            state = f"revision {written.revision}" if written.written else "unchanged"
            progress.advance(f"{list_date}: {state}")
    return finish_recalculation(con, run, system, scenario, results, began)
