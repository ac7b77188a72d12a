"""The command `make run` ends with: it must run as printed (a shell reads it, then Python)."""

import shlex
import subprocess
import sys

import duckdb

from flows.demo import example_query_command


def test_the_printed_example_query_runs_as_written(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute(
        "CREATE VIEW rating_list AS SELECT 'elo_italia' AS system, DATE '2020-01-01' AS list_date,"
        " '1' AS player_id, 'Rossi, Mario' AS name, 1500 AS rating, '2N' AS category,"
        " true AS is_active"
    )
    con.close()
    words = shlex.split(example_query_command(warehouse))
    assert words[0] == ".venv/bin/python" and words[1] == "-c"
    shown = subprocess.run(
        [sys.executable, "-c", words[2]], capture_output=True, text=True, check=True
    ).stdout
    assert "Rossi, Mario" in shown and "1500" in shown
