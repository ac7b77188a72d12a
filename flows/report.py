"""Run reports an analyst can read: plain Markdown, printed and stored as a Prefect artifact."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from transforms.elo.lists import ENTRY_BASES

if TYPE_CHECKING:
    from flows.ingest import DeliveryOutcome
    from flows.lists import PeriodContext, WrittenList
    from flows.runtime import RunRecord
    from transforms.elo.lists import PeriodFacts
    from transforms.lists.published import PublishedList

MAX_LISTED = 25
TOP_MOVES = 5  # players listed among the biggest gains, and among the losses


def _line(problem: dict[str, object]) -> str:
    where = str(problem["file_name"])
    if problem.get("line_no") is not None:
        where += f", line {problem['line_no']}"
    if problem.get("field"):
        where += f", field {problem['field']}"
    value = problem.get("value")
    shown = f" (value: `{value}`)" if value not in (None, "") else ""
    return f"- {where}{shown}: {problem['reason']}"


def problems_section(problems: pl.DataFrame) -> str:
    """The rejections (every one, up to MAX_LISTED, then a pointer to the view) and the first
    warnings of a run, as report sections; ``problems`` holds the rows of
    ``sql/queries/run_problems.sql``."""
    lines: list[str] = []
    errors = problems.filter(pl.col("severity") == "error")
    if errors.height:
        lines += ["", f"## Rejections ({errors.height})"]
        lines += [_line(row) for row in errors.head(MAX_LISTED).iter_rows(named=True)]
        if errors.height > MAX_LISTED:
            lines.append(f"- … and {errors.height - MAX_LISTED} more in the `rejection` view")
    warnings = problems.filter(pl.col("severity") == "warning")
    if warnings.height:
        lines += ["", f"## Warnings ({warnings.height}, first {MAX_LISTED})"]
        lines += [_line(row) for row in warnings.head(MAX_LISTED).iter_rows(named=True)]
    return "\n".join(lines) + "\n" if lines else ""


def ingest_report(run: RunRecord, outcomes: list[DeliveryOutcome]) -> str:
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
        f"- new rejections: {counts['rejections_new']}; new warnings: {counts['warnings_new']}",
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
    ]
    problems = pl.concat(problem_frames) if problem_frames else pl.DataFrame()
    quarantined = [
        intake for outcome in outcomes for intake in outcome.intakes if intake.status != "accepted"
    ]
    if quarantined:
        lines += ["", "## Quarantined tournaments (not rated until delivered again)"]
        for intake in quarantined:
            first = intake.errors.row(0, named=True) if intake.errors.height else None
            reason = first["reason"] if first else "the manifest row was rejected"
            lines.append(f"- {intake.tournament_id}: {reason}")
    report = "\n".join(lines) + "\n"
    return report + (problems_section(problems) if problems.height else "")


def _players_line(frame: pl.DataFrame, column: str) -> list[str]:
    return [
        f"| {row['name'] or row['player_id']} | {row['player_id']} | {row['previous_rating']} "
        f"| {row['rating']} | {row[column]:+d} |"
        for row in frame.iter_rows(named=True)
    ]


def moves_sections(gains: pl.DataFrame, losses: pl.DataFrame) -> list[str]:
    """A list's biggest gains and losses as report tables (player_id, name, frozen_rating,
    rating, change)."""
    lines: list[str] = []
    for title, top in (("Biggest gains", gains), ("Biggest losses", losses)):
        if top.height:
            lines += [
                "",
                f"## {title}",
                "",
                "| player | id | before | after | change |",
                "|---|---|---|---|---|",
            ]
            before = top.select(
                "player_id",
                "name",
                pl.col("frozen_rating").alias("previous_rating"),
                "rating",
                "change",
            )
            lines += _players_line(before, "change")
    return lines


def list_report(context: PeriodContext, facts: PeriodFacts, published: PublishedList) -> str:
    """The analyst's summary of one list: what was rated, who moved, what was left out."""
    letters = context.era.letters is not None
    rows = published.rows.lazy()
    rated = pl.col("games") > 0
    change = (pl.col("rating") - pl.col("frozen_rating")).alias("change")
    # new: not on the list before (whatever he enters with: an entry rating, or FIDE's)
    is_newcomer = (
        pl.col("previous_rating").is_null()
        if context.previous_date is not None
        else pl.col("rating_basis").is_in(ENTRY_BASES)
    )
    is_promotion = (
        pl.col("note").fill_null("").str.contains("letter " if letters else "category ")
        & pl.col("previous_category").is_not_null()
    )

    def biggest(gains: bool) -> pl.LazyFrame:
        # ties in player id order, so the same list always reports the same players
        moved = rows.filter(rated).select("player_id", "name", "frozen_rating", "rating", change)
        moved = moved.filter(pl.col("change") > 0 if gains else pl.col("change") < 0)
        return moved.top_k(TOP_MOVES, by=["change", "player_id"], reverse=[not gains, True]).sort(
            ["change", "player_id"], descending=[gains, False]
        )

    # one set of queries for the whole report: a list's rows are tens of thousands, and each
    # filter or sort of them on its own cost more than the reading
    counts, gains, losses, promotions, newcomers, tournaments = pl.collect_all(
        [
            rows.select(
                pl.len().alias("players"),
                rated.sum().alias("rated"),
                pl.col("in_ranking").sum().alias("in_ranking"),
                is_newcomer.sum().alias("newcomers"),
                is_promotion.sum().alias("promotions"),
            ),
            biggest(gains=True),
            biggest(gains=False),
            rows.filter(is_promotion).head(MAX_LISTED),
            rows.filter(is_newcomer).head(MAX_LISTED),
            published.variations.lazy().select(pl.col("tournament_id").n_unique()),
        ],
        engine="in-memory",
    )
    count = counts.row(0, named=True)
    era = context.era
    lines = [
        f"# {context.system} list of {context.list_date}",
        "",
        f"- period: tournaments received after {context.after} up to {context.up_to}",
        f"- previous list: {context.previous_date or 'none (everyone enters with entry ratings)'}",
        f"- rules: era from {era.effective_from} ({era.note}); rulebook "
        f"{context.rulebook.source} sha256 {context.rulebook.content_hash[:12]}",
        f"- players on the list: {count['players']}; rated in this period: {count['rated']}; "
        f"in the national ranking: {count['in_ranking']}",
        f"- tournaments rated: {tournaments.item()}; "
        f"quarantined (not rated): {facts.quarantined.height}",
        f"- new players: {count['newcomers']}; "
        f"{'letter changes' if letters else 'category promotions'}: {count['promotions']}",
    ]
    lines += moves_sections(gains, losses)
    if facts.quarantined.height:
        lines += ["", "## Quarantined tournaments (not rated)"]
        lines += [
            f"- {row['tournament_id']} ({row['file_name']}): {row['reason']}"
            for row in facts.quarantined.iter_rows(named=True)
        ]
    if promotions.height:
        title = "Letter changes" if letters else "Promotions"
        lines += ["", f"## {title} ({count['promotions']}, first {MAX_LISTED})"]
        lines += [
            f"- {row['name']} ({row['player_id']}): {row['previous_category']} -> {row['category']}"
            for row in promotions.iter_rows(named=True)
        ]
    if newcomers.height:
        lines += ["", f"## New players ({count['newcomers']}, first {MAX_LISTED})"]
        # the rating he enters the list with and where it comes from; the note, when a rule
        # changed a number
        lines += [
            f"- {row['name']} ({row['player_id']}): {row['rating']} ({row['rating_basis']})"
            + (f"; {row['note']}" if row["note"] else "")
            for row in newcomers.iter_rows(named=True)
        ]
    return "\n".join(lines) + "\n"


def recalculation_report(
    system: str,
    scenario: str,
    results: list[tuple[WrittenList, pl.DataFrame | None]],
    seconds: float,
) -> str:
    """Per list date: new revision or unchanged, and who differs from the superseded list."""
    against = "the revision it supersedes" if scenario == "official" else "the official list"
    lines = [
        f"# Recalculation of {system} ({scenario})",
        "",
        f"- list dates replayed: {len(results)} in {seconds:.1f} s",
        f"- new revisions: {sum(1 for written, _ in results if written.written)}",
        f"- differences are against {against}",
        "",
        "| list date | revision | players differing | ratings changed | categories changed "
        "| overall positions changed | entered / left | largest rating difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for written, diff in results:
        if not written.written and diff is None:
            lines.append(
                f"| {written.context.list_date} | {written.revision} (unchanged) "
                "| 0 | 0 | 0 | 0 | 0 / 0 | |"
            )
            continue
        state = "" if written.written else " (unchanged)"
        lines.append(
            f"| {written.context.list_date} | {written.revision}{state} | "
            + " | ".join(diff_summary(diff))
            + " |"
        )
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
