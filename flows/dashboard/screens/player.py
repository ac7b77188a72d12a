"""Player: the rating list after list in every system the player has (recalculated lists
visible), the category and letter history, each period's tournaments with their variations
and notes, and the game-by-game calculation where the warehouse has it.

A page script: Streamlit runs it (st.navigation in app.py); nothing imports it."""

from __future__ import annotations

import duckdb
import polars as pl
import streamlit as st

from flows.dashboard import charts, filters, reads
from flows.dashboard.widgets import (
    TOURNAMENT_PAGE,
    drop_hidden,
    follow_link,
    keep_in_url,
    linked_table,
    reading_errors,
    table,
)
from schemas.vocabulary import CHESS_SYSTEMS, coefficient_word, rating_word

# the view of the per-game calculation (`graduatoria explain`, issue 32 item 2)
GAME_VIEW = "game_calculation"
MATCHES_SHOWN = 200
# columns of the per-game rows that the page shows already
PERIOD_COLUMNS = ("system", "scenario", "list_date", "revision", "player_id")


@reading_errors
def main() -> None:
    st.title("Player")
    players = reads.query("players")
    if players.is_empty():
        st.info("No player on any official list yet.")
        return
    follow_link("player", "player_pick", players.get_column("player_id").to_list(), "player_search")
    search = st.text_input(
        "Search", key="player_search", placeholder="name or id", help="part of a name, or an id"
    )
    matching = players.filter(filters.search_expr(search))
    if matching.is_empty():
        st.warning(f"No player matches {search!r}.")
        return
    # the first ones offered, and the one chosen (by a link, say) wherever it sorts
    chosen = st.session_state.get("player_pick")
    matches = matching.filter(
        (pl.int_range(pl.len()) < MATCHES_SHOWN) | pl.col("player_id").is_in([chosen or ""])
    )
    ids = matches.get_column("player_id").to_list()
    labels = dict(zip(ids, matches.select(_label()).to_series().to_list(), strict=True))
    drop_hidden("player_pick", ids)
    first = f", {len(ids):,} offered: search to narrow" if matching.height > len(ids) else ""
    player_id = st.selectbox(
        f"Player ({matching.height:,} matching{first})",
        ids,
        format_func=labels.__getitem__,
        key="player_pick",
    )
    keep_in_url("player", "player_pick", player_id)
    history = reads.query("player_history", player_id=player_id)
    in_force = history.filter(pl.col("in_force"))
    facts = matches.filter(pl.col("player_id") == player_id).row(0, named=True)
    st.header(f"{facts['name']} ({player_id})")
    st.caption(f"Rated in {facts['systems']}; on the lists up to {facts['last_list_date']}.")
    _latest(in_force)

    words = sorted({rating_word(system) for system in history.get_column("system").unique()})
    st.subheader(f"{' and '.join(words).capitalize()} history")
    st.altair_chart(charts.rating_history(history, " and ".join(words)), width="stretch")
    superseded = charts.superseded_ratings(history)
    if superseded.height:
        recalculated = superseded.select("system", "list_date").unique().height
        changed = superseded.filter(pl.col("difference") != 0)
        st.caption(
            f"Dashed rules: {recalculated} list(s) recalculated since first written (a late or "
            "corrected tournament, a merge, a registry snapshot); hollow diamonds: the "
            f"player's rating there before ({changed.height} revision(s) gave another rating)."
        )
        if changed.height:
            table(changed, key="player_revisions")
    st.subheader("Categories and letters")
    categories = in_force.select(
        "system",
        "list_date",
        "category",
        "previous_category",
        (pl.col("category") != pl.col("previous_category")).fill_null(False).alias("changed"),
    )
    table(categories, key="player_categories")
    letters = reads.query("player_letters", player_id=player_id)
    if letters.height:
        st.caption("Elo Rapid letters (a letter is held once the rating qualifies at 2 lists).")
        table(letters, key="player_letters")

    st.subheader("Periods")
    variations = reads.query("player_variations", player_id=player_id)
    periods = in_force.select(
        "system",
        "list_date",
        "previous_rating",
        "rating",
        "period_change",
        "games",
        "k",
        "rating_basis",
        "note",
    ).sort("list_date", "system", descending=[True, False])
    if words == ["capital"]:
        # a draughts player's lists: capitals, and no K (S goes with each tournament, below)
        periods = periods.drop("k").rename(_CAPITAL_NAMES, strict=False)
    table(periods, key="player_periods")
    rated = variations.select("system", "list_date").unique().sort("list_date", descending=True)
    if rated.is_empty():
        st.info("No tournament of this player was rated by a list in force.")
        return
    choices = rated.rows()
    system, list_date = st.selectbox(
        "Period",
        choices,
        format_func=lambda pair: f"{reads.system_label(pair[0])}, list of {pair[1]}",
        key="player_period",
    )
    of_period = (
        variations.filter((pl.col("system") == system) & (pl.col("list_date") == list_date))
        .drop("system", "list_date")
        .rename(_column_words(system), strict=False)
    )
    st.caption("The tournaments of the period; select one to open it.")
    linked_table(
        of_period,
        key="player_tournaments",
        column="tournament_id",
        page=TOURNAMENT_PAGE,
        parameter="tournament",
    )
    _game_by_game(player_id, system, list_date)


# a draughts table's columns, named as the list names what it gives: capitals
_CAPITAL_NAMES = {
    "previous_rating": "previous_capital",
    "rating": "capital",
    "own_rating": "own_capital",
    "opponent_rating": "opponent_capital",
    "rating_basis": "capital_basis",
}


def _column_words(system: str) -> dict[str, str]:
    """A table of one system's variations or games, its columns named as the system names
    them: a draughts variation's coefficient is S, not K, and its ratings are capitals."""
    capitals = _CAPITAL_NAMES if rating_word(system) == "capital" else {}
    return {"k": coefficient_word(system)} | capitals


def _label() -> pl.Expr:
    return pl.format("{} ({}) · {}", pl.col("name"), pl.col("player_id"), pl.col("systems"))


def _latest(in_force: pl.DataFrame) -> None:
    latest = in_force.sort("list_date").group_by("system", maintain_order=True).last()
    cells = st.columns(max(1, latest.height))
    for cell, row in zip(cells, latest.sort("system").iter_rows(named=True), strict=False):
        change = row["period_change"]
        cell.metric(
            f"{reads.system_label(row['system'])}, {row['list_date']}",
            row["rating"],
            delta=None if change in (None, 0) else int(change),
            help=f"category {row['category'] or '—'}; "
            + (f"K {row['k'] or '—'}; " if row["system"] in CHESS_SYSTEMS else "")
            + f"{row['total_games']} games counted in all",
        )


def _game_by_game(player_id: str, system: str, list_date: object) -> None:
    st.subheader("Game by game")
    if not reads.has_view(GAME_VIEW):
        st.info(
            f"This warehouse has no `{GAME_VIEW}` view yet: the per-game calculation "
            "(`graduatoria explain`) shows here once a run of a version that has it writes "
            "the warehouse."
        )
        return
    try:
        games = reads.query(
            "game_calculation", player_id=player_id, system=system, list_date=list_date
        )
    except duckdb.Error as error:
        st.warning(f"The `{GAME_VIEW}` view could not be read: {str(error).splitlines()[0]}")
        return
    if games.is_empty():
        st.info("No game of this player in this period.")
    else:
        # the period and the player are the page's already
        shown = [name for name in PERIOD_COLUMNS if name in games.columns]
        table(games.drop(shown).rename(_column_words(system), strict=False), key="player_games")


main()
