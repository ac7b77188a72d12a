"""Pure parser for FIDE Tournament Report Files (TRF).

Input is the raw bytes of one file, output is a set of Polars frames (see
:class:`ParsedTrf`). No file IO and no orchestration here, so the parser can be
tested on literal strings and reused by any flow.

Dialects handled: TRF-06 (the "Krause" format), TRF-16, the FIDE 2025/26 draft
("TRF-26": team records and national-player lines) and the Irish ICU Krause
exports, in UTF-8 (with or without BOM) Latin-1 or Windows-1252, with LF or CRLF line ends.

The heavy lifting is vectorised: every line of the file is a row of a Polars frame,
records are selected by their 3-character id and fields are cut out by column
(characters, not bytes, so accented names never shift a column). A problem found in
the data never raises: it becomes a row of ``problems`` with the 1-based line number,
and the field is left null rather than guessed. Severity ``error`` means the
tournament cannot be rated as delivered; ``warning`` is information for the arbiter.

Choices worth knowing:

* ``games`` is the full players x rounds grid; rounds without an entry are
  ``kind="unpaired"`` with score 0. The tournament's ``rounds`` are those up to the last
  that pairs anybody: byes entered ahead for a round not yet paired make no round, and are
  left out with a warning. A different count declared in the header (``XXR`` or the TRF-26
  ``142`` record) is reported.
* An entry with a colour marker but no result (ICU writes ``"0000 -  "`` or
  ``"     -  "`` for byes whose value it leaves to the points column) is read as not
  paired and reported; the points check then shows what the file's total assumed.
* ``"0000 - ="`` (any colour marker), a draw against nobody, is the ICU half-point bye:
  ``kind="bye"``, not played, 0.5 points (``result_code`` stays ``"="``).
* A blank points column (optional in TRF-16) is the sum of the round results; a birth date
  that gives only the year keeps the year (``birth_year``). Each gives one warning for the
  file, naming how many players and the first, not one per player.
* Two-digit dates (``10.09.13``) are settled with the file's other dates: start, end and
  the round dates of the ``132`` line (see :func:`transforms.inputs.dates.resolve_period`).
* A file whose last line is a player line cut short (inside a round entry, before its
  points, or a round short with points that count it) is an error: the file looks
  truncated, and what came after the cut is lost.
* A 001 line without a usable start number is reported and left out of ``players``
  and ``games``: no pairing can refer to it.
* Team records (013, 240 ... 802) only set ``is_team``; the legend lines of the TRF-26
  draft ("DDD SSSS ...") are not national records because they have no start number.
* The time control is kept as written (line 122, and the TRF-26 encoding of line 222, with
  their line numbers); what it gives per player is read, and judged, at intake
  (:mod:`transforms.inputs.time_control`).
* ``format`` is a label only; nothing in the parse depends on it.
* Many files are parsed at once (:func:`parse_trf_files`, what an ingest does with a
  delivery): every check runs once over the lines of all of them, and each file gets the
  frames it would get alone. Checked one by one, a Polars operation on the hundred lines of a
  file costs nearly as much as on the hundred thousand lines of a delivery.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import chain

import polars as pl

from schemas.inputs import RATING_RANGE
from transforms.inputs.dates import DateReading, read_date, resolve_period, with_birth_dates

__all__ = [
    "GAMES_SCHEMA",
    "NATIONAL_SCHEMA",
    "PLAYERS_SCHEMA",
    "PROBLEMS_SCHEMA",
    "TOURNAMENT_SCHEMA",
    "ParsedTrf",
    "decode_trf",
    "parse_trf",
    "parse_trf_files",
]

TOURNAMENT_SCHEMA: dict[str, pl.DataType] = {
    "name": pl.String(),
    "city": pl.String(),
    "federation": pl.String(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "rounds": pl.Int32(),
    "declared_players": pl.Int32(),
    "time_control": pl.String(),  # line 122, as written
    "time_control_line": pl.Int32(),
    "encoded_time_control": pl.String(),  # TRF-26 line 222 (transforms.inputs.time_control)
    "encoded_time_control_line": pl.Int32(),
    "chief_arbiter": pl.String(),
    "tournament_type": pl.String(),
    "format": pl.String(),
    "encoding": pl.String(),
    "is_team": pl.Boolean(),
}
PLAYERS_SCHEMA: dict[str, pl.DataType] = {
    "start_number": pl.Int32(),
    "name": pl.String(),
    "sex": pl.String(),
    "title": pl.String(),
    "rating": pl.Int32(),
    "federation": pl.String(),
    "fide_id": pl.Int64(),
    "birth_date": pl.Date(),
    "birth_year": pl.Int32(),
    "points": pl.Float64(),
    "rank": pl.Int32(),
    "line_no": pl.Int32(),
}
GAMES_SCHEMA: dict[str, pl.DataType] = {
    "start_number": pl.Int32(),
    "round": pl.Int32(),
    "opponent": pl.Int32(),
    "color": pl.String(),
    "result_code": pl.String(),
    "score": pl.Float64(),
    "kind": pl.String(),
    "played": pl.Boolean(),
    "line_no": pl.Int32(),
}
NATIONAL_SCHEMA: dict[str, pl.DataType] = {
    "federation_code": pl.String(),
    "start_number": pl.Int32(),
    "national_id": pl.String(),
    "national_rating": pl.Int32(),
    "classification": pl.String(),
    "name": pl.String(),
    "birth_date": pl.Date(),
    "line_no": pl.Int32(),
}
PROBLEMS_SCHEMA: dict[str, pl.DataType] = {
    "line_no": pl.Int32(),
    "field": pl.String(),
    "value": pl.String(),
    "reason": pl.String(),
    "severity": pl.String(),
}

# Birth years outside this range are typing errors (e.g. "0198"); kept in step with
# the warehouse schema so that a readable file never fails validation on them.
PLAUSIBLE_BIRTH_YEARS = (1850, 2200)

ERROR = "error"
WARNING = "warning"

# Result code -> (points credited, kind). Blank means "not paired" in TRF-16.
_RESULTS: dict[str, tuple[float, str]] = {
    "1": (1.0, "played"),
    "=": (0.5, "played"),
    "0": (0.0, "played"),
    "+": (1.0, "forfeit"),
    "-": (0.0, "forfeit"),
    "W": (1.0, "unrated"),
    "D": (0.5, "unrated"),
    "L": (0.0, "unrated"),
    "H": (0.5, "bye"),
    "F": (1.0, "bye"),
    "U": (1.0, "bye"),
    "Z": (0.0, "bye"),
    "": (0.0, "unpaired"),
}
# What the two lines of one pairing may say ("mine|theirs"). "-|-" is a double
# forfeit and "|" a pairing whose result is not in yet.
_COMPLEMENTARY = ["1|0", "0|1", "=|=", "+|-", "-|+", "-|-", "W|L", "L|W", "D|D", "|"]

# One round entry, 10 characters from column 92: "SSSS C R  ". The opponent field
# is exactly 4 characters because the whole block is padded to 10.
_BLOCK = (
    r"^(?P<opp> {0,3}[0-9]{1,4}| {4}) (?P<col>[wbWB\- ]) "
    r"(?P<res>[10=+\-WDLHFUZwdlhfuz ])  $"
)
# the fields of a block _BLOCK reads: (group, first character, width)
_BLOCK_FIELDS = (("opp", 0, 4), ("col", 5, 1), ("res", 7, 1))
_FIRST_ROUND_COL = 92  # 1-based column of round 1
_ROUND_WIDTH = 10

_TEAM_IDS = ["013", "240", "250", "260", "299", "300", "310", "320", "330", "801", "802"]
# Record ids introduced by the 2025/26 draft (besides the team records above).
_TRF26_IDS = [
    "142", "152", "162", "172", "182", "192", "202", "212", "222", "232",
    "240", "250", "260", "299", "300", "310", "320", "330", "352", "362", "801", "802",
]  # fmt: skip
_BYE_CODES = ["H", "F", "U", "Z"]


@dataclass(frozen=True)
class ParsedTrf:
    """Everything read from one TRF file; every frame has the documented schema."""

    tournament: pl.DataFrame  # exactly 1 row
    players: pl.DataFrame
    games: pl.DataFrame  # one row per player per round 1..rounds
    national: pl.DataFrame
    problems: pl.DataFrame


# --------------------------------------------------------------------------- decoding


def decode_trf(raw: bytes) -> tuple[str, str]:
    """Decode TRF bytes: returns (text without BOM and with ``\\n`` newlines, encoding).

    The encoding is one of ``"utf-8-sig"`` (UTF-8 with a byte-order mark), ``"utf-8"``,
    ``"cp1252"`` and ``"latin-1"``. A file that is not UTF-8 was written by a pre-Unicode
    pairing program: Windows ones write Windows-1252 (its bytes 0x80-0x9F are letters such as
    ``’ š ž Œ``, which Latin-1 reads as invisible control characters), the Irish ICU exports
    Latin-1; the two agree on every other byte. Latin-1 is the last fallback because every
    byte string decodes in it. DOS programs wrote the code page 850 (``"cp850"``), whose
    accented letters sit where Windows-1252 has punctuation (``ò`` is ``•`` there): a file is
    read so only when its players' names are letters in it and are not in Windows-1252.
    """
    bom = b"\xef\xbb\xbf"
    body = raw[len(bom) :] if raw.startswith(bom) else raw
    try:
        text, encoding = body.decode("utf-8"), "utf-8-sig" if body is not raw else "utf-8"
    except UnicodeDecodeError:
        text, encoding = _single_byte(body)
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def encoding_name(encoding: str) -> str:
    return {
        "cp1252": "Windows-1252",
        "latin-1": "Latin-1",
        "cp850": "the DOS code page 850",
    }.get(encoding, encoding.upper())


# characters a name may hold besides letters: apostrophes, a hyphen, a non-breaking space (not
# the em dash: it is where the code page 850 has ``ù``)
_NAME_MARKS = frozenset("'’‘´`-–.\xa0 ")
# the bytes of a player line's name (columns 15-47)
_NAME_BYTES = slice(14, 47)


def _player_names(raw: bytes) -> list[bytes]:
    return [line[_NAME_BYTES] for line in raw.split(b"\n") if line.startswith(b"001")]


def _spelt_as_names(values: bytes, encoding: str) -> bool:
    text = values.decode(encoding, errors="replace")
    return all(character.isalpha() or character in _NAME_MARKS for character in text)


def _names_in_dos_code_page(raw: bytes) -> bool:
    """Whether the players' names are letters in the code page 850 and are not in
    Windows-1252 (nor Latin-1): a DOS file."""
    accented = bytes(sorted({byte for name in _player_names(raw) for byte in name if byte >= 0x80}))
    return (
        bool(accented)
        and _spelt_as_names(accented, "cp850")
        and not _spelt_as_names(accented, "cp1252")
    )


def _single_byte(raw: bytes) -> tuple[str, str]:
    """Windows-1252 when the file uses its letters at 0x80-0x9F, else Latin-1 (the same text);
    the DOS code page 850 when only it makes letters of the names."""
    if _names_in_dos_code_page(raw):
        return raw.decode("cp850"), "cp850"
    if any(0x80 <= byte <= 0x9F for byte in raw):
        # a byte Windows-1252 leaves undefined: not a Windows file either
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode("cp1252"), "cp1252"
    return raw.decode("latin-1"), "latin-1"


# --------------------------------------------------------------------------- helpers

# Files are parsed in batches: every frame of a parse carries the file's place in the batch
# in this column, every check runs once over the whole batch, and each file's rows are split
# off at the end. A Polars operation costs about as much on the lines of one file as on those
# of a thousand, so a batch costs little more than its largest file.
FILE = "_file"

# A problem found by a scalar check: (line_no, field, value, reason, severity).
_Found = tuple[int | None, str, str | None, str, str]


def _empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def _batch(schema: dict[str, pl.DataType]) -> dict[str, pl.DataType]:
    """A frame's schema with the batch's file column first."""
    return {FILE: pl.Int32(), **schema}


def _problem(
    line_no: int | None, field: str, value: str | None, reason: str, severity: str
) -> _Found:
    return (line_no, field, value, reason, severity)


def _each(values: Sequence[object]) -> pl.Expr:
    """A value per file of the batch (``values[i]`` for file ``i``), on every row of the file."""
    return pl.lit(pl.Series(values)).gather(pl.col(FILE))


def _per_file(frame: pl.DataFrame, value: pl.Expr, files: int, default: object) -> list:
    """``value`` aggregated over each file's rows of ``frame``; ``default`` for a file without
    rows."""
    found = [default] * files
    for file, aggregated in frame.group_by(FILE).agg(value.alias("_value")).iter_rows():
        found[file] = aggregated
    return found


def _key(column: str) -> pl.Expr:
    """A file's start number (or opponent) as one number unique in the batch."""
    return pl.col(FILE).cast(pl.Int64) * (1 << 32) + pl.col(column).cast(pl.Int64)


def _split(frame: pl.DataFrame, files: int, schema: dict[str, pl.DataType]) -> list[pl.DataFrame]:
    """Each file's rows of a batch frame, in order, without the file column."""
    if files == 1:
        return [frame.drop(FILE)]
    parts = frame.partition_by(FILE, as_dict=True, include_key=False, maintain_order=True)
    empty = _empty(schema)
    # clear(): a new empty frame, a thousand times cheaper than one built from its schema
    return [
        part if (part := parts.get((file,))) is not None else empty.clear() for file in range(files)
    ]


class _Problems:
    """The problems of a batch, in the order the checks find them: each check adds its rows (a
    vectorised check in file order, a scalar one file by file). Each file's problems come out
    sorted as its parse alone sorts them: those that explain the others first (a file cut
    short: the opponents and rounds it lost are errors of their own lines), then whole-file
    problems, then by line, and within a line in the order of the checks and of their rows.
    A quarantined tournament is named by its first error."""

    def __init__(self) -> None:
        self._frames: list[pl.DataFrame] = []

    def flagged(self, frame: pl.DataFrame | None) -> None:
        """The rows of a vectorised check (:func:`_flag`)."""
        if frame is not None and frame.height:
            check = pl.lit(len(self._frames), pl.Int32).alias("_check")
            self._frames.append(frame.with_columns(check, pl.lit(False).alias("_cause")))

    def found(self, rows: Iterable[tuple[int, _Found]], *, explains_others: bool = False) -> None:
        """The problems of a scalar check: (file, problem) pairs, each file's in order;
        ``explains_others``: they come before the file's other problems."""
        listed = [(file, *found, len(self._frames), explains_others) for file, found in rows]
        if listed:
            schema = {**_batch(PROBLEMS_SCHEMA), "_check": pl.Int32(), "_cause": pl.Boolean()}
            self._frames.append(pl.DataFrame(listed, schema=schema, orient="row"))

    def by_file(self, files: int) -> list[pl.DataFrame]:
        if not self._frames:
            empty = _empty(PROBLEMS_SCHEMA)
            return [empty.clear() for _ in range(files)]
        ordered = (
            pl.concat(self._frames, how="vertical")
            .with_row_index("_row")
            .sort(
                FILE,
                ~pl.col("_cause"),
                pl.col("line_no").is_not_null(),
                "line_no",
                "_check",
                "_row",
            )
            .drop("_row", "_check", "_cause")
        )
        return _split(ordered, files, PROBLEMS_SCHEMA)


def _flag(
    frame: pl.DataFrame,
    when: pl.Expr,
    field: str,
    value: pl.Expr,
    reason: pl.Expr,
    severity: str,
) -> pl.DataFrame:
    """One problem row per row of ``frame`` matching ``when`` (vectorised)."""
    # rechunk: polars 2.1 panics in pl.format over string slices of a filtered,
    # multi-chunk frame (seen on the Bunratty file); a contiguous copy avoids it.
    return (
        frame.filter(when.fill_null(False))
        .rechunk()
        .select(
            pl.col(FILE),
            pl.col("line_no").cast(pl.Int32),
            pl.lit(field, pl.String).alias("field"),
            value.cast(pl.String).alias("value"),
            reason.cast(pl.String).alias("reason"),
            pl.lit(severity, pl.String).alias("severity"),
        )
    )


def _field(start_col: int, width: int) -> pl.Expr:
    """Characters ``start_col .. start_col+width-1`` (1-based, as in the FIDE spec)."""
    return pl.col("text").str.slice(start_col - 1, width)


def _int(raw: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Digits-only text to an integer; anything else (signs, letters) becomes null."""
    s = raw.str.strip_chars()
    return pl.when(s.str.contains(r"^[0-9]+$")).then(s.cast(dtype, strict=False))


def _blank_to_null(raw: pl.Expr) -> pl.Expr:
    s = raw.str.strip_chars()
    return pl.when(s != "").then(s)


# --------------------------------------------------------------------------- header


@dataclass
class _Header:
    values: dict[str, tuple[int, str]]  # record id -> (line_no, text after the id)
    declared_rounds: int | None
    rounds_line: int | None  # line of the XXR / 142 record that set declared_rounds
    problems: list[_Found]
    # the texts after the id of every start and end date record (042, 052), repeats too
    date_texts: list[str]


_HEADER_IDS = [
    "012", "022", "032", "042", "052", "062", "092", "102", "122", "142", "222", "XXR",
]  # fmt: skip
_HEADER_NAMES = {
    "012": "tournament name",
    "022": "city",
    "032": "federation",
    "042": "start date",
    "052": "end date",
    "062": "number of players",
    "092": "tournament type",
    "102": "chief arbiter",
    "122": "time control",
    "142": "number of rounds",
    "222": "encoded time control",
    "XXR": "number of rounds",
}
_ROUND_DATES_ID = "132"


def _read_headers(lines: pl.DataFrame, files: int) -> tuple[list[_Header], list[str | None]]:
    """Each file's header, and the text of its first round-dates (132) line."""
    records: list[list[tuple[int, str, str]]] = [[] for _ in range(files)]
    round_dates: list[str | None] = [None] * files
    rows = lines.filter(pl.col("rid").is_in([*_HEADER_IDS, _ROUND_DATES_ID])).select(
        FILE, "line_no", "rid", "text"
    )
    # a loop over the few header records of each file, not over players
    for file, line_no, rid, text in rows.iter_rows():
        if rid == _ROUND_DATES_ID:
            if round_dates[file] is None:
                round_dates[file] = text
        else:
            records[file].append((line_no, rid, text))
    return [_read_header(found) for found in records], round_dates


def _read_header(records: list[tuple[int, str, str]]) -> _Header:
    values: dict[str, tuple[int, str]] = {}
    problems: list[_Found] = []
    date_texts = [text[4:] for _, rid, text in records if rid in ("042", "052")]
    for line_no, rid, text in records:
        value = text[4:].strip()
        if rid in values:
            if value and value != values[rid][1]:
                problems.append(
                    _problem(
                        line_no,
                        _HEADER_NAMES[rid],
                        value,
                        f"{_HEADER_NAMES[rid]} given twice; the first one "
                        f"(line {values[rid][0]}) is kept",
                        WARNING,
                    )
                )
            continue
        values[rid] = (line_no, value)

    declared_rounds: int | None = None
    rounds_line: int | None = None
    for rid in ("XXR", "142"):
        if rid not in values:
            continue
        line_no, value = values[rid]
        if _is_count(value):
            if int(value) >= (declared_rounds or 0):
                declared_rounds, rounds_line = int(value), line_no
        elif value:
            problems.append(
                _problem(
                    line_no,
                    "number of rounds",
                    value,
                    f"number of rounds '{value}' ({rid} record) is not a count of rounds; ignored",
                    WARNING,
                )
            )
    return _Header(values, declared_rounds, rounds_line, problems, date_texts)


# more players or rounds than any tournament holds: a header count above it is no count (it
# would not fit the tournament row's 32-bit columns either)
MAX_HEADER_COUNT = 100_000


def _is_count(value: str) -> bool:
    # str.isdigit() also accepts "²" and other digits int() refuses.
    return value.isascii() and value.isdigit() and int(value) <= MAX_HEADER_COUNT


def _header_text(header: _Header, rid: str) -> str | None:
    value = header.values.get(rid, (0, ""))[1]
    return value or None


def _header_line(header: _Header, rid: str) -> int | None:
    """The line of a header record that gives a value (None: absent or empty)."""
    line_no, value = header.values.get(rid, (None, ""))
    return line_no if value else None


def _round_dates(line: str | None) -> list[DateReading]:
    """The round dates of the TRF-16 ``132`` line, in round order: one date per round in the
    columns of the rounds (8 characters from column 92, every 10)."""
    if line is None:
        return []
    text = line.rstrip()
    # a loop over the dozen round columns of one header line
    return [
        read_date(text[col : col + _ROUND_WIDTH])
        for col in range(_FIRST_ROUND_COL - 1, len(text), _ROUND_WIDTH)
    ]


def _dates(
    header: _Header, rounds: list[DateReading]
) -> tuple[date | None, date | None, list[_Found]]:
    readings: dict[str, DateReading] = {
        rid: read_date(header.values[rid][1]) if rid in header.values else read_date("")
        for rid in ("042", "052")
    }
    # the round dates of line 132 settle a two-digit date (11.09.26) the other side does not
    start, end = resolve_period(readings["042"], readings["052"], rounds)
    problems: list[_Found] = []
    for rid, value in (("042", start), ("052", end)):
        reading = readings[rid]
        if value is not None or reading.status == "blank":
            continue
        what = _HEADER_NAMES[rid]
        line_no = header.values[rid][0]
        # the line and the value, so that the arbiter finds what to correct
        quoted = f"{what} '{reading.text}' (line {line_no}, record {rid})"
        if reading.status == "ambiguous":
            options = ", ".join(sorted({d.isoformat() for _, d in reading.candidates}))
            reason = (
                f"{quoted} can be read as {options}; the file's other dates (start, end, the "
                "round dates of line 132) do not settle it, so it is left empty"
            )
        elif reading.status == "year_only":
            reason = f"{quoted} gives only a year; left empty"
        elif reading.status == "invalid":
            reason = f"{quoted} is not a real calendar date; left empty"
        else:
            reason = f"{quoted} cannot be read as a date; left empty"
        problems.append(_problem(line_no, what, reading.text, reason, WARNING))
    if start is not None and end is not None and start > end:
        problems.append(
            _problem(
                header.values["052"][0],
                "end date",
                header.values["052"][1],
                f"end date {end.isoformat()} is before start date {start.isoformat()}",
                WARNING,
            )
        )
    return start, end, problems


# --------------------------------------------------------------------------- players


def _players(p001: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    sex_raw = _field(10, 1).str.strip_chars()
    raw = (
        with_birth_dates(p001, _field(70, 10), "birth_date", "birth_year", "birth_status")
        .with_columns(
            sn_raw=_field(5, 4),
            sex_raw=sex_raw,
            rating_raw=_field(49, 4).str.strip_chars(),
            fide_raw=_field(58, 11).str.strip_chars(),
            birth_raw=_field(70, 10),
            points_raw=_field(81, 4).str.strip_chars(),
            rank_raw=_field(86, 4).str.strip_chars(),
        )
        .with_columns(
            start_number=_int(pl.col("sn_raw"), pl.Int32()),
            name=_field(15, 33).str.strip_chars(),
            sex=pl.col("sex_raw")
            .str.to_lowercase()
            .replace_strict({"m": "M", "w": "F", "f": "F"}, default=None, return_dtype=pl.String),
            title=_blank_to_null(_field(11, 3)),
            rating=_int(pl.col("rating_raw"), pl.Int32()),
            federation=_blank_to_null(_field(54, 3)),
            fide_id=_int(pl.col("fide_raw"), pl.Int64()),
            # Some exports write a decimal comma; that is unambiguous, so accept it.
            points=pl.when(pl.col("points_raw").str.contains(r"^[0-9]*[.,]?[0-9]+$")).then(
                pl.col("points_raw").str.replace(",", ".").cast(pl.Float64, strict=False)
            ),
            rank=_int(pl.col("rank_raw"), pl.Int32()),
        )
    )

    sn_text = pl.col("sn_raw").str.strip_chars()
    plausible_year = pl.col("birth_year").is_between(*PLAUSIBLE_BIRTH_YEARS)
    problems = [
        _flag(
            raw,
            pl.col("text").str.contains("\t"),
            "player line",
            pl.col("text"),
            pl.lit("player line contains TAB characters, so its columns cannot be trusted"),
            ERROR,
        ),
        _flag(
            raw,
            pl.col("start_number").is_null() | (pl.col("start_number") == 0),
            "start number",
            pl.col("sn_raw"),
            pl.when(sn_text == "")
            .then(pl.lit("start number is missing (columns 5-8)"))
            .otherwise(
                pl.format("start number '{}' (columns 5-8) is not a number from 1 up", sn_text)
            ),
            ERROR,
        ),
        # a blank points column is optional (TRF-16): the points are then the sum of the
        # round results (:func:`_with_blank_points`); a value that is no number is an error
        _flag(
            raw,
            (pl.col("points_raw") != "") & pl.col("points").is_null(),
            "points",
            pl.col("points_raw"),
            pl.format(
                "player {}: points '{}' (columns 81-84) are not a number",
                sn_text,
                pl.col("points_raw"),
            ),
            ERROR,
        ),
        _flag(
            raw,
            pl.col("start_number").is_not_null()
            & pl.col("start_number").is_duplicated().over(FILE)
            & (pl.col("start_number") != 0),
            "start number",
            pl.col("sn_raw").str.strip_chars(),
            pl.format(
                "start number {} is used by more than one player line (lines {})",
                pl.col("start_number"),
                pl.col("line_no").cast(pl.String).str.join(", ").over(FILE, "start_number"),
            ),
            ERROR,
        ),
        _flag(
            raw,
            pl.col("name") == "",
            "name",
            pl.col("name"),
            pl.format("player {}: name is blank (columns 15-47)", sn_text),
            WARNING,
        ),
        _flag(
            raw,
            (pl.col("sex_raw") != "") & pl.col("sex").is_null(),
            "sex",
            pl.col("sex_raw"),
            pl.format(
                "player {}: sex '{}' (column 10) is not m, w or f; left empty",
                sn_text,
                pl.col("sex_raw"),
            ),
            WARNING,
        ),
        _flag(
            raw,
            (pl.col("rating_raw") != "") & pl.col("rating").is_null(),
            "rating",
            pl.col("rating_raw"),
            _rating_reason(pl.format("player {}", sn_text), "columns 49-52"),
            WARNING,
        ),
        _flag(
            raw,
            (pl.col("fide_raw") != "") & pl.col("fide_id").is_null(),
            "fide id",
            pl.col("fide_raw"),
            pl.format(
                "player {}: FIDE id '{}' (columns 58-68) is not a number; left empty",
                sn_text,
                pl.col("fide_raw"),
            ),
            WARNING,
        ),
        _flag(
            raw,
            pl.col("birth_status").is_in(["unreadable", "invalid"]),
            "birth date",
            pl.col("birth_raw").str.strip_chars(),
            pl.when(pl.col("birth_status") == "invalid")
            .then(
                pl.format(
                    "player {}: birth date '{}' is not a real calendar date; only the year is kept",
                    sn_text,
                    pl.col("birth_raw").str.strip_chars(),
                )
            )
            .otherwise(
                pl.format(
                    "player {}: birth date '{}' (line {}, columns 70-79) cannot be read; left "
                    "empty",
                    sn_text,
                    pl.col("birth_raw").str.strip_chars(),
                    pl.col("line_no"),
                )
            ),
            WARNING,
        ),
        _year_only_births(raw.filter((pl.col("birth_status") == "year_only") & plausible_year)),
        _flag(
            raw,
            pl.col("birth_year").is_not_null() & ~plausible_year,
            "birth date",
            pl.col("birth_raw").str.strip_chars(),
            pl.format(
                "player {}: birth year {} is not plausible; left empty",
                sn_text,
                pl.col("birth_year"),
            ),
            WARNING,
        ),
        _flag(
            raw,
            (pl.col("rank_raw") != "") & pl.col("rank").is_null(),
            "rank",
            pl.col("rank_raw"),
            pl.format(
                "player {}: rank '{}' (columns 86-89) is not a number; left empty",
                sn_text,
                pl.col("rank_raw"),
            ),
            WARNING,
        ),
    ]

    players = (
        raw.with_columns(
            # 0 is how TRF says "unrated" / "no FIDE id".
            rating=pl.when(pl.col("rating") != 0).then(pl.col("rating")),
            fide_id=pl.when(pl.col("fide_id") != 0).then(pl.col("fide_id")),
            # Rank 0 is how pairing programs mark a player left out of the standings.
            rank=pl.when(pl.col("rank") != 0).then(pl.col("rank")),
            birth_year=pl.when(plausible_year).then(pl.col("birth_year")),
        )
        # A line without a usable start number cannot be referenced by any pairing;
        # it is reported above and left out.
        .filter(pl.col("start_number").is_not_null() & (pl.col("start_number") != 0))
        .select(pl.col(FILE), *(pl.col(name).cast(dtype) for name, dtype in PLAYERS_SCHEMA.items()))
    )
    return players, problems


def _rating_reason(who: pl.Expr, columns: str) -> pl.Expr:
    """Why a rating was left empty: a negative one is a number outside the ratings (a typo in
    the sign, or a program's "no rating"), anything else is no number."""
    lowest, highest = RATING_RANGE["min_value"], RATING_RANGE["max_value"]
    raw = pl.col("rating_raw")
    return (
        pl.when(raw.str.contains(r"^-\s*[0-9]+$"))
        .then(
            pl.format(
                f"{{}}: rating '{{}}' ({columns}) is negative, outside the ratings from "
                f"{lowest} to {highest}; left empty",
                who,
                raw,
            )
        )
        .otherwise(
            pl.format(f"{{}}: rating '{{}}' ({columns}) is not a number; left empty", who, raw)
        )
    )


def _first_of_each_file(frame: pl.DataFrame) -> pl.DataFrame:
    """Each file's row of ``frame`` with the lowest line number, with ``_count``, how many
    rows the file has."""
    return (
        frame.with_columns(pl.len().over(FILE).alias("_count"))
        .sort(FILE, "line_no", maintain_order=True)
        .unique(subset=FILE, keep="first", maintain_order=True)
    )


def _year_only_births(year_only: pl.DataFrame) -> pl.DataFrame | None:
    """One warning for the players whose birth date gives only the year (``1975/00/00``,
    ``1975.  .``, ``1975``): the year is kept, and a file of them (some programs write no
    more) would otherwise give a warning per player that says the same thing."""
    if year_only.height == 0:
        return None
    count = pl.col("_count")
    whose = (
        pl.when(count == 1)
        .then(pl.lit("1 player's birth date gives"))
        .otherwise(pl.format("{} players' birth dates give", count))
    )
    birth = pl.col("birth_raw").str.strip_chars()
    return _flag(
        _first_of_each_file(year_only),
        pl.lit(True),
        "birth date",
        birth,
        pl.format(
            "{} only the year (the first: player {}, line {}, '{}'): the year is kept, the day "
            "is left empty",
            whose,
            pl.col("sn_raw").str.strip_chars(),
            pl.col("line_no"),
            birth,
        ),
        WARNING,
    )


def _with_blank_points(
    players: pl.DataFrame, games: pl.DataFrame, p001: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """Players whose points column is blank get the sum of their round results (the column is
    optional in TRF-16), with one warning for each file."""
    at_line = [FILE, "line_no"]
    blank = p001.filter(_field(81, 4).str.strip_chars() == "").select(
        *at_line, pl.lit(True).alias("_blank")
    )
    if blank.height == 0:
        return players, None
    sums = games.group_by(at_line).agg(pl.col("score").sum().alias("_total"))
    filled = players.join(blank, on=at_line, how="left", maintain_order="left").join(
        sums, on=at_line, how="left", maintain_order="left"
    )
    filled_rows = filled.filter(pl.col("_blank").fill_null(False))
    if filled_rows.height == 0:
        return players, None
    players = filled.with_columns(
        points=pl.when(pl.col("_blank").fill_null(False))
        .then(pl.col("_total").fill_null(0.0))
        .otherwise(pl.col("points"))
    ).select(FILE, *PLAYERS_SCHEMA)
    count = pl.col("_count")
    who = pl.when(count == 1).then(pl.lit("1 player")).otherwise(pl.format("{} players", count))
    return players, _flag(
        _first_of_each_file(filled_rows),
        pl.lit(True),
        "points",
        pl.lit(None, pl.String),
        pl.format(
            "the points column (columns 81-84) is blank for {} (the first: player {}, line {}): "
            "their points are the sum of their round results",
            who,
            pl.col("start_number"),
            pl.col("line_no"),
        ),
        WARNING,
    )


# --------------------------------------------------------------------------- games


def _observed_rounds(p001: pl.DataFrame, files: int) -> list[int]:
    """Each file's number of round blocks that hold any non-blank character on some line."""
    length = pl.col("text").str.strip_chars_end().str.len_chars().cast(pl.Int64)
    first = _FIRST_ROUND_COL - 1  # characters before round 1
    blocks = ((length - first + _ROUND_WIDTH - 1) // _ROUND_WIDTH).clip(lower_bound=0)
    return [int(found or 0) for found in _per_file(p001, blocks.max(), files, 0)]


# names pairing programs give the line that stands for a bye ("spielfrei": German programs)
BYE_STAND_IN_NAMES = ["spielfrei", "freilos", "bye", "free", "riposo", "exempt"]


def _without_bye_stand_ins(
    players: pl.DataFrame, games: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """Players and games without the lines that stand for a bye: a line named as pairing
    programs name their bye, paired with nobody (it would enter the lists as a player)."""
    named = players.filter(pl.col("name").str.to_lowercase().is_in(BYE_STAND_IN_NAMES))
    if named.height == 0:
        return players, games, None
    paired = games.filter(pl.col("opponent").is_not_null()).select(_key("start_number"))
    stand_ins = named.filter(~_key("start_number").is_in(paired.to_series().implode()))
    if stand_ins.height == 0:
        return players, games, None
    left_out = stand_ins.select(_key("start_number")).to_series().implode()
    return (
        players.filter(~_key("start_number").is_in(left_out)),
        games.filter(~_key("start_number").is_in(left_out)),
        _flag(
            stand_ins,
            pl.lit(True),
            "player line",
            pl.col("name"),
            pl.format(
                "player {} '{}' stands for a bye (the pairing program's name for it) and "
                "meets nobody: not a player, left out",
                pl.col("start_number"),
                pl.col("name"),
            ),
            WARNING,
        ),
    )


def _paired_rounds(games: pl.DataFrame, files: int) -> list[int]:
    """Each file's last round in which somebody met an opponent (0 when nobody did)."""
    paired = games.filter(pl.col("opponent").is_not_null())
    return [int(last or 0) for last in _per_file(paired, pl.col("round").max(), files, 0)]


def _round_count_problems(
    games: pl.DataFrame, rounds: list[int], headers: list[_Header]
) -> list[tuple[int, _Found]]:
    """Warnings: rounds after the last paired one that hold only byes, and a header whose
    number of rounds differs from the tournament's."""
    unpaired = games.filter((pl.col("round") > _each(rounds)) & (pl.col("kind") != "unpaired"))
    ahead: dict[int, tuple[list[int], int, int]] = {}
    if unpaired.height:
        for file, later, count, first in (
            unpaired.group_by(FILE)
            .agg(pl.col("round").unique().sort(), pl.len(), pl.col("line_no").min())
            .iter_rows()
        ):
            ahead[file] = (later, count, first)
    found: list[tuple[int, _Found]] = []
    # a loop over the files of the batch
    for file, (header, tournament_rounds) in enumerate(zip(headers, rounds, strict=True)):
        if file in ahead:
            later, count, first = ahead[file]
            named = ", ".join(str(number) for number in later)
            found.append(
                (
                    file,
                    _problem(
                        first,
                        "number of rounds",
                        named,
                        f"round{'s' if len(later) > 1 else ''} {named} pair nobody: {count} "
                        f"bye{'s' if count > 1 else ''} entered ahead, left out; the "
                        f"tournament has {tournament_rounds} "
                        f"round{'' if tournament_rounds == 1 else 's'}",
                        WARNING,
                    ),
                )
            )
        declared = header.declared_rounds
        if declared is not None and tournament_rounds != declared:
            found.append(
                (
                    file,
                    _problem(
                        header.rounds_line,
                        "number of rounds",
                        str(declared),
                        f"the header declares {declared} rounds but the player lines pair "
                        f"players in {tournament_rounds}: the tournament has {tournament_rounds}",
                        WARNING,
                    ),
                )
            )
    return found


def _games(
    players_lines: pl.DataFrame, rounds: list[int], files: int
) -> tuple[pl.DataFrame, list[pl.DataFrame], list[int]]:
    """The players x rounds grid of each file, its problems, and how many ICU-style bare "-"
    entries (colour marker but no result) each file has: they label the format, and tell a file
    cut after a "0000 -" from an ICU file that writes its byes so."""
    grid = (
        players_lines.select(FILE, "start_number", "line_no", "text")
        .with_columns(_each(rounds).alias("_rounds"))
        .filter(pl.col("_rounds") > 0)
        .with_columns(pl.int_ranges(1, pl.col("_rounds") + 1, dtype=pl.Int32).alias("round"))
        .drop("_rounds")
        .explode("round")
    )
    offset = (pl.col("round").cast(pl.Int64) - 1) * _ROUND_WIDTH + (_FIRST_ROUND_COL - 1)
    opp_number = pl.col("opp").str.strip_chars().cast(pl.Int32, strict=False)
    parsed = (
        grid.with_columns(
            block=pl.col("text").str.slice(offset, _ROUND_WIDTH).str.pad_end(_ROUND_WIDTH)
        )
        # a block the pattern reads has its fields at fixed columns (the pattern spans the 10
        # characters, its opponent 4 of them): cut out, not captured (three times faster)
        .with_columns(pl.col("block").str.contains(_BLOCK).alias("_read"))
        .with_columns(
            pl.when("_read").then(pl.col("block").str.slice(start, width)).alias(name)
            for name, start, width in _BLOCK_FIELDS
        )
        .drop("_read")
        .with_columns(
            readable=pl.col("opp").is_not_null(),
            blank=pl.col("block").str.strip_chars() == "",
            # "0000" and a blank field both mean "no opponent".
            opponent=pl.when(opp_number > 0).then(opp_number),
            color=pl.col("col")
            .str.to_lowercase()
            .replace_strict({"w": "w", "b": "b"}, default=None, return_dtype=pl.String),
            result_code=pl.col("res").str.strip_chars().str.to_uppercase().fill_null(""),
        )
        .with_columns(
            score=pl.col("result_code").replace_strict(
                {k: v[0] for k, v in _RESULTS.items()}, return_dtype=pl.Float64
            ),
            kind=pl.col("result_code").replace_strict(
                {k: v[1] for k, v in _RESULTS.items()}, return_dtype=pl.String
            ),
        )
        .with_columns(
            # "0000 - =": a draw against nobody is the Irish ICU exports' half-point bye (their
            # own reader takes it so, whatever the colour marker): no game was played
            kind=pl.when((pl.col("result_code") == "=") & pl.col("opponent").is_null())
            .then(pl.lit("bye"))
            .otherwise(pl.col("kind"))
        )
        .with_columns(played=pl.col("kind") == "played")
        .rechunk()
    )

    rnd = pl.col("round")
    me = pl.col("start_number")
    block_text = pl.col("block").str.strip_chars_end()
    first_col = offset + 1
    without_result = pl.col("readable") & ~pl.col("blank") & (pl.col("result_code") == "")
    problems = [
        _flag(
            parsed,
            ~pl.col("readable") & ~pl.col("blank"),
            "round entry",
            block_text,
            pl.format(
                "player {} round {}: cannot read the entry '{}' (columns {}-{}); "
                "expected opponent, colour and result as 'NNNN c r'",
                me,
                rnd,
                block_text,
                first_col,
                first_col + 7,
            ),
            ERROR,
        ),
        _flag(
            parsed,
            pl.col("kind").is_in(["played", "unrated"]) & pl.col("opponent").is_null(),
            "result",
            block_text,
            pl.format(
                "player {} round {}: result '{}' is a game result but no opponent is given",
                me,
                rnd,
                pl.col("result_code"),
            ),
            ERROR,
        ),
        _flag(
            parsed,
            (pl.col("kind") == "bye") & pl.col("opponent").is_not_null(),
            "result",
            block_text,
            pl.format(
                "player {} round {}: bye code '{}' is given together with opponent {}",
                me,
                rnd,
                pl.col("result_code"),
                pl.col("opponent"),
            ),
            ERROR,
        ),
        # a pairing without its result is a game the rating would lose: the round was not
        # finished when the file was written, or the result was left out
        _flag(
            parsed,
            without_result & pl.col("opponent").is_not_null(),
            "result",
            block_text,
            pl.format(
                "player {} round {}: paired with {} but no result is recorded; give the "
                "result (a file written before the round ended lacks it)",
                me,
                rnd,
                pl.col("opponent"),
            ),
            ERROR,
        ),
        _flag(
            parsed,
            without_result & pl.col("opponent").is_null(),
            "result",
            block_text,
            pl.format(
                "player {} round {}: entry '{}' has no result code; counted as not paired "
                "(0 points)",
                me,
                rnd,
                block_text,
            ),
            WARNING,
        ),
    ]
    games = parsed.select(
        pl.col(FILE), *(pl.col(name).cast(dtype) for name, dtype in GAMES_SCHEMA.items())
    )
    bare_dash = pl.col("readable") & (pl.col("col") == "-") & (pl.col("result_code") == "")
    bare_dashes = [int(count or 0) for count in _per_file(parsed, bare_dash.sum(), files, 0)]
    return games, problems, bare_dashes


# What is left of a round entry cut short (the line stripped of its trailing blanks): part of
# the opponent's number, or the opponent and the colour without the result. An entry that is
# no beginning of one (shifted, mistyped) is a typing slip, reported by its own check.
_CUT_NUMBER = re.compile(r"^ {0,3}[0-9]{1,4}$")
_CUT_RESULT = re.compile(r"^ {0,3}[0-9]{1,4} [wbWB\-]$")
_BARE_DASH = re.compile(r"^(?:0000| {4}) -$")


def _truncation_problems(
    lines: pl.DataFrame,
    p001: pl.DataFrame,
    players: pl.DataFrame,
    games: pl.DataFrame,
    rounds: list[int],
    bare_dashes: list[int],
    bye_codes: list[bool],
) -> list[tuple[int, _Found]]:
    """An error when a file's last line is a player line cut short: a file copied or sent in
    part loses the players and games after the cut, which no other check can see; the errors
    its cut field gives (an unreadable entry, a pairing without result) do not say so.

    Only the last line is judged (a line cut in the middle of the file is a typing slip, found
    by the checks of its fields), on three signs: it stops inside a round entry, before its
    points while the other lines give theirs, or a round short of the tournament with points
    that count results it does not hold.
    """
    at_line = [FILE, "line_no"]
    last = (
        lines.filter(pl.col("text").str.strip_chars() != "")
        .group_by(FILE)
        .agg(pl.col("line_no").last(), pl.col("rid").last(), pl.col("text").last())
        .filter(pl.col("rid") == "001")
        .drop("rid")
    )
    if last.height == 0:
        return []
    files = len(rounds)
    last_lines = [-1] * files
    for file, line_no, _ in last.iter_rows():
        last_lines[file] = line_no
    is_last = pl.col("line_no") == _each(last_lines)
    # what the checks need of each file's last line and the other player lines
    points_given = _field(81, 4).str.strip_chars() != ""
    others_have_points = _per_file(p001, (points_given & ~is_last).any(), files, False)
    points = _per_file(players.filter(is_last), pl.col("points").first(), files, None)
    held = _per_file(
        games.join(last.select(at_line), on=at_line, how="semi"),
        pl.col("score").sum(),
        files,
        0.0,
    )
    found: list[tuple[int, _Found]] = []
    # a loop over the files whose last line is a player's
    for file, line_no, written in last.sort(FILE).iter_rows():
        file_found = _truncation(
            file,
            line_no,
            written.rstrip(),
            games,
            rounds[file],
            bare_dashes[file] == 1 and bye_codes[file],
            bool(others_have_points[file]),
            points[file],
            float(held[file]),
        )
        if file_found is not None:
            found.append((file, file_found))
    return found


def _truncation(
    file: int,
    line_no: int,
    text: str,
    games: pl.DataFrame,
    rounds: int,
    dash_is_cut: bool,
    others_have_points: bool,
    points: float | None,
    held: float,
) -> _Found | None:
    """The truncation error of one file whose last line, ``text``, is a player line."""
    length = len(text)
    first = _FIRST_ROUND_COL - 1  # characters before round 1
    reason: str | None = None
    value = text[-20:].strip()  # the end of the line, where it stops
    if length > first:
        block = (length - first - 1) // _ROUND_WIDTH
        start = first + block * _ROUND_WIDTH
        entry = text[start:]
        if (
            _CUT_NUMBER.match(entry)
            or (
                _CUT_RESULT.match(entry)
                and _result_given_by_opponent(
                    games.filter(pl.col(FILE) == file), line_no, block + 1
                )
            )
            # "0000 -" is how the ICU exports write a bye without result, never beside the bye
            # letters of TRF-16 (their format has none): in a file that uses these and writes
            # no other, it is a "0000 - Z" (or "H", ...) cut short
            or (_BARE_DASH.match(entry) and dash_is_cut)
        ):
            value = entry.strip()
            reason = (
                f"stops in the middle of round {block + 1}'s entry ('{value}', "
                f"columns {start + 1}-{start + 8})"
            )
    elif length < 81 and rounds > 0 and others_have_points:
        reason = (
            f"stops at column {length}, before the points (columns 81-84) and the round "
            "entries the other player lines give"
        )
    entries = max(0, (length - first + _ROUND_WIDTH - 1) // _ROUND_WIDTH)
    if reason is None and entries < rounds and points is not None and points > held + 1e-6:
        value = f"{points:.1f}"
        reason = (
            f"holds {entries} of the {rounds} rounds, and its points column says {points:.1f} "
            f"where its results add up to {held:.1f}"
        )
    if reason is None:
        return None
    return _problem(
        line_no,
        "player line",
        value,
        f"the file looks truncated: its last line (line {line_no}) {reason}; the players "
        "and rounds after it may be missing: deliver the whole file",
        ERROR,
    )


def _result_given_by_opponent(games: pl.DataFrame, line_no: int, rnd: int) -> bool:
    """Whether the pairing of a line's round without result is a cut one: its opponent's line
    is missing (lost after the cut) or gives the result. When neither side gives it, the
    round was not over when the file was written: not a cut (the pairing is an error anyway)."""
    mine = games.filter((pl.col("line_no") == line_no) & (pl.col("round") == rnd))
    if mine.height == 0 or mine.get_column("opponent")[0] is None:
        return False
    me, opponent = mine.get_column("start_number")[0], mine.get_column("opponent")[0]
    theirs = games.filter(
        (pl.col("start_number") == opponent) & (pl.col("round") == rnd) & (pl.col("opponent") == me)
    )
    return theirs.height == 0 or theirs.get_column("result_code")[0] != ""


# rounds a packed seat holds: more would take a player line of ten million characters
_SEAT_ROUNDS = 1 << 20


def _seat(number: str) -> pl.Expr:
    """A file, start number (or opponent) and round as one number unique in the batch (a
    start number has at most 4 digits, a round is under _SEAT_ROUNDS)."""
    return (
        (pl.col(FILE).cast(pl.Int64) * (1 << 40))
        + (pl.col(number).cast(pl.Int64) * _SEAT_ROUNDS)
        + pl.col("round").cast(pl.Int64)
    ).alias("_seat")


def _pairing_problems(games: pl.DataFrame, players: pl.DataFrame) -> list[pl.DataFrame]:
    """Opponents that do not exist, self-pairings, one-sided pairings, clashing results.

    The mirror check is a self-join: my (opponent, round) must find the opponent's
    row, and that row must name me back with the complementary result.
    """
    paired = games.filter(pl.col("opponent").is_not_null())
    known = players.select(_key("start_number")).to_series().implode()
    me, opp, rnd = pl.col("start_number"), pl.col("opponent"), pl.col("round")

    missing = paired.filter(~_key("opponent").is_in(known))
    problems = [
        _flag(
            missing,
            pl.lit(True),
            "opponent",
            opp,
            pl.format(
                "player {} round {}: opponent {} does not exist in this tournament", me, rnd, opp
            ),
            ERROR,
        ),
        _flag(
            paired,
            opp == me,
            "opponent",
            opp,
            pl.format("player {} round {}: paired with themself", me, rnd),
            ERROR,
        ),
    ]

    # a file's games are one per start number and round, unless it repeats a start number
    repeats = bool(players.select(pl.struct(FILE, "start_number").is_duplicated().any()).item())
    mirror = (
        games.unique(subset=[FILE, "start_number", "round"], keep="first") if repeats else games
    )
    their_columns = [
        pl.col("opponent").alias("their_opponent"),
        pl.col("result_code").alias("their_code"),
        pl.col("color").alias("their_color"),
        pl.lit(True).alias("_mirrored"),
    ]
    mine = paired.filter(opp != me)
    last_round = games.get_column("round").max()
    if last_round is None or int(last_round) < _SEAT_ROUNDS:  # type: ignore[arg-type]
        # one number for the three columns: a join on it is half as long
        mine = mine.with_columns(_seat("opponent"))
        mirror = mirror.select(_seat("start_number"), *their_columns)
        on = ["_seat"]
    else:  # more rounds than the number holds (no file has them)
        mirror = mirror.select(
            FILE, pl.col("start_number").alias("opponent"), "round", *their_columns
        )
        on = [FILE, "opponent", "round"]
    joined = (
        mine.join(mirror, on=on, how="left", maintain_order="left")
        .filter(pl.col("_mirrored").is_not_null())
        .drop("_mirrored", *(name for name in on if name == "_seat"))
    )
    theirs = pl.col("their_opponent")
    problems.append(
        _flag(
            joined,
            theirs.is_null() | (theirs != me),
            "opponent",
            opp,
            pl.format(
                "round {}: player {} is paired with {}, but player {}'s line shows {} in round {}",
                rnd,
                me,
                opp,
                opp,
                pl.when(theirs.is_null())
                .then(pl.lit("no opponent"))
                .otherwise(pl.format("opponent {}", theirs)),
                rnd,
            ),
            ERROR,
        )
    )
    # Each mutual pairing is judged once, from the lower start number's line.
    mutual = joined.filter((theirs == me) & (me < opp))
    codes = pl.concat_str(pl.col("result_code"), pl.lit("|"), pl.col("their_code"))
    problems += [
        _flag(
            mutual,
            ~codes.is_in(_COMPLEMENTARY),
            "result",
            codes,
            pl.format(
                "round {}: results of players {} ('{}') and {} ('{}') do not fit together",
                rnd,
                me,
                pl.col("result_code"),
                opp,
                pl.col("their_code"),
            ),
            ERROR,
        ),
        _flag(
            mutual,
            pl.col("color").is_not_null() & (pl.col("color") == pl.col("their_color")),
            "color",
            pl.col("color"),
            pl.format(
                "round {}: players {} and {} both have colour '{}'", rnd, me, opp, pl.col("color")
            ),
            WARNING,
        ),
    ]
    return problems


def _points_problems(games: pl.DataFrame, players: pl.DataFrame) -> pl.DataFrame:
    at_line = [FILE, "line_no"]
    sums = games.group_by(at_line).agg(total=pl.col("score").sum())
    totals = players.join(sums, on=at_line, how="left", maintain_order="left").with_columns(
        pl.col("total").fill_null(0.0)
    )
    return _flag(
        totals,
        pl.col("points").is_not_null() & ((pl.col("points") - pl.col("total")).abs() > 1e-6),
        "points",
        pl.col("points"),
        pl.format(
            "player {}: points column says {} but the round results add up to {}",
            pl.col("start_number"),
            pl.col("points"),
            pl.col("total"),
        ),
        WARNING,
    )


# --------------------------------------------------------------------------- national


def _national(
    lines: pl.DataFrame, players: pl.DataFrame
) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    # TRF-26 national lines are keyed by a federation code; the legend lines of the
    # draft ("DDD SSSS ...", "III TT ...") also start with 3 capitals but have no
    # start number, and "XX?" records are pairing-program extensions.
    nat = lines.filter(
        pl.col("rid").str.contains(r"^[A-Z]{3}$")
        & ~pl.col("rid").str.starts_with("XX")
        & (pl.col("text").str.slice(3, 1) == " ")
        & pl.col("text").str.slice(4, 4).str.strip_chars().str.contains(r"^[0-9]+$")
    )
    if nat.height == 0:
        return _empty(_batch(NATIONAL_SCHEMA)), []
    raw = (
        with_birth_dates(nat, _field(70, 10), "birth_date", "_national_year", "birth_status")
        .drop("_national_year")
        .with_columns(
            federation_code=pl.col("rid"),
            start_number=_int(_field(5, 4), pl.Int32()),
            national_id=_blank_to_null(_field(58, 11)),
            rating_raw=_field(49, 4).str.strip_chars(),
            classification=_blank_to_null(_field(11, 3)),
            name=_field(15, 33).str.strip_chars(),
            birth_raw=_field(70, 10).str.strip_chars(),
        )
        .with_columns(national_rating=_int(pl.col("rating_raw"), pl.Int32()))
    )
    known = players.select(_key("start_number")).to_series().implode()
    sn = pl.col("start_number")
    problems = [
        _flag(
            raw.filter(~_key("start_number").is_in(known).fill_null(False)),
            pl.lit(True),
            "start number",
            sn,
            pl.format(
                "national record {}: start number {} has no player (001) line",
                pl.col("rid"),
                sn,
            ),
            WARNING,
        ),
        _flag(
            raw,
            (pl.col("rating_raw") != "") & pl.col("national_rating").is_null(),
            "national rating",
            pl.col("rating_raw"),
            _rating_reason(
                pl.format("national record {} for player {}", pl.col("rid"), sn), "columns 49-52"
            ),
            WARNING,
        ),
        _flag(
            raw,
            pl.col("birth_status").is_in(["unreadable", "invalid"]),
            "birth date",
            pl.col("birth_raw"),
            pl.format(
                "national record {} for player {}: birth date '{}' (line {}) cannot be read; "
                "left empty",
                pl.col("rid"),
                sn,
                pl.col("birth_raw"),
                pl.col("line_no"),
            ),
            WARNING,
        ),
    ]
    national = (
        raw.with_columns(
            national_rating=pl.when(pl.col("national_rating") != 0).then(pl.col("national_rating"))
        )
        # Start number 0 names nobody (warned above as having no player line).
        .filter(pl.col("start_number") != 0)
        .select(
            pl.col(FILE), *(pl.col(name).cast(dtype) for name, dtype in NATIONAL_SCHEMA.items())
        )
    )
    return national, problems


# --------------------------------------------------------------------------- format

# FIDE ids have six digits or more; the Irish ICU exports (the "KRAUSE" dialect) write their
# federation's own ids, a few thousand, in the same column
SMALLEST_FIDE_ID = 100_000


def _without_national_ids(
    players: pl.DataFrame, krause: list[bool]
) -> tuple[pl.DataFrame, list[tuple[int, _Found]]]:
    """Players of an ICU export (``krause``: each file's format is) without the FIDE ids of
    its id column when every id there is too small to be FIDE's: they are the Irish
    federation's (and the ratings beside them too), and read as FIDE ids they would make
    FIDE-rated players of its players."""
    if not any(krause):
        return players, []
    files = len(krause)
    ids = players.filter(_each(krause)).filter(pl.col("fide_id").is_not_null())
    counts = _per_file(ids, pl.len(), files, 0)
    largest = _per_file(ids, pl.col("fide_id").max(), files, None)
    national = [
        krause[file] and counts[file] > 0 and int(largest[file]) < SMALLEST_FIDE_ID
        for file in range(files)
    ]
    if not any(national):
        return players, []
    return players.with_columns(
        pl.when(_each(national)).then(None).otherwise(pl.col("fide_id")).alias("fide_id")
    ), [
        (
            file,
            _problem(
                None,
                "FIDE id",
                None,
                f"the id column holds no FIDE id (all {counts[file]} are under "
                f"{SMALLEST_FIDE_ID:,}): an Irish ICU export, whose ids and ratings are the Irish "
                "federation's; the ids are left out, the players are not FIDE-rated",
                WARNING,
            ),
        )
        for file in range(files)
        if national[file]
    ]


def _detect_format(
    header: _Header,
    has_trf26_ids: bool,
    has_national: bool,
    has_bye_codes: bool,
    has_extensions: bool,
    bare_dash: bool,
) -> str:
    """Best-effort dialect name; it only labels the file, parsing does not depend on it."""
    if has_trf26_ids or has_national:
        return "TRF-26"
    if has_bye_codes or has_extensions:
        return "TRF-16"
    # The Irish ICU exports write unknown byes as a bare "-" without result and use
    # two-digit-year dates; neither appears in files from FIDE-endorsed programs.
    short = any(read_date(text).status == "ambiguous" for text in header.date_texts)
    if bare_dash or short:
        return "KRAUSE"
    return "TRF-06"


# --------------------------------------------------------------------------- entry point


# a letter as UTF-8 writes it (a lead byte and its continuation bytes): in a file that is not
# UTF-8 as a whole, the sign of a second encoding
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}")


def _first_accented_name(raw: bytes) -> tuple[int, str]:
    """The line and the name (code page 850) of the first player whose name is not ASCII."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        name = line[_NAME_BYTES]
        if line.startswith(b"001") and not name.isascii():
            return number, name.decode("cp850").strip()
    raise ValueError("no player's name is accented")


def _first_non_utf8(raw: bytes) -> tuple[int, int]:
    """The line and value of the first byte that is not UTF-8 (in a file known not to be)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return raw.count(b"\n", 0, error.start) + 1, raw[error.start]
    raise ValueError("the bytes are UTF-8")


def _decoded(raw: bytes) -> tuple[str, str, _Found | None]:
    """The file's text (empty when it is no text), its encoding, and what its bytes say
    about it."""
    text, encoding = decode_trf(raw)
    if not raw.strip():
        return "", encoding, _problem(None, "file", None, "the file is empty", ERROR)
    if b"\x00" in raw:
        # Latin-1 decodes anything, so NUL bytes are the sign of a binary or UTF-16 file.
        return (
            "",
            encoding,
            _problem(
                None,
                "file",
                None,
                "the file contains NUL bytes: it is a binary or UTF-16 file, not TRF text",
                ERROR,
            ),
        )
    if encoding in ("latin-1", "cp1252") and _UTF8_SEQUENCE.search(raw):
        # valid UTF-8 letters beside bytes that are not: a file edited in two encodings. Read as
        # Latin-1, each UTF-8 letter is two characters, shifting the columns after it
        line, byte = _first_non_utf8(raw)
        return (
            text,
            encoding,
            _problem(
                line,
                "encoding",
                f"0x{byte:02X}",
                "the file mixes UTF-8 with another encoding (this byte is not UTF-8): read as "
                f"{encoding_name(encoding)}, a name with an accented letter is two characters "
                "longer and the columns after it shift; save the whole file as UTF-8",
                WARNING,
            ),
        )
    if encoding == "cp850":
        line, name = _first_accented_name(raw)
        return (
            text,
            encoding,
            _problem(
                line,
                "encoding",
                name,
                "the file is in the DOS code page 850 (its players' names are letters only in "
                "it; Windows-1252 would read Niccolò as Niccol•): read so; check the names, "
                "and save the file as UTF-8",
                WARNING,
            ),
        )
    if encoding == "latin-1" and any("\x80" <= ch <= "\x9f" for ch in text):
        return (
            text,
            encoding,
            _problem(
                None,
                "encoding",
                None,
                "the file is neither UTF-8 nor Latin-1 nor Windows-1252 (it holds bytes "
                "between 0x80 and 0x9F that none of them gives a letter): some letters in "
                "names may be wrong",
                WARNING,
            ),
        )
    return text, encoding, None


def _lines(texts: list[str]) -> pl.DataFrame:
    """Every line of every file of the batch: its file, text, number (1-based) and record id
    (its first three characters)."""
    split = [text.split("\n") if text else [] for text in texts]
    counts = pl.DataFrame(
        {FILE: range(len(split)), "_lines": [len(lines) for lines in split]},
        schema={FILE: pl.Int32, "_lines": pl.Int64},
    )
    owners = (
        counts.filter(pl.col("_lines") > 0)
        .select(pl.col(FILE).repeat_by("_lines"))
        .explode(FILE)
        .get_column(FILE)
    )
    return pl.DataFrame(
        {FILE: owners, "text": pl.Series(list(chain.from_iterable(split)), dtype=pl.String)}
    ).with_columns(
        line_no=pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over(FILE),
        rid=pl.col("text").str.slice(0, 3),
    )


def parse_trf(raw: bytes) -> ParsedTrf:
    """Parse one TRF file. Never raises on bad data: see ``problems``."""
    return parse_trf_files([raw])[0]


def parse_trf_files(raws: Sequence[bytes]) -> list[ParsedTrf]:
    """Parse many TRF files at once; each file's frames are those :func:`parse_trf` gives
    for it alone. Every check runs once over the lines of all the files (a file's rows keep
    its place in the batch until they are split off), so a delivery of a thousand ordinary
    files costs about as much as a few of them parsed one by one."""
    files = len(raws)
    if files == 0:
        return []
    problems = _Problems()
    decoded = [_decoded(raw) for raw in raws]  # one iteration per file
    problems.found((file, found) for file, (_, _, found) in enumerate(decoded) if found)
    texts = [text for text, _, _ in decoded]
    lines = _lines(texts)

    headers, round_lines = _read_headers(lines, files)
    problems.found(
        (file, found) for file, header in enumerate(headers) for found in header.problems
    )
    periods = [
        _dates(header, _round_dates(line))
        for header, line in zip(headers, round_lines, strict=True)
    ]
    problems.found(
        (file, found) for file, (_, _, found_list) in enumerate(periods) for found in found_list
    )

    p001 = lines.filter(pl.col("rid") == "001")
    problems.flagged(
        _flag(
            lines,
            (pl.col("rid") != "001") & pl.col("text").str.contains(r"^\s+001\s"),
            "player line",
            pl.col("text"),
            pl.lit("player line starts with spaces, so its columns cannot be read; ignored"),
            ERROR,
        )
    )
    player_lines = _per_file(p001, pl.len(), files, 0)
    problems.found(
        (file, _problem(None, "file", None, "no player lines (001 records) found", ERROR))
        for file in range(files)
        if player_lines[file] == 0 and texts[file]
    )

    players, player_problems = _players(p001)
    for found in player_problems:
        problems.flagged(found)

    usable = p001.join(
        players.select(FILE, "line_no", "start_number"),
        on=[FILE, "line_no"],
        how="inner",
        maintain_order="left",
    )
    games, game_problems, bare_dashes = _games(usable, _observed_rounds(p001, files), files)
    for found in game_problems:
        problems.flagged(found)

    # the rounds are those the player lines pair: a header's count says what was planned (a
    # typo, or a file cut short, would otherwise add rounds nobody played, and carry a small
    # tournament past a minimum number of rounds), and so do byes entered ahead
    rounds = _paired_rounds(games, files)
    problems.found(_round_count_problems(games, rounds, headers))
    games = games.filter(pl.col("round") <= _each(rounds))
    players, games, stand_ins = _without_bye_stand_ins(players, games)
    problems.flagged(stand_ins)
    for found in _pairing_problems(games, players):
        problems.flagged(found)
    bye_codes = _per_file(games, pl.col("result_code").is_in(_BYE_CODES).any(), files, False)
    problems.found(
        _truncation_problems(lines, p001, players, games, rounds, bare_dashes, bye_codes),
        explains_others=True,
    )
    players, blank_points = _with_blank_points(players, games, p001)
    problems.flagged(blank_points)
    problems.flagged(_points_problems(games, players))

    national, national_problems = _national(lines, players)
    for found in national_problems:
        problems.flagged(found)
    national_lines = _per_file(national, pl.len(), files, 0)

    declared: list[int | None] = [None] * files
    declared_problems: list[tuple[int, _Found]] = []
    # a loop over the files of the batch
    for file, header in enumerate(headers):
        if "062" not in header.values:
            continue
        line_no, value = header.values["062"]
        reason = None
        if _is_count(value):
            declared[file] = int(value)
            if declared[file] != player_lines[file]:
                reason = (
                    f"the header declares {declared[file]} players but the file "
                    f"has {player_lines[file]} player lines"
                )
        elif value:
            reason = f"number of players '{value}' is not a count of players; ignored"
        if reason is not None:
            declared_problems.append(
                (file, _problem(line_no, "number of players", value, reason, WARNING))
            )
    problems.found(declared_problems)

    records = lines.group_by(FILE).agg(
        pl.col("rid").is_in(_TEAM_IDS).any().alias("team"),
        pl.col("rid").is_in(_TRF26_IDS).any().alias("trf26"),
        pl.col("rid").str.starts_with("XX").any().alias("extensions"),
    )
    has = {name: [False] * files for name in ("team", "trf26", "extensions")}
    for file, team, trf26, extensions in records.iter_rows():
        has["team"][file], has["trf26"][file], has["extensions"][file] = team, trf26, extensions
    formats = [
        _detect_format(
            header,
            has["trf26"][file],
            national_lines[file] > 0,
            bye_codes[file],
            has["extensions"][file],
            bare_dashes[file] > 0,
        )
        if player_lines[file] > 0 or header.values
        else None
        for file, header in enumerate(headers)
    ]
    players, id_problems = _without_national_ids(players, [f == "KRAUSE" for f in formats])
    problems.found(id_problems)

    tournaments = pl.DataFrame(
        [
            {
                "name": _header_text(header, "012"),
                "city": _header_text(header, "022"),
                "federation": _header_text(header, "032"),
                "start_date": start,
                "end_date": end,
                "rounds": rounds[file],
                "declared_players": declared[file],
                "time_control": _header_text(header, "122"),
                "time_control_line": _header_line(header, "122"),
                "encoded_time_control": _header_text(header, "222"),
                "encoded_time_control_line": _header_line(header, "222"),
                "chief_arbiter": _header_text(header, "102"),
                "tournament_type": _header_text(header, "092"),
                "format": formats[file],
                "encoding": decoded[file][1],
                "is_team": has["team"][file],
            }
            for file, (header, (start, end, _)) in enumerate(zip(headers, periods, strict=True))
        ],
        schema=TOURNAMENT_SCHEMA,
    )
    return [
        ParsedTrf(
            tournament=tournaments.slice(file, 1),
            players=file_players,
            games=file_games,
            national=file_national,
            problems=file_problems,
        )
        for file, (file_players, file_games, file_national, file_problems) in enumerate(
            zip(
                _split(players, files, PLAYERS_SCHEMA),
                _split(games, files, GAMES_SCHEMA),
                _split(national, files, NATIONAL_SCHEMA),
                problems.by_file(files),
                strict=True,
            )
        )
    ]
