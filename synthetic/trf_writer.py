"""Render a tournament as FIDE TRF-16 text (the export every pairing program writes).

The pipeline only *reads* TRF; this writer exists so the demo federation and the tests can produce
files that look like what arbiters send. It is pure: frames in, text out.

Players frame (one row per player), columns used:
    start_number (int), sex ("m"/"w", "M"/"F" accepted), title (str, nullable), name (str),
    rating (int, nullable: blank when unrated), federation (str), fide_id (str/int, nullable),
    birth_date (date or "YYYY-MM-DD" str, nullable), points (float), rank (int).
  National (``ITA``) lines additionally use, when ``national=True``:
    national_id (str, nullable: no national line when null), national_rating (int, nullable),
    classification (str, nullable, e.g. "1N").
Games frame (one row per player per round that has an entry; a missing row renders blank):
    start_number (int), round (int, 1-based), opponent (int; 0 or null for byes and absences),
    color ("w"/"b"/"-"; "colour" accepted too), result_code (one of ``RESULT_CODES``).
The column names are those of ``transforms.trf.parse_trf``, so a parsed file can be re-rendered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

# Score of each TRF-16 result code, for callers that need points consistent with the games.
RESULT_SCORES: dict[str, float] = {
    "1": 1.0,
    "=": 0.5,
    "0": 0.0,
    "+": 1.0,
    "-": 0.0,
    "W": 1.0,
    "D": 0.5,
    "L": 0.0,
    "H": 0.5,
    "F": 1.0,
    "U": 1.0,
    "Z": 0.0,
}
RESULT_CODES: frozenset[str] = frozenset(RESULT_SCORES)
# Codes for games that were not played over the board: forfeits, byes, absences.
UNPLAYED_CODES: frozenset[str] = frozenset({"+", "-", "H", "F", "U", "Z"})

ROUND_BLOCK_START = 92  # 1-based column of the first round block
ROUND_BLOCK_WIDTH = 10
NATIONAL_RECORD = "ITA"


@dataclass(frozen=True)
class TrfHeader:
    """Tournament-level records. Counts left as None are computed from the players frame."""

    name: str
    city: str
    federation: str
    start_date: date
    end_date: date
    rounds: int
    tournament_type: str = "Individual: Swiss-System"
    chief_arbiter: str = ""
    time_control: str = ""
    players: int | None = None
    rated_players: int | None = None
    round_dates: tuple[date, ...] = ()


def trf_date(value: date) -> str:
    return value.strftime("%Y/%m/%d")


def round_block(opponent: int | None, colour: str, result_code: str) -> str:
    """One 10-character round block, ``SSSS C R`` plus the two separating spaces.

    A bye or absence has no opponent: TRF writes ``0000`` there, not a blank number.
    """
    if result_code not in RESULT_CODES:
        raise ValueError(f"unknown TRF result code {result_code!r}")
    opp = "0000" if not opponent else f"{opponent:>4d}"
    return f"{opp} {colour or '-'} {result_code}  "


def _header_lines(header: TrfHeader, players: pl.DataFrame) -> list[str]:
    n_players = header.players if header.players is not None else players.height
    if header.rated_players is not None:
        n_rated = header.rated_players
    else:
        n_rated = int((players.get_column("rating").fill_null(0) > 0).sum())
    lines = [
        f"012 {header.name}",
        f"022 {header.city}",
        f"032 {header.federation}",
        f"042 {trf_date(header.start_date)}",
        f"052 {trf_date(header.end_date)}",
        f"062 {n_players}",
        f"072 {n_rated}",
        "082 0",
        f"092 {header.tournament_type}",
        f"102 {header.chief_arbiter}",
        f"122 {header.time_control}",
    ]
    if header.round_dates:
        # Round dates sit in the same columns as the round blocks they describe.
        dates = "".join(
            f"{d.strftime('%y/%m/%d'):<{ROUND_BLOCK_WIDTH}}" for d in header.round_dates
        )
        lines.append(f"132{' ' * (ROUND_BLOCK_START - 4)}{dates}")
    lines.append(f"XXR {header.rounds}")
    return lines


def _right(expr: pl.Expr, width: int) -> pl.Expr:
    return expr.cast(pl.String).fill_null("").str.slice(0, width).str.pad_start(width)


def _left(expr: pl.Expr, width: int) -> pl.Expr:
    return expr.cast(pl.String).fill_null("").str.slice(0, width).str.pad_end(width)


def _birth_date_expr(dtype: pl.DataType) -> pl.Expr:
    col = pl.col("birth_date")
    text = col.dt.strftime("%Y/%m/%d") if dtype == pl.Date else col.cast(pl.String)
    return _left(text.str.replace_all("-", "/"), 10)


def _sex_expr() -> pl.Expr:
    sex = pl.col("sex").cast(pl.String).str.to_lowercase()
    # Registries write F for women; TRF writes w.
    return pl.when(sex == "f").then(pl.lit("w")).otherwise(sex).fill_null(" ").str.slice(0, 1)


def _identity_prefix(
    record: str, rating: str, federation: pl.Expr, ident: str, title: str, dob: pl.Expr
) -> pl.Expr:
    """Columns 1-79, shared by the 001 line and the national line."""
    return pl.concat_str(
        [
            pl.lit(record),
            pl.lit(" "),
            _right(pl.col("start_number"), 4),
            pl.lit(" "),
            _sex_expr(),
            _right(pl.col(title), 3),
            pl.lit(" "),
            _left(pl.col("name"), 33),
            pl.lit(" "),
            _right(pl.col(rating), 4),
            pl.lit(" "),
            _left(federation, 3),
            pl.lit(" "),
            _right(pl.col(ident), 11),
            pl.lit(" "),
            dob,
        ]
    )


def _points_expr() -> pl.Expr:
    # Points are always whole or half: format from half-points to avoid float repr surprises.
    halves = (pl.col("points").fill_null(0.0) * 2).round(0).cast(pl.Int64)
    text = pl.concat_str(
        [
            (halves // 2).cast(pl.String),
            pl.lit("."),
            pl.when(halves % 2 == 1).then(pl.lit("5")).otherwise(pl.lit("0")),
        ]
    )
    return text.str.pad_start(4)


def _round_blocks(players: pl.LazyFrame, games: pl.DataFrame, rounds: int) -> pl.LazyFrame:
    """start_number -> concatenated round blocks, blank where a round has no entry."""
    codes = games.get_column("result_code")
    unknown = codes.filter(~codes.is_in(sorted(RESULT_CODES)) | codes.is_null())
    if unknown.len():
        raise ValueError(f"unknown TRF result codes: {sorted(map(str, unknown.unique()))}")
    opp = pl.col("opponent").fill_null(0)
    colour = "colour" if "colour" in games.columns and "color" not in games.columns else "color"
    blocks = games.lazy().select(
        pl.col("start_number").cast(pl.Int64),
        pl.col("round").cast(pl.Int64),
        pl.concat_str(
            [
                pl.when(opp == 0)
                .then(pl.lit("0000"))
                .otherwise(opp.cast(pl.String).str.pad_start(4)),
                pl.lit(" "),
                pl.col(colour).fill_null("-"),
                pl.lit(" "),
                pl.col("result_code"),
                pl.lit("  "),
            ]
        ).alias("block"),
    )
    # Every (player, round) cell exists, so a missing game becomes a blank block in its column.
    grid = players.select("start_number").join(
        pl.LazyFrame({"round": list(range(1, rounds + 1))}, schema={"round": pl.Int64}),
        how="cross",
    )
    return (
        grid.join(blocks, on=["start_number", "round"], how="left")
        .with_columns(pl.col("block").fill_null(" " * ROUND_BLOCK_WIDTH))
        .group_by("start_number")
        .agg(pl.col("block").sort_by("round").str.join("").alias("blocks"))
    )


def player_lines(players: pl.DataFrame, games: pl.DataFrame, rounds: int) -> list[str]:
    """The 001 lines, in start-number order, without trailing spaces."""
    lf = players.lazy().with_columns(pl.col("start_number").cast(pl.Int64))
    if "title" not in players.columns:
        lf = lf.with_columns(pl.lit(None, dtype=pl.String).alias("title"))
    prefix = _identity_prefix(
        "001",
        "rating",
        pl.col("federation"),
        "fide_id",
        "title",
        _birth_date_expr(players.schema["birth_date"]),
    )
    line = pl.concat_str(
        [
            prefix,
            pl.lit(" "),
            _points_expr(),
            pl.lit(" "),
            _right(pl.col("rank"), 4),
            pl.lit("  "),
            pl.col("blocks").fill_null(""),
        ]
    ).str.strip_chars_end(" ")
    out = (
        lf.join(_round_blocks(lf, games, rounds), on="start_number", how="left")
        .sort("start_number")
        .select(line.alias("line"))
        .collect()
    )
    return out["line"].to_list()


def national_lines(players: pl.DataFrame, record: str = NATIONAL_RECORD) -> list[str]:
    """TRF-26 style national lines: same columns as 001 up to column 79.

    Only players with a national id get one; origin (cols 54-56) is the national record id.
    """
    lf = players.lazy().with_columns(pl.col("start_number").cast(pl.Int64))
    for col in ("national_rating", "classification"):
        if col not in players.columns:
            lf = lf.with_columns(pl.lit(None, dtype=pl.String).alias(col))
    prefix = _identity_prefix(
        record,
        "national_rating",
        pl.lit(record),
        "national_id",
        "classification",
        _birth_date_expr(players.schema["birth_date"]),
    ).str.strip_chars_end(" ")
    out = (
        lf.filter(pl.col("national_id").is_not_null())
        .sort("start_number")
        .select(prefix.alias("line"))
        .collect()
    )
    return out["line"].to_list()


def render_trf(
    header: TrfHeader,
    players: pl.DataFrame,
    games: pl.DataFrame,
    *,
    national: bool = False,
) -> str:
    """The whole file: header records, 001 lines, then (optionally) the national lines."""
    lines = _header_lines(header, players)
    lines += player_lines(players, games, header.rounds)
    if national and "national_id" in players.columns:
        lines += national_lines(players)
    # Header records with an empty value would otherwise end in a space.
    return "".join(f"{line.rstrip(' ')}\n" for line in lines)
