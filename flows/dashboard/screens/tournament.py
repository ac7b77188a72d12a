"""Tournament: its versions as delivered, its players, the variations the lists gave them,
its games, and why it was quarantined, withdrawn, left out of a list, or rated by none.

A page script: Streamlit runs it (st.navigation in app.py); nothing imports it."""

from __future__ import annotations

import polars as pl
import streamlit as st

from flows.dashboard import filters, reads
from flows.dashboard.widgets import (
    PLAYER_PAGE,
    drop_hidden,
    follow_link,
    keep_in_url,
    linked_table,
    reading_errors,
    table,
)

ANY_SYSTEM = "any system"
ANY_STATUS = "any status"


@reading_errors
def main() -> None:
    st.title("Tournament")
    tournaments = reads.query("tournaments")
    if tournaments.is_empty():
        st.info("No tournament yet: ingest a delivery (graduatoria ingest INBOX).")
        return
    follow_link(
        "tournament",
        "tournament_pick",
        tournaments.get_column("tournament_id").to_list(),
        "tournament_search",
    )
    row = st.columns([2, 2, 3])
    systems = sorted(set(tournaments.get_column("system").drop_nulls().to_list()))
    system = row[0].selectbox(
        "System",
        [ANY_SYSTEM, *systems],
        key="tournament_system",
        format_func=lambda name: name if name == ANY_SYSTEM else reads.system_label(name),
    )
    statuses = sorted(set(tournaments.get_column("status").to_list()))
    status = row[1].selectbox("Status", [ANY_STATUS, *statuses], key="tournament_status")
    search = row[2].text_input(
        "Search",
        key="tournament_search",
        placeholder="name or id",
        help="part of the tournament's name, or its id",
    )
    shown = tournaments.filter(
        pl.lit(system == ANY_SYSTEM) | (pl.col("system") == system),
        pl.lit(status == ANY_STATUS) | (pl.col("status") == status),
        filters.search_expr(search, ident="tournament_id"),
    )
    if shown.is_empty():
        st.warning("No tournament matches.")
        return
    ids = shown.get_column("tournament_id").to_list()
    names = dict(zip(ids, shown.get_column("name").to_list(), strict=True))
    drop_hidden("tournament_pick", ids)
    tournament_id = st.selectbox(
        f"Tournament ({len(ids):,} matching, latest received first)",
        ids,
        format_func=lambda ident: f"{ident} · {names[ident] or '(no name)'}",
        key="tournament_pick",
    )
    keep_in_url("tournament", "tournament_pick", tournament_id)
    facts = shown.filter(pl.col("tournament_id") == tournament_id).row(0, named=True)
    st.header(f"{tournament_id} · {facts['name'] or '(no name)'}")
    st.caption(
        f"{reads.system_label(facts['system'] or '?')}; {facts['status']}; played "
        f"{facts['start_date']} .. {facts['end_date']}; received {facts['received_on']} in "
        f"delivery {facts['delivery'] or '—'}; {facts['players'] or 0} players, "
        f"{facts['played_games'] or 0} games played"
    )
    _why_not_rated(tournament_id, facts["status"])

    versions, players, variations, games, problems = st.tabs(
        ["Versions", "Players", "Variations", "Games", "Rejections and warnings"]
    )
    with versions:
        table(
            reads.query("tournament_versions", tournament_id=tournament_id),
            key="tournament_versions",
        )
    with players:
        entries = reads.query("tournament_players", tournament_id=tournament_id)
        st.caption("The latest version's players; select one to open the player.")
        linked_table(
            entries,
            key="tournament_players",
            column="player_id",
            page=PLAYER_PAGE,
            parameter="player",
        )
    with variations:
        rated = reads.query("tournament_variations", tournament_id=tournament_id)
        if rated.is_empty():
            st.info("No list in force rated this tournament.")
        else:
            table(rated, key="tournament_variations")
    with games:
        played = reads.query("tournament_games", tournament_id=tournament_id)
        rounds = sorted(set(played.get_column("round").to_list()))
        if rounds:
            chosen = st.multiselect(
                "Rounds", rounds, key="tournament_rounds", placeholder="every round"
            )
            if chosen:
                played = played.filter(pl.col("round").is_in(chosen))
        table(played, key="tournament_games")
    with problems:
        found = reads.query("tournament_problems", tournament_id=tournament_id)
        if found.is_empty():
            st.success("No rejection or warning was recorded for this tournament.")
        else:
            table(found, key="tournament_problems")


def _why_not_rated(tournament_id: str, status: str) -> None:
    """Quarantine or withdrawal (with the reason `graduatoria problems` gives), the lists that
    set it aside, and a receipt before its system's first list."""
    if status != "accepted":
        reason = reads.problem_tournaments().filter(pl.col("tournament_id") == tournament_id)
        why = reason.get_column("reason")[0] if reason.height else "(no reason recorded)"
        st.error(f"{status.capitalize()}: {why}")
    excluded = reads.query("tournament_exclusions", tournament_id=tournament_id)
    if excluded.height:
        st.warning(f"Left out of {excluded.height} list(s) of its period:")
        table(excluded, key="tournament_exclusions")
    unrated = reads.unrated().filter(pl.col("tournament_id") == tournament_id)
    if unrated.height:
        st.warning(f"No list will rate it: {unrated.get_column('reason')[0]}")


main()
