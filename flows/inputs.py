"""Reading input files from disk: bytes, checksums, and CSVs as text with line numbers."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import polars as pl

from schemas.inputs import ManifestRow
from schemas.problems import empty_problems, problem, problems_frame
from schemas.validation import validate
from transforms.inputs.draughts_csv import TOURNAMENTS_FILE
from transforms.inputs.manifest import MANIFEST_FIELDS, parse_arbiter_ratings, type_manifest
from transforms.inputs.tabular import csv_line_fault, refused_file

MANIFEST_NAME = "manifest.csv"
# the files that list a delivery's files: a chess manifest, a draughts tournaments file
LISTING_NAMES = (MANIFEST_NAME, TOURNAMENTS_FILE)
MANIFEST_REQUIRED = [spec.name for spec in MANIFEST_FIELDS if spec.required]


def sha256_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


@dataclass(frozen=True)
class InputFile:
    """A file as read from disk, with its checksum (the key of the raw archive)."""

    path: Path
    content: bytes
    # how rejections name the file, when its own name does not tell it apart (the files of
    # a delivery, named from the inbox: every delivery has a manifest.csv)
    shown_as: str | None = None

    @cached_property
    def sha256(self) -> str:
        # computed once: an ingest asks a file's checksum several times (version key, twin
        # files, archive, records)
        return sha256_of(self.content)

    @property
    def name(self) -> str:
        return self.shown_as or self.path.name


@dataclass(frozen=True)
class CsvInput:
    """A CSV read as text, every column a string, rows numbered as in an editor."""

    file: InputFile
    rows: pl.DataFrame
    problems: pl.DataFrame  # file-level problems (unreadable, not a CSV); rows is empty then
    # lines left out before typing, each an error with its line (more values than the header
    # names: an unquoted comma); the other rows are read
    rejected_lines: pl.DataFrame = field(default_factory=empty_problems)
    # the value of each such line under the header's first column (line_no and that column),
    # which an unquoted comma further on leaves right: the player a registry line is about
    rejected_keys: pl.DataFrame = field(default_factory=pl.DataFrame)


def read_input_file(path: Path, shown_as: str | None = None) -> InputFile:
    return InputFile(path=path, content=path.read_bytes(), shown_as=shown_as)


# what reading a delivered file can raise: no permission, a folder where a file should be, a
# name with a NUL byte or too long for the file system, a loop of symbolic links
CANNOT_READ = (OSError, ValueError, RuntimeError)


def cannot_read(error: BaseException) -> str:
    """Why a file cannot be read, plainly (the error's own words, without its errno), as the
    end of a sentence naming the file."""
    words = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return f"cannot be read ({words})"


def delivery_file_name(folder: Path, name: str, inbox: Path | None) -> str | None:
    """A delivery's file named from the inbox folder (``inbox/2024-03/manifest.csv``), so a
    rejection says which delivery it is in; None without an inbox (the file's own name)."""
    if inbox is None:
        return None
    return _named_from(inbox.resolve().parent, folder.resolve(), name)


def _named_from(root: Path, where: Path, name: str) -> str:
    """``name`` in the resolved folder ``where``, named from the resolved folder ``root``."""
    shown = where.relative_to(root) if where.is_relative_to(root) else where
    return (shown / name).as_posix()


def delivery_name(folder: Path) -> str:
    """A delivery's name as the warehouse records it: its folder's own name, the same whether
    the inbox holding it or the folder itself is read."""
    return folder.resolve().name


def read_csv_text(
    path: Path,
    required: Sequence[str] = (),
    shown_as: str | None = None,
    ragged_lines_alone: bool = True,
) -> CsvInput:
    """Read a CSV with every value as text, so the typing step can report what it saw; a file
    that cannot be read is refused with the reason (see :func:`csv_text` for
    ``ragged_lines_alone``)."""
    try:
        file = read_input_file(path, shown_as)
    except CANNOT_READ as error:
        unread = InputFile(path=path, content=b"", shown_as=shown_as)
        return CsvInput(
            unread, pl.DataFrame(), problems_frame([problem(f"it {cannot_read(error)}")])
        )
    return csv_text(file, required, ragged_lines_alone)


def csv_text(
    file: InputFile, required: Sequence[str] = (), ragged_lines_alone: bool = True
) -> CsvInput:
    """A CSV file already read, every value as text (see :func:`read_csv_text`).

    A file whose header lacks a ``required`` column (typically one separated by ';', as a
    spreadsheet in an Italian locale saves it) is refused whole, with one problem saying so:
    read anyway, each of its rows would be rejected for every empty required column.

    A line with more values than the header names is rejected on its own and the others are
    read (``rejected_lines``); without ``ragged_lines_alone`` (a delivery's listing, whose
    lines each stand for a tournament that must not vanish) the file is refused, naming it.
    So is a file whose such line opens a quote it never closes: where it ends is unknown."""
    refused = refused_file(file.content, required) if required else empty_problems()
    if refused.height:
        return CsvInput(file, pl.DataFrame(), refused)
    try:
        text = file.content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        reason = f"the file is not UTF-8 text (byte {error.start}); save it as UTF-8 CSV"
        return CsvInput(file, pl.DataFrame(), problems_frame([problem(reason)]))
    try:
        return CsvInput(file, _numbered_rows(text), empty_problems())
    except (pl.exceptions.ComputeError, pl.exceptions.NoDataError) as error:
        unreadable = f"the file is not a readable CSV: {str(error).splitlines()[0]}"
    except _UnsplitLine as unsplit:
        return _refused_at(file, text, unsplit)
    try:
        header, ragged = _ragged_records(text)
    except _UnsplitLine as unsplit:
        return _refused_at(file, text, unsplit)
    if header and not ragged:
        # every line splits, none too long: the csv module reads what Polars' reader did not
        records = [(first, values) for first, _, values in _csv_records(text) if values]
        return CsvInput(file, _rows_of_records(header, records[1:]), empty_problems())
    if not header:
        return CsvInput(file, pl.DataFrame(), problems_frame([problem(unreadable)]))
    # a line of commas only (a spreadsheet's leftover row, wider than the header) holds
    # nothing: left out like a blank line, not rejected
    blank = {
        first for first, last, values in ragged if first == last and not "".join(values).strip()
    }
    ragged = [record for record in ragged if record[0] not in blank]
    rejected = problems_frame(
        [
            problem(
                f"the line has {len(values)} values and the header names {len(header)} "
                "columns: a value holding a comma must be written in double quotes",
                line_no=first,
            )
            for first, _, values in ragged
        ]
    )
    # a quote opened and never closed runs to the end of the file: where that line was meant
    # to end, and which lines after it are rows, is unknown
    end = text.count("\n") + (0 if text.endswith("\n") else 1)
    unclosed = [first for first, last, _ in ragged if first != last and last >= end]
    if unclosed:
        reason = (
            "the line opens a quoted value that is never closed (it runs to the end of the "
            "file): close the quotes, or write the value without them"
        )
        return CsvInput(
            file, pl.DataFrame(), problems_frame([problem(reason, line_no=unclosed[0])])
        )
    if ragged and not ragged_lines_alone:
        return CsvInput(file, pl.DataFrame(), rejected)
    # one line with a comma too many (a name written Surname, Given without quotes) is no
    # reason to set the others aside: it is rejected, and the rest is read without it
    # named as the rows name it (a first column named line_no would overwrite the line numbers)
    key = _column_names(header[:1])[header[0]]
    keys = pl.DataFrame(
        {
            "line_no": [first for first, _, _ in ragged],
            key: [values[0].strip() or None for _, _, values in ragged],
        },
        schema={"line_no": pl.Int32, key: pl.String},
    )
    left_out = blank | {line for first, last, _ in ragged for line in range(first, last + 1)}
    lines = text.split("\n")
    kept = [number for number in range(1, len(lines) + 1) if number not in left_out]
    try:
        rows = _numbered_rows("\n".join(lines[number - 1] for number in kept))
    except (pl.exceptions.ComputeError, pl.exceptions.NoDataError):
        return CsvInput(file, pl.DataFrame(), problems_frame([problem(unreadable)]))
    except _UnsplitLine as unsplit:
        # numbered in the text read, without the lines left out: named as delivered
        line = kept[min(unsplit.line_no, len(kept)) - 1]
        return _refused_at(file, text, _UnsplitLine(line, unsplit.error))
    # each row numbered by its line in the file as delivered, not in the text read
    rows = rows.with_columns(
        pl.col("line_no").replace_strict(
            pl.int_range(1, len(kept) + 1, dtype=pl.Int32, eager=True),
            pl.Series(kept, dtype=pl.Int32),
        )
    )
    return CsvInput(file, rows, empty_problems(), rejected, keys)


def _numbered_rows(text: str) -> pl.DataFrame:
    """The rows of a CSV text, every value a string, numbered by the line each starts on."""
    raw = pl.read_csv(io.StringIO(text), infer_schema=False)
    line_no = pl.int_range(2, raw.height + 2, dtype=pl.Int32, eager=True)
    physical_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if raw.height + 1 < physical_lines:
        # a quoted value spans lines (a name with a line break): number each row by the line
        # it starts on, as an editor shows it, not by its place among the rows
        line_no = pl.Series(_record_start_lines(text)[1 : raw.height + 1], dtype=pl.Int32)
    return _kept_rows(raw, line_no)


def _rows_of_records(header: list[str], records: list[tuple[int, list[str]]]) -> pl.DataFrame:
    """The rows of a CSV as the csv module split them ((first line, values) of each record
    after the header, none with more values than the header names; a shorter one is null
    where it stops), as :func:`_numbered_rows` gives them. For a file Polars' reader refuses
    though every line splits: a quote inside a value written without quotes (``90'+30"``,
    as a TRF writes a time control), which the csv module reads as a character of it."""
    seen: dict[str, int] = {}
    columns = {}
    for index, name in enumerate(header):
        repeats = seen.get(name, 0)
        seen[name] = repeats + 1
        # a name written again, named as Polars' reader names it
        named = name if repeats == 0 else f"{name}_duplicated_{repeats - 1}"
        columns[named] = pl.Series(
            [values[index] if index < len(values) else None for _, values in records],
            dtype=pl.String,
        )
    line_no = pl.Series([first for first, _ in records], dtype=pl.Int32)
    return _kept_rows(pl.DataFrame(columns), line_no)


def _kept_rows(raw: pl.DataFrame, line_no: pl.Series) -> pl.DataFrame:
    """The rows of a CSV under the names the typing steps read, numbered by ``line_no`` (the
    first column), without the nameless columns nothing is written under and the lines with
    no value."""
    unnamed = [
        name
        for name in raw.columns
        if (not name.strip() or name.startswith("_duplicated_"))
        and raw.get_column(name).str.strip_chars().replace("", None).null_count() == raw.height
    ]
    raw = raw.drop(unnamed)
    raw = raw.rename(_column_names(raw.columns))
    # a line with no value in any cell (a blank line, or the ",,,," a spreadsheet leaves after
    # the last row) holds nothing to check or keep: it would only be rejected as incomplete
    # (the file's columns taken as all but the line numbers, not by their names: pl.col reads
    # a column named "*" as every column, one named "^...$" as a pattern)
    filled = pl.any_horizontal(
        pl.all().exclude("line_no").str.strip_chars().ne("").fill_null(False)
    )
    # one chunk per column: the reader's columns come in several chunks and the line numbers in
    # one, and Polars 2.1 panics on such a frame in a window, filter and format
    # (tests/flows/test_inputs.py shows the case)
    rows = raw.insert_column(0, line_no.alias("line_no"))
    return rows.filter(filled).rechunk()


class _UnsplitLine(Exception):
    """A line the csv module cannot split into values (:func:`csv_line_fault` says why): where
    its record ends, and so which line each row after it is on, is unknown."""

    def __init__(self, line_no: int, error: csv.Error) -> None:
        super().__init__(str(error))
        self.line_no = line_no
        self.error = error


def _refused_at(file: InputFile, text: str, unsplit: _UnsplitLine) -> CsvInput:
    """The file refused, naming the line that cannot be split (a carriage return that ends
    no line, say): its rows could not be numbered as an editor shows them, nor its ragged
    lines told apart, and a snapshot or a delivery read in part would lose rows silently."""
    lines = text.split("\n")
    value = lines[unsplit.line_no - 1] if 0 < unsplit.line_no <= len(lines) else None
    reason = f"the line {csv_line_fault(unsplit.error)}"
    return CsvInput(
        file,
        pl.DataFrame(),
        problems_frame([problem(reason, value=value, line_no=unsplit.line_no)]),
    )


def _csv_records(text: str) -> Iterator[tuple[int, int, list[str]]]:
    """Each CSV record of ``text``: (first line, last line, values); raises
    :class:`_UnsplitLine` at a line the csv module cannot split (Polars reads a carriage
    return inside a value as a letter, the csv module as the end of a line it must not end)."""
    reader = csv.reader(io.StringIO(text))
    first = 1
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            # a value too long runs from the line its record starts on (a quote never closed
            # takes in the lines after it); a stray carriage return is where the reader stopped
            too_long = "field larger than field limit" in str(error)
            raise _UnsplitLine(first if too_long else reader.line_num, error) from error
        yield first, reader.line_num, record
        first = reader.line_num + 1


def _column_names(columns: Sequence[str]) -> dict[str, str]:
    """The header's names as the typing steps read them (trimmed, lower case), each once.

    A name the header repeats in another case or with blanks (``Name,name``), or the
    ``line_no`` the reader numbers the rows under, is named as Polars names a repeat written
    to the letter (``name_duplicated_0``): two columns of one name would make no frame, and the
    typing step reports the repeat and ignores its values (:func:`type_columns`)."""
    taken = {"line_no"}
    names = {}
    for column in columns:
        plain = name = column.strip().lower()
        repeat = 0
        while name in taken:
            name = f"{plain}_duplicated_{repeat}"
            repeat += 1
        taken.add(name)
        names[column] = name
    return names


def _record_start_lines(text: str) -> list[int]:
    """The line each CSV record of ``text`` starts on, the header's first (blank lines before
    it are no records: the reader skips them too)."""
    starts: list[int] = []
    for first, _, record in _csv_records(text):
        if record or starts:
            starts.append(first)
    return starts


def _ragged_records(text: str) -> tuple[list[str], list[tuple[int, int, list[str]]]]:
    """The header (blank lines before it skipped), and the records with more values than it
    names: (first line, last line, values) of each, in order."""
    header: list[str] = []
    found = []
    for first, last, record in _csv_records(text):
        if not header:
            header = record
        elif len(record) > len(header):
            found.append((first, last, record))
    return header, found


@dataclass(frozen=True)
class Delivery:
    """A folder holding ``manifest.csv`` and the tournament files it lists."""

    folder: Path
    manifest: CsvInput
    files: dict[str, InputFile]  # by file name as written in the manifest
    unlisted: tuple[str, ...] = ()  # files in the folder no listing names (not read)
    unreadable: dict[str, str] = field(default_factory=dict)  # listed files: why not read

    @cached_property
    def name(self) -> str:
        return delivery_name(self.folder)


def discover_deliveries(inbox: Path) -> list[Path]:
    """Every folder under the inbox (the inbox itself included) that has a manifest, in
    :func:`delivery_order`."""
    if not inbox.is_dir():
        raise FileNotFoundError(f"inbox {inbox} is not a folder")
    return sorted((path.parent for path in inbox.rglob(MANIFEST_NAME)), key=delivery_order)


def delivery_order(folder: Path) -> tuple[tuple[tuple[int, int | str], ...], str]:
    """The order deliveries are read in, numbers within names compared as numbers: a
    tournament in two deliveries of one run gets its versions in this order, so delivery-10
    comes after delivery-9, as its sender meant (in plain text order it would come first, and
    the older file would stand as the latest version)."""
    path = folder.as_posix()
    parts = tuple(
        (0, int(part)) if part.isdecimal() else (1, part)
        for part in re.split(r"(\d+)", path)
        if part
    )
    return parts, path  # d01 and d1 tie on their numbers: their names settle it


def read_delivery(folder: Path, inbox: Path | None = None) -> Delivery:
    """The delivery in ``folder``; its files are named from ``inbox`` when given."""
    manifest = read_csv_text(
        folder / MANIFEST_NAME,
        MANIFEST_REQUIRED,
        delivery_file_name(folder, MANIFEST_NAME, inbox),
        ragged_lines_alone=False,
    )
    unreadable: dict[str, str] = {}
    return Delivery(
        folder=folder,
        manifest=manifest,
        files=listed_files(folder, manifest, inbox, unreadable),
        unlisted=unlisted_files(folder),
        unreadable=unreadable,
    )


def unlisted_files(folder: Path) -> tuple[str, ...]:
    """The files of a delivery folder that no listing in it names (hidden files aside): they
    are not read, and the analyst is told, since a file left out of its manifest is a
    tournament that would otherwise never be rated. A folder may hold both listings."""
    try:
        listed = {(folder / name).resolve() for name in LISTING_NAMES}
        for name in LISTING_NAMES:
            if (folder / name).is_file():
                listing = read_csv_text(folder / name, ragged_lines_alone=False)
                if listing.problems.height or "file" not in listing.rows.columns:
                    return ()  # an unreadable listing is refused: what it lists is unknown
                files = listing.rows.get_column("file").drop_nulls()
                # as the listing's files are read: "./a.trf" is a.trf
                listed |= {(folder / entry.strip()).resolve() for entry in files}
        return tuple(
            sorted(
                path.name
                for path in folder.iterdir()
                if path.is_file() and not path.name.startswith(".") and path.resolve() not in listed
            )
        )
    except CANNOT_READ:
        return ()  # a listed name the file system refuses: its row is rejected for it


def unlisted_problems(unlisted: Sequence[str], listing: str) -> pl.DataFrame:
    """A warning for each file of a delivery that its listing does not name."""
    return problems_frame(
        [
            problem(
                f"{name} is in the delivery folder but {listing} does not list it: it was not "
                "read (add a row for it, or take it out of the folder)",
                field="file",
                value=name,
                severity="warning",
            )
            for name in unlisted
        ]
    )


def listed_files(
    folder: Path, listing: CsvInput, inbox: Path | None, unreadable: dict[str, str] | None = None
) -> dict[str, InputFile]:
    """The files a delivery's listing names in its ``file`` column, by name as written there;
    a name that points outside the folder or at nothing is left out (the listing's row is
    rejected for it), and so is a file that cannot be read (its reason goes to
    ``unreadable``): one such file is no reason to stop reading the others."""
    files: dict[str, InputFile] = {}
    if "file" not in listing.rows.columns:
        return files
    try:  # once for the folder, not for each of its files
        where: Path | None = folder.resolve()
        root = inbox.resolve().parent if inbox is not None else None
    except CANNOT_READ:
        where = root = None
    for name in listing.rows.get_column("file").drop_nulls().unique().to_list():
        candidate = folder / name.strip()
        try:
            # A listing may only point inside its own delivery folder.
            inside = candidate.resolve().is_relative_to(where or folder.resolve())
            if inside and candidate.is_file():
                shown = (
                    _named_from(root, where, name.strip())
                    if where is not None and root is not None
                    else delivery_file_name(folder, name.strip(), inbox)
                )
                files[name.strip()] = read_input_file(candidate, shown)
        except CANNOT_READ as error:
            if unreadable is not None:
                unreadable[name.strip()] = cannot_read(error)
    if unreadable is not None:
        unreadable.update(_named_in_another_case(folder, listing, files, unreadable))
    return files


def _named_in_another_case(
    folder: Path, listing: CsvInput, found: Mapping[str, object], unreadable: Mapping[str, str]
) -> dict[str, str]:
    """Why a listed name finds nothing when the folder holds it in other capitals
    (``agosto.trf`` for ``Agosto.TRF``): file names are compared as written."""
    with contextlib.suppress(*CANNOT_READ):
        present = {path.name.lower(): path.name for path in folder.iterdir() if path.is_file()}
        names = listing.rows.get_column("file").drop_nulls().str.strip_chars().unique()
        return {
            name: f"is not in the delivery: the folder has {present[name.lower()]}, a name that "
            "differs in capitals only (correct the manifest or the file's name)"
            for name in names.to_list()
            if name not in found and name not in unreadable and name.lower() in present
        }
    return {}


def manifest_rows(delivery: Delivery) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Typed manifest rows, arbiter ratings, and every manifest problem (with line numbers)."""
    if delivery.manifest.rows.height == 0 and delivery.manifest.problems.height:
        return pl.DataFrame(), pl.DataFrame(), delivery.manifest.problems
    typed, cell_problems = type_manifest(delivery.manifest.rows)
    schema_problems = validate(ManifestRow, typed).problems.join(
        cell_problems.select("line_no", "field"),
        on=["line_no", "field"],
        how="anti",
        nulls_equal=True,
    )  # a blank or unreadable cell is reported once, by the typing step
    ratings, rating_problems = parse_arbiter_ratings(typed)
    problems = pl.concat(
        [delivery.manifest.rejected_lines, cell_problems, schema_problems, rating_problems]
    ).unique(maintain_order=True)
    return typed, ratings, problems
