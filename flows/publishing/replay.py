"""The end of a replay, whatever the system: its report (per list date, new revision or
unchanged, and who differs from the superseded list) and its run record."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import duckdb
import polars as pl

from flows.publishing.context import PeriodContext
from flows.publishing.revisions import WrittenList, inputs_checksums
from flows.runtime import RunRecord
from schemas.vocabulary import rating_word


@dataclass(frozen=True)
class ReplayedList:
    """What a replay keeps of a list once it is written, for its report and run record: not
    its rows, nor its differences player by player (kept to the end, a replay of the 91
    national lists held about a gigabyte of them)."""

    revision: int
    written: bool
    context: PeriodContext  # without the reference list it read
    differences: list[str] | None  # diff_summary; None when not compared (a first revision)
    players_changed: int
    players: int
    in_ranking: int
    # tournaments the superseded revision applied and this one leaves out, with why
    left_out: list[tuple[str, str]]

    @classmethod
    def of(
        cls,
        written: WrittenList,
        diff: pl.DataFrame | None,
        left_out: list[tuple[str, str]] | None = None,
    ) -> ReplayedList:
        rows = written.published.rows
        return cls(
            written.revision,
            written.written,
            replace(written.context, reference_ratings=None),
            None if diff is None else diff_summary(diff),
            0 if diff is None else diff.height,
            rows.height,
            int(rows.get_column("in_ranking").sum()),
            left_out or [],
        )


def recalculation_report(
    system: str,
    scenario: str,
    results: list[ReplayedList],
    seconds: float,
) -> str:
    """Per list date: new revision or unchanged, and who differs from the superseded list."""
    against = "the revision it supersedes" if scenario == "official" else "the official list"
    word = rating_word(system)
    lines = [
        f"# Recalculation of {system} ({scenario})",
        "",
        f"- list dates replayed: {len(results)} in {seconds:.1f} s",
        f"- new revisions: {sum(1 for replayed in results if replayed.written)}",
        f"- differences are against {against}",
        "",
        f"| list date | revision | players differing | {word}s changed | categories changed "
        f"| overall positions changed | entered / left | largest {word} difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for replayed in results:
        if not replayed.written and replayed.differences is None:
            lines.append(
                f"| {replayed.context.list_date} | {replayed.revision} (unchanged) "
                "| 0 | 0 | 0 | 0 | 0 / 0 | |"
            )
            continue
        state = "" if replayed.written else " (unchanged)"
        lines.append(
            f"| {replayed.context.list_date} | {replayed.revision}{state} | "
            + " | ".join(replayed.differences or diff_summary(None))
            + " |"
        )
    left_out = [replayed for replayed in results if replayed.left_out]
    if left_out:
        lines += ["", "## Tournaments the new revisions no longer apply"]
        lines += [
            f"- {replayed.context.list_date}: "
            + "; ".join(f"{tournament} ({reason})" for tournament, reason in replayed.left_out)
            for replayed in left_out
        ]
    # a list with players but none ranked: the registry or its memberships are missing
    unranked = [replayed for replayed in results if replayed.players and not replayed.in_ranking]
    if unranked:
        lines += [""]
        lines += [
            f"WARNING: nobody is in the national ranking of {replayed.context.list_date} "
            f"({replayed.players} players, none both active and a member): is the registry "
            "loaded, with its memberships?"
            for replayed in unranked
        ]
    return "\n".join(lines) + "\n"


def diff_summary(diff: pl.DataFrame | None) -> list[str]:
    """A list's differences in a report row: how many players differ, in what, and the largest
    rating difference of a player on both lists. A player entering or leaving the list is
    counted there only, not as a change of rating, category or position too."""
    if diff is None:  # a first computation: nothing to compare with
        return ["—", "—", "—", "—", "—", ""]
    if diff.height == 0:
        return ["0", "0", "0", "0", "0 / 0", ""]
    both = pl.col("old_rating").is_not_null() & pl.col("new_rating").is_not_null()
    counts = diff.select(
        (both & (pl.col("difference") != 0)).sum().alias("ratings"),
        (both & pl.col("old_category").ne_missing(pl.col("new_category")))
        .sum()
        .alias("categories"),
        (both & pl.col("old_position").ne_missing(pl.col("new_position"))).sum().alias("positions"),
        pl.col("old_rating").is_null().sum().alias("entered"),
        pl.col("new_rating").is_null().sum().alias("left"),
    ).row(0, named=True)
    moved = diff.filter(both & (pl.col("difference") != 0))
    largest = ""
    if moved.height:
        top = moved.sort([pl.col("difference").abs(), "player_id"], descending=[True, False]).row(
            0, named=True
        )
        largest = f"{top['name'] or top['player_id']}: {top['old_rating']} -> {top['new_rating']}"
    return [
        str(diff.height),
        str(counts["ratings"]),
        str(counts["categories"]),
        str(counts["positions"]),
        f"{counts['entered']} / {counts['left']}",
        largest,
    ]


def finish_recalculation(
    con: duckdb.DuckDBPyConnection,
    run: RunRecord,
    system: str,
    scenario: str,
    results: list[ReplayedList],
    began: float,
) -> str:
    """The report and counts of a replay, recorded with its run (inside its transaction)."""
    report = recalculation_report(system, scenario, results, time.perf_counter() - began)
    run.input_checksums = inputs_checksums([replayed.context for replayed in results])
    run.counts = {
        "lists": len(results),
        "new_revisions": sum(1 for replayed in results if replayed.written),
        "players_changed": sum(replayed.players_changed for replayed in results),
    }
    run.write(con, "succeeded", report)
    return report
