"""What-if: a scenario (a replay under another rulebook, beside the official lists) against the
official lists in force: who moves, by how much, how the differences spread.

A page script: Streamlit runs it (st.navigation in app.py); nothing imports it."""

from __future__ import annotations

import polars as pl
import streamlit as st

from flows.dashboard import charts, filters, reads
from flows.dashboard.widgets import PLAYER_PAGE, linked_table, reading_errors, table


@reading_errors
def main() -> None:
    st.title("What-if")
    revisions = reads.query("list_revisions")
    scenarios = (
        revisions.filter(pl.col("scenario") != reads.OFFICIAL)
        .select("system", "scenario")
        .unique()
        .sort("system", "scenario")
    )
    if scenarios.is_empty():
        st.info(
            "No what-if scenario yet. Compute one beside the official lists, e.g. "
            "`graduatoria recalculate --system elo_italia --from 2019-04-01 --to 2020-01-01 "
            "--rulebook OTHER.toml --scenario NAME`."
        )
        return
    row = st.columns([3, 2])
    pairs = scenarios.rows()
    system, scenario = row[0].selectbox(
        "Scenario",
        pairs,
        format_func=lambda pair: f"{pair[1]} · {reads.system_label(pair[0])}",
        key="whatif_scenario",
    )
    dates = sorted(
        set(
            revisions.filter((pl.col("system") == system) & (pl.col("scenario") == scenario))
            .get_column("list_date")
            .to_list()
        ),
        reverse=True,
    )
    list_date = row[1].selectbox("List date", dates, key="whatif_date")

    summary = reads.query("scenario_summary", system=system, scenario=scenario)
    st.subheader(f"{scenario} against the official lists, list by list")
    left, right = st.columns([3, 2])
    left.altair_chart(charts.scenario_by_date(summary), width="stretch")
    table(summary, key="whatif_summary", where=right)

    compared = reads.query(
        "scenario_against_official", system=system, scenario=scenario, list_date=list_date
    )
    both = compared.filter(pl.col("presence") == "both")
    moved = both.filter(pl.col("difference") != 0)
    st.subheader(f"The list of {list_date}")
    counts = st.columns(5)
    counts[0].metric("On both lists", f"{both.height:,}")
    counts[1].metric("Moved", f"{moved.height:,}")
    counts[2].metric("Up", f"{moved.filter(pl.col('difference') > 0).height:,}")
    counts[3].metric("Down", f"{moved.filter(pl.col('difference') < 0).height:,}")
    largest = moved.get_column("difference").abs().max() if moved.height else 0
    counts[4].metric("Largest move", f"{largest}")
    if compared.height > both.height:
        st.caption(f"{compared.height - both.height} player(s) on one list only (column presence).")
    st.altair_chart(charts.difference_distribution(compared), width="stretch")

    row = st.columns([1, 2])
    only_moved = row[0].checkbox("Only players who move", value=True, key="whatif_moved")
    search = row[1].text_input("Search", key="whatif_search", placeholder="name or id")
    shown = compared.filter(
        pl.lit(not only_moved) | (pl.col("difference") != 0) | (pl.col("presence") != "both"),
        filters.search_expr(search),
    )
    st.caption("Largest moves first; select a player to open the player.")
    linked_table(
        shown, key="whatif_players", column="player_id", page=PLAYER_PAGE, parameter="player"
    )


main()
