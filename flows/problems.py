"""``graduatoria problems``: what the inputs did not give, in one place (read-only).

Quarantined and withdrawn tournaments, tournaments no list will rate, and the rejections and
warnings the latest runs recorded, filtered by delivery, system or tournament. It reads the
warehouse only: no Prefect, no run record.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from flows.console import counted
from flows.publishing.unrated import unrated_tournaments
from flows.warehouse import Warehouse, WarehouseError, has_relation, query_frame, read_sql


@dataclass(frozen=True)
class ProblemFilter:
    delivery: str | None = None  # a delivery folder's name (2019-07)
    system: str | None = None
    tournament: str | None = None
    runs: int = 5  # the latest runs that recorded rejections or warnings

    def described(self) -> str:
        given = [
            f"{name} {value}"
            for name, value in (
                ("delivery", self.delivery),
                ("system", self.system),
                ("tournament", self.tournament),
            )
            if value
        ]
        return ", ".join(given) if given else "none"


def problems_text(warehouse: str, chosen: ProblemFilter) -> str:
    if not Warehouse(warehouse).exists():
        raise WarehouseError(f"no warehouse at {warehouse}: nothing was delivered there yet")
    params = {
        "delivery": chosen.delivery,
        "system": chosen.system,
        "tournament": chosen.tournament,
    }
    with Warehouse(warehouse).reader() as con:
        if not has_relation(con, "tournament_withdrawal"):
            raise WarehouseError(
                f"the warehouse at {warehouse} was written by an earlier version of graduatoria: "
                "the next command that writes to it (an ingest, a list) upgrades it"
            )
        tournaments = query_frame(con, read_sql("queries/problems/tournaments.sql"), params)
        recorded = query_frame(
            con, read_sql("queries/problems/recorded.sql"), {**params, "runs": chosen.runs}
        )
        unrated = unrated_tournaments(con)
        set_aside = query_frame(con, read_sql("queries/problems/set_aside.sql"), params)
    unrated = unrated.filter(
        _matches(pl.col("system"), chosen.system)
        & _matches(pl.col("tournament_id"), chosen.tournament)
        & _matches(pl.col("delivery"), chosen.delivery)
    )
    lines = [
        f"Problems in {Warehouse(warehouse).path} (filters: {chosen.described()})",
    ]
    for status, title in (
        ("quarantined", "Quarantined tournaments (not rated until delivered again)"),
        ("withdrawn", "Withdrawn tournaments"),
    ):
        rows = tournaments.filter(pl.col("status") == status)
        lines += ["", f"{title}: {rows.height}"]
        lines += [
            f"  {tournament_id} ({system or 'no system'}, delivery {delivery}, "
            f"{f'received {received}' if received else 'no date of receipt'}): {reason}"
            for _, tournament_id, system, delivery, received, reason in rows.rows()
        ]
    lines += ["", f"Tournaments no list will rate: {unrated.height}"]
    lines += [
        f"  {tournament_id} ({system}): {reason}"
        for system, tournament_id, reason in unrated.select(
            "system", "tournament_id", "reason"
        ).rows()
    ]
    lines += ["", f"Tournaments accepted but set aside by a list: {set_aside.height}"]
    lines += [
        f"  {tournament_id} ({system}, list of {list_date}, delivery {delivery}): {reason}"
        for system, list_date, tournament_id, delivery, reason in set_aside.rows()
    ]
    for severity, title in (("error", "Rejections"), ("warning", "Warnings")):
        rows = recorded.filter(pl.col("severity") == severity)
        standing = rows.filter(~pl.col("resolved"))
        resolved = rows.height - standing.height
        lines += [
            "",
            f"{title} recorded by the latest {counted(chosen.runs, 'run')} that recorded any: "
            f"{rows.height}"
            + (
                f" ({resolved} of tournaments accepted since, not listed: the `rejection` "
                "view holds them)"
                if resolved
                else ""
            ),
        ]
        lines += _listed_by_tournament(standing, whole=chosen.tournament is not None)
    return "\n".join(lines)


# problems listed per tournament, the rest counted (a tournament quarantined before the
# registry knew its players has one rejection per game and player)
LISTED_PER_TOURNAMENT = 10


def _listed_by_tournament(problems: pl.DataFrame, whole: bool) -> list[str]:
    """The problem lines, at most ``LISTED_PER_TOURNAMENT`` of each tournament (``whole``:
    every one, as when one tournament is asked for), then how many more and how to see them."""
    if whole:
        return [_problem_line(row) for row in problems.iter_rows(named=True)]
    ranked = problems.with_columns(
        pl.int_range(pl.len()).over("tournament_id").alias("_rank"),
        pl.len().over("tournament_id").alias("_of"),
    )
    lines = []
    for row in ranked.iter_rows(named=True):
        if row["tournament_id"] is None or row["_rank"] < LISTED_PER_TOURNAMENT:
            lines.append(_problem_line(row))
        elif row["_rank"] == LISTED_PER_TOURNAMENT:
            more = row["_of"] - LISTED_PER_TOURNAMENT
            lines.append(
                f"  … and {more} more of {row['tournament_id']}: graduatoria problems "
                f"--tournament {row['tournament_id']}"
            )
    return lines


def _matches(column: pl.Expr, value: str | None) -> pl.Expr:
    return pl.lit(True) if value is None else column == value


def _problem_line(row: dict[str, object]) -> str:
    where = str(row["file_name"])
    if row["line_no"] is not None:
        where += f", line {row['line_no']}"
    if row["field"]:
        where += f", field {row['field']}"
    value = f" (value: `{row['value']}`)" if row["value"] not in (None, "") else ""
    about = f" [{row['tournament_id']}]" if row["tournament_id"] else ""
    run = f"{row['flow']}, {row['ended_at']:%Y-%m-%d %H:%M}"
    return f"  {where}{value}: {row['reason']}{about} ({run})"


def print_problems(warehouse: str, chosen: ProblemFilter) -> None:
    print(problems_text(warehouse, chosen))
