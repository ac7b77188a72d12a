"""The dashboard's entry script: ``streamlit run flows/dashboard/app.py -- --warehouse FILE``
(what ``graduatoria dashboard`` runs). The pages are the scripts in ``pages/``; each reads the
warehouse through :mod:`flows.dashboard.reads` (short read-only sessions, cached by the file's
identity)."""

from __future__ import annotations

import datetime as dt
import os

import streamlit as st

from flows.dashboard.reads import DashboardError, pending, warehouse_path

st.set_page_config(page_title="graduatoria", page_icon=":material/leaderboard:", layout="wide")

PAGES = [
    st.Page(
        "pages/lists.py",
        title="Lists",
        icon=":material/format_list_numbered:",
        url_path="lists",
        default=True,
    ),
    st.Page("pages/player.py", title="Player", icon=":material/person:", url_path="player"),
    st.Page(
        "pages/tournament.py",
        title="Tournament",
        icon=":material/emoji_events:",
        url_path="tournament",
    ),
    st.Page("pages/inbox.py", title="Inbox health", icon=":material/inbox:", url_path="inbox"),
    st.Page(
        "pages/whatif.py", title="What-if", icon=":material/compare_arrows:", url_path="what-if"
    ),
]

page = st.navigation(PAGES)

path = warehouse_path()
with st.sidebar:
    st.caption("Warehouse (read-only)")
    st.code(str(path), language=None, wrap_lines=True)
    if path.exists():
        written = dt.datetime.fromtimestamp(os.stat(path).st_mtime).isoformat(" ", "seconds")
        st.caption(f"last written {written}; a run's new file shows on the next refresh")
        try:
            waiting = pending()
        except DashboardError:
            waiting = []  # the page below says why it cannot read
        if waiting:
            st.warning(
                f"This warehouse was written by an earlier version: {len(waiting)} migration(s) "
                "will be applied by the next run that writes it; until then some pages may "
                "lack what they show."
            )
    if st.button("Refresh", help="read the warehouse again now"):
        st.cache_data.clear()
        st.rerun()

# a missing or unreadable warehouse is said by the page itself (every read names the file)
page.run()
