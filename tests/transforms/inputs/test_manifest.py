from datetime import date

import polars as pl

from schemas.inputs import RATING_RANGE, ManifestRow
from schemas.validation import validate
from transforms.inputs.manifest import parse_arbiter_ratings, type_manifest
from transforms.inputs.tabular import with_line_numbers


def _raw(rows: list[dict[str, str | None]]) -> pl.DataFrame:
    return with_line_numbers(pl.DataFrame(rows, schema={k: pl.Utf8 for k in rows[0]}))


GOOD = {
    "tournament_id": "EI-2026-0001",
    "file": "a.trf",
    "system": "elo_italia",
    "received_on": "2026-03-10",
    "start_date": "2026-02-01",
    "end_date": "2026-02-03",
    "time_control": "90+30",
    "arbiter_ratings": "",
}


def test_a_good_row_types_cleanly():
    typed, problems = type_manifest(_raw([GOOD]))
    assert problems.height == 0
    row = typed.row(0, named=True)
    assert row["received_on"] == date(2026, 3, 10)
    assert row["line_no"] == 2  # line 1 is the header
    assert validate(ManifestRow, typed).ok


def test_missing_receipt_date_is_rejected_with_a_plain_reason():
    typed, problems = type_manifest(_raw([GOOD, {**GOOD, "tournament_id": "X", "received_on": ""}]))
    assert problems.height == 1
    found = problems.row(0, named=True)
    assert found["line_no"] == 3
    assert found["field"] == "received_on"
    assert found["reason"] == (
        "received_on is required and is empty (tournament X): the date of receipt decides the "
        "rating period and is never guessed; add it to the manifest and deliver again"
    )
    assert validate(ManifestRow, typed).problems.filter(pl.col("field") == "received_on").height


def test_unreadable_date_and_unknown_system_are_reported():
    raw = _raw([{**GOOD, "received_on": "10/03/2026", "system": "blitz"}])
    typed, problems = type_manifest(raw)
    assert problems.get_column("field").to_list() == ["received_on"]
    assert "YYYY-MM-DD" in problems["reason"][0]
    schema = validate(ManifestRow, typed).problems
    assert "system must be one of elo_italia, elo_rapid" in schema["reason"].to_list()


def test_dates_out_of_order_fail_the_frame_check():
    typed, _ = type_manifest(_raw([{**GOOD, "start_date": "2026-02-05"}]))
    reasons = validate(ManifestRow, typed).problems["reason"].to_list()
    assert "start_date must not be after end_date" in reasons


def test_repeated_tournament_ids_are_both_reported():
    typed, _ = type_manifest(_raw([GOOD, GOOD]))
    problems = validate(ManifestRow, typed).problems
    assert sorted(problems.filter(pl.col("field") == "tournament_id")["line_no"]) == [2, 3]


def test_arbiter_ratings_are_split_and_bad_pairs_reported():
    typed, _ = type_manifest(_raw([{**GOOD, "arbiter_ratings": "12=1650; 15 = 1500;x=3"}]))
    ratings, problems = parse_arbiter_ratings(typed)
    assert ratings.sort("start_number").rows() == [
        ("EI-2026-0001", 12, 1650),
        ("EI-2026-0001", 15, 1500),
    ]
    assert problems.get_column("value").to_list() == ["x=3"]


def test_an_arbiter_rating_that_is_no_rating_or_given_twice_is_refused():
    # 5=16100: a mistyped 1610 would be published as the player's rating; 7 given two ratings:
    # neither is taken; 9=1500 stands
    typed, _ = type_manifest(_raw([{**GOOD, "arbiter_ratings": "5=16100;7=1610;7=1700;9=1500"}]))
    ratings, problems = parse_arbiter_ratings(typed)
    assert ratings.rows() == [("EI-2026-0001", 9, 1500)]
    assert problems.select("value", "reason").rows() == [
        (
            "5=16100",
            "16100 is not a rating (from 0 to 3500): a mistyped arbiter rating would be "
            "published as the player's rating",
        ),
        ("7=1610", "start number 7 is given 2 arbiter ratings (1610, 1700): give one"),
        ("7=1700", "start number 7 is given 2 arbiter ratings (1610, 1700): give one"),
    ]


def test_a_negative_arbiter_rating_is_outside_the_ratings_not_a_malformed_pair():
    typed, _ = type_manifest(_raw([{**GOOD, "arbiter_ratings": "5=-5;9=1500"}]))
    ratings, problems = parse_arbiter_ratings(typed)
    assert ratings.rows() == [("EI-2026-0001", 9, 1500)]
    lowest, highest = RATING_RANGE["min_value"], RATING_RANGE["max_value"]
    assert problems.select("value", "reason").rows() == [
        (
            "5=-5",
            f"-5 is not a rating (from {lowest} to {highest}): a mistyped arbiter rating would "
            "be published as the player's rating",
        )
    ]
