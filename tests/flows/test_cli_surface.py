"""The command line explains itself and pays for nothing it does not use: every verb and
option has a help line, the warehouse may come from GRADUATORIA_WAREHOUSE (and the command says
so), ``--help`` imports neither Polars, DuckDB nor Prefect, and the read-only verbs never
import Prefect."""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from datetime import date
from pathlib import Path

import pytest

from flows import cli
from flows.cli import DEFAULT_WAREHOUSE, WAREHOUSE_VARIABLE, build_parser, main

REPO_ROOT = Path(__file__).resolve().parents[2]


def _verb_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (verbs,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(verbs.choices)


def test_every_verb_and_every_option_has_a_help_line():
    parser = build_parser()
    (verbs,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    # the one-line help of each verb, as `graduatoria --help` lists it
    listed = {action.dest: action.help for action in verbs._choices_actions}
    missing = []
    for name, verb in verbs.choices.items():
        if not (listed.get(name) or "").strip():
            missing.append(f"{name}: no help line")
        if not (verb.description or "").strip():
            missing.append(f"{name}: no description (graduatoria {name} --help)")
    for owner, each in [("graduatoria", parser), *verbs.choices.items()]:
        for action in each._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{owner}: {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_every_verb_parsed_has_a_handler():
    assert set(_verb_parsers(build_parser())) == set(cli.VERBS)


def test_import_list_says_which_columns_its_csv_takes(capsys):
    with pytest.raises(SystemExit):
        main(["import-list", "--help"])
    assert "player_id,rating,games,k,category[,last_played]" in capsys.readouterr().out


def test_the_systems_offered_are_the_systems_known():
    # written out in flows.cli so that --help need not import schemas (Polars, Pandera)
    from schemas.vocabulary import ALL_SYSTEMS

    assert list(ALL_SYSTEMS) == cli.ALL_LIST_SYSTEMS


def test_the_warehouse_comes_from_the_option_then_the_variable_then_the_default(monkeypatch):
    monkeypatch.delenv(WAREHOUSE_VARIABLE, raising=False)
    args = build_parser().parse_args(["status"])
    assert (args.warehouse, args.warehouse_from) == (DEFAULT_WAREHOUSE, "default")
    monkeypatch.setenv(WAREHOUSE_VARIABLE, "/data/federation.duckdb")
    args = build_parser().parse_args(["status"])
    assert (args.warehouse, args.warehouse_from) == ("/data/federation.duckdb", WAREHOUSE_VARIABLE)
    args = build_parser().parse_args(["status", "--warehouse", "other.duckdb"])
    assert (args.warehouse, args.warehouse_from) == ("other.duckdb", "--warehouse")
    monkeypatch.setenv(WAREHOUSE_VARIABLE, "  ")  # set but empty: as if unset
    assert build_parser().parse_args(["status"]).warehouse == DEFAULT_WAREHOUSE


def test_a_command_says_its_warehouse_came_from_the_variable(capsys, monkeypatch, tmp_path):
    used = []
    monkeypatch.setitem(cli.VERBS, "withdraw", lambda args: used.append(args.warehouse))
    monkeypatch.setitem(cli.VERBS, "status", lambda args: used.append(args.warehouse))
    target = tmp_path / "from-env.duckdb"
    monkeypatch.setenv(WAREHOUSE_VARIABLE, str(target))

    assert main(["withdraw", "T-1", "--reason", "twice"]) == 0
    assert f"graduatoria: warehouse {target} (from {WAREHOUSE_VARIABLE})" in (
        capsys.readouterr().out
    )
    # status names its warehouse in its own output, but not where it came from
    assert main(["status"]) == 0
    assert f"graduatoria: warehouse {target} (from {WAREHOUSE_VARIABLE})" in (
        capsys.readouterr().out
    )
    other = tmp_path / "given.duckdb"
    assert main(["withdraw", "T-1", "--reason", "twice", "--warehouse", str(other)]) == 0
    assert capsys.readouterr().out == f"graduatoria: warehouse {other}\n"
    assert used == [str(target), str(target), str(other)]


def test_server_dispatches_to_the_prefect_server_module_when_it_runs(capsys, monkeypatch):
    calls = []
    fake = types.ModuleType("flows.prefect_server")
    fake.server_verb = calls.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "flows.prefect_server", fake)
    assert main(["server", "status"]) == 0
    assert [args.action for args in calls] == ["status"]
    assert "warehouse" not in capsys.readouterr().out  # it holds none
    with pytest.raises(SystemExit):
        main(["server", "restart"])
    assert "invalid choice: 'restart'" in capsys.readouterr().err


def _python(code: str) -> str:
    """The last line ``code`` prints, run by a fresh interpreter in the repository."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


HEAVY = ("polars", "duckdb", "prefect", "pandera")


def test_help_imports_no_dataframe_database_or_prefect():
    code = (
        "import sys\n"
        "from flows.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    assert _python(code) == "[]"


@pytest.fixture(scope="module")
def small_warehouse(tmp_path_factory, prefect_server) -> Path:
    """A warehouse with one published (imported) list, made by the flows in-process."""
    from flows.import_list import import_list_flow

    folder = tmp_path_factory.mktemp("read-only")
    listing = folder / "list.csv"
    listing.write_text(
        "player_id,rating,games,k,category\n1,1500,40,20,2N\n2,1620,80,20,1N\n", encoding="utf-8"
    )
    warehouse = folder / "w.duckdb"
    import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), str(warehouse))
    return warehouse


@pytest.mark.parametrize(
    "verb",
    [
        ["status"],
        ["problems"],
        ["problems", "--system", "elo_italia", "--runs", "10"],
    ],
    ids=lambda verb: " ".join(verb),
)
def test_the_read_only_verbs_import_neither_prefect_nor_pandera(small_warehouse, verb):
    # Prefect alone costs seconds; Pandera (and pandas with it) about half a second, for
    # validation these verbs never make
    command = [*verb, "--warehouse", str(small_warehouse)]
    code = (
        "import sys\n"
        "from flows.cli import main\n"
        f"code = main({command!r})\n"
        "print(code, sorted(m for m in ('prefect', 'pandera', 'pandas') if m in sys.modules))\n"
    )
    assert _python(code) == "0 []"
