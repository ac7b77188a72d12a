"""The dashboard's demo warehouse: built once per session, in a process of its own.

The flows that build it need Prefect; the dashboard must not (it reads DuckDB alone), so they
run in a child process (``tests/dashboard/demo_warehouse.py``) on Prefect's temporary server,
and this process only reads the file. About 50 s on two cores. To iterate on the dashboard,
``GRADUATORIA_DASHBOARD_TEST_WAREHOUSE=FILE`` reuses a file built before (``python -m
tests.dashboard.demo_warehouse FOLDER`` prints its path); the tests never write it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
REUSE_VARIABLE = "GRADUATORIA_DASHBOARD_TEST_WAREHOUSE"
BUILD_TIMEOUT = 900


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory) -> Path:
    reused = os.environ.get(REUSE_VARIABLE, "").strip()
    if reused:
        return Path(reused).resolve()
    folder = tmp_path_factory.mktemp("dashboard")
    environment = {
        **os.environ,
        # Prefect's temporary server, with a home of its own (the session's flow tests have
        # their harness in the one tests/conftest.py set)
        "GRADUATORIA_PREFECT_SERVER": "ephemeral",
        "PREFECT_HOME": str(folder / "prefect"),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }
    environment.pop("PREFECT_API_URL", None)
    built = subprocess.run(
        [sys.executable, "-m", "tests.dashboard.demo_warehouse", str(folder)],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert built.returncode == 0, (
        f"building the demo warehouse failed:\n{built.stdout[-4000:]}\n{built.stderr[-4000:]}"
    )
    return folder / "demo.duckdb"
