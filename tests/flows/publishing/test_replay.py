"""The recalculation report's row per list (flows/publishing/replay.py)."""

import polars as pl

from flows.publishing.replay import diff_summary
from transforms.lists.diffs import DIFF_COLUMNS


def test_a_list_s_differences_are_counted_by_kind_and_the_largest_is_of_a_player_on_both():
    # L left the list (no difference to show), N entered it: counted there only; among those
    # on both, B changed category, A and C position, and A moved most
    diff = pl.DataFrame(
        [
            ("L", "Left", 1498, None, None, "NC", None, 40, None),
            ("N", "New", None, 1440, None, None, "NC", None, 90),
            ("A", "Alpha", 1600, 1630, 30, "2N", "2N", 10, 8),
            ("B", "Beta", 1700, 1690, -10, "2N", "1N", 5, 5),
            ("C", "Gamma", 1500, 1500, 0, "3N", "3N", 20, 21),
        ],
        schema=dict.fromkeys(DIFF_COLUMNS, pl.Utf8)
        | {
            name: pl.Int32
            for name in ("old_rating", "new_rating", "difference", "old_position", "new_position")
        },
        orient="row",
    )
    assert diff_summary(diff) == ["5", "2", "1", "2", "1 / 1", "Alpha: 1600 -> 1630"]
    assert diff_summary(None) == ["—", "—", "—", "—", "—", ""]  # a first computation


def test_a_scenario_report_has_its_own_artifact_key():
    from flows.runtime import artifact_key

    assert artifact_key("elo_italia", "recalculation") == "elo-italia-recalculation"
    assert (
        artifact_key("elo_italia", "scenario", "K 40 (test)", "recalculation")
        == "elo-italia-scenario-k-40-test-recalculation"
    )
