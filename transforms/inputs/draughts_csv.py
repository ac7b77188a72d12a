"""Draughts (FID) inputs: the documented CSV format, typed and checked, turned into the same
entries and both-sides games that chess tournaments give (RULES.md §3; docs/INPUTS.md).

A delivery folder holds ``tournaments.csv`` (one row per tournament) and one games file per
tournament (one row per game: round, both players, the result of ``player_id`` on the
tournament's points scale, a status ``played`` / ``forfeit`` / ``bye`` / ``withdrawn``).
Every result gives tournament points. Which games count for the capital is a rule of the
rulebook, not of this reader: ``played`` (the status ``played``) is a fact of the file, and the
era's ``games.counted_for_loser`` (by default none: a game not played over the board is
dropped for both players) is applied when a list is computed (``transforms.rubele``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import polars as pl

from schemas.draughts import DRAUGHTS_VARIANTS
from schemas.problems import PROBLEM_SCHEMA, problem_rows
from transforms.inputs.tabular import FieldSpec, type_columns, with_receipt_reason

TOURNAMENTS_FILE = "tournaments.csv"
FID_PLAYER_FIELDS = [
    FieldSpec("player_id", "text", required=True),
    FieldSpec("name", "text", required=True),
    FieldSpec("sex", "text", required=True),
    FieldSpec("birth_date", "date"),
    FieldSpec("country", "text", required=True),
    FieldSpec("category_italiana", "text"),
    FieldSpec("category_internazionale", "text"),
    FieldSpec("capital_italiana", "int"),  # entry capital given to a foreign player
    FieldSpec("capital_internazionale", "int"),
]
DRAUGHTS_TOURNAMENT_FIELDS = [
    FieldSpec("tournament_id", "text", required=True),
    FieldSpec("variant", "text", required=True),
    FieldSpec("name", "text"),
    FieldSpec("city", "text"),
    FieldSpec("start_date", "date"),
    FieldSpec("end_date", "date", required=True),
    FieldSpec("validity", "int", required=True),
    FieldSpec("received_on", "date", required=True),
    FieldSpec("file", "text", required=True),
    FieldSpec("points_scale", "text", required=True),
]
DRAUGHTS_GAME_FIELDS = [
    FieldSpec("tournament_id", "text", required=True),
    FieldSpec("round", "int", required=True),
    FieldSpec("player_id", "text", required=True),
    FieldSpec("opponent_id", "text"),
    FieldSpec("result", "text", required=True),
    FieldSpec("status", "text", required=True),
]
# result as written -> points on the 1 / ½ / 0 scale, per points scale
RESULT_POINTS: dict[str, dict[str, float]] = {
    "fid": {"2": 1.0, "1": 0.5, "0": 0.0},
    "one": {"1": 1.0, "0.5": 0.5, "½": 0.5, ",5": 0.5, "0": 0.0},
}


def _typed(raw: pl.DataFrame, fields: list[FieldSpec]) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = type_columns(raw, fields)
    return typed.select("line_no", *[spec.name for spec in fields]), problems


def type_fid_players(
    raw: pl.DataFrame, own_countries: Mapping[str, str]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """players.csv of the FID registry typed; a capital given for a player of the federation's
    own country (``own_countries``: per variant, the rulebook's ``federation.country``) is a
    warning (RULES.md §3: only a foreign player enters with the capital given in the input; the
    lists ignore it)."""
    typed, problems = _typed(raw, FID_PLAYER_FIELDS)
    typed = typed.with_columns(
        pl.col("sex").str.to_uppercase(),
        pl.col("country").str.to_uppercase(),
        pl.col("category_italiana").str.to_uppercase(),
        pl.col("category_internazionale").str.to_uppercase(),
    )
    ignored = [
        typed.filter(
            (pl.col("country") == own_countries[variant])
            & pl.col(f"capital_{variant}").is_not_null()
        ).select(
            pl.col("line_no").cast(pl.Int32),
            pl.lit(f"capital_{variant}").alias("field"),
            pl.col(f"capital_{variant}").cast(pl.Utf8).alias("value"),
            pl.format(
                "player_id {} is of {}: only a foreign player enters with the registry's "
                "capital, so this one is ignored (he enters by his category)",
                "player_id",
                pl.lit(own_countries[variant]),
            ).alias("reason"),
            pl.lit("warning").alias("severity"),
        )
        for variant in DRAUGHTS_VARIANTS
    ]
    return typed, pl.concat([problems, *ignored]).cast(PROBLEM_SCHEMA)  # type: ignore[arg-type]


def type_draughts_tournaments(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = _typed(raw, DRAUGHTS_TOURNAMENT_FIELDS)
    return typed.with_columns(
        pl.col("variant").str.to_lowercase(), pl.col("points_scale").str.to_lowercase()
    ), with_receipt_reason(problems, raw, TOURNAMENTS_FILE)


def type_draughts_games(raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    typed, problems = _typed(raw, DRAUGHTS_GAME_FIELDS)
    return typed.with_columns(pl.col("status").str.to_lowercase()), problems


def game_problems(
    games: pl.DataFrame,
    tournament_id: str,
    points_scale: str,
    registered: pl.Series,
    registry_day: date | None = None,
) -> pl.DataFrame:
    """What is wrong with the rows of one tournament's games file (typed and schema-checked):
    rows of another tournament, results off the points scale, a drawn forfeit, players not in
    the FID registry (``registered``: the one in force on ``registry_day``, the list date that
    applies the tournament), a player twice in a round. One error row each."""
    known = RESULT_POINTS[points_scale]
    ids = registered.implode()
    parts = [
        problem_rows(
            games.filter(pl.col("tournament_id") != tournament_id),
            "tournament_id",
            pl.col("tournament_id"),
            pl.format(
                "the row is of tournament {}, not {}",
                pl.col("tournament_id"),
                pl.lit(tournament_id),
            ),
        ),
        problem_rows(
            games.filter(~pl.col("result").is_in(list(known))),
            "result",
            pl.col("result"),
            pl.lit(
                f"is not a result on the {points_scale} scale ({', '.join(sorted(set(known)))})"
            ),
        ),
        problem_rows(
            games.filter(
                pl.col("status").is_in(["forfeit", "withdrawn"])
                & (pl.col("result").replace_strict(known, default=None) == 0.5)
            ),
            "result",
            pl.col("result"),
            pl.format(
                "{} is won or lost, not drawn",
                pl.col("status").replace_strict(
                    {"forfeit": "a forfeit", "withdrawn": "a withdrawal"}, return_dtype=pl.Utf8
                ),
            ),
        ),
        # the row of a withdrawal is the present player's (the opponent left): he has the win
        problem_rows(
            games.filter(
                (pl.col("status") == "withdrawn")
                & (pl.col("result").replace_strict(known, default=None) == 0.0)
            ),
            "result",
            pl.col("result"),
            pl.lit(
                "a withdrawal's row is the player who stayed, and he wins it (the opponent "
                "left): a loss here gives the point to the player who withdrew"
            ),
        ),
    ]
    for column in ("player_id", "opponent_id"):
        unknown = games.filter(pl.col(column).is_not_null() & ~pl.col(column).is_in(ids))
        parts.append(
            problem_rows(
                unknown,
                column,
                pl.col(column),
                pl.format(
                    "player {} is not in the FID registry{}",
                    pl.col(column),
                    pl.lit(
                        f" in force on {registry_day} (the list date that applies the tournament)"
                        if registry_day is not None
                        else ""
                    ),
                ),
            )
        )
    seats = pl.concat(
        [
            games.select("line_no", "round", pl.col("player_id").alias("who")),
            games.filter(pl.col("opponent_id").is_not_null()).select(
                "line_no", "round", pl.col("opponent_id").alias("who")
            ),
        ]
    )
    # each later appearance is the one named, with the line of the first
    first = pl.col("line_no").min().over("round", "who")
    twice = (
        seats.with_columns(first.alias("first_line"))
        .filter(pl.col("line_no") > pl.col("first_line"))
        .sort("line_no", "who")
    )
    # both players of a line already met on one earlier line: the game is written twice (a
    # row repeated, or the game written from both sides), one rejection for the line
    written_twice = (
        twice.group_by("line_no", "round", "first_line")
        .agg(pl.len().alias("seats"))
        .filter(pl.col("seats") == 2)
        .join(games.select("line_no", "player_id", "opponent_id"), on="line_no")
        .sort("line_no")
    )
    twice = twice.join(written_twice, on=["line_no", "first_line"], how="anti")
    parts.append(
        problem_rows(
            written_twice,
            "round",
            pl.col("round"),
            pl.format(
                "the game of {} and {} in round {} is written twice (line {} already)",
                pl.col("player_id"),
                pl.col("opponent_id"),
                pl.col("round"),
                pl.col("first_line"),
            ),
        )
    )
    parts.append(
        problem_rows(
            twice,
            "round",
            pl.col("round"),
            pl.format(
                "player {} appears twice in round {} (line {} already)",
                pl.col("who"),
                pl.col("round"),
                pl.col("first_line"),
            ),
        )
    )
    parts.append(_scale_doubts(games, points_scale))
    return pl.concat(parts).cast(PROBLEM_SCHEMA).sort("line_no", maintain_order=True)  # type: ignore[arg-type]


def _scale_doubts(games: pl.DataFrame, points_scale: str) -> pl.DataFrame:
    """A warning on the first game of a file declared on the FID scale (2 a win, 1 a draw)
    whose results, byes aside, are all 1 or 0: a file written on the 1 / ½ / 0 scale without
    draws reads the same, and then every win would count as a draw."""
    played = games.filter(pl.col("status") != "bye")
    results = set(played.get_column("result").unique().to_list())
    # only a file whose every result reads on both scales (others are rejected already)
    if points_scale != "fid" or not results or not results <= {"1", "0"}:
        return problem_rows(played.clear(), "result", pl.col("result"), pl.lit(""))
    return problem_rows(
        played.sort("line_no").head(1),
        "result",
        pl.col("result"),
        pl.lit(
            "points_scale is fid (2 a win, 1 a draw), yet no game has a 2: if this file "
            "writes 1 for a win, its points_scale is one; as it stands every 1 is a draw"
        ),
        severity="warning",
    )


def both_sides(games: pl.DataFrame, points_scale: str) -> pl.DataFrame:
    """Each game once per player: player_id, opponent_id, round, result as written, points on
    the 1 / ½ / 0 scale, kind (the status) and played (over the board: the status is
    ``played``; the rating step decides from ``kind`` and the rulebook which games count)."""
    points = pl.col("result").replace_strict(RESULT_POINTS[points_scale], return_dtype=pl.Float64)
    own = games.select(
        "player_id",
        "opponent_id",
        pl.col("round").cast(pl.Int32),
        pl.col("result").alias("result_code"),
        points.alias("score"),
        pl.col("status").alias("kind"),
    )
    mirrored = own.filter(pl.col("opponent_id").is_not_null()).select(
        pl.col("opponent_id").alias("player_id"),
        pl.col("player_id").alias("opponent_id"),
        "round",
        "result_code",
        (1.0 - pl.col("score")).alias("score"),
        "kind",
    )
    return (
        pl.concat([own, mirrored])
        .with_columns((pl.col("kind") == "played").alias("played"))
        .sort("player_id", "round")
    )


def draughts_entries(sides: pl.DataFrame, names: pl.DataFrame) -> pl.DataFrame:
    """The participants (player_id, start_number by id, name from the registry, points)."""
    return (
        sides.group_by("player_id")
        .agg(pl.col("score").sum().alias("points"))
        .sort("player_id")
        .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int32).alias("start_number"))
        .join(names.select("player_id", "name"), on="player_id", how="left")
    )
