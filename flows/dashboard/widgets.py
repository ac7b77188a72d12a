"""Pieces every page shares: picking a list revision, the player and tournament links, and
how a page says it cannot read the warehouse."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import wraps
from typing import Any

import polars as pl
import streamlit as st

from flows.dashboard.reads import OFFICIAL, DashboardError, system_label

PLAYER_PAGE = "screens/player.py"
TOURNAMENT_PAGE = "screens/tournament.py"
# what a table shows for a missing value (no K in draughts, no position off the ranking, no
# previous rating for a newcomer, no note): nothing, rather than Streamlit's "None"
MISSING = ""


@dataclass(frozen=True)
class ListChoice:
    system: str
    scenario: str
    list_date: date
    revision: int
    in_force: bool
    source: str
    players: int
    created_at: object
    run_id: str
    revisions: int  # how many revisions this list date has in its scenario

    def key(self) -> dict[str, Any]:
        """The revision chosen, as the dashboard's queries of one list take it."""
        return {
            "system": self.system,
            "scenario": self.scenario,
            "list_date": self.list_date,
            "revision": self.revision,
        }

    def describe(self) -> str:
        state = "in force" if self.in_force else "superseded"
        of = f" of {self.revisions}" if self.revisions > 1 else ""
        where = (
            "official list" if self.scenario == OFFICIAL else f"what-if scenario {self.scenario}"
        )
        return (
            f"{system_label(self.system)}, {where} of {self.list_date}: revision {self.revision}"
            f"{of} ({state}), {self.source} {str(self.created_at)[:19]} by run "
            f"{self.run_id[:8]}; {self.players:,} players"
        )


def pick_list(key: str, revisions: pl.DataFrame) -> ListChoice:
    """System, scenario, list date and revision, side by side (the latest of each first, the
    official lists before any scenario)."""
    columns = st.columns([3, 2, 2, 2])
    systems = list(dict.fromkeys(revisions.sort("system").get_column("system").to_list()))
    # a new system starts at its latest official list; a new list or date at its revision in
    # force (a revision number kept from another list would show a superseded one)
    _settle(f"{key}_system", systems)
    system = columns[0].selectbox(
        "System",
        systems,
        format_func=system_label,
        key=f"{key}_system",
        on_change=_forget,
        args=(f"{key}_scenario", f"{key}_date", f"{key}_revision"),
    )
    of_system = revisions.filter(pl.col("system") == system)
    scenarios = sorted(
        set(of_system.get_column("scenario").to_list()), key=lambda name: (name != OFFICIAL, name)
    )
    _settle(f"{key}_scenario", scenarios)
    scenario = columns[1].selectbox(
        "List",
        scenarios,
        format_func=lambda name: "official" if name == OFFICIAL else f"what-if: {name}",
        key=f"{key}_scenario",
        on_change=_forget,
        args=(f"{key}_revision",),
        help="the official lists, or a what-if scenario computed beside them "
        "(graduatoria recalculate --scenario)",
    )
    of_scenario = of_system.filter(pl.col("scenario") == scenario)
    dates = sorted(set(of_scenario.get_column("list_date").to_list()), reverse=True)
    _settle(f"{key}_date", dates)
    list_date = columns[2].selectbox(
        "List date", dates, key=f"{key}_date", on_change=_forget, args=(f"{key}_revision",)
    )
    of_date = of_scenario.filter(pl.col("list_date") == list_date).sort("revision", descending=True)
    numbers = of_date.get_column("revision").to_list()
    _settle(f"{key}_revision", numbers)
    revision = columns[3].selectbox(
        "Revision",
        numbers,
        format_func=lambda number: f"{number} (in force)" if number == numbers[0] else str(number),
        key=f"{key}_revision",
        help="a list recalculated (a late or corrected tournament, a merge) has a new "
        "revision; the earlier ones stay readable",
    )
    row = of_date.filter(pl.col("revision") == revision).row(0, named=True)
    return ListChoice(
        system=system,
        scenario=scenario,
        list_date=list_date,
        revision=revision,
        in_force=bool(row["in_force"]),
        source=row["source"],
        players=row["players"],
        created_at=row["created_at"],
        run_id=row["run_id"],
        revisions=len(numbers),
    )


def _forget(*keys: str) -> None:
    for name in keys:
        st.session_state.pop(name, None)


def _settle(key: str, options: list[Any]) -> None:
    """Before its picker is drawn: the choice kept if it is still offered, else the first
    option, set in the session state. A choice only forgotten is not enough: the picker's id
    is its key, so the browser keeps showing the old choice while the script reads the first
    option; a value set here is sent to the browser with the page."""
    if key not in st.session_state or st.session_state[key] not in options:
        st.session_state[key] = options[0]


def follow_link(parameter: str, key: str, options: list[str], search_key: str) -> None:
    """Before a page draws its picker: a URL that names an option (``?player=ID``: a link
    from another page, or an address someone shared) selects it, once, clearing the search
    that could hide it; afterwards the picker is the analyst's again."""
    wanted = st.query_params.get(parameter)
    followed = f"_{key}_followed"
    if wanted and wanted != st.session_state.get(followed) and wanted in options:
        st.session_state[key] = wanted
        st.session_state[search_key] = ""
    st.session_state[followed] = wanted


def keep_in_url(parameter: str, key: str, value: str) -> None:
    """The URL names what the page shows (to share it), without being taken for a link."""
    st.query_params[parameter] = value
    st.session_state[f"_{key}_followed"] = value


def drop_hidden(key: str, options: list[str]) -> None:
    """A choice the search now hides is forgotten (the picker falls back to its first)."""
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]


def table(
    frame: pl.DataFrame,
    *,
    key: str | None = None,
    where: Any = None,
    config: dict[str, Any] | None = None,
    **options: Any,
) -> Any:
    """A table as the dashboard shows them: no index, dates as dates (Streamlit shows a
    Polars date with a time of day), a missing value as an empty cell (Streamlit writes
    "None"), ``config`` for what a page says of its columns."""
    columns: dict[str, Any] = {}
    for name, dtype in frame.schema.items():
        if dtype == pl.Date:
            columns[name] = st.column_config.DateColumn(name, format="YYYY-MM-DD")
        elif isinstance(dtype, pl.Datetime):
            columns[name] = st.column_config.DatetimeColumn(name, format="YYYY-MM-DD HH:mm:ss")
    columns.update(config or {})
    return (where or st).dataframe(
        frame,
        hide_index=True,
        column_config=columns,
        key=key,
        placeholder=MISSING,
        **options,
    )


def linked_table(
    frame: pl.DataFrame, *, key: str, column: str, page: str, parameter: str, **options: Any
) -> None:
    """A table whose row, once selected, opens its player (or tournament) on its page."""
    event = table(frame, key=key, on_select="rerun", selection_mode="single-row", **options)
    selected = getattr(getattr(event, "selection", None), "rows", None) or []
    if selected:
        value = str(frame.get_column(column)[selected[0]])
        st.switch_page(page, query_params={parameter: value})


def reading_errors(page: Callable[[], None]) -> Callable[[], None]:
    """A page that cannot read the warehouse says why in one line instead of a traceback."""

    @wraps(page)
    def shown() -> None:
        try:
            page()
        except DashboardError as error:
            st.error(str(error))

    return shown
