"""The FSI Elo lists (Elo Italia, Elo Rapid): the period engine, expected scores, the list
with its flags and notes, Elo Rapid's letters, tournament validity, and the rulebook."""
