"""Inbox health: quarantined and withdrawn tournaments, those no list will rate and those a list
set aside, rejections and warnings, stale lists with their reasons (what `graduatoria status`
says), and the runs.

A page script: Streamlit runs it (st.navigation in app.py); nothing imports it."""

from __future__ import annotations

import polars as pl
import streamlit as st

from flows.dashboard import charts, reads
from flows.dashboard.widgets import TOURNAMENT_PAGE, linked_table, reading_errors, table

RUNS_SHOWN = 200
EVERY = "every"


@reading_errors
def main() -> None:
    st.title("Inbox health")
    problem = reads.problem_tournaments()
    unrated = reads.unrated()
    set_aside = reads.set_aside()
    found = reads.query("rejections")
    stale = reads.stale_lists()
    runs = reads.query("runs", limit=RUNS_SHOWN)
    quarantined = problem.filter(pl.col("status") == "quarantined")
    failed = runs.filter(pl.col("status") == "failed")

    counts = st.columns(7)
    counts[0].metric("Quarantined", quarantined.height)
    counts[1].metric("Withdrawn", problem.height - quarantined.height)
    counts[2].metric("No list will rate", unrated.height, help="received before the first list")
    counts[3].metric(
        "Set aside by a list",
        set_aside.select("tournament_id").n_unique(),
        help="accepted, and left out by the lists whose window holds them",
    )
    counts[4].metric("Rejections", found.filter(pl.col("kind") == "rejection").height)
    counts[5].metric("Warnings", found.filter(pl.col("kind") == "warning").height)
    counts[6].metric("Stale lists", stale.height)

    st.subheader("Stale lists")
    if stale.is_empty():
        st.success("No official list is stale: every one is what a replay would give.")
    else:
        st.caption("Replay them with `graduatoria recalculate --stale`.")
        table(stale, key="inbox_stale")

    st.subheader("Quarantined and withdrawn tournaments")
    if problem.is_empty():
        st.success("None.")
    else:
        st.caption("Select one to open the tournament.")
        linked_table(
            problem,
            key="inbox_quarantined",
            column="tournament_id",
            page=TOURNAMENT_PAGE,
            parameter="tournament",
        )
    if unrated.height:
        st.subheader("Tournaments no list will rate")
        table(
            unrated.select("system", "tournament_id", "received_on", "delivery", "reason"),
            key="inbox_unrated",
        )

    if set_aside.height:
        st.subheader("Tournaments set aside by a list")
        st.caption(
            "Accepted when ingested, and left out by the list whose window holds them, for the "
            "reason it gives (a validity its era does not know, a tournament before the "
            "system was rated, a non-member's in Elo Rapid)."
        )
        linked_table(
            set_aside,
            key="inbox_set_aside",
            column="tournament_id",
            page=TOURNAMENT_PAGE,
            parameter="tournament",
        )

    st.subheader("Rejections and warnings")
    row = st.columns(2)
    kind = row[0].selectbox("Kind", [EVERY, "rejection", "warning"], key="inbox_kind")
    systems = sorted(set(found.get_column("system").drop_nulls().to_list()))
    system = row[1].selectbox(
        "System",
        [EVERY, *systems],
        key="inbox_system",
        format_func=lambda name: name if name == EVERY else reads.system_label(name),
    )
    shown = found.filter(
        pl.lit(kind == EVERY) | (pl.col("kind") == kind),
        pl.lit(system == EVERY) | (pl.col("system") == system),
    )
    table(shown, key="inbox_problems")

    st.subheader("Runs")
    if failed.height:
        st.error(
            f"{failed.height} of the latest {runs.height} runs failed (their reports say why)."
        )
    if runs.height:
        st.altair_chart(charts.runs_by_day(runs), width="stretch")
    table(runs.drop("report"), key="inbox_runs")
    reported = runs.filter(pl.col("report").is_not_null())
    if reported.height:
        labels = {
            run_id: f"{started} · {flow} · {status}"
            for run_id, started, flow, status in reported.select(
                "run_id", "started_at", "flow", "status"
            ).rows()
        }
        run_id = st.selectbox(
            "A run's report", list(labels), format_func=labels.__getitem__, key="inbox_run"
        )
        with st.expander("Report", expanded=False):
            st.markdown(reported.filter(pl.col("run_id") == run_id).get_column("report")[0])


main()
