"""The command line: useful help, and errors as one line with a non-zero exit."""

from datetime import date

import pytest

from flows.cli import build_parser, main


def test_help_lists_every_verb(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for verb in ("ingest", "load-registry", "import-list", "merge", "status", "demo"):
        assert verb in out


def test_a_bad_argument_is_refused_by_the_parser(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["load-registry", str(tmp_path), "--as-of", "01/01/2026"])
    assert exit_info.value.code == 2
    assert "is not a date written YYYY-MM-DD" in capsys.readouterr().err


def test_status_of_a_missing_warehouse_is_one_line(capsys, tmp_path):
    assert main(["status", "--warehouse", str(tmp_path / "none.duckdb")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("graduatoria: error: no warehouse at")


@pytest.mark.usefixtures("prefect_server")
def test_a_failing_flow_gives_one_line_not_a_traceback(capsys, tmp_path):
    listing = tmp_path / "list.csv"
    listing.write_text("player_id,rating,games,k,category\n1,1500,0,30,NC\n", encoding="utf-8")
    code = main(
        [
            "import-list",
            str(listing),
            "--system",
            "blitz",
            "--list-date",
            "2026-01-01",
            "--warehouse",
            str(tmp_path / "w.duckdb"),
        ]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "graduatoria: error: unknown system 'blitz'" in err


@pytest.mark.usefixtures("prefect_server")
def test_merge_refuses_to_create_a_warehouse(capsys, tmp_path):
    target = tmp_path / "w.duckdb"
    assert main(["merge", "P-X", "1", "--warehouse", str(target)]) == 1
    assert not target.exists()
    assert "run an ingest first" in capsys.readouterr().err


def test_the_parser_knows_the_default_warehouse():
    args = build_parser().parse_args(["status"])
    assert args.warehouse.endswith("graduatoria.duckdb")


def test_recalculate_needs_a_system_unless_it_replays_every_stale_list(capsys, tmp_path):
    warehouse = str(tmp_path / "w.duckdb")
    assert main(["recalculate", "--from", "2019-04-01", "--to", "2019-07-01"]) == 1
    assert "give --system, or --stale alone" in capsys.readouterr().err
    stale_with_rulebook = [
        "recalculate",
        "--stale",
        "--rulebook",
        "x.toml",
        "--warehouse",
        warehouse,
    ]
    assert main(stale_with_rulebook) == 1
    assert "apply to one system: give --system" in capsys.readouterr().err
    # another rulebook never writes the official lists: it needs a scenario
    what_if = ["recalculate", "--system", "elo_italia", "--from", "2019-04-01", "--to"]
    what_if += ["2019-07-01", "--rulebook", "x.toml", "--warehouse", warehouse]
    assert main(what_if) == 1
    assert "--rulebook recalculates into a scenario: give --scenario NAME" in (
        capsys.readouterr().err
    )


@pytest.mark.usefixtures("prefect_server")
def test_stale_alone_replays_every_system_elo_italia_before_elo_rapid(
    capsys, season_warehouse, tmp_path
):
    from flows.elo.recalculate import recalculate_flow
    from flows.status import published_systems, stale_of
    from flows.warehouse import Warehouse
    from tests.flows.helpers import deliver_a_corrected_tournament

    warehouse = season_warehouse(2019)
    first, last = date(2019, 4, 1), date(2020, 1, 1)
    recalculate_flow("elo_italia", str(warehouse), first, last)
    recalculate_flow("elo_rapid", str(warehouse), first, last)
    assert deliver_a_corrected_tournament(warehouse, tmp_path / "corrections")[1] == 1
    with Warehouse(warehouse).reader() as con:
        assert [item.list_date for item in stale_of(con, "elo_italia")] == [
            date(2019, 7, 1),
            date(2019, 10, 1),
            date(2020, 1, 1),
        ]
        # Elo Rapid's lists read the Elo Italia revisions in force; those change only when
        # Elo Italia is replayed, so Rapid is checked after it
        assert stale_of(con, "elo_rapid") == []
    capsys.readouterr()

    assert main(["recalculate", "--stale", "--warehouse", str(warehouse)]) == 0
    out = capsys.readouterr().out
    assert "elo_italia has 3 stale lists from 2019-07-01" in out
    with Warehouse(warehouse).reader() as con:
        assert {system: stale_of(con, system) for system in published_systems(con)} == {
            "elo_italia": [],
            "elo_rapid": [],
        }
    # the Rapid list of 2019-10-01 is the first to read a replayed Elo Italia list (2019-07-01)
    rapid = "elo_rapid has 2 stale lists from 2019-10-01"
    assert out.index("elo_italia has 3 stale lists") < out.index(rapid)

    assert main(["recalculate", "--stale", "--warehouse", str(warehouse)]) == 0
    assert "every published list is current; nothing to do" in capsys.readouterr().out


def test_serve_knows_the_calendar_of_every_system():
    from flows.systems import rating_system
    from transforms.lists.periods import publication_crons

    crons = {
        system: publication_crons(rating_system(system).calendar_at(date(2026, 12, 2)))
        for system in ("elo_italia", "elo_rapid", "rubele_italiana", "rubele_internazionale")
    }
    # the day after each receipt cut-off
    assert crons == {
        "elo_italia": ["0 6 16 3,6,9,12 *"],
        "elo_rapid": ["0 6 16 3,6,9,12 *"],
        "rubele_italiana": ["0 6 1 1,7 *"],
        "rubele_internazionale": ["0 6 1 1,7 *"],
    }
    args = build_parser().parse_args(["serve", "--system", "rubele_italiana"])
    assert args.system == ["rubele_italiana"]


def test_a_polars_panic_is_one_line_too(capsys, monkeypatch):
    from polars.exceptions import PanicException

    from flows import cli

    def panics(args):
        raise PanicException("assertion failed: i < self.len()")

    monkeypatch.setitem(cli.VERBS, "status", panics)
    assert main(["status"]) == 1
    err = capsys.readouterr().err
    assert err == "graduatoria: error: assertion failed: i < self.len()\n"


@pytest.mark.usefixtures("prefect_server")
def test_an_import_on_a_day_that_is_not_a_list_date_is_refused(capsys, tmp_path):
    # the lists after it could never follow it: each needs the list date before it
    listing = tmp_path / "list.csv"
    listing.write_text("player_id,rating,games,k,category\n1,1500,0,30,NC\n", encoding="utf-8")
    warehouse = tmp_path / "w.duckdb"
    args = ["import-list", str(listing), "--system", "elo_rapid", "--warehouse", str(warehouse)]
    assert main([*args, "--list-date", "2019-02-01"]) == 1
    assert "2019-02-01 is not a list date of elo_rapid" in capsys.readouterr().err
    assert not warehouse.exists()


def test_stale_with_a_range_is_refused(capsys):
    assert main(["recalculate", "--system", "elo_italia", "--stale", "--from", "2019-04-01"]) == 1
    assert "--stale finds its own range" in capsys.readouterr().err


@pytest.mark.usefixtures("prefect_server")
def test_a_what_if_rulebook_cannot_change_the_size_rules_of_the_ingest(capsys, tmp_path):
    from transforms.lists.eras import default_rulebook_path

    smaller = tmp_path / "small.toml"
    text = default_rulebook_path("elo_rapid").read_text(encoding="utf-8")
    smaller.write_text(text.replace("min_players = 14", "min_players = 10"), encoding="utf-8")
    code = main(
        [
            "recalculate",
            "--system",
            "elo_rapid",
            "--from",
            "2019-04-01",
            "--to",
            "2019-07-01",
            "--rulebook",
            str(smaller),
            "--scenario",
            "small",
            "--warehouse",
            str(tmp_path / "w.duckdb"),
        ]
    )
    assert code == 1
    error = capsys.readouterr().err
    assert "small.toml changes rules applied when tournaments are ingested" in error


def test_an_interrupt_says_whether_the_warehouse_was_written(capsys, monkeypatch):
    from flows import cli
    from flows.warehouse import Warehouse

    def interrupted(args):
        raise KeyboardInterrupt

    def written_then_interrupted(args):
        Warehouse.swaps_done += 1  # as a run whose report was being printed
        raise KeyboardInterrupt

    monkeypatch.setattr(Warehouse, "swaps_done", 0)
    monkeypatch.setitem(cli.VERBS, "status", interrupted)
    assert main(["status"]) == 130
    assert "interrupted; the warehouse is unchanged" in capsys.readouterr().err
    monkeypatch.setitem(cli.VERBS, "status", written_then_interrupted)
    assert main(["status"]) == 130
    assert "interrupted after the run wrote the warehouse" in capsys.readouterr().err


def test_an_interrupt_while_the_libraries_load_is_one_line(capsys, monkeypatch):
    import flows.runtime

    def interrupted(verbose: bool) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(flows.runtime, "configure_prefect_environment", interrupted)
    assert main(["status"]) == 130
    assert capsys.readouterr().err == (
        "graduatoria: interrupted before it began; nothing was changed\n"
    )


# the program as the console script runs it, with a verb that registers an exit handler (as
# Prefect and temporary files do) and prints a line, then finishes with its exit code
PROGRAM = """
import atexit, sys
from pathlib import Path
from flows import cli

handled, outcome, warehouse = sys.argv[1:]

def verb(args):
    atexit.register(Path(handled).write_text, "the exit handler ran")
    print("the verb's last line", end="")
    if outcome == "fail":
        raise ValueError("a failed verb")

cli.VERBS["status"] = verb
sys.argv = ["graduatoria", "status", "--warehouse", warehouse]
cli.console()
"""


@pytest.mark.parametrize(("outcome", "code"), [("succeed", 0), ("fail", 1)])
def test_the_program_exits_with_its_code_its_output_and_its_exit_handlers(tmp_path, outcome, code):
    import subprocess
    import sys

    handled = tmp_path / "handled.txt"
    warehouse = tmp_path / "none.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(handled), outcome, str(warehouse)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # the interpreter's teardown is skipped, not the exit handlers, the buffered output or
    # the code
    assert done.returncode == code
    assert done.stdout == "the verb's last line"
    assert done.stderr == ("graduatoria: error: a failed verb\n" if code else "")
    assert handled.read_text() == "the exit handler ran"


def test_a_load_that_loads_nothing_exits_non_zero(capsys, monkeypatch, tmp_path):
    import flows.elo.ingest
    import flows.elo.registry
    import flows.rubele.ingest

    warehouse = str(tmp_path / "w.duckdb")
    monkeypatch.setattr(flows.elo.registry, "load_registry_flow", lambda *args: {"refused": 1})
    load = ["load-registry", str(tmp_path), "--as-of", "2026-01-01", "--warehouse", warehouse]
    assert main(load) == 1
    assert "the snapshot was refused: nothing was loaded" in capsys.readouterr().err
    refused = {"deliveries": 2, "deliveries_refused": 2}
    monkeypatch.setattr(flows.elo.ingest, "ingest_flow", lambda *args: refused)
    assert main(["ingest", str(tmp_path), "--warehouse", warehouse]) == 1
    assert "all 2 deliveries were refused whole: nothing was read" in capsys.readouterr().err
    # docs/DESIGN.md: a run that completed exits 0; its report names the delivery refused
    some = {"deliveries": 3, "deliveries_refused": 2}
    monkeypatch.setattr(flows.elo.ingest, "ingest_flow", lambda *args: some)
    assert main(["ingest", str(tmp_path), "--warehouse", warehouse]) == 0
    one = {"deliveries": 1, "deliveries_refused": 1}
    monkeypatch.setattr(flows.rubele.ingest, "ingest_draughts_flow", lambda *args: one)
    assert main(["ingest-draughts", str(tmp_path), "--warehouse", warehouse]) == 1
    assert "the delivery was refused whole" in capsys.readouterr().err
    monkeypatch.setattr(flows.rubele.ingest, "ingest_draughts_flow", lambda *args: some)
    assert main(["ingest-draughts", str(tmp_path), "--warehouse", warehouse]) == 0


def _flows_never_start(monkeypatch):
    """Every flow a refused command could reach fails the test if it is called."""
    import dataclasses

    import flows.import_list
    import flows.registry
    import flows.systems

    def started(*args, **kwargs):
        pytest.fail("the flow started: the arguments were not checked before Prefect")

    for name, system in flows.systems.SYSTEMS.items():
        never = dataclasses.replace(system, quarterly=started, recalculate=started)
        monkeypatch.setitem(flows.systems.SYSTEMS, name, never)
    monkeypatch.setattr(flows.import_list, "import_list_flow", started)
    monkeypatch.setattr(flows.registry, "merge_player_flow", started)


def test_arguments_are_refused_before_prefect_starts(capsys, monkeypatch, tmp_path):
    # Prefect's temporary server takes 10-30 s to start: a mistyped date is refused at once
    _flows_never_start(monkeypatch)
    missing = str(tmp_path / "none.duckdb")
    present = tmp_path / "w.duckdb"
    present.touch()
    warehouse = ["--warehouse", str(present)]
    refusals = {
        (
            "quarterly",
            "--system",
            "elo_italia",
            "--list-date",
            "2019-04-01",
            "--warehouse",
            missing,
        ): f"no warehouse at {missing}: run an ingest first",
        (
            "quarterly",
            "--system",
            "elo_italia",
            "--list-date",
            "2019-02-01",
            *warehouse,
        ): "2019-02-01 is not a list date of elo_italia",
        (
            "quarterly",
            "--system",
            "rubele_italiana",
            "--list-date",
            "2040-01-01",
            *warehouse,
        ): "a window still open",
        (
            "quarterly",
            "--system",
            "elo_rapid",
            "--list-date",
            "2019-04-01",
            "--rulebook",
            str(tmp_path / "none.toml"),
            *warehouse,
        ): "no rulebook at",
        (
            "recalculate",
            "--system",
            "elo_italia",
            "--from",
            "2019-04-02",
            "--to",
            "2019-06-30",
            *warehouse,
        ): "no list date of elo_italia between 2019-04-02 and 2019-06-30",
        (
            "recalculate",
            "--system",
            "elo_italia",
            "--from",
            "2019-04-01",
            "--to",
            "2040-01-01",
            *warehouse,
        ): "the elo_italia list of 2040-01-01 takes the tournaments received up to",
        (
            "recalculate",
            "--system",
            "rubele_internazionale",
            "--from",
            "2019-04-01",
            "--to",
            "2019-07-01",
            "--scenario",
            "Prova 1",
            *warehouse,
        ): "scenario name 'Prova 1'",
        (
            "recalculate",
            "--system",
            "elo_italia",
            "--stale",
            "--scenario",
            "k20",
            *warehouse,
        ): "--stale replays official lists",
        ("recalculate", "--stale", "--warehouse", missing): f"no warehouse at {missing}",
        ("merge", "P-X", "1", "--warehouse", missing): f"no warehouse at {missing}",
        (
            "import-list",
            str(present),
            "--system",
            "blitz",
            "--list-date",
            "2019-04-01",
            *warehouse,
        ): "unknown system 'blitz'",
        (
            "import-list",
            str(present),
            "--system",
            "rubele_italiana",
            "--list-date",
            "2019-04-02",
            *warehouse,
        ): "2019-04-02 is not a list date of rubele_italiana",
    }
    for command, reason in refusals.items():
        assert main(list(command)) == 1, command
        err = capsys.readouterr().err
        assert err.startswith("graduatoria: error: ") and reason in err, (command, err)


def test_a_day_that_does_not_exist_is_said_so(capsys):
    with pytest.raises(SystemExit):
        main(["quarterly", "--system", "elo_italia", "--list-date", "2019-02-30"])
    assert "'2019-02-30' is written YYYY-MM-DD, but there is no such day" in (
        capsys.readouterr().err
    )


@pytest.mark.usefixtures("prefect_server")
def test_every_command_names_its_warehouse_and_a_new_one_is_announced(
    capsys, tmp_path, monkeypatch
):
    # the default warehouse is relative to the folder a command runs in: run from another
    # folder, an ingest made a new warehouse there without a word
    monkeypatch.chdir(tmp_path)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    created = tmp_path / "data" / "warehouse" / "graduatoria.duckdb"
    assert main(["ingest", str(inbox)]) == 0
    assert f"graduatoria: created a new warehouse: {created}" in capsys.readouterr().out
    assert main(["ingest", str(inbox)]) == 0
    out = capsys.readouterr().out
    assert f"graduatoria: warehouse {created}" in out and "created" not in out


def test_an_official_list_is_not_published_under_a_what_if_rulebook(capsys, tmp_path):
    # the official lists follow data/rules/: status would call such a list stale and the next
    # replay undo it; a what-if of the date is recalculate's, into a scenario
    from transforms.lists.eras import default_rulebook_path

    official = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
    what_if = tmp_path / "k40.toml"
    what_if.write_text(official + "\n# a what-if\n", encoding="utf-8")
    copy = tmp_path / "copy.toml"
    copy.write_text(official, encoding="utf-8")
    warehouse = str(tmp_path / "none.duckdb")
    quarterly = ["quarterly", "--system", "elo_italia", "--list-date", "2019-04-01"]
    assert main([*quarterly, "--rulebook", str(what_if), "--warehouse", warehouse]) == 1
    err = capsys.readouterr().err
    assert "k40.toml is not the rulebook of elo_italia" in err
    assert (
        f"graduatoria recalculate --system elo_italia --from 2019-04-01 --to 2019-04-01 "
        f"--rulebook {what_if} --scenario NAME" in err
    )
    # the system's own rulebook, kept elsewhere, passes this check (and meets the next one)
    assert main([*quarterly, "--rulebook", str(copy), "--warehouse", warehouse]) == 1
    assert "no warehouse at" in capsys.readouterr().err
    serve = ["serve", "--system", "elo_italia", "--system", "elo_rapid"]
    assert main([*serve, "--rulebook", str(what_if), "--warehouse", warehouse]) == 1
    assert "k40.toml is not the rulebook of elo_italia" in capsys.readouterr().err
