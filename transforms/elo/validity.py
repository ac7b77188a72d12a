"""When a tournament counts for a list at all (RULES.md §2: an Elo Rapid tournament needs at
least 14 players and 6 rounds, every player a member of the federation for the year; §1.0: its
games are of the time per player its system rates).

The size and time-control conditions are checked when the tournament is ingested (its file and
manifest say them), under the era in force when it was played; the membership condition when a
list is computed, against the registry as it stood at the list date, so a later registry load
is taken into account by a recalculation.
"""

from __future__ import annotations

import polars as pl

from transforms.elo.rulebook import TimeControlRange, Validity
from transforms.inputs.time_control import TimeControl

NAMED_AT_MOST = 5  # players named in a membership reason
# how a reason names a system
SYSTEM_NAMES = {"elo_italia": "Elo Italia", "elo_rapid": "Elo Rapid"}


def system_name(system: str) -> str:
    """``Elo Italia`` for ``elo_italia``: a system as a reason names it."""
    return SYSTEM_NAMES.get(system, system)


def size_reasons(players: int, rounds: int, validity: Validity) -> list[tuple[str, int, str]]:
    """(field, value, reason) for every size condition the tournament fails."""
    reasons = []
    if players < validity.min_players:
        reasons.append(
            ("players", players, f"{players} players, at least {validity.min_players} required")
        )
    if rounds < validity.min_rounds:
        reasons.append(
            ("rounds", rounds, f"{rounds} rounds, at least {validity.min_rounds} required")
        )
    return reasons


def time_control_reason(
    written: str, control: TimeControl, allowed: TimeControlRange, system: str
) -> str | None:
    """Why a tournament of ``system`` played at ``control`` (written ``written``) is not rated,
    or None when its time per player is in the range the system rates (RULES.md §1.0; a
    coloured control must be in it for both players)."""
    lowest = allowed.min_minutes * 60
    highest = None if allowed.max_minutes is None else allowed.max_minutes * 60
    if all(
        seconds >= lowest and (highest is None or seconds <= highest)
        for seconds in control.seconds_per_player
    ):
        return None
    return (
        f"time control {written} is {control.describe()}: {system_name(system)} rates games "
        f"of {allowed.describe()}"
    )


def non_member_tournaments(
    entries: pl.DataFrame, memberships: pl.DataFrame, validity: Validity
) -> pl.DataFrame:
    """Tournaments with a player who is not a member for the tournament's year, with the reason.

    ``entries``: tournament_id, player_id and the dates (end, else start, else receipt, gives the
    year); ``memberships``: player_id, year. Returns tournament_id, reason (empty when the
    condition is not in force).
    """
    empty = pl.DataFrame(schema={"tournament_id": pl.Utf8, "reason": pl.Utf8})
    if not validity.all_members or entries.height == 0:
        return empty
    members = memberships.select(
        "player_id", pl.col("year").cast(pl.Int32), pl.lit(True).alias("is_member")
    ).unique()
    checked = entries.select(
        "tournament_id",
        "player_id",
        pl.coalesce("end_date", "start_date", "received_on").dt.year().cast(pl.Int32).alias("year"),
    ).join(members, on=["player_id", "year"], how="left")
    return (
        checked.group_by("tournament_id", "year")
        .agg(
            pl.len().alias("players"),
            pl.col("player_id").filter(pl.col("is_member").is_null()).sort().alias("outsiders"),
        )
        .filter(pl.col("outsiders").list.len() > 0)
        .select(
            "tournament_id",
            pl.format(
                "{} of {} players are not members of the federation for {}: {}",
                pl.col("outsiders").list.len(),
                pl.col("players"),
                pl.col("year"),
                pl.col("outsiders").list.head(NAMED_AT_MOST).list.join(", ")
                + pl.when(pl.col("outsiders").list.len() > NAMED_AT_MOST)
                .then(pl.lit(", …"))
                .otherwise(pl.lit("")),
            ).alias("reason"),
        )
        .sort("tournament_id")
    )
