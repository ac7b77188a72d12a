"""Fuzzing the input readers: mutated files, and the pure reading steps they are fed to.

Shared by the short run of ``make test`` (tests/transforms/inputs/test_fuzz.py) and the long
one (``make fuzz``, bench/fuzz.py), so both exercise the same mutations and the same readers.

The seeds are the real TRF files written by other programs (shared/data/trf, when present)
and a small demo federation generated into a folder (its registry, published list, monthly
deliveries, and the draughts deliveries and FID registry). Each case takes one seed and
applies one to four mutations: bytes flipped, inserted or deleted; lines duplicated, deleted,
swapped or cut short; a fixed-width TRF field or a CSV cell replaced by an odd value (empty,
huge, negative, non-ASCII, a separator, a quote); a column dropped, swapped or repeated; the
whole file turned to CRLF, given a BOM or re-encoded.

Each reader is the chain of pure steps a flow runs on one file, without Prefect and without
the warehouse (what the warehouse would give, the registry in force, say, is built once from
the demo's clean files). The property: every file ends in frames or in problem rows (file,
line, field, value, reason), never in an exception escaping the reader.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pandera.polars as pa
import polars as pl
from hypothesis import strategies as st

from flows.csv_checks import checked_csv as flows_checked_csv
from flows.csv_checks import refusal as flows_refusal
from flows.csv_checks import repeats_read_once
from flows.inputs import (
    MANIFEST_REQUIRED,
    CsvInput,
    Delivery,
    InputFile,
    csv_text,
    manifest_rows,
)
from schemas.draughts import DraughtsGameRow, DraughtsTournamentRow, FidPlayer
from schemas.inputs import Membership, PublishedListRow, RegistryPlayer
from schemas.problems import PROBLEM_SCHEMA, empty_problems, problem, problems_frame
from synthetic.chess import generate_federation
from synthetic.demo_files import write_draughts_federation, write_federation
from transforms.elo.intake import build_intake, validate_parsed
from transforms.elo.lists import imported_list_warnings
from transforms.elo.rapid_letters import label_problems, normalise_labels
from transforms.elo.rulebook import Rulebook, parse_rulebook
from transforms.inputs.draughts_csv import (
    DRAUGHTS_GAME_FIELDS,
    DRAUGHTS_TOURNAMENT_FIELDS,
    both_sides,
    draughts_entries,
    game_problems,
    type_draughts_games,
    type_draughts_tournaments,
    type_fid_players,
)
from transforms.inputs.manifest import type_manifest
from transforms.inputs.registry import (
    identity_changes,
    implausible_births,
    membership_orphans,
    prepare_memberships,
    prepare_registry_players,
    rejected_rows,
    rows_kept_from_before,
    type_published_list,
)
from transforms.inputs.trf import parse_trf
from transforms.lists.eras import default_rulebook_path
from transforms.rubele.rulebook import parse_rubele_rulebook

Draw = Callable[[st.SearchStrategy[Any]], Any]

# the readers, each a chain of pure steps over one file's bytes
TRF = "trf"
MANIFEST = "manifest"
REGISTRY_PLAYERS = "registry_players"
MEMBERSHIPS = "memberships"
PUBLISHED_LIST = "published_list"
DRAUGHTS_TOURNAMENTS = "draughts_tournaments"
DRAUGHTS_GAMES = "draughts_games"
FID_PLAYERS = "fid_players"
READERS: tuple[str, ...] = (
    TRF,
    MANIFEST,
    REGISTRY_PLAYERS,
    MEMBERSHIPS,
    PUBLISHED_LIST,
    DRAUGHTS_TOURNAMENTS,
    DRAUGHTS_GAMES,
    FID_PLAYERS,
)

# the demo federation the seeds come from: small, so a case is parsed in tens of milliseconds
DEMO_SEED = 7
DEMO_SEASON = 2019
DEMO_PLAYERS = 60
# a CSV seed keeps its first lines (header included): mutations of a long file find no more
CSV_SEED_LINES = 30
# the snapshot dates the registry readers check births against (the demo's second snapshots)
FSI_AS_OF = date(DEMO_SEASON, 7, 1)
# the receipt date of a real TRF file (they carry no manifest): after every date they hold
REAL_FILE_RECEIVED = date(2025, 12, 31)


@dataclass(frozen=True)
class Seed:
    """One file a case starts from."""

    name: str
    content: bytes


@dataclass(frozen=True)
class FuzzCase:
    """A mutated file: the seed it came from, the mutations applied, the bytes fed."""

    reader: str
    seed: str
    steps: tuple[str, ...]
    content: bytes


@dataclass(frozen=True)
class Read:
    """What a reader made of a file: the frames it kept and every problem row."""

    frames: dict[str, pl.DataFrame]
    problems: pl.DataFrame

    @property
    def rejected(self) -> bool:
        return self.problems.filter(pl.col("severity") == "error").height > 0


@dataclass(frozen=True)
class FuzzContext:
    """The seeds of every reader, and what the warehouse would give the readers (the
    registry in force, the FID players, the rulebooks), built from the demo's clean files."""

    seeds: dict[str, tuple[Seed, ...]]
    trf_rows: dict[str, dict[str, object]]  # TRF seed name -> its manifest row, typed
    registry_identity: pl.DataFrame  # FSI players (player_id, name, sex, birth, country, fide)
    registry_in_force: pl.DataFrame  # the FSI snapshot before the fuzzed one, with as_of
    fsi_members: pl.DataFrame  # memberships of the players seed's players (line_no, id, year)
    fid_players: pl.DataFrame  # the FID players in force (player_id, name, ...)
    fid_in_force: pl.DataFrame  # the FID snapshot before the fuzzed one, with as_of
    fid_as_of: date
    # a games seed's tournament: (tournament_id, points_scale) as its tournaments.csv says
    games_of: dict[str, tuple[str, str]] = field(default_factory=dict)
    rulebooks: dict[str, Rulebook] = field(default_factory=dict)


class MalformedProblems(AssertionError):
    """A reader gave problem rows a rating officer could not act on (no reason, an unknown
    severity, a missing column): as much a failure of the property as an exception."""


# ---------------------------------------------------------------------------------------------
# seeds


def _head(content: bytes, lines: int) -> bytes:
    """The first ``lines`` lines of a CSV (header included), with their line ends."""
    return b"".join(content.splitlines(keepends=True)[:lines])


def _csv_rows(content: bytes) -> pl.DataFrame:
    """A clean seed CSV read as text, as the flows read it."""
    read = csv_text(InputFile(Path("seed.csv"), content))
    assert read.problems.height == 0, read.problems
    return read.rows


def _with_letters(published: bytes) -> bytes:
    """A published Elo Italia list as an Elo Rapid one: its categories turned into letters
    written as a federation may type them (definitive, provisional, in either case)."""
    rows = pl.read_csv(io.BytesIO(published), infer_schema=False)
    letters = pl.Series(["D", "Ex", "c", "bX"] * rows.height)[: rows.height]
    return rows.with_columns(letters.alias("category")).write_csv().encode()


def build_context(work_dir: Path, trf_dir: Path | None) -> FuzzContext:
    """Generate the demo federation under ``work_dir`` and gather the seeds (the real TRF
    files of ``trf_dir`` too, when it is a folder)."""
    federation = generate_federation(
        DEMO_SEED, season=DEMO_SEASON, n_players=DEMO_PLAYERS, tournaments_per_quarter=(3, 3)
    )
    chess = write_federation(federation, work_dir / "chess")
    draughts = write_draughts_federation(work_dir / "draughts", seed=DEMO_SEED)

    trf_seeds: list[Seed] = []
    trf_rows: dict[str, dict[str, object]] = {}
    manifests: list[Seed] = []
    for folder in chess.deliveries:
        content = (folder / "manifest.csv").read_bytes()
        manifests.append(Seed(f"{folder.name}/manifest.csv", content))
        typed, _ = type_manifest(_csv_rows(content))
        for row in typed.iter_rows(named=True):
            name = f"{folder.name}/{row['file']}"
            trf_seeds.append(Seed(name, (folder / str(row["file"])).read_bytes()))
            trf_rows[name] = row
    if trf_dir is not None and trf_dir.is_dir():
        for path in sorted(trf_dir.iterdir()):
            if path.is_file():
                trf_seeds.append(Seed(path.name, path.read_bytes()))
                trf_rows[path.name] = {
                    "line_no": 2,
                    "tournament_id": "REAL-1",
                    "file": path.name,
                    "system": "elo_italia",
                    "received_on": REAL_FILE_RECEIVED,
                    "start_date": None,
                    "end_date": None,
                    "time_control": None,
                    "arbiter_ratings": None,
                }

    january, july = chess.snapshots
    players = (july / "players.csv").read_bytes()
    memberships = (july / "memberships.csv").read_bytes()
    typed_players, _ = prepare_registry_players(_csv_rows(players))
    before, _ = prepare_registry_players(_csv_rows((january / "players.csv").read_bytes()))
    members, _ = prepare_memberships(_csv_rows(memberships))
    players_seed = _head(players, CSV_SEED_LINES)
    seeded = _csv_rows(players_seed).get_column("player_id").implode()
    members = members.filter(pl.col("player_id").is_in(seeded))
    opening = _head(chess.opening_list.read_bytes(), CSV_SEED_LINES)

    fid_snapshots = sorted(draughts.snapshots)
    (first_day, first), (fid_as_of, latest) = fid_snapshots[0], fid_snapshots[-1]
    fid_players_csv = (latest / "players.csv").read_bytes()
    fid_players, _ = type_fid_players(_csv_rows(fid_players_csv), shipped_own_countries())
    fid_before, _ = type_fid_players(
        _csv_rows((first / "players.csv").read_bytes()), shipped_own_countries()
    )

    listings = sorted(draughts.inbox.glob("*/tournaments.csv"))
    games_of = {
        f"{listing.parent.name}/{row['file']}": (
            str(row["tournament_id"]),
            str(row["points_scale"]),
        )
        for listing in listings
        for row in _csv_rows(listing.read_bytes()).iter_rows(named=True)
    }
    seeds = {
        TRF: tuple(trf_seeds),
        MANIFEST: tuple(manifests),
        REGISTRY_PLAYERS: (Seed("registry/players.csv", players_seed),),
        MEMBERSHIPS: (
            Seed("registry/memberships.csv", _head(memberships, CSV_SEED_LINES)),
            Seed(
                "fid-registry/memberships.csv",
                _head((latest / "memberships.csv").read_bytes(), CSV_SEED_LINES),
            ),
        ),
        PUBLISHED_LIST: (
            Seed(f"elo_italia/{chess.opening_list.name}", opening),
            Seed(f"elo_rapid/{chess.opening_list.name}", _with_letters(opening)),
        ),
        DRAUGHTS_TOURNAMENTS: tuple(
            Seed(f"{path.parent.name}/{path.name}", path.read_bytes()) for path in listings[:6]
        ),
        # three files of each points scale: the results they may hold differ
        DRAUGHTS_GAMES: tuple(
            Seed(name, _head((draughts.inbox / name).read_bytes(), CSV_SEED_LINES))
            for scale in ("fid", "one")
            for name in [name for name, (_, of) in sorted(games_of.items()) if of == scale][:3]
        ),
        FID_PLAYERS: (Seed("fid-registry/players.csv", _head(fid_players_csv, CSV_SEED_LINES)),),
    }
    return FuzzContext(
        seeds=seeds,
        trf_rows=trf_rows,
        registry_identity=typed_players.select(
            "player_id", "name", "sex", "birth_date", "country", "fide_id"
        ),
        registry_in_force=before.drop("line_no").with_columns(
            pl.lit(FSI_AS_OF.replace(month=1)).alias("as_of")
        ),
        fsi_members=members,
        fid_players=fid_players,
        fid_in_force=fid_before.drop("line_no").with_columns(pl.lit(first_day).alias("as_of")),
        fid_as_of=fid_as_of,
        games_of=games_of,
        rulebooks={
            system: parse_rulebook(default_rulebook_path(system).read_bytes())
            for system in ("elo_italia", "elo_rapid")
        },
    )


# ---------------------------------------------------------------------------------------------
# mutations

# values a federation's file may hold by mistake, or a program write by design
ODD_VALUES: tuple[str, ...] = (
    "",
    " ",
    "0",
    "-1",
    "-0",
    "+1",
    "1.5",
    "1e308",
    "1e999",
    "-1e999",
    "nan",
    "inf",
    "9" * 19,
    "9" * 20,
    "9" * 40,
    "-" + "9" * 20,
    "2147483648",
    "-2147483649",
    "18446744073709551616",
    "0x1F",
    "1_000",
    "١٢٣",  # Arabic-Indic digits: str.isdecimal() says yes, int() reads them
    "１２３",  # fullwidth digits
    "½",
    ",5",
    "0,5",
    "2019-02-30",
    "2019-13-01",
    "0000-00-00",
    "0001-01-01",
    "9999-12-31",
    "-2019-01-01",
    "+2019-01-01",
    "20190101",
    "2019/01/01",
    "01.02.2019",
    "2019-1-1",
    "99999-01-01",
    "1899-12-31",
    "2100-01-01",
    "Niccolò",
    "ß",
    "İ",
    "日本語",
    "😀",
    "\u200b",
    "\u00a0",
    "\ufeff",
    "\u202e",
    "\u2028",
    "\u0085",
    ",",
    ";",
    "\t",
    "\r",
    "\n",
    "\r\n",
    ",,",
    '"',
    '""',
    '"quoted"',
    "'",
    '"a,b"',
    'a"b',
    "\\",
    "\x00",
    "\x1a",
    "\x7f",
    "NULL",
    "None",
    "NA",
    "M",
    "F",
    "w",
    "X",
    "ITA",
    "ita",
    "IT",
    "elo_italia",
    "ELO_RAPID",
    "italiana",
    "fid",
    "one",
    "bye",
    "played",
    "forfeit",
    "withdrawn",
    "x" * 300,
    "A" * 5000,
    "line_no",  # the name the reader numbers rows under
    "Player_ID ",
    "_duplicated_0",
    "*",  # pl.col reads it as every column
    "^.*$",  # and this as a pattern
    "^[$",  # a pattern that does not compile
)

odd_values: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(ODD_VALUES),
    st.sampled_from(ODD_VALUES),  # twice: the list holds the likeliest surprises
    st.text(max_size=12),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)

# bytes that change how a file decodes or splits
ODD_BYTES: tuple[bytes, ...] = (
    b"\x00",
    b"\xff",
    b"\xfe\xff",
    b"\xef\xbb\xbf",
    b"\xc3",
    b"\xc3\xa0",
    b"\x80",
    b"\x9d",
    b"\x85",
    b"\xe2\x80\xa8",
    b"\r",
    b"\n",
    b"\r\n",
    b",",
    b'"',
    b";",
    b"\t",
    b" ",
    b"0",
    b"9",
    b"-",
)

# TRF-16 player line: (field, first column, width), 1-based columns as in the FIDE spec
TRF_PLAYER_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("start number", 5, 4),
    ("sex", 10, 1),
    ("title", 11, 3),
    ("name", 15, 33),
    ("rating", 49, 4),
    ("federation", 54, 3),
    ("fide id", 58, 11),
    ("birth date", 70, 10),
    ("points", 81, 4),
    ("rank", 86, 4),
)
# a round block: opponent, colour, result, from column 92 every 10 columns
TRF_ROUND_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("opponent", 0, 4),
    ("colour", 5, 1),
    ("result", 7, 1),
)
TRF_RECORD_IDS: tuple[str, ...] = (
    "001",
    "012",
    "022",
    "032",
    "042",
    "052",
    "062",
    "092",
    "102",
    "122",
    "132",
    "142",
    "XXR",
    "XXC",
    "013",
    "310",
    "801",
    "ITA",
    "   ",
    " 00",
    "1  ",
)


def _decode(raw: bytes) -> tuple[str, str]:
    """Text and the codec that gives the same bytes back (Latin-1 maps every byte)."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "latin-1"


def _encode(text: str, codec: str) -> bytes:
    try:
        return text.encode(codec)
    except UnicodeEncodeError:
        # a value Latin-1 cannot hold goes in as UTF-8: a file in two encodings
        return text.encode("utf-8", errors="surrogatepass")


def _index(draw: Draw, size: int) -> int:
    return int(draw(st.integers(min_value=0, max_value=max(size - 1, 0))))


def flip_bit(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    if not raw:
        return raw, "flip: empty file"
    at, bit = _index(draw, len(raw)), draw(st.integers(0, 7))
    return raw[:at] + bytes([raw[at] ^ (1 << bit)]) + raw[at + 1 :], f"flip byte {at} bit {bit}"


def insert_bytes(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    at = int(draw(st.integers(0, len(raw))))
    added = draw(st.one_of(st.sampled_from(ODD_BYTES), st.binary(min_size=1, max_size=8)))
    return raw[:at] + added + raw[at:], f"insert {added!r} at byte {at}"


def delete_bytes(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    at, size = _index(draw, len(raw)), draw(st.integers(1, 16))
    return raw[:at] + raw[at + size :], f"delete {size} bytes at {at}"


def _lines(raw: bytes) -> list[bytes]:
    return raw.split(b"\n")


def line_edit(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    """Duplicate, delete, swap or cut short a line; insert a junk line; cut the file."""
    lines = _lines(raw)
    kind = draw(st.sampled_from(["duplicate", "delete", "swap", "truncate", "insert", "cut"]))
    at = _index(draw, len(lines))
    match kind:
        case "duplicate":
            lines.insert(at, lines[at])
        case "delete":
            del lines[at]
        case "swap":
            other = _index(draw, len(lines))
            lines[at], lines[other] = lines[other], lines[at]
            return b"\n".join(lines), f"swap lines {at + 1} and {other + 1}"
        case "truncate":
            keep = _index(draw, len(lines[at]) + 1)
            lines[at] = lines[at][:keep]
            return b"\n".join(lines), f"cut line {at + 1} to {keep} bytes"
        case "insert":
            junk = _encode(draw(odd_values), "utf-8")
            lines.insert(at, junk)
            return b"\n".join(lines), f"insert line {junk!r} at {at + 1}"
        case "cut":
            return b"\n".join(lines[:at]), f"cut the file after line {at}"
    return b"\n".join(lines), f"{kind} line {at + 1}"


def whole_file(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    """What a program or an editor does to a whole file."""
    kind = draw(
        st.sampled_from(["crlf", "bom", "cp1252", "utf-16", "no final newline", "empty", "cr"])
    )
    match kind:
        case "crlf":
            return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), kind
        case "cr":
            return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r"), kind
        case "bom":
            return b"\xef\xbb\xbf" + raw, kind
        case "cp1252":
            text, _ = _decode(raw)
            return text.encode("cp1252", errors="replace"), kind
        case "utf-16":
            text, _ = _decode(raw)
            return text.encode("utf-16", errors="surrogatepass"), kind
        case "no final newline":
            return raw.rstrip(b"\r\n"), kind
    return b"", kind


def _fitted(value: str, width: int, fit: bool) -> str:
    """``value`` right-aligned in ``width`` columns (cut to fit), or as it is (a value wider
    or narrower than its field shifts the columns after it)."""
    return value[-width:].rjust(width) if fit else value


def trf_field(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    """Replace a fixed-width field of a TRF line: a player line's field or round block, a
    header's value, or a record id."""
    text, codec = _decode(raw)
    lines = text.split("\n")
    players = [number for number, line in enumerate(lines) if line.startswith("001")]
    prefer_player = bool(players) and draw(st.booleans())
    at = draw(st.sampled_from(players)) if prefer_player else _index(draw, len(lines))
    line = lines[at]
    value, fit = draw(odd_values), draw(st.booleans())
    if draw(st.integers(0, 9)) == 0:
        name, start, width = "record id", 1, 3
        value = draw(st.one_of(st.sampled_from(TRF_RECORD_IDS), odd_values))
    elif line.startswith("001"):
        blocks = max((len(line.rstrip()) - 91 + 9) // 10, 1)
        choices = [*TRF_PLAYER_FIELDS] + [
            (f"round {block + 1} {what}", 92 + 10 * block + offset, width)
            for block in range(blocks + 1)
            for what, offset, width in TRF_ROUND_FIELDS
        ]
        name, start, width = draw(st.sampled_from(choices))
    else:
        name, start, width = "header value", 5, max(len(line) - 4, 1)
    line = line.ljust(start - 1 + width)
    lines[at] = line[: start - 1] + _fitted(value, width, fit) + line[start - 1 + width :]
    shown = "fitted" if fit else "as is"
    return _encode("\n".join(lines), codec), f"line {at + 1} {name} := {value!r} ({shown})"


def trf_record(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    """Insert a record of a known id with an odd value: a header line (a count, a date, a
    name), a national line, a team record."""
    text, codec = _decode(raw)
    lines = text.split("\n")
    at = int(draw(st.integers(0, len(lines))))
    record = f"{draw(st.sampled_from(TRF_RECORD_IDS))} {draw(odd_values)}"
    lines.insert(at, record)
    return _encode("\n".join(lines), codec), f"insert record {record!r} at line {at + 1}"


def _records(text: str) -> list[list[str]] | None:
    try:
        return list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        return None


def _written(records: list[list[str]], raw_row: int | None, newline: str) -> str:
    """Records back to CSV text, quoted where needed but for ``raw_row``, joined by commas as
    they are (a value with a comma or a quote then breaks the row, as a hand edit would)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=newline)
    for number, record in enumerate(records):
        if number == raw_row:
            out.write(",".join(record) + newline)
        else:
            writer.writerow(record)
    return out.getvalue()


def csv_cell(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    """Replace one cell (the header's too) with an odd value, quoted as a CSV writer would or
    written as it is."""
    text, codec = _decode(raw)
    records = _records(text)
    if not records:
        return insert_bytes(draw, raw)
    newline = "\r\n" if "\r\n" in text else "\n"
    row = _index(draw, len(records))
    column = int(draw(st.integers(0, len(records[row]))))
    value, quoted = draw(odd_values), draw(st.booleans())
    record = list(records[row])
    if column == len(record):
        record.append(value)
    else:
        record[column] = value
    records[row] = record
    written = _written(records, None if quoted else row, newline)
    shown = "quoted" if quoted else "as is"
    return _encode(written, codec), f"row {row + 1} cell {column + 1} := {value!r} ({shown})"


def csv_column(draw: Draw, raw: bytes) -> tuple[bytes, str]:
    """Drop, swap or repeat a column in every row; or change the header's case."""
    text, codec = _decode(raw)
    records = _records(text)
    if not records or not records[0]:
        return delete_bytes(draw, raw)
    newline = "\r\n" if "\r\n" in text else "\n"
    kind = draw(st.sampled_from(["drop", "swap", "repeat", "upper header"]))
    column = _index(draw, len(records[0]))
    other = _index(draw, len(records[0]))
    changed = []
    for number, record in enumerate(records):
        record = list(record)
        if kind == "upper header" and number == 0:
            record = [name.upper() for name in record]
        elif column < len(record):
            if kind == "drop":
                del record[column]
            elif kind == "repeat":
                record.insert(column, record[column])
            elif kind == "swap" and other < len(record):
                record[column], record[other] = record[other], record[column]
        changed.append(record)
    return _encode(_written(changed, None, newline), codec), f"{kind} column {column + 1}"


Mutation = Callable[[Draw, bytes], tuple[bytes, str]]
# weights by repetition: the field edits find the most, the byte edits the oddest
BYTE_MUTATIONS: tuple[Mutation, ...] = (flip_bit, insert_bytes, delete_bytes, whole_file)
TRF_MUTATIONS: tuple[Mutation, ...] = (
    *BYTE_MUTATIONS,
    line_edit,
    line_edit,
    trf_record,
    trf_field,
    trf_field,
    trf_field,
    trf_field,
)
CSV_MUTATIONS: tuple[Mutation, ...] = (
    *BYTE_MUTATIONS,
    line_edit,
    line_edit,
    csv_cell,
    csv_cell,
    csv_cell,
    csv_cell,
    csv_column,
)


def mutations_of(reader: str) -> tuple[Mutation, ...]:
    return TRF_MUTATIONS if reader == TRF else CSV_MUTATIONS


@st.composite
def fuzz_cases(draw: Draw, reader: str, seeds: Sequence[Seed]) -> FuzzCase:
    """A seed of ``reader`` with one to four mutations applied."""
    seed = draw(st.sampled_from(seeds))
    content, steps = seed.content, []
    for _ in range(draw(st.integers(1, 4))):
        mutation = draw(st.sampled_from(mutations_of(reader)))
        content, step = mutation(draw, content)
        steps.append(step)
    return FuzzCase(reader, seed.name, tuple(steps), content)


# ---------------------------------------------------------------------------------------------
# readers: the pure steps a flow runs on one file (flows/elo/ingest.py, flows/registry.py,
# flows/rubele/ingest.py, flows/publishing/importing.py), without Prefect or the warehouse


def _input(name: str, raw: bytes) -> InputFile:
    return InputFile(path=Path(name), content=raw)


def checked_csv(
    source: CsvInput,
    typer: Callable[[pl.DataFrame], tuple[pl.DataFrame, pl.DataFrame]],
    model: type[pa.DataFrameModel],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """flows.csv_checks.checked_csv, with its problems in the untagged shape of the others
    (the flows name the file on every problem; here they are pooled)."""
    rows, problems = flows_checked_csv(source, typer, model)
    return rows, problems.select(empty_problems().columns)


def refusal(source: CsvInput, model: type[pa.DataFrameModel]) -> pl.DataFrame:
    """flows.csv_checks.refusal, untagged as above."""
    return flows_refusal(source, model).select(empty_problems().columns)


def read_trf(case: FuzzCase, context: FuzzContext) -> Read:
    """A delivery's tournament: parsed, validated and taken in as flows.elo.ingest does."""
    row = context.trf_rows[case.seed]
    tournament_id = str(row["tournament_id"])
    parsed = parse_trf(case.content)
    schema_problems = validate_parsed({tournament_id: parsed})[tournament_id]
    intake = build_intake(
        manifest_row=row,
        manifest_name="manifest.csv",
        manifest_sha256="0" * 64,
        parsed=parsed,
        schema_problems=schema_problems,
        file_sha256=hashlib.sha256(case.content).hexdigest(),
        trf_name=case.seed,
        arbiter_ratings=pl.DataFrame(schema={"start_number": pl.Int32, "arbiter_rating": pl.Int32}),
        registry_identity=context.registry_identity,
        merges=pl.DataFrame(schema={"provisional_id": pl.Utf8, "player_id": pl.Utf8}),
        rulebook=context.rulebooks.get(str(row["system"])),  # its country: national lines
    )
    return Read(
        {"entries": intake.entries, "games": intake.games, "unmatched": intake.unmatched},
        intake.problems,
    )


def read_manifest(case: FuzzCase, context: FuzzContext) -> Read:
    """As flows.elo.ingest reads a delivery's listing: typed rows, arbiter ratings, problems."""
    source = csv_text(_input("manifest.csv", case.content), MANIFEST_REQUIRED, False)
    typed, ratings, problems = manifest_rows(Delivery(Path("delivery"), source, {}))
    if typed.height == 0 and problems.filter(pl.col("severity") == "error").height == 0:
        # as flows.elo.ingest.prepare_delivery: a manifest of no row is said to be one
        problems = pl.concat(
            [problems, problems_frame([problem("the manifest lists no tournament")])]
        )
    return Read({"manifest": typed, "arbiter_ratings": ratings}, problems)


def read_registry_players(case: FuzzCase, context: FuzzContext) -> Read:
    """A registry snapshot's players.csv, as flows.registry.load_snapshot reads it, checked
    against the snapshot in force before it and the clean memberships."""
    source = csv_text(_input("players.csv", case.content))
    refused = refusal(source, RegistryPlayer)
    if refused.height:
        return Read({}, refused)
    players, problems = checked_csv(
        source, repeats_read_once(prepare_registry_players), RegistryPlayer
    )
    players, births = implausible_births(players, FSI_AS_OF)
    if players.height == 0:
        return Read({}, pl.concat([problems, births]))  # refused: nothing usable
    listed = pl.concat(
        [
            source.rows.select("line_no", "player_id"),
            *(
                [source.rejected_keys.select("line_no", "player_id")]
                if "player_id" in source.rejected_keys.columns
                else []
            ),
        ]
    )
    rejected = rejected_rows(players, listed)
    kept, kept_warnings = rows_kept_from_before(
        players, rejected, context.registry_in_force, "players.csv"
    )
    changed = identity_changes(players, context.registry_in_force, rejected)
    players = pl.concat([players, kept])
    members, orphans = membership_orphans(
        context.fsi_members, players.select("player_id"), listed, "players.csv"
    )
    return Read(
        {"players": players, "memberships": members},
        pl.concat([problems, births, kept_warnings, changed, orphans]),
    )


def read_memberships(case: FuzzCase, context: FuzzContext) -> Read:
    """A registry snapshot's memberships.csv, checked against the clean players."""
    source = csv_text(_input("memberships.csv", case.content))
    refused = refusal(source, Membership)
    if refused.height:
        return Read({}, refused)
    members, problems = checked_csv(source, prepare_memberships, Membership)
    if members.height == 0:
        return Read({}, problems)  # refused: nothing usable
    registry = context.fid_players if case.seed.startswith("fid-") else context.registry_identity
    players = registry.with_columns(pl.lit(0, dtype=pl.Int32).alias("line_no"))
    members, orphans = membership_orphans(
        members, players.select("player_id"), players.select("line_no", "player_id"), "players.csv"
    )
    return Read({"memberships": members}, pl.concat([problems, orphans]))


def read_published_list(case: FuzzCase, context: FuzzContext) -> Read:
    """A published list imported for Elo Italia (categories) or Elo Rapid (letters, the
    system its seed's folder names), as flows.publishing.importing and flows.elo.lists
    prepare it."""
    system = case.seed.split("/", 1)[0]
    source = csv_text(_input("list.csv", case.content))
    rows, problems = checked_csv(source, type_published_list, PublishedListRow)
    if problems.filter(pl.col("severity") == "error").height:
        return Read({}, problems)  # a list with a rejected row is refused whole
    list_date = date(DEMO_SEASON, 1, 1)
    era = context.rulebooks[system].era_at(list_date)
    wrong = empty_problems()
    if era.letters is not None and rows.height:
        rows = rows.with_columns(normalise_labels(pl.col("category"), era.letters))
        wrong = label_problems(rows, era.letters).cast(PROBLEM_SCHEMA)  # type: ignore[arg-type]
        rows = rows.filter(~pl.col("line_no").is_in(wrong.get_column("line_no").implode()))
    categories = None if era.letters is not None else era.category_order
    warnings = imported_list_warnings(
        rows, context.registry_identity, system, categories, list_date
    )
    return Read({"list": rows}, pl.concat([problems, wrong, warnings]))


def read_draughts_tournaments(case: FuzzCase, context: FuzzContext) -> Read:
    """A draughts delivery's tournaments.csv, as flows.rubele.ingest reads it."""
    required = [spec.name for spec in DRAUGHTS_TOURNAMENT_FIELDS if spec.required]
    source = csv_text(_input("tournaments.csv", case.content), required, False)
    _, problems = checked_csv(source, type_draughts_tournaments, DraughtsTournamentRow)
    if source.problems.height:
        return Read({}, problems)
    typed, _ = type_draughts_tournaments(source.rows)
    return Read({"tournaments": typed}, problems)


def read_draughts_games(case: FuzzCase, context: FuzzContext) -> Read:
    """A draughts games file, as flows.rubele.ingest reads it: checked on its tournament's
    points scale against the FID players, and turned into both sides' games and the entries
    when it has no error."""
    source = csv_text(
        _input("games.csv", case.content), [spec.name for spec in DRAUGHTS_GAME_FIELDS]
    )
    games, problems = checked_csv(source, type_draughts_games, DraughtsGameRow)
    frames = {"games": games}
    tournament_id, scale = context.games_of[case.seed]
    if games.height:
        extra = game_problems(
            games, tournament_id, scale, context.fid_players.get_column("player_id"), None
        )
        problems = pl.concat([problems, extra])
    if problems.filter(pl.col("severity") == "error").height == 0 and games.height:
        frames["sides"] = both_sides(games, scale)
        frames["entries"] = draughts_entries(frames["sides"], context.fid_players)
    return Read(frames, problems)


def read_fid_players(case: FuzzCase, context: FuzzContext) -> Read:
    """A FID registry snapshot's players.csv, as flows.rubele.registry loads it."""
    source = csv_text(_input("players.csv", case.content))
    refused = refusal(source, FidPlayer)
    if refused.height:
        return Read({}, refused)
    players, problems = checked_csv(
        source,
        repeats_read_once(lambda raw: type_fid_players(raw, shipped_own_countries())),
        FidPlayer,
    )
    players, births = implausible_births(players, context.fid_as_of)
    if players.height == 0:
        return Read({}, pl.concat([problems, births]))  # refused: nothing usable
    listed = source.rows.select("line_no", "player_id")
    rejected = rejected_rows(players, listed)
    kept, kept_warnings = rows_kept_from_before(
        players, rejected, context.fid_in_force, "players.csv"
    )
    changed = identity_changes(players, context.fid_in_force, rejected)
    return Read(
        {"players": pl.concat([players, kept])},
        pl.concat([problems, births, kept_warnings, changed]),
    )


READ: dict[str, Callable[[FuzzCase, FuzzContext], Read]] = {
    TRF: read_trf,
    MANIFEST: read_manifest,
    REGISTRY_PLAYERS: read_registry_players,
    MEMBERSHIPS: read_memberships,
    PUBLISHED_LIST: read_published_list,
    DRAUGHTS_TOURNAMENTS: read_draughts_tournaments,
    DRAUGHTS_GAMES: read_draughts_games,
    FID_PLAYERS: read_fid_players,
}


def check_problems(problems: pl.DataFrame) -> None:
    """Every problem row must say what a rating officer needs: a reason and a severity."""
    missing = [name for name in PROBLEM_SCHEMA if name not in problems.columns]
    if missing:
        raise MalformedProblems(f"problem rows without the columns {missing}")
    blank = problems.filter(pl.col("reason").is_null() | (pl.col("reason").str.strip_chars() == ""))
    if blank.height:
        raise MalformedProblems(f"problem rows without a reason: {blank.head(3).rows()}")
    odd = problems.filter(~pl.col("severity").is_in(["error", "warning"]))
    if odd.height:
        raise MalformedProblems(f"problem rows of unknown severity: {odd.head(3).rows()}")


def outcome(case: FuzzCase, context: FuzzContext) -> str:
    """``frames`` (no error row: the file is taken, warnings aside) or ``problems`` (rejected
    in part or whole); an exception escaping the reader is the failure the fuzz looks for."""
    read = READ[case.reader](case, context)
    check_problems(read.problems)
    return "problems" if read.rejected else "frames"


@functools.cache
def shipped_own_countries() -> dict[str, str]:
    """Each draughts variant's own country, from its shipped rulebook (federation.country)."""
    books = [
        parse_rubele_rulebook(default_rulebook_path(system).read_bytes())
        for system in ("rubele_italiana", "rubele_internazionale")
    ]
    return {book.variant: book.country for book in books}
