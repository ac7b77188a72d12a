"""Column types of the frames a list date reads (``PeriodFacts``), for tests that build
periods by hand."""

from __future__ import annotations

import polars as pl

REGISTRY_SCHEMA: dict[str, pl.DataType] = {
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "sex": pl.Utf8(),
    "birth_date": pl.Date(),
    "fide_standard": pl.Int32(),
    "fide_rapid": pl.Int32(),
    "category": pl.Utf8(),
    "k_override": pl.Int32(),
    "last_fide_tournament": pl.Date(),
}
PREVIOUS_SCHEMA: dict[str, pl.DataType] = {
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "rating": pl.Int32(),
    "rating_type": pl.Utf8(),
    "total_games": pl.Int32(),
    "category": pl.Utf8(),
    "last_played": pl.Date(),
    "letter": pl.Utf8(),
    "letter_provisional": pl.Boolean(),
    "letter_held": pl.Int32(),
}
ENTRY_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "tournament_version": pl.Int32(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "points": pl.Float64(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "received_on": pl.Date(),
    "arbiter_rating": pl.Int32(),
    "rating_in_file": pl.Int32(),
    "fide_id": pl.Int64(),
}
GAME_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "player_id": pl.Utf8(),
    "opponent_id": pl.Utf8(),
    "score": pl.Float64(),
}
QUARANTINED_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(),
    "file_name": pl.Utf8(),
    "received_on": pl.Date(),
    "reason": pl.Utf8(),
}
