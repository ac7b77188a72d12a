"""``graduatoria reconcile`` on a demo season: the computed list, exported as the import-list CSV
and altered by hand, comes back with every alteration found, its cause and its evidence."""

from __future__ import annotations

import csv
import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from flows.export import ExportError, export_list
from flows.warehouse import Warehouse
from tests.flows.test_export import APRIL, published_season

pytestmark = pytest.mark.usefixtures("prefect_server")

HEADER = ["player_id", "rating", "games", "k", "category", "last_played"]


@pytest.fixture(scope="module")
def published_base(_season_bases, tmp_path_factory) -> Path:
    return published_season(_season_bases, tmp_path_factory)


@pytest.fixture
def warehouse(published_base, tmp_path) -> Path:
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(published_base, copy)
    return copy


def _exported(warehouse: Path, folder: Path, system: str = "elo_italia") -> list[dict[str, str]]:
    """The computed list as the import-list CSV, read back as rows, with the list's own columns
    (basis, games in the period) beside them to choose whom to alter."""
    export_list(str(warehouse), system, APRIL, "import-list", str(folder / "computed.csv"))
    export_list(str(warehouse), system, APRIL, "csv", str(folder / "full.csv"))
    with (folder / "full.csv").open(encoding="utf-8") as handle:
        full = {row["player_id"]: row for row in csv.DictReader(handle)}
    with (folder / "computed.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with Warehouse(warehouse).reader() as con:
        # the period's sum of variations in hundredths, which the list rounds to the change
        sums = dict(
            con.execute(
                "SELECT player_id, sum(applied_hundredths) FROM variation WHERE system = ? "
                "AND list_date = ? GROUP BY player_id",
                [system, APRIL],
            ).fetchall()
        )
    for row in rows:
        row["_basis"] = full[row["player_id"]]["rating_basis"]
        row["_period_games"] = full[row["player_id"]]["games"]
        row["_type"] = full[row["player_id"]]["rating_type"]
        row["_frozen"] = full[row["player_id"]]["frozen_rating"]
        row["_hundredths"] = sums.get(row["player_id"])
    return rows


def _other_rounding(row: dict[str, str]) -> int:
    """How far from the list's rating the period's sum rounded the other way lies (+1 where
    the list rounded down, -1 where it rounded up)."""
    change = int(row["rating"]) - int(row["_frozen"])
    return 1 if change * 100 < row["_hundredths"] else -1


def _write(rows: list[dict[str, str]], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=HEADER, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def _altered_copy(rows: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, str]]:
    """A copy of the published rows with one deliberate alteration per cause; the causes
    expected, by player."""
    carried = sorted(
        (row for row in rows if row["_basis"] == "list" and int(row["_period_games"]) > 0),
        key=lambda row: row["player_id"],
    )
    # a sum with hundredths, published rounded the other way: the one-point rounding
    rounded = next(row for row in carried if row["_hundredths"] % 100)
    carried.remove(rounded)
    idle = sorted(
        (row for row in rows if row["_basis"] == "list" and row["_period_games"] == "0"),
        key=lambda row: row["player_id"],
    )
    entered = sorted(
        (row for row in rows if row["_basis"] == "entry"), key=lambda row: row["player_id"]
    )
    altered = [dict(row) for row in rows]
    by_id = {row["player_id"]: row for row in altered}
    expected = {}

    def alter(row: dict[str, str], cause: str, **changes: int | str) -> None:
        target = by_id[row["player_id"]]
        for name, change in changes.items():
            target[name] = str(int(target[name]) + change) if isinstance(change, int) else change
        expected[row["player_id"]] = cause

    alter(rounded, "rounding", rating=_other_rounding(rounded))
    alter(carried[1], "k_differs", k="40" if carried[1]["k"] != "40" else "10")
    alter(carried[2], "missing_tournament", games=+7, rating=+12)
    alter(carried[3], "extra_tournament", games=-3, rating=-5)
    alter(carried[4], "unknown", rating=+80)
    alter(entered[0], "entry_differs", rating=+25)
    category = "1N" if idle[0]["category"] != "1N" else "2N"
    alter(idle[0], "category_differs", category=category)
    removed = idle[1]["player_id"]
    altered.remove(by_id[removed])
    expected[removed] = "only_computed"
    altered.append(
        {"player_id": "999001", "rating": "1503", "games": "20", "k": "30", "category": "NC"}
    )
    expected["999001"] = "only_published"
    return altered, expected


def test_a_demo_list_against_a_deliberately_altered_copy(warehouse, tmp_path, capsys):
    from flows.reconcile import reconcile_flow

    rows = _exported(warehouse, tmp_path)
    altered, expected = _altered_copy(rows)
    published = _write(altered, tmp_path / "published.csv")
    counts = reconcile_flow(str(published), "elo_italia", APRIL, str(warehouse))
    printed = capsys.readouterr().out
    (tmp_path / "report.md").write_text(printed, encoding="utf-8")

    players = len(rows)
    summary_counts = {
        "published_players": players,
        "computed_players": players,
        "on_both": players - 1,
        "agree_exactly": players - 1 - 5,
        "within_one": 1,
        "beyond_one": 4,
        "only_computed": 1,
        "only_published": 1,
        "differing": 9,
    }
    assert {key: counts[key] for key in summary_counts} == summary_counts
    with Warehouse(warehouse).reader() as con:
        found = {
            player_id: (cause, evidence)
            for player_id, cause, evidence in con.execute(
                "SELECT player_id, cause, evidence FROM reconciliation"
            ).fetchall()
        }
        summary = con.execute(
            "SELECT system, scenario, list_date, revision, file_name, agree_exactly, within_one, "
            "beyond_one, differing FROM reconciliation_summary"
        ).fetchall()
        run = con.execute(
            "SELECT status, counts, report, input_checksums FROM run WHERE flow = 'reconcile'"
        ).fetchall()
    assert {player_id: cause for player_id, (cause, _) in found.items()} == expected
    assert summary == [("elo_italia", "official", APRIL, 1, "published.csv", players - 6, 1, 4, 9)]
    ((status, run_counts, report, checksums),) = run
    assert status == "succeeded" and json.loads(run_counts)["rounding"] == 1
    assert report in printed and list(json.loads(checksums)) == [str(published)]

    by_cause = {cause: evidence for cause, evidence in found.values()}
    # the evidence gives the numbers that make the cause
    assert "one point apart" in by_cause["rounding"] and "rounded to" in by_cause["rounding"]
    assert "published, " in by_cause["k_differs"] and "ratings agree" in by_cause["k_differs"]
    assert (
        "7 more there" in by_cause["missing_tournament"]
        and "(published +12)" in by_cause["missing_tournament"]
    )
    assert "3 fewer there" in by_cause["extra_tournament"]
    assert "(published +80)" in by_cause["unknown"]
    assert "rating basis entry" in by_cause["entry_differs"]
    assert "(published +25)" in by_cause["entry_differs"]
    assert "category" in by_cause["category_differs"]
    assert "in no registry snapshot" in by_cause["only_published"]
    assert "on the computed list only" in by_cause["only_computed"]
    for cause in set(expected.values()):
        assert f"## {cause} (1)" in printed


def test_the_rounding_evidence_is_the_exact_sum_that_rounds_to_the_rating(warehouse, tmp_path):
    from flows.reconcile import reconcile_flow

    rows = _exported(warehouse, tmp_path)
    altered, expected = _altered_copy(rows)
    rounded = next(player for player, cause in expected.items() if cause == "rounding")
    reconcile_flow(str(_write(altered, tmp_path / "p.csv")), "elo_italia", APRIL, str(warehouse))
    with Warehouse(warehouse).reader() as con:
        evidence, frozen, computed, published = con.execute(
            "SELECT r.evidence, l.frozen_rating, r.computed_rating, r.published_rating "
            "FROM reconciliation r JOIN rating_list l USING (system, list_date, player_id) "
            "WHERE r.player_id = ?",
            [rounded],
        ).fetchone()
        hundredths, count = con.execute(
            "SELECT sum(applied_hundredths), count(*) FROM variation "
            "WHERE system = 'elo_italia' AND list_date = ? AND player_id = ?",
            [APRIL, rounded],
        ).fetchone()
    tournaments = f"{count} tournament{'s' if count > 1 else ''}"
    change = computed - frozen
    assert (
        f"the variations over {tournaments} sum to {hundredths / 100:+.2f}, which this list "
        f"rounds to {change:+d}: {frozen} {'+' if change >= 0 else '-'} {abs(change)} = "
        f"{computed}; the published {published} is the sum rounded to {published - frozen:+d}"
        in evidence
    )


def test_the_unaltered_export_reconciles_exactly(warehouse, tmp_path):
    from flows.reconcile import reconcile_flow

    rows = _exported(warehouse, tmp_path)
    counts = reconcile_flow(
        str(_write(rows, tmp_path / "same.csv")), "elo_italia", APRIL, str(warehouse)
    )
    assert counts["differing"] == 0
    assert counts["agree_exactly"] == counts["on_both"] == len(rows)
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT count(*) FROM reconciliation").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM reconciliation_summary").fetchone() == (1,)


def test_an_elo_rapid_letter_published_otherwise_is_a_category_difference(warehouse, tmp_path):
    from flows.reconcile import reconcile_flow

    rows = _exported(warehouse, tmp_path, "elo_rapid")
    # the first Rapid list: every letter provisional (Gx); the federation's file says G
    target = sorted(rows, key=lambda row: row["player_id"])[0]
    assert target["category"].endswith("x")
    target["category"] = target["category"][0].lower()  # any case, as import-list reads it
    reconcile_flow(str(_write(rows, tmp_path / "rapid.csv")), "elo_rapid", APRIL, str(warehouse))
    with Warehouse(warehouse).reader() as con:
        found = con.execute(
            "SELECT player_id, cause, published_category, computed_category FROM reconciliation"
        ).fetchall()
    letter = target["category"].upper()
    assert found == [(target["player_id"], "category_differs", letter, f"{letter}x")]


def test_a_published_file_with_an_unreadable_row_is_refused(warehouse, tmp_path):
    from flows.reconcile import ReconcileError, reconcile_flow

    rows = _exported(warehouse, tmp_path)
    rows[4]["rating"] = "15o0"
    published = _write(rows, tmp_path / "typo.csv")
    with pytest.raises(ReconcileError, match=r"typo\.csv: 1 row cannot be read \(line 6, rating"):
        reconcile_flow(str(published), "elo_italia", APRIL, str(warehouse))
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT count(*) FROM reconciliation_summary").fetchone() == (0,)
        assert con.execute("SELECT status FROM run WHERE flow = 'reconcile'").fetchall() == [
            ("failed",)
        ]


def test_a_list_the_warehouse_does_not_hold_is_refused(warehouse, tmp_path):
    from flows.reconcile import reconcile_flow

    published = _write(_exported(warehouse, tmp_path), tmp_path / "p.csv")
    with pytest.raises(ExportError, match="no elo_italia list of 2019-07-01"):
        reconcile_flow(str(published), "elo_italia", date(2019, 7, 1), str(warehouse))
    with pytest.raises(ExportError, match="has no revision 4"):
        reconcile_flow(str(published), "elo_italia", APRIL, str(warehouse), revision=4)


def test_a_draughts_list_reconciles_by_its_capitals(tmp_path):
    """A draughts list has no K (the file leaves it empty, and it is not compared), its games
    and capitals are compared as the chess lists' are, its names come from the FID registry."""
    from flows.reconcile import reconcile_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from tests.flows.rubele.test_draughts import _ingested

    warehouse, _ = _ingested(tmp_path)
    july = date(2019, 7, 1)
    rubele_quarterly_flow("rubele_italiana", july, warehouse)
    computed = tmp_path / "computed.csv"
    export_list(warehouse, "rubele_italiana", july, "import-list", str(computed))
    with computed.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["k"] for row in rows} == {""}
    by_id = {row["player_id"]: row for row in rows}
    by_id["D001"]["rating"] = str(int(by_id["D001"]["rating"]) + 1)
    by_id["D002"]["games"] = str(int(by_id["D002"]["games"]) + 2)
    # a K the federation's file gives for a capital is no difference: capitals have none
    by_id["D003"]["k"] = "20"
    rows.append({"player_id": "D004", "rating": "1800", "games": "4", "k": "", "category": "CM"})
    reconcile_flow(str(_write(rows, tmp_path / "fid.csv")), "rubele_italiana", july, warehouse)
    with Warehouse(warehouse).reader() as con:
        found = {
            player_id: (cause, evidence)
            for player_id, cause, evidence in con.execute(
                "SELECT player_id, cause, evidence FROM reconciliation"
            ).fetchall()
        }
    # a point apart on a capital: the list keeps no capital before its rounding, so no
    # rounding is claimed without it; the evidence says where it is
    assert {player_id: cause for player_id, (cause, _) in found.items()} == {
        "D001": "unknown",
        "D002": "missing_tournament",
        "D004": "only_published",
    }
    assert "over 1 tournament =" in found["D001"][1]
    assert "graduatoria explain gives it" in found["D001"][1]
    assert "games to date (2) agree" in found["D001"][1]  # no "K (none)": capitals have none
    assert "in the registry in force on 2019-07-01 as Neri, Paolo" in found["D004"][1]
    txt = tmp_path / "list.txt"
    export_list(warehouse, "rubele_italiana", july, "txt", str(txt))
    lines = txt.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(rows) and all(line[69:72] == "   " for line in lines[1:])


def test_the_rounding_evidence_of_a_fide_rated_player_says_his_rating_is_fide() -> None:
    from flows.reconcile import _rounding

    # a FIDE-rated player's listed rating is his FIDE rating at the close: "2233 + 0.00 =
    # 2233.00, and the list gives 2209" would send the analyst looking for a missing sum
    evidence, rounds = _rounding(
        {"rating_type": "fide", "frozen_rating": 2233, "rating": 2209}, None
    )
    assert evidence == (
        "the list shows his FIDE rating at the close, 2209, not a sum of variations: compare "
        "the FIDE rating the federation used"
    )
    assert not rounds


def _one_point_apart(**mine: object) -> tuple[str, str] | None:
    from flows.reconcile import classify

    computed = {
        "rating": 1501, "total_games": 40, "games": 9, "k": 20, "frozen_rating": 1490,
        "rating_type": "elo_italia", "rating_basis": "list", "period_change": 11,
        "category": "3N", **mine,
    }  # fmt: skip
    published = {"rating": mine.get("published", 1500), "games": 40, "k": 20, "category": "3N"}
    sums = {"tournaments": 2, "applied_hundredths": 1050, "applied_points": None}
    if mine.get("rating_type") == "fide" or mine.get("no_sums"):
        sums = None
    if mine.get("whole"):
        sums = {"tournaments": 2, "applied_hundredths": 1100, "applied_points": None}
    return classify(computed, published, sums, {}, date(2019, 4, 1))


def test_a_point_apart_is_a_rounding_only_where_a_rounding_can_give_it() -> None:
    # 1490 + 10.50 = 1500.50: rounded to 1501 here, 1500 there (another rounding): a rounding
    assert _one_point_apart()[0] == "rounding"
    # 1490 + 11.00 = 1501.00 rounds to itself in every mode; a FIDE rating, or a list without
    # variations in the period, is no rounded sum: nothing above explains the point
    assert _one_point_apart()[1].endswith(
        "here the variations over 2 tournaments sum to +10.50, which this list rounds to +11: "
        "1490 + 11 = 1501; the published 1500 is the sum rounded to +10"
    )
    whole = _one_point_apart(whole=True)
    assert whole[0] == "unknown"
    assert whole[1].endswith(
        "sum to +11.00, which this list rounds to +11: 1490 + 11 = 1501; a whole number, which "
        "no rounding moves"
    )
    # published a point the other side (1502: +12 from +10.50): no rounding gives it
    beyond = _one_point_apart(rating=1501, published=1502)
    assert beyond[0] == "unknown"
    assert beyond[1].endswith("the published 1502 (+12) is no rounding of it")
    assert _one_point_apart(rating_type="fide")[0] == "unknown"
    assert _one_point_apart(no_sums=True)[0] == "unknown"


def test_a_published_file_separated_by_semicolons_is_refused_saying_so(warehouse, tmp_path):
    # as a spreadsheet in an Italian locale saves it: one refusal naming the separator, not
    # one rejection per required column of every row ("9172 rows cannot be read")
    from flows.import_list import import_list_flow
    from flows.publishing.arguments import ListError
    from flows.reconcile import ReconcileError, reconcile_flow

    rows = _exported(warehouse, tmp_path)
    commas = _write(rows, tmp_path / "commas.csv").read_text(encoding="utf-8")
    published = tmp_path / "semicolons.csv"
    published.write_text(commas.replace(",", ";"), encoding="utf-8")
    with pytest.raises(
        ReconcileError,
        match=r"semicolons\.csv: the whole file cannot be read \(line 1: the header lacks the "
        r"required columns player_id, rating, games: the file seems separated by ';'",
    ):
        reconcile_flow(str(published), "elo_italia", APRIL, str(warehouse))
    with pytest.raises(
        ListError,
        match=r"semicolons\.csv: the whole file rejected \(line 1: the header lacks the required "
        r"columns player_id, rating, games: the file seems separated by ';'.*\), nothing",
    ):
        import_list_flow(str(published), "elo_italia", date(2018, 1, 1), str(tmp_path / "i.db"))
    # a file whose rows each have several faults counts its rows, and its problems apart
    for row in rows[:3]:
        row["rating"], row["games"] = "x", "y"
    with pytest.raises(ReconcileError, match=r"faults\.csv: 3 rows \(6 problems\) cannot be"):
        reconcile_flow(
            str(_write(rows, tmp_path / "faults.csv")), "elo_italia", APRIL, str(warehouse)
        )


def test_a_fide_rated_players_k_is_no_difference() -> None:
    # his games count only for his opponents (RULES.md §1.3): the K a list shows him applies
    # to nothing, and a federation's file that gives another (or none) differs in nothing
    from flows.reconcile import classify

    computed = {
        "rating": 2233, "total_games": 40, "games": 0, "k": 30, "frozen_rating": 2233,
        "rating_type": "fide", "rating_basis": "fide", "period_change": 0, "category": "M",
    }  # fmt: skip
    published = {"rating": 2233, "games": 40, "k": 10, "category": "M"}
    assert classify(computed, published, None, {}, date(2019, 4, 1)) is None
    # an Elo Italia player's K is compared as before
    rated = {**computed, "rating_type": "elo_italia", "rating_basis": "list"}
    assert classify(rated, published, None, {}, date(2019, 4, 1))[0] == "k_differs"
