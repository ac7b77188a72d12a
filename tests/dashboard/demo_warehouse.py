"""The dashboard tests' warehouse: the demo federation (every system), a what-if scenario, an
Elo Italia list recalculated after a corrected tournament (revision 2, with its differences),
and lists left stale by a second correction.

Built once per session in a process of its own (``python -m tests.dashboard.demo_warehouse
FOLDER``): the flows that build it run on Prefect's temporary server there, so the test process,
where the dashboard runs under AppTest, never imports Prefect for it.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

# the demo's scenario: newcomers' K 40 instead of 30 (the rulebook line must be there)
NEWCOMER_K_LINE = "{ games_below = 30, k = 30 }"
SCENARIO = "k40"


def build(folder: Path) -> Path:
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    from flows.demo import demo_flow
    from flows.elo.recalculate import recalculate_flow
    from tests.flows.helpers import deliver_a_corrected_tournament
    from transforms.lists.eras import default_rulebook_path

    folder.mkdir(parents=True, exist_ok=True)
    warehouse = folder / "demo.duckdb"
    # heartbeats cost each flow run about a second (STACK-NOTES.md)
    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        demo_flow(str(folder / "demo"), str(warehouse))
        text = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
        assert NEWCOMER_K_LINE in text
        rulebook = folder / "k40.toml"
        rulebook.write_text(
            text.replace(NEWCOMER_K_LINE, "{ games_below = 30, k = 40 }"), encoding="utf-8"
        )
        recalculate_flow(
            "elo_italia",
            str(warehouse),
            date(2019, 4, 1),
            date(2020, 1, 1),
            rulebook_path=str(rulebook),
            scenario=SCENARIO,
        )
        # a corrected crosstable, replayed: revision 2 of the lists from its period on
        deliver_a_corrected_tournament(warehouse, folder / "inbox")
        recalculate_flow("elo_italia", str(warehouse), stale=True)
        # the correction undone (a third version), not replayed: stale lists with reasons
        deliver_a_corrected_tournament(warehouse, folder / "inbox-undo")
    return warehouse


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
