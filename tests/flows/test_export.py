"""``graduatoria export`` on a demo season: every format, byte-identical twice, read-only, in the
documented order and layout, and refusing clearly what the warehouse does not hold."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from flows.export import (
    COLUMNS,
    FORMATS,
    LIST_SYSTEMS,
    TXT_COLUMNS,
    ExportError,
    export_list,
)
from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")

SEASON = 2019
APRIL = date(SEASON, 4, 1)
REPO_ROOT = Path(__file__).resolve().parents[2]
TEXT_IDS = {"player_id": pl.Utf8}


def published_season(season_bases: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo season (built once per session) with its April lists published:
    Elo Italia and Elo Rapid, computed here."""
    from flows.elo.lists import quarterly_flow
    from tests.flows.conftest import _build_season

    if SEASON not in season_bases:
        season_bases[SEASON] = _build_season(tmp_path_factory.mktemp(f"season{SEASON}"), SEASON)
    warehouse = tmp_path_factory.mktemp("published") / "w.duckdb"
    shutil.copyfile(season_bases[SEASON][0], warehouse)
    quarterly_flow("elo_italia", APRIL, str(warehouse))
    quarterly_flow("elo_rapid", APRIL, str(warehouse))
    return warehouse


@pytest.fixture(scope="module")
def warehouse(_season_bases, tmp_path_factory) -> Path:
    return published_season(_season_bases, tmp_path_factory)


def _export(warehouse: Path, out: Path, fmt: str, **options: object) -> Path:
    export_list(
        str(warehouse), options.pop("system", "elo_italia"), APRIL, fmt, str(out), **options
    )  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exported_twice_is_byte_identical(warehouse, tmp_path, fmt):
    first = _export(warehouse, tmp_path / f"first.{fmt}", fmt)
    second = _export(warehouse, tmp_path / f"second.{fmt}", fmt)
    assert first.read_bytes() == second.read_bytes()
    assert first.stat().st_size > 1000
    # and once more over the first file, replacing it
    _export(warehouse, first, fmt, force=True)
    assert first.read_bytes() == second.read_bytes()
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"first.{fmt}", f"second.{fmt}"]


def test_an_export_only_reads_the_warehouse(warehouse, tmp_path):
    before = hashlib.sha256(warehouse.read_bytes()).hexdigest()
    for fmt in FORMATS:
        _export(warehouse, tmp_path / f"list.{fmt}", fmt)
    assert hashlib.sha256(warehouse.read_bytes()).hexdigest() == before
    assert not Path(f"{warehouse}.wal").exists()


def test_the_export_modules_import_nothing_heavy_and_export_needs_no_prefect(warehouse, tmp_path):
    # the command line builds its parser from these modules: --help must stay fast
    code = (
        "import sys\n"
        "import flows.export, flows.reconcile\n"
        "print(sorted(m for m in ('polars', 'duckdb', 'prefect', 'pandera') if m in sys.modules))\n"
        "from datetime import date\n"
        f"flows.export.export_list({str(warehouse)!r}, 'elo_italia', date(2019, 4, 1), 'csv', "
        f"{str(tmp_path / 'x.csv')!r})\n"
        "print('prefect' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split("\n")[:2] == ["[]", "False"]


def test_the_csv_holds_the_list_in_rating_order_with_every_column(warehouse, tmp_path):
    path = _export(warehouse, tmp_path / "list.csv", "csv")
    exported = pl.read_csv(path, infer_schema=False)
    assert tuple(exported.columns) == COLUMNS
    with Warehouse(warehouse).reader() as con:
        listed = con.execute(
            "SELECT player_id, rating, games, total_games, k, category, is_active, is_member, "
            "in_ranking, previous_rating FROM rating_list "
            "WHERE system = 'elo_italia' AND list_date = ? ORDER BY rating DESC, player_id",
            [APRIL],
        ).fetchall()
    assert exported.height == len(listed) > 300
    ours = [
        (
            row["player_id"],
            int(row["rating"]),
            int(row["games"]),
            int(row["total_games"]),
            int(row["k"]) if row["k"] else None,
            row["category"],
            row["is_active"] == "true",
            row["is_member"] == "true",
            row["in_ranking"] == "true",
            int(row["previous_rating"]) if row["previous_rating"] else None,
        )
        for row in exported.iter_rows(named=True)
    ]
    assert ours == listed
    # the federation is the registry's country on the list date
    with Warehouse(warehouse).reader() as con:
        countries = dict(
            con.execute("SELECT player_id, country FROM registry_at(?)", [APRIL]).fetchall()
        )
    assert dict(exported.select("player_id", "federation").iter_rows()) == {
        player_id: countries.get(player_id) for player_id in exported.get_column("player_id")
    }
    assert "ITA" in countries.values() and len(set(countries.values())) > 1


def test_parquet_and_json_hold_what_the_csv_holds(warehouse, tmp_path):
    as_csv = pl.read_csv(_export(warehouse, tmp_path / "l.csv", "csv"), infer_schema=False)
    as_parquet = pl.read_parquet(_export(warehouse, tmp_path / "l.parquet", "parquet"))
    document = json.loads(_export(warehouse, tmp_path / "l.json", "json").read_text("utf-8"))
    assert tuple(as_parquet.columns) == COLUMNS
    # no timestamp, no path: the only key-value metadata is the Arrow schema
    assert set(pl.read_parquet_metadata(tmp_path / "l.parquet")) == {"ARROW:schema"}
    assert as_parquet.schema["rating"] == pl.Int32 and as_parquet.schema["birth_date"] == pl.Date
    assert as_parquet.get_column("player_id").to_list() == as_csv.get_column("player_id").to_list()
    assert as_parquet.get_column("rating").to_list() == [
        int(value) for value in as_csv.get_column("rating")
    ]
    assert {key: document[key] for key in ("system", "list_date", "scenario", "revision")} == {
        "system": "elo_italia",
        "list_date": "2019-04-01",
        "scenario": "official",
        "revision": 1,
    }
    assert document["players"] == len(document["entries"]) == as_csv.height
    assert list(document["entries"][0]) == list(COLUMNS)
    assert [entry["player_id"] for entry in document["entries"]] == as_csv.get_column(
        "player_id"
    ).to_list()


def _txt_positions() -> list[tuple[str, int, int]]:
    """(title, first, last) of each txt column, 1-based, as docs/EXPORTS.md gives them."""
    positions, start = [], 1
    for column in TXT_COLUMNS:
        positions.append((column.title, start, start + column.width - 1))
        start += column.width + 1
    return positions


def test_the_txt_list_is_the_documented_fixed_width_layout(warehouse, tmp_path):
    text = _export(warehouse, tmp_path / "list.txt", "txt").read_text("utf-8")
    lines = text.splitlines()
    positions = _txt_positions()
    width = positions[-1][2]
    assert {len(line) for line in lines} == {width}
    doc = (REPO_ROOT / "docs" / "EXPORTS.md").read_text("utf-8")
    for title, first, last in positions:
        assert f"| {first}-{last} | {title} |" in doc

    def cut(line: str) -> dict[str, str]:
        return {title: line[first - 1 : last].strip() for title, first, last in positions}

    assert cut(lines[0]) == {title: title for title, _, _ in positions}
    exported = pl.read_csv(_export(warehouse, tmp_path / "list.csv", "csv"), infer_schema=False)
    # the provisional players (P-… ids, longer than the ID column) are left out of the txt only
    registered = exported.filter(pl.col("player_id").str.len_chars() <= 10)
    assert 0 < registered.height < exported.height == registered.height + 3
    assert len(lines) == registered.height + 1
    for line, row in zip(lines[1:], registered.iter_rows(named=True), strict=True):
        cells = cut(line)
        assert cells["ID"] == row["player_id"]
        assert cells["Name"] == (row["name"] or "")[:40]
        assert cells["Rtng"] == row["rating"] and cells["Gms"] == row["games"]
        assert cells["K"] == (row["k"] or "") and cells["Cat"] == (row["category"] or "")
        assert cells["Fed"] == (row["federation"] or "")
        assert ("i" in cells["Flags"]) == (row["is_active"] == "false")
        assert ("w" in cells["Flags"]) == (row["sex"] == "F")
        assert ("x" in cells["Flags"]) == (row["is_member"] == "false")
        assert ("f" in cells["Flags"]) == (row["rating_type"] == "fide")
    new = [cut(line)["ID"] for line in lines[1:] if "n" in cut(line)["Flags"]]
    entered = exported.filter(
        pl.col("previous_rating").is_null() & ~pl.col("rating_basis").is_in(["list", "imported"])
    )
    assert sorted(new) == sorted(
        entered.filter(pl.col("player_id").str.len_chars() <= 10).get_column("player_id")
    )


def test_the_rapid_txt_shows_the_letters_as_published(warehouse, tmp_path):
    text = _export(warehouse, tmp_path / "rapid.txt", "txt", system="elo_rapid").read_text("utf-8")
    categories = {line[56:59].strip() for line in text.splitlines()[1:]}
    assert categories and all(len(label) == 2 and label.endswith("x") for label in categories)


def test_the_import_list_export_is_the_csv_import_list_reads(warehouse, tmp_path):
    path = _export(warehouse, tmp_path / "published.csv", "import-list")
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["player_id", "rating", "games", "k", "category", "last_played"]
    with Warehouse(warehouse).reader() as con:
        totals = dict(
            con.execute(
                "SELECT player_id, total_games FROM rating_list "
                "WHERE system = 'elo_italia' AND list_date = ?",
                [APRIL],
            ).fetchall()
        )
    # its games are the games to date, which drive K
    assert {row["player_id"]: int(row["games"]) for row in rows} == totals


def test_an_export_names_the_revision_and_the_scenario_it_reads(warehouse, tmp_path):
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(warehouse, copy)
    # a what-if scenario's list, written beside the official one as a recalculation would
    with Warehouse(copy).transaction() as con:
        con.execute(
            "INSERT INTO list_revision SELECT * REPLACE ('k40' AS scenario) FROM list_revision "
            "WHERE system = 'elo_italia' AND list_date = ? AND scenario = 'official'",
            [APRIL],
        )
        con.execute(
            "INSERT INTO list_entry SELECT * REPLACE ('k40' AS scenario, rating + 7 AS rating) "
            "FROM list_entry WHERE system = 'elo_italia' AND list_date = ? "
            "AND scenario = 'official'",
            [APRIL],
        )
    official = _export(copy, tmp_path / "official.csv", "csv")
    explicit = _export(copy, tmp_path / "revision1.csv", "csv", revision=1)
    assert official.read_bytes() == explicit.read_bytes()
    scenario = pl.read_csv(
        _export(copy, tmp_path / "k40.csv", "csv", scenario="k40"), schema_overrides=TEXT_IDS
    )
    base = pl.read_csv(official, schema_overrides=TEXT_IDS)
    assert set(scenario.get_column("scenario")) == {"k40"}
    assert (scenario.get_column("rating") - base.get_column("rating")).to_list() == [7] * (
        base.height
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"list_date": date(SEASON, 5, 1)},
            "no elo_italia list of 2019-05-01 in the warehouse (2 list dates, from 2019-01-01 "
            "to 2019-04-01; the nearest: 2019-04-01)",
        ),
        (
            {"revision": 2},
            "the elo_italia list of 2019-04-01 has no revision 2 (revisions: 1)",
        ),
        (
            {"scenario": "k20"},
            "no scenario 'k20' of elo_italia in the warehouse (scenarios: official)",
        ),
        ({"system": "rubele_italiana"}, "no rubele_italiana list in the warehouse"),
        ({"system": "chess960"}, "no system 'chess960'"),
        ({"fmt": "xlsx"}, "no format 'xlsx'"),
    ],
)
def test_what_the_warehouse_does_not_hold_is_refused(warehouse, tmp_path, options, message):
    arguments = {"system": "elo_italia", "list_date": APRIL, "fmt": "csv", **options}
    out = tmp_path / "list.out"
    with pytest.raises(ExportError) as refused:
        export_list(str(warehouse), out=str(out), **arguments)  # type: ignore[arg-type]
    assert message in str(refused.value)
    assert not out.exists()


def test_an_existing_file_is_replaced_only_with_force(warehouse, tmp_path):
    out = tmp_path / "list.csv"
    out.write_text("keep me\n", encoding="utf-8")
    with pytest.raises(ExportError, match=r"list\.csv exists: give --force to replace it"):
        _export(warehouse, out, "csv")
    assert out.read_text(encoding="utf-8") == "keep me\n"
    with pytest.raises(ExportError, match="is a folder"):
        _export(warehouse, tmp_path, "csv")
    with pytest.raises(ExportError, match="no folder"):
        _export(warehouse, tmp_path / "nowhere" / "list.csv", "csv")
    _export(warehouse, out, "csv", force=True)
    assert out.read_text(encoding="utf-8").startswith("system,list_date,")


def test_the_verbs_parse_as_documented_with_a_help_line_on_every_option():
    import argparse

    from flows.export import add_export_parser, run_export
    from flows.reconcile import add_reconcile_parser, run_reconcile
    from schemas.vocabulary import ALL_SYSTEMS

    assert list(LIST_SYSTEMS) == list(ALL_SYSTEMS)
    parser = argparse.ArgumentParser()
    verbs = parser.add_subparsers(dest="verb")
    export, reconcile = add_export_parser(verbs), add_reconcile_parser(verbs)
    for verb in (export, reconcile):
        assert verb.description
        for action in verb._actions:
            assert isinstance(action, argparse._HelpAction) or (action.help or "").strip()
    args = parser.parse_args(
        [
            *("export", "--system", "elo_rapid", "--list-date", "2019-04-01", "--format", "txt"),
            *("--out", "x.txt", "--revision", "2", "--scenario", "k40", "--force"),
        ]
    )
    assert (args.system, args.list_date, args.format, args.out) == (
        "elo_rapid",
        APRIL,
        "txt",
        "x.txt",
    )
    assert (args.revision, args.scenario, args.force) == (2, "k40", True)
    assert callable(run_export) and callable(run_reconcile)


def test_out_dash_writes_the_list_to_standard_output_and_the_commands_lines_to_stderr(
    warehouse, tmp_path
):
    filed = _export(warehouse, tmp_path / "list.csv", "csv").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli", "export", "--system", "elo_italia",
         "--list-date", APRIL.isoformat(), "--format", "csv", "--out", "-",
         "--warehouse", str(warehouse)],
        cwd=tmp_path, capture_output=True, check=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert done.stdout == filed
    assert b"to the standard output" in done.stderr
    assert b"graduatoria: warehouse" in done.stderr
    assert not (tmp_path / "-").exists()


def test_a_device_is_refused_and_a_link_is_written_through(warehouse, tmp_path):
    with pytest.raises(ExportError, match=r"is not a file .*give --out - to write to the standard"):
        _export(warehouse, Path(os.devnull), "csv", force=True)
    assert Path(os.devnull).is_char_device()
    # a stream, even where the shell redirected it to a file (which a rename would replace)
    with pytest.raises(ExportError, match="give --out - to write to the standard output"):
        _export(warehouse, Path("/dev/stdout"), "csv", force=True)
    published = tmp_path / "site" / "elo_italia.csv"
    published.parent.mkdir()
    published.write_text("last quarter\n", encoding="utf-8")
    link = tmp_path / "latest.csv"
    link.symlink_to(published)
    with pytest.raises(ExportError, match=r"latest\.csv exists: give --force"):
        _export(warehouse, link, "csv")
    _export(warehouse, link, "csv", force=True)
    assert link.is_symlink()
    assert published.read_text(encoding="utf-8").startswith("system,list_date,")
