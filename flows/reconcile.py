"""``graduatoria reconcile``: a computed list against the list its federation published.

How a federation proves that graduatoria reproduces its past lists before it switches: the
published list (the ``import-list`` CSV: player_id, rating, games to date, K, category) is read
as ``import-list`` reads it, and compared, player by player, with one revision of the computed
list (the latest official one unless ``--revision`` or ``--scenario`` say otherwise). Each
player who differs gets one cause, the first of these that holds, with its evidence:

- ``only_computed`` / ``only_published``: on one list only;
- ``missing_tournament`` / ``extra_tournament``: the federation counts more (fewer) games to date
  than this list. Without the federation's tournaments the games are the evidence: games it
  rated that no tournament here gives, or a tournament rated here that it did not rate;
- ``k_differs``: the published K is not the computed one (compared when the file gives one
  and the list has one: draughts capitals have no K);
- ``rounding``: the ratings are one point apart and games and K agree: the evidence is this
  list's exact sum of variations, which rounds to its rating (a sum that is a whole number, a
  FIDE rating or a list without variations in the period rounds nothing: ``unknown``);
- ``entry_differs``: a player who entered (or re-entered) the list here, whose first rating the
  federation set otherwise: the evidence is the entry rating and its rule (``rating_basis``);
- ``unknown``: the ratings differ and nothing above explains it;
- ``category_differs``: rating, games and K agree, the category (Elo Rapid: the letter) does not
  (compared when the file gives one).

The summary counts ratings: of the players on both lists, how many agree exactly, within one
point, beyond. It is written with every differing player to the warehouse (tables
``list_reconciliation`` and ``list_reconciliation_player``, views ``reconciliation_summary`` and
``reconciliation``), and the run's report, printed, lists the players by cause.

The verb writes the warehouse, so it runs as a Prefect flow, like the others. The flow is
built when first called: the command line builds its parser from :func:`add_reconcile_parser`,
and ``graduatoria --help`` must not import Prefect, Polars or DuckDB.
"""

from __future__ import annotations

import argparse
import functools
from dataclasses import asdict, dataclass
from datetime import date, datetime
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.console import counted, say
from flows.export import (
    OFFICIAL,
    ListKey,
    add_list_choice,
    is_entry,
    list_rows,
    resolve_list,
)

if TYPE_CHECKING:
    import polars as pl

# The causes, in the order they are tried (and reports list them)
CAUSES = (
    "only_computed",
    "only_published",
    "missing_tournament",
    "extra_tournament",
    "k_differs",
    "rounding",
    "entry_differs",
    "unknown",
    "category_differs",
)
# what a rejection of the published file is told by (schemas/problems.py, PROBLEM_SCHEMA)
PROBLEM_COLUMNS = ("line_no", "field", "value", "reason", "severity")
# players the printed report names per cause (the view has every one)
SHOWN_PER_CAUSE = 20

PLAYER_SCHEMA_TYPES = {
    "player_id": "str",
    "name": "str",
    "cause": "str",
    "evidence": "str",
    "published_rating": "int",
    "computed_rating": "int",
    "difference": "int",
    "published_games": "int",
    "computed_total_games": "int",
    "computed_games": "int",
    "published_k": "int",
    "computed_k": "int",
    "published_category": "str",
    "computed_category": "str",
    "rating_basis": "str",
}


class ReconcileError(RuntimeError):
    """The lists cannot be compared as asked (one clear line for the analyst)."""


@dataclass(frozen=True)
class Summary:
    """How far the two lists agree; ratings are compared for players on both."""

    published_players: int
    computed_players: int
    on_both: int
    agree_exactly: int
    within_one: int
    beyond_one: int
    only_computed: int
    only_published: int
    differing: int

    def counts(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class PublishedFile:
    rows: pl.DataFrame  # player_id, rating, games, k, category, last_played
    name: str
    path: str
    sha256: str


# Reading the published list


def read_published(file: str, system: str, list_date: date) -> PublishedFile:
    """The published list, read and typed as ``import-list`` reads it (the same checks, the
    same Elo Rapid labels); refused whole, naming its first rejections, when a row cannot be
    read: a player left out would show as missing from it."""
    import polars as pl

    from flows.csv_checks import checked_csv, problem_text, refused_rows
    from flows.inputs import read_csv_text
    from flows.systems import rating_system
    from transforms.inputs.registry import LIST_REQUIRED, type_published_list

    importer = rating_system(system).importer(list_date)
    source = read_csv_text(Path(file), required=LIST_REQUIRED)
    rows, problems = checked_csv(source, type_published_list, importer.row_schema)
    if rows.height:
        rows, wrong = importer.prepare(rows)
        problems = pl.concat(
            [frame.select(PROBLEM_COLUMNS) for frame in (problems, wrong)], how="vertical_relaxed"
        )
    errors = problems.filter(pl.col("severity") == "error")
    if errors.height:
        shown = "; ".join(problem_text(row) for row in errors.head(3).iter_rows(named=True))
        more = f"; and {counted(errors.height - 3, 'more problem')}" if errors.height > 3 else ""
        raise ReconcileError(
            f"{source.file.name}: {refused_rows(errors)} cannot be read ({shown}{more}): "
            "correct the file (the import-list CSV, docs/INPUTS.md) and reconcile again"
        )
    return PublishedFile(
        rows=rows.drop("line_no"),
        name=source.file.name,
        path=str(source.file.path),
        sha256=source.file.sha256,
    )


# Comparing


def compare(
    computed: pl.DataFrame,
    published: pl.DataFrame,
    variations: pl.DataFrame,
    registry: pl.DataFrame,
    list_date: date,
) -> tuple[list[dict[str, Any]], Summary]:
    """Every player who differs, with cause and evidence, and the summary.

    ``computed`` is the list as :func:`flows.export.list_rows` reads it, ``published`` the
    typed published rows, ``variations`` the computed list's sums per player
    (``variation_sums.sql``), ``registry`` the registry's names on the list date."""
    ours = {row["player_id"]: row for row in computed.iter_rows(named=True)}
    theirs = {row["player_id"]: row for row in published.iter_rows(named=True)}
    sums = {row["player_id"]: row for row in variations.iter_rows(named=True)}
    names = dict(registry.select("player_id", "name").iter_rows())
    differences = []
    apart = {"exact": 0, "one": 0, "beyond": 0}
    for player_id in sorted(ours.keys() | theirs.keys()):
        mine, federation = ours.get(player_id), theirs.get(player_id)
        if mine is not None and federation is not None and mine["rating"] is not None:
            gap = abs(federation["rating"] - mine["rating"])
            apart["exact" if gap == 0 else "one" if gap == 1 else "beyond"] += 1
        found = classify(mine, federation, sums.get(player_id), names, list_date)
        if found is not None:
            cause, evidence = found
            differences.append(_difference_row(player_id, mine, federation, names, cause, evidence))
    order = {cause: index for index, cause in enumerate(CAUSES)}
    differences.sort(
        key=lambda row: (
            order[row["cause"]],
            -abs(row["difference"] or 0),
            row["player_id"],
        )
    )
    on_both = len(ours.keys() & theirs.keys())
    summary = Summary(
        published_players=len(theirs),
        computed_players=len(ours),
        on_both=on_both,
        agree_exactly=apart["exact"],
        within_one=apart["one"],
        beyond_one=apart["beyond"] + on_both - sum(apart.values()),  # a rating missing here
        only_computed=len(ours.keys() - theirs.keys()),
        only_published=len(theirs.keys() - ours.keys()),
        differing=len(differences),
    )
    return differences, summary


def classify(
    mine: dict[str, Any] | None,
    federation: dict[str, Any] | None,
    sums: dict[str, Any] | None,
    names: dict[str, str],
    list_date: date,
) -> tuple[str, str] | None:
    """The cause of a player's difference and its evidence; None when the lists agree."""
    if federation is None:
        assert mine is not None
        return "only_computed", _only_computed(mine)
    if mine is None:
        return "only_published", _only_published(federation, names, list_date)
    ours, theirs = mine["rating"], federation["rating"]
    if ours == theirs:
        ratings = f"ratings agree ({ours})"
    elif ours is None:
        ratings = f"published {theirs}, no rating computed"
    else:
        ratings = f"published {theirs}, computed {ours} (published {theirs - ours:+d})"
    to_date, in_period = mine["total_games"], mine["games"]
    more = federation["games"] - to_date
    if more > 0:
        return "missing_tournament", (
            f"the federation counts {federation['games']} games to date, this list {to_date} "
            f"({in_period} in the period): {more} more there, rated in a tournament missing "
            f"here; {ratings}"
        )
    if more < 0:
        return "extra_tournament", (
            f"the federation counts {federation['games']} games to date, this list {to_date} "
            f"({in_period} in the period): {-more} fewer there, so a tournament rated here it "
            f"did not rate (not yet, or not at all); {ratings}"
        )
    # a list without K for him (draughts: capitals have none) has no K to differ from, nor
    # does a FIDE-rated player's row: his games count only for his opponents (RULES.md §1.3)
    has_k = mine["k"] is not None and mine.get("rating_type") != "fide"
    if federation["k"] is not None and has_k and federation["k"] != mine["k"]:
        return "k_differs", (
            f"K {federation['k']} published, {_text(mine['k'])} computed (this list's K from "
            f"a rating of {_text(mine['frozen_rating'])} at the period start and "
            f"{to_date - in_period} games before it); {ratings}"
        )
    if ours is None:
        return "unknown", f"{ratings}; games and K agree"
    if abs(theirs - ours) == 1:
        evidence, rounds = _rounding(mine, sums, theirs)
        # a draughts capital has no K to agree on
        k = "" if mine["k"] is None else f" and K ({mine['k']})"
        agree = f"games to date ({to_date}){k} agree"
        if rounds:
            return "rounding", f"one point apart: {ratings}; {agree}; {evidence}"
        # no rounding of this list can give the point: nothing above explains it
        return "unknown", f"one point apart: {ratings}; {agree}; {evidence}"
    if theirs != ours and is_entry(mine):
        change = mine["period_change"] or 0
        return "entry_differs", (
            f"entered this list at {_text(mine['frozen_rating'])} (rating basis "
            f"{mine['rating_basis']}), then {change:+d} over {in_period} games; {ratings}: "
            f"with the same change the federation's entry rating was about {theirs - change}"
        )
    if theirs != ours:
        agreeing = [
            f"games to date ({to_date})",
            *([] if mine["k"] is None else [f"K ({mine['k']})"]),
            f"the rating's basis ({mine['rating_basis']}, from "
            f"{_text(mine['frozen_rating'])} at the period start)",
        ]
        return "unknown", (
            f"{ratings}; {', '.join(agreeing[:-1])} and {agreeing[-1]} agree: compare the "
            f"player's {in_period} games of the period (view variation)"
        )
    if federation["category"] is not None and federation["category"] != mine["category"]:
        return "category_differs", (
            f"category {federation['category']} published, {_text(mine['category'])} computed; "
            f"rating ({ours}), games and K agree"
        )
    return None


def _rounding(
    mine: dict[str, Any], sums: dict[str, Any] | None, published: int | None = None
) -> tuple[str, bool]:
    """The exact sum this list rounded, from its variations (FSI: the period's sum in
    hundredths, which the era rounds to the period change), and whether a rounding can give the
    ``published`` rating: the sum rounded the other way (down where this list rounded up, or
    up). Not where the list's rating is no rounded sum (a FIDE rating, a list without
    variations in the period), where the sum is a whole number already, or where the published
    rating is no rounding of it; nor for draughts, whose list keeps no capital before its
    rounding (``explain`` gives it)."""
    frozen, rating = mine["frozen_rating"], mine["rating"]
    if mine.get("rating_type") == "fide":
        # a FIDE-rated player's listed rating is his FIDE rating at the close (§1.5), no sum
        return (
            f"the list shows his FIDE rating at the close, {rating}, not a sum of variations: "
            "compare the FIDE rating the federation used",
            False,
        )
    if sums is None or frozen is None:
        return "no variation in the period: no rounding of this list gives the point", False
    tournaments = counted(sums["tournaments"], "tournament")
    if sums["applied_hundredths"] is not None:
        total = Decimal(sums["applied_hundredths"]) / 100
        change = rating - frozen
        said = (
            f"here the variations over {tournaments} sum to {total:+.2f}, which this list rounds "
            f"to {change:+d}: {frozen} {'+' if change >= 0 else '-'} {abs(change)} = {rating}"
        )
        if total == total.to_integral_value():
            return f"{said}; a whole number, which no rounding moves", False
        if published is None:
            return said, True
        down, up = (
            int(total.to_integral_value(rounding=mode)) for mode in (ROUND_FLOOR, ROUND_CEILING)
        )
        other = published - frozen
        if other in (down, up):
            return f"{said}; the published {published} is the sum rounded to {other:+d}", True
        return f"{said}; the published {published} ({other:+d}) is no rounding of it", False
    # draughts: whole capital points, CF - CI per tournament; the final capital is rounded
    # once (RULES.md §3), and the list keeps it rounded
    reached = frozen + sums["applied_points"]
    listed = "" if reached == rating else f", and the list gives {rating}"
    return (
        f"here {frozen} {sums['applied_points']:+d} over {tournaments} = {reached}{listed}; "
        "the list keeps no capital before its rounding: graduatoria explain gives it, a "
        "rounding where the published capital is that value rounded the other way",
        False,
    )


def _only_computed(mine: dict[str, Any]) -> str:
    new = "; new on this list" if is_entry(mine) else ""
    return (
        f"on the computed list only: {_text(mine['rating'])} (rating basis "
        f"{mine['rating_basis']}), {mine['games']} games in the period, {mine['total_games']} "
        f"to date{new}"
    )


def _only_published(federation: dict[str, Any], names: dict[str, str], list_date: date) -> str:
    k = f", K {federation['k']}" if federation["k"] is not None else ""
    known = (
        f"in the registry in force on {list_date} as {names[federation['player_id']]}"
        if federation["player_id"] in names
        else f"in no registry snapshot in force on {list_date}"
    )
    return (
        f"on the published list only: {federation['rating']}, {federation['games']} games to "
        f"date{k}; {known}: no tournament here rates him, or he is here under another id "
        "(a provisional id to merge)"
    )


def _text(value: object) -> str:
    return "none" if value is None else str(value)


def _difference_row(
    player_id: str,
    mine: dict[str, Any] | None,
    federation: dict[str, Any] | None,
    names: dict[str, str],
    cause: str,
    evidence: str,
) -> dict[str, Any]:
    ours = mine or {}
    theirs = federation or {}
    published, computed = theirs.get("rating"), ours.get("rating")
    return {
        "player_id": player_id,
        "name": ours.get("name") or names.get(player_id),
        "cause": cause,
        "evidence": evidence,
        "published_rating": published,
        "computed_rating": computed,
        "difference": (
            published - computed if published is not None and computed is not None else None
        ),
        "published_games": theirs.get("games"),
        "computed_total_games": ours.get("total_games"),
        "computed_games": ours.get("games"),
        "published_k": theirs.get("k"),
        "computed_k": ours.get("k"),
        "published_category": theirs.get("category"),
        "computed_category": ours.get("category"),
        "rating_basis": ours.get("rating_basis"),
    }


def differences_frame(differences: list[dict[str, Any]]) -> pl.DataFrame:
    import polars as pl

    types = {"str": pl.Utf8, "int": pl.Int32}
    schema = {name: types[kind] for name, kind in PLAYER_SCHEMA_TYPES.items()}
    return pl.DataFrame(differences, schema=schema, orient="row")


# The report


def report_text(
    key: ListKey,
    file_name: str,
    summary: Summary,
    differences: list[dict[str, Any]],
    run_id: str,
) -> str:
    lines = [
        f"# Reconciliation of {key.described()} with {file_name}",
        "",
        f"- players: {summary.published_players} published, {summary.computed_players} "
        f"computed, {summary.on_both} on both lists",
        f"- ratings of the players on both lists: {summary.agree_exactly} agree exactly, "
        f"{summary.within_one} within one point, {summary.beyond_one} beyond",
        f"- only on the computed list: {summary.only_computed}; only on the published list: "
        f"{summary.only_published}",
        "- players who differ (on one list only, or in rating, games to date, K or "
        f"category): {summary.differing}",
    ]
    by_cause: dict[str, list[dict[str, Any]]] = {}
    for row in differences:
        by_cause.setdefault(row["cause"], []).append(row)
    if by_cause:
        lines += ["", "| cause | players |", "|---|---|"]
        lines += [f"| {cause} | {len(by_cause[cause])} |" for cause in CAUSES if cause in by_cause]
    for cause in CAUSES:
        rows = by_cause.get(cause, [])
        if not rows:
            continue
        lines += ["", f"## {cause} ({len(rows)})"]
        lines += [
            f"- {row['player_id']} {row['name'] or '(no name)'}: {row['evidence']}"
            for row in rows[:SHOWN_PER_CAUSE]
        ]
        if len(rows) > SHOWN_PER_CAUSE:
            lines.append(
                f"- … and {len(rows) - SHOWN_PER_CAUSE} more: view reconciliation, run_id "
                f"'{run_id}'"
            )
    return "\n".join(lines) + "\n"


# The flow


def reconcile_list(
    file: str,
    system: str,
    list_date: date,
    warehouse: str,
    revision: int | None = None,
    scenario: str | None = None,
) -> dict[str, int]:
    """Compare ``file`` (the published list) with the computed list and record the result."""
    from flows.runtime import RunRecord, artifact_key, publish_markdown
    from flows.warehouse import Warehouse, execute, insert_frame, query_frame, read_sql

    published = read_published(file, system, list_date)
    run = RunRecord(
        flow="reconcile",
        parameters={
            "file": file,
            "system": system,
            "list_date": list_date,
            "revision": revision,
            "scenario": scenario or OFFICIAL,
        },
    )
    run.input_checksums = {published.path: published.sha256}
    with Warehouse(warehouse).transaction(create=False) as con:
        key = resolve_list(con, system, list_date, revision, scenario)
        computed = list_rows(con, key)
        variations = query_frame(
            con, read_sql("queries/reconcile/variation_sums.sql"), key.params()
        )
        registry = query_frame(
            con,
            read_sql("queries/reconcile/registry_names.sql"),
            {"system": system, "list_date": list_date},
        )
        differences, summary = compare(computed, published.rows, variations, registry, list_date)
        execute(
            con,
            read_sql("queries/reconcile/insert_reconciliation.sql"),
            {
                **key.params(),
                **summary.counts(),
                "run_id": run.run_id,
                "file_name": published.name,
                "file_sha256": published.sha256,
                "reconciled_at": datetime.now(),
            },
        )
        frame = differences_frame(differences)
        insert_frame(
            con, "list_reconciliation_player", frame.with_columns(_literal("run_id", run.run_id))
        )
        report = report_text(key, published.name, summary, differences, run.run_id)
        run.counts = {**summary.counts(), "revision": key.revision}
        for cause in CAUSES:
            run.counts[cause] = sum(1 for row in differences if row["cause"] == cause)
        run.write(con, "succeeded", report)
    publish_markdown(report, key=artifact_key("reconciliation", system))
    say(report)
    return run.counts


def _literal(name: str, value: str) -> pl.Expr:
    import polars as pl

    return pl.lit(value).alias(name)


@functools.cache
def _reconcile_flow() -> Any:
    """The Prefect flow, built once, when first run (see the module's note)."""
    from prefect import flow

    from flows.runtime import failure_recorded

    return flow(name="reconcile")(failure_recorded("reconcile")(reconcile_list))


def reconcile_flow(
    file: str,
    system: str,
    list_date: date,
    warehouse: str,
    revision: int | None = None,
    scenario: str | None = None,
) -> dict[str, int]:
    """Run :func:`reconcile_list` as the ``reconcile`` Prefect flow; a failure is recorded in
    the warehouse as the other flows' are."""
    counts: dict[str, int] = _reconcile_flow()(
        file, system, list_date, warehouse, revision, scenario
    )
    return counts


# The command line


def _existing_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file")
    return text


def add_reconcile_parser(verbs: Any) -> argparse.ArgumentParser:
    """The ``reconcile`` verb on the command line's subparsers (the caller adds --warehouse)."""
    reconcile: argparse.ArgumentParser = verbs.add_parser(
        "reconcile",
        help="compare a computed list with the one the federation published: who differs, and why",
        description="Reads the published list (the import-list CSV: player_id,rating,games,k,"
        "category[,last_played], games to date) and compares it with the computed list (its "
        "latest official revision unless --revision or --scenario say otherwise). Each player "
        "who differs gets a cause (missing_tournament, extra_tournament, k_differs, rounding, "
        "entry_differs, unknown, category_differs, only_computed, only_published) with its "
        "evidence; the summary counts the ratings that agree exactly, within one point and "
        "beyond. Written to the warehouse (views reconciliation and reconciliation_summary) "
        "and printed (docs/EXPORTS.md).",
    )
    add_list_choice(reconcile)
    reconcile.add_argument(
        "--published",
        required=True,
        type=_existing_file,
        metavar="FILE",
        help="the federation's published list, a CSV: player_id,rating,games,k,category"
        "[,last_played]",
    )
    return reconcile


def run_reconcile(args: argparse.Namespace) -> None:
    """``graduatoria reconcile``: what can be refused without a run is refused first (a missing
    warehouse, a list it lacks), leaving no run record, as the other verbs do."""
    from flows.warehouse import Warehouse, WarehouseError

    if not Warehouse(args.warehouse).exists():
        raise WarehouseError(f"no warehouse at {args.warehouse}: nothing to reconcile")
    with Warehouse(args.warehouse).reader() as con:
        resolve_list(con, args.system, args.list_date, args.revision, args.scenario)
    reconcile_flow(
        args.published,
        args.system,
        args.list_date,
        args.warehouse,
        revision=args.revision,
        scenario=args.scenario,
    )
