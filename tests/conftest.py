"""Test-wide settings: Prefect state goes to a throw-away folder and nothing phones home."""

import os
import tempfile

os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="graduatoria-prefect-"))
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# each test process keeps Prefect's own temporary server (prefect_test_harness in the flow
# tests): the project's lasting server (flows/prefect_server.py) is neither started nor used,
# except by tests/flows/test_prefect_server.py, in temporary homes of its own. Forced, not a
# default: a developer's shell that exports another mode must not leave servers behind
os.environ["GRADUATORIA_PREFECT_SERVER"] = "ephemeral"
