"""The dashboard's charts (Altair), pure functions of frames: testable without Streamlit.

The views give exact DECIMALs; Vega-Lite reads JSON numbers, so charts cast them to floats
(they only draw them: every table beside a chart keeps the exact values).
"""

from __future__ import annotations

import altair as alt
import polars as pl


def _floats(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col(pl.Decimal).cast(pl.Float64))


def superseded_ratings(history: pl.DataFrame) -> pl.DataFrame:
    """Each superseded revision of a player's lists beside the revision in force, with the
    difference (0: the list was recalculated, the player's rating was not changed)."""
    current = history.filter(pl.col("in_force")).select(
        "system",
        "list_date",
        pl.col("revision").alias("revision_in_force"),
        pl.col("rating").alias("rating_in_force"),
    )
    return (
        history.filter(~pl.col("in_force"))
        .select("system", "list_date", "revision", "rating", "category", "created_at")
        .join(current, on=["system", "list_date"], how="left")
        .with_columns((pl.col("rating_in_force") - pl.col("rating")).alias("difference"))
        .sort("system", "list_date", "revision")
    )


def rating_history(history: pl.DataFrame, title: str = "rating") -> alt.LayerChart:
    """A player's rating list after list, one line per system through the revisions in force.
    A list recalculated since it was first written has a dashed rule at its date; where the
    recalculation changed the player's rating, the superseded rating is a hollow diamond (the
    tooltips name the revisions)."""
    current = _floats(history.filter(pl.col("in_force")))
    replaced = _floats(superseded_ratings(history))
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("list_date:T", title="list date"),
        alt.Tooltip("revision:Q"),
        alt.Tooltip("rating:Q"),
        alt.Tooltip("category:N"),
    ]
    x = alt.X("list_date:T", title="list date")
    y = alt.Y("rating:Q", title=title, scale=alt.Scale(zero=False))
    color = alt.Color("system:N", title="system")
    line = (
        alt.Chart(current)
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=50))
        .encode(x=x, y=y, color=color, tooltip=[*tooltip, alt.Tooltip("games:Q")])
    )
    recalculated = (
        alt.Chart(replaced.select("system", "list_date", "revision_in_force").unique())
        .mark_rule(strokeDash=[4, 4], opacity=0.5)
        .encode(
            x=x,
            color=color,
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("list_date:T", title="list recalculated"),
                alt.Tooltip("revision_in_force:Q", title="revision in force"),
            ],
        )
    )
    changed = (
        alt.Chart(replaced.filter(pl.col("difference") != 0))
        .mark_point(filled=False, size=140, strokeWidth=2, shape="diamond")
        .encode(
            x=x,
            y=y,
            color=color,
            tooltip=[*tooltip, alt.Tooltip("rating_in_force:Q", title="rating in force")],
        )
    )
    return alt.layer(recalculated, line, changed).properties(height=320)


def rating_distribution(entries: pl.DataFrame, title: str = "rating") -> alt.Chart:
    """How many players of the rows shown have each rating (bins of 50 points); ``title``
    names it (a draughts list's capital)."""
    return (
        alt.Chart(_floats(entries.select("rating").drop_nulls()))
        .mark_bar()
        .encode(
            x=alt.X("rating:Q", bin=alt.Bin(step=50), title=title),
            y=alt.Y("count():Q", title="players"),
            tooltip=[alt.Tooltip("count():Q", title="players")],
        )
        .properties(height=220)
    )


def movers(changes: pl.DataFrame) -> alt.Chart:
    """The largest gains and losses of a list, as bars either side of zero."""
    return (
        alt.Chart(_floats(changes))
        .mark_bar()
        .encode(
            x=alt.X("change:Q", title="rating change since the previous list"),
            y=alt.Y("name:N", sort="-x", title=None),
            color=alt.condition(alt.datum.change > 0, alt.value("#2e7d32"), alt.value("#c62828")),
            tooltip=["player_id:N", "name:N", "previous_rating:Q", "rating:Q", "change:Q"],
        )
        .properties(height=max(160, 18 * changes.height))
    )


def difference_distribution(compared: pl.DataFrame) -> alt.Chart:
    """A scenario against the official list: how many players moved by how much (players on
    both lists; 0 is who did not move)."""
    rows = _floats(compared.filter(pl.col("difference").is_not_null()).select("difference"))
    return (
        alt.Chart(rows)
        .mark_bar()
        .encode(
            x=alt.X("difference:Q", bin=alt.Bin(maxbins=40), title="scenario − official rating"),
            y=alt.Y("count():Q", title="players", scale=alt.Scale(type="symlog")),
            tooltip=[alt.Tooltip("count():Q", title="players")],
        )
        .properties(height=260)
    )


def scenario_by_date(summary: pl.DataFrame) -> alt.Chart:
    """Players moved up and down by a scenario at each list date."""
    rows = (
        _floats(summary)
        .select("list_date", "up", "down")
        .unpivot(index="list_date", variable_name="direction", value_name="players")
    )
    return (
        alt.Chart(rows)
        .mark_bar()
        .encode(
            x=alt.X("list_date:O", title="list date", timeUnit="yearmonthdate"),
            xOffset="direction:N",
            y=alt.Y("players:Q", title="players moved"),
            color=alt.Color(
                "direction:N",
                scale=alt.Scale(domain=["up", "down"], range=["#2e7d32", "#c62828"]),
            ),
            tooltip=["list_date:T", "direction:N", "players:Q"],
        )
        .properties(height=220)
    )


def runs_by_day(runs: pl.DataFrame) -> alt.Chart:
    """Runs per day and status (a failed one stands out)."""
    rows = runs.select(pl.col("started_at").dt.date().alias("day"), "flow", "status")
    return (
        alt.Chart(rows)
        .mark_bar()
        .encode(
            x=alt.X("day:T", title="day"),
            y=alt.Y("count():Q", title="runs"),
            color=alt.Color("status:N", title="status"),
            tooltip=["day:T", "flow:N", "status:N", "count():Q"],
        )
        .properties(height=180)
    )
