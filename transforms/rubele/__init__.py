"""The FID Elo-Rubele lists (dama italiana, dama internazionale): the capitals engine,
applied wave by wave, the list, and the rulebook."""
