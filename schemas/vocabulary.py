"""The names and limits that the Pandera models share with code that must not load Pandera (and
pandas with it: about half a second): the command line's choices, and the rulebooks and
staleness checks that `graduatoria status` reads. A module with no imports; the models'
modules import from it."""

from __future__ import annotations

# the rating systems the warehouse knows
CHESS_SYSTEMS = ["elo_italia", "elo_rapid"]
ALL_SYSTEMS = [*CHESS_SYSTEMS, "rubele_italiana", "rubele_internazionale"]

# a draughts tournament's validity is a percentage: 100 and 50 in the rulebooks shipped, never
# above ten times 100
VALIDITY_RANGE = {"min_value": 1, "max_value": 1000}
