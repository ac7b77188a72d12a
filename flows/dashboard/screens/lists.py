"""Lists: any system's list at any date and revision, official or a what-if scenario; the
national rankings, filters and search; movers, newcomers and promotions.

A page script: Streamlit runs it (st.navigation in app.py); nothing imports it."""

from __future__ import annotations

import polars as pl
import streamlit as st

from flows.dashboard import charts, filters, reads
from flows.dashboard.widgets import (
    PLAYER_PAGE,
    ListChoice,
    linked_table,
    pick_list,
    reading_errors,
    table,
)
from schemas.vocabulary import CHESS_SYSTEMS, rating_word

ACTIVITY = {filters.ANY: "any", filters.YES: "active", filters.NO: "inactive"}
MEMBERSHIP = {filters.ANY: "any", filters.YES: "members", filters.NO: "not members"}
# which side of a draughts game counts is an era's rule, in this table since migration 015: a
# warehouse an earlier version wrote cannot say which games a list counted until a run migrates it
GAME_RULES = "expected_score_rule"

LIST_COLUMNS = {
    "position": st.column_config.NumberColumn("pos.", help="position in the ranking shown"),
    "player_id": st.column_config.TextColumn("id"),
    "name": st.column_config.TextColumn("name", width="medium"),
    "rating": st.column_config.NumberColumn("rating"),
    "change": st.column_config.NumberColumn("±", help="since the previous list"),
    "previous_rating": st.column_config.NumberColumn("previous"),
    "games": st.column_config.NumberColumn("games", help="counted in the period"),
    "total_games": st.column_config.NumberColumn("total games"),
    "k": st.column_config.NumberColumn("K"),
    "category": st.column_config.TextColumn("cat."),
    "is_active": st.column_config.CheckboxColumn("active"),
    "is_member": st.column_config.CheckboxColumn("member"),
    "sex": st.column_config.TextColumn("sex"),
    "birth_year": st.column_config.NumberColumn("born", format="%d"),
    "rating_basis": st.column_config.TextColumn("basis", help="what the rating rests on"),
    "note": st.column_config.TextColumn("note", width="large"),
}


@reading_errors
def main() -> None:
    st.title("Lists")
    revisions = reads.query("list_revisions")
    if revisions.is_empty():
        st.info("No list yet: publish one (graduatoria quarterly) or import the federation's.")
        return
    choice = pick_list("lists", revisions)
    st.caption(choice.describe())
    entries = reads.query("list_entries", **choice.key()).with_columns(
        pl.col("birth_date").dt.year().alias("birth_year")
    )

    word = rating_word(choice.system)
    chosen = _filters(entries)
    shown = filters.filter_entries(entries, chosen)
    counts = st.columns(5)
    counts[0].metric("Players shown", f"{shown.height:,}", help=f"of {entries.height:,}")
    counts[1].metric("Active", f"{shown.get_column('is_active').sum():,}")
    counts[2].metric("Members", f"{shown.get_column('is_member').sum():,}")
    median = shown.get_column("rating").median()
    counts[3].metric(f"Median {word}", "—" if median is None else f"{median:.0f}")
    games = _games_counted(choice, shown)
    counts[4].metric(
        "Games in the period",
        "—" if games is None else f"{games:,}",
        help="the games this list counted for the players shown, each once (a game between "
        "two of them is one game)",
    )

    tab_list, tab_movers, tab_new, tab_promoted, tab_spread = st.tabs(
        ["List", "Movers", "Newcomers", "Promotions", "Distribution"]
    )
    with tab_list:
        # a draughts list has capitals and no K (its variations' S is the player's page's)
        kept = [name for name in LIST_COLUMNS if name in shown.columns]
        if choice.system not in CHESS_SYSTEMS:
            kept.remove("k")
        st.caption("Select a row to open the player.")
        linked_table(
            shown.select(kept),
            key="lists_table",
            column="player_id",
            page=PLAYER_PAGE,
            parameter="player",
            config={
                **LIST_COLUMNS,
                "rating": st.column_config.NumberColumn(word),
                "rating_basis": st.column_config.TextColumn(
                    "basis", help=f"what the {word} rests on"
                ),
            },
            height=560,
        )
    with tab_movers:
        gains, losses = filters.movers(shown)
        if gains.is_empty() and losses.is_empty():
            st.info(f"No {word} changed at this list among the players shown.")
        else:
            left, right = st.columns(2)
            left.subheader("Largest gains")
            table(gains, key="lists_gains", where=left)
            right.subheader("Largest losses")
            table(losses, key="lists_losses", where=right)
            st.altair_chart(charts.movers(pl.concat([gains, losses])), width="stretch")
    with tab_new:
        if choice.source == "imported":
            st.info("An imported list (the federation's own): it follows no list here.")
        else:
            arrived = filters.newcomers(shown)
            st.caption(f"{arrived.height:,} players new to the list, with what they entered on.")
            table(arrived, key="lists_newcomers")
    with tab_promoted:
        promoted = filters.promotions(shown)
        letters = "; a letter reached, or become definitive" if choice.system == "elo_rapid" else ""
        st.caption(
            f"{promoted.height:,} players whose category changed at this list (categories are "
            f"never lowered{letters})."
        )
        table(promoted, key="lists_promotions")
    with tab_spread:
        st.altair_chart(charts.rating_distribution(shown, word), width="stretch")


def _games_counted(choice: ListChoice, shown: pl.DataFrame) -> int | None:
    """The games the list counted for the players shown, each once (summing their ``games``
    counts a game once for each player it counted for); None where the warehouse cannot tell."""
    if not reads.has_view(GAME_RULES):
        return None
    return filters.games_counted(reads.query("list_games", **choice.key()), shown)


def _filters(entries: pl.DataFrame) -> filters.ListFilter:
    row = st.columns([3, 3, 2, 2, 3])
    ranking = row[0].radio(
        "National ranking",
        [filters.ALL_PLAYERS, *filters.RANKINGS],
        horizontal=True,
        key="lists_ranking",
        help="the rankings published with the list (women; youth: under the age the "
        "rulebook sets); all players: the whole list",
    )
    categories = row[1].multiselect(
        "Category",
        sorted(set(entries.get_column("category").drop_nulls().to_list())),
        key="lists_category",
        placeholder="every category",
    )
    active = row[2].selectbox(
        "Activity", list(ACTIVITY), format_func=ACTIVITY.__getitem__, key="lists_active"
    )
    member = row[3].selectbox(
        "Membership", list(MEMBERSHIP), format_func=MEMBERSHIP.__getitem__, key="lists_member"
    )
    search = row[4].text_input(
        "Search", key="lists_search", placeholder="name or id", help="part of a name, or an id"
    )
    return filters.ListFilter(ranking, tuple(categories), active, member, search)


main()
