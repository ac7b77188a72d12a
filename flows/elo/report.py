"""The analyst's report of one FSI Elo list: what was rated, who moved, who entered, what was
left out."""

from __future__ import annotations

import polars as pl

from flows.publishing.context import PeriodContext
from flows.reports import MAX_LISTED, TOP_MOVES, moves_sections
from transforms.elo.lists import ENTRY_BASES, PeriodFacts
from transforms.inputs.matching import PROVISIONAL_PREFIX
from transforms.lists.published import PublishedList


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
                pl.col("player_id").str.starts_with(PROVISIONAL_PREFIX).sum().alias("provisional"),
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
    if count["provisional"]:
        # players the registry did not identify when their tournaments were ingested: listed
        # under provisional ids until an analyst merges them (or a registry snapshot knows them)
        lines.append(
            f"- provisional players (not found in the registry): {count['provisional']}; "
            "see the `unmatched_player` view, and `graduatoria merge` for one who is "
            "registered under another name"
        )
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
