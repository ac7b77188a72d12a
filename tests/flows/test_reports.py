"""The report sections every run shares: what a run read that is worth reading first is not
cut off behind what the analyst has seen before."""

from __future__ import annotations

import polars as pl

from flows.reports import MAX_LISTED, problems_section


def _warnings(rows: list[tuple[str, int | None, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "severity": ["warning"] * len(rows),
            "file_name": [file for file, _, _ in rows],
            "tournament_id": ["T-1"] * len(rows),
            "line_no": [line for _, line, _ in rows],
            "field": [None] * len(rows),
            "value": [None] * len(rows),
            "reason": [reason for _, _, reason in rows],
        },
        schema_overrides={"line_no": pl.Int64, "field": pl.Utf8, "value": pl.Utf8},
    )


def test_new_warnings_come_first_and_the_rest_are_pointed_to() -> None:
    repeated = [("bunratty.tab", line, f"player {line}: a bye counted as 0") for line in range(30)]
    moved = ("manifest.csv", None, "this version moves the tournament to a later period")
    manifest = ("manifest.csv", 4, "the manifest's time_control is used")
    read = _warnings([*repeated, manifest, moved])
    new = _warnings([manifest, moved]).drop("severity", "value")
    section = problems_section(read, new)
    listed = [line for line in section.splitlines() if line.startswith("- ")]
    assert f"## Warnings (32, first {MAX_LISTED}: new ones first" in section
    # the new ones first, the whole-file one before the one of a line
    assert listed[0].endswith(moved[2]) and listed[1].endswith(manifest[2])
    assert listed[2].endswith("player 0: a bye counted as 0")
    assert listed[-1] == "- … and 7 more: `graduatoria problems`, or the `input_warning` view"
    assert len(listed) == MAX_LISTED + 1


def test_a_short_list_of_warnings_is_listed_whole_in_the_order_read() -> None:
    read = _warnings([("a.trf", 3, "three"), ("a.trf", None, "whole"), ("a.trf", 1, "one")])
    section = problems_section(read)
    assert "## Warnings (3)\n" in section
    listed = [line for line in section.splitlines() if line.startswith("- ")]
    assert [line.rsplit(": ", 1)[1] for line in listed] == ["whole", "three", "one"]
