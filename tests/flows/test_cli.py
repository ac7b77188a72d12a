"""The command line: useful help, and errors as one line with a non-zero exit."""

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
