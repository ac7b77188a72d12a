"""The names and limits that the Pandera models share with code that must not load Pandera (and
pandas with it: about half a second): the command line's choices, and the rulebooks and
staleness checks that `graduatoria status` reads. A module with no imports; the models'
modules import from it."""

from __future__ import annotations

# the rating systems the warehouse knows
CHESS_SYSTEMS = ["elo_italia", "elo_rapid"]
ALL_SYSTEMS = [*CHESS_SYSTEMS, "rubele_italiana", "rubele_internazionale"]


def rating_word(system: str) -> str:
    """What a list of ``system`` gives each player: a draughts list's capital, a chess list's
    rating."""
    return "rating" if system in CHESS_SYSTEMS else "capital"


def coefficient_word(system: str) -> str:
    """The coefficient a variation multiplies by: K in chess, S (by category) in draughts."""
    return "K" if system in CHESS_SYSTEMS else "S"


# a draughts tournament's validity is a percentage: 100 and 50 in the rulebooks shipped, never
# above ten times 100
VALIDITY_RANGE = {"min_value": 1, "max_value": 1000}
