"""The dashboard's entry script: ``streamlit run flows/dashboard/app.py -- --warehouse FILE``
(what ``graduatoria dashboard`` runs). The pages are the scripts in ``screens/``; each reads
the warehouse through :mod:`flows.dashboard.reads` (short read-only sessions, cached by the
file's identity). Not in a folder named ``pages/``: Streamlit would also find them there by
itself and, for a first visit by a page's own address, serve them without this script (no
sidebar, no navigation, the scripts' file names for titles)."""

from __future__ import annotations

import datetime as dt
import os

import streamlit as st

from flows.dashboard.reads import DashboardError, pending, warehouse_path

st.set_page_config(page_title="graduatoria", page_icon=":material/leaderboard:", layout="wide")

PAGES = [
    st.Page(
        "screens/lists.py",
        title="Lists",
        icon=":material/format_list_numbered:",
        url_path="home",  # served at the root, as the default page is
        default=True,
    ),
    st.Page("screens/player.py", title="Player", icon=":material/person:", url_path="player"),
    st.Page(
        "screens/tournament.py",
        title="Tournament",
        icon=":material/emoji_events:",
        url_path="tournament",
    ),
    st.Page("screens/inbox.py", title="Inbox health", icon=":material/inbox:", url_path="inbox"),
    st.Page(
        "screens/whatif.py", title="What-if", icon=":material/compare_arrows:", url_path="what-if"
    ),
    # the default page is served at the root; its own address, as the sidebar's other pages
    # have theirs, is the same page out of the navigation (a shared /lists link was "Page not
    # found")
    st.Page(
        "screens/lists.py",
        title="Lists",
        icon=":material/format_list_numbered:",
        url_path="lists",
        visibility="hidden",
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
