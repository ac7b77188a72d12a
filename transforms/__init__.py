"""The rules, as pure functions of Polars frames: no IO, no Prefect, no DuckDB.

- ``inputs``: reading what federations deliver (TRF, the draughts CSV, manifests, the
  registry) into typed frames and rejections, and matching players to the registry.
- ``lists``: what every rating system's list shares (the calendar, periods, flags, rankings,
  diffs, notes, the shape of a published list).
- ``elo``: the FSI Elo engine (Elo Italia and Elo Rapid) and its rulebook.
- ``rubele``: the FID Elo-Rubele capitals engine (draughts) and its rulebook.

``elo`` and ``rubele`` know nothing of each other; both read ``inputs`` and ``lists``.
"""
