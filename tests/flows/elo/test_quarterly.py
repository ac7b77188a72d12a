"""End-to-end: a small demo federation through ingest and the quarterly flow into DuckDB."""

import json
from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")

SEASON = 2019


@pytest.fixture
def loaded_warehouse(season_warehouse) -> Path:
    return season_warehouse(SEASON)


def test_a_quarter_is_published_into_the_public_views(loaded_warehouse):
    from flows.elo.lists import quarterly_flow

    counts = quarterly_flow("elo_italia", date(SEASON, 4, 1), str(loaded_warehouse))
    assert counts["new_revision"] == 1
    with Warehouse(loaded_warehouse).reader() as con:
        listed = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE games > 0) FROM rating_list "
            "WHERE system = 'elo_italia' AND list_date = ?",
            [date(SEASON, 4, 1)],
        ).fetchone()
        # every Elo Italia rating is the frozen rating plus the sum of its variations in
        # hundredths, rounded half away from zero, as a dashboard can rebuild it exactly
        mismatched, variations = con.execute(
            """
            SELECT count(*) FILTER (WHERE l.rating <> l.frozen_rating
                       + CAST(sign(v.total) * ((abs(v.total) + 50) // 100) AS INTEGER)),
                   sum(v.rows)
            FROM rating_list l
            JOIN (SELECT player_id, sum(applied_hundredths) AS total, count(*) AS rows
                  FROM variation WHERE list_date = $day
                   AND applied_hundredths = round(applied_variation * 100)
                  GROUP BY ALL) v USING (player_id)
            WHERE l.list_date = $day AND l.rating_type = 'elo_italia'
              AND l.rating_basis NOT IN ('fide', 'fide_reentry')
            """,
            {"day": date(SEASON, 4, 1)},
        ).fetchone()
        all_variations = con.execute(
            "SELECT count(*) FROM variation v JOIN rating_list l USING (system, list_date, "
            "player_id) WHERE v.list_date = $day AND l.rating_type = 'elo_italia' "
            "AND l.rating_basis NOT IN ('fide', 'fide_reentry')",
            {"day": date(SEASON, 4, 1)},
        ).fetchone()[0]
        ranking = con.execute(
            "SELECT ranking, min(position), count(*) FROM ranking WHERE list_date = ? "
            "GROUP BY ALL ORDER BY ranking",
            [date(SEASON, 4, 1)],
        ).fetchall()
        run = con.execute(
            "SELECT status, rulebook_hash, input_checksums FROM run WHERE flow = 'quarterly'"
        ).fetchall()
    assert listed[0] > 0 and listed[1] > 0
    with Warehouse(loaded_warehouse).reader() as con:
        # activity known from the imported list carries into the first computed list
        carried = con.execute(
            "SELECT count(*) FILTER (WHERE is_active), count(*) FILTER (WHERE NOT is_active) "
            "FROM rating_list WHERE list_date = ? AND games = 0 AND rating_basis = 'list'",
            [date(SEASON, 4, 1)],
        ).fetchone()
    assert carried[0] > 0 and carried[1] > 0
    assert mismatched == 0 and variations == all_variations > 0
    assert [name for name, _, _ in ranking] == ["overall", "women", "youth"]
    assert all(first == 1 and size > 0 for _, first, size in ranking)
    assert run[0][0] == "succeeded" and len(run[0][1]) == 64
    # the fingerprint of every input the list read, as an ingest keeps its files' checksums,
    # and of the code that computed it
    checksums = json.loads(run[0][2])
    assert sorted(checksums) == [
        "code of the lists",
        f"inputs of the elo_italia list of {SEASON}-04-01",
    ]
    assert len(checksums[f"inputs of the elo_italia list of {SEASON}-04-01"]) == 64
    assert len(checksums["code of the lists"]) == 64

    again = quarterly_flow("elo_italia", date(SEASON, 4, 1), str(loaded_warehouse))
    assert again["new_revision"] == 0 and again["revision"] == 1


def test_a_list_needs_the_one_before_it(loaded_warehouse):
    from flows.elo.lists import quarterly_flow
    from flows.publishing.arguments import ListError

    with pytest.raises(ListError, match=f"list of {SEASON}-07-01 has not been published"):
        quarterly_flow("elo_italia", date(SEASON, 10, 1), str(loaded_warehouse))
    with pytest.raises(ListError, match="is not a list date"):
        quarterly_flow("elo_italia", date(SEASON, 5, 1), str(loaded_warehouse))


def test_a_refused_list_takes_no_copy_of_the_warehouse(loaded_warehouse, capsys):
    from flows.elo.lists import quarterly_flow
    from flows.publishing.arguments import ListError

    quarterly_flow("elo_italia", date(SEASON, 4, 1), str(loaded_warehouse))
    assert loaded_warehouse.with_name(f".{loaded_warehouse.name}.standby").exists()
    capsys.readouterr()
    # refused on the read-only session: the run takes neither the standby nor a copy, and its
    # record is written in the standby, as any write
    with pytest.raises(ListError, match=f"list of {SEASON}-07-01 has not been published"):
        quarterly_flow("elo_italia", date(SEASON, 10, 1), str(loaded_warehouse))
    assert "writing in a copy" not in capsys.readouterr().out
    with Warehouse(loaded_warehouse).reader() as con:
        statuses = con.execute(
            "SELECT status, count(*) FROM run WHERE flow = 'quarterly' GROUP BY ALL ORDER BY 1"
        ).fetchall()
    assert statuses == [("failed", 1), ("succeeded", 1)]


def test_a_list_after_a_stale_one_is_refused_without_a_copy_of_the_warehouse(
    loaded_warehouse, tmp_path, capsys
):
    from flows.elo.lists import quarterly_flow
    from flows.publishing.arguments import ListError
    from tests.flows.helpers import deliver_a_corrected_tournament

    warehouse = str(loaded_warehouse)
    quarterly_flow("elo_italia", date(SEASON, 4, 1), warehouse)
    quarterly_flow("elo_italia", date(SEASON, 7, 1), warehouse)
    # a corrected tournament of the July list makes it stale: the October list is refused on
    # the read-only session, so the run neither takes the standby (a run that fails in its
    # transaction drops it) nor copies the warehouse to record itself
    deliver_a_corrected_tournament(loaded_warehouse, tmp_path / "corrections")
    capsys.readouterr()
    with pytest.raises(ListError, match=f"list of {SEASON}-07-01 is stale"):
        quarterly_flow("elo_italia", date(SEASON, 10, 1), warehouse)
    assert "writing in a copy" not in capsys.readouterr().out
    assert loaded_warehouse.with_name(f".{loaded_warehouse.name}.standby").exists()
    with Warehouse(loaded_warehouse).reader() as con:
        last = con.execute(
            "SELECT status, report FROM run WHERE flow = 'quarterly' "
            "ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
    assert last[0] == "failed" and "recalculate --system elo_italia --stale" in last[1]


def test_revisions_written_without_receipt_windows_get_them_and_stay_current(loaded_warehouse):
    import duckdb

    from flows.elo.lists import quarterly_flow

    warehouse = str(loaded_warehouse)
    quarterly_flow("elo_italia", date(SEASON, 4, 1), warehouse)
    # as a version before the receipt windows wrote it: the stale lists cannot be told on the
    # read-only session, the run gives the revision its window, and the list is still current
    with duckdb.connect(warehouse) as con:
        con.execute("UPDATE list_revision SET received_after = NULL, received_up_to = NULL")
    assert quarterly_flow("elo_italia", date(SEASON, 4, 1), warehouse)["new_revision"] == 0
    with Warehouse(loaded_warehouse).reader() as con:
        windowless = con.execute(
            "SELECT count(*) FROM list_revision WHERE received_up_to IS NULL"
        ).fetchone()[0]
    assert windowless == 0
    assert quarterly_flow("elo_italia", date(SEASON, 7, 1), warehouse)["revision"] == 1


def test_a_new_revision_from_a_quarterly_run_records_its_differences(loaded_warehouse, tmp_path):
    from flows.elo.lists import quarterly_flow
    from tests.flows.helpers import deliver_a_corrected_tournament

    warehouse = str(loaded_warehouse)
    quarterly_flow("elo_italia", date(SEASON, 4, 1), warehouse)
    quarterly_flow("elo_italia", date(SEASON, 7, 1), warehouse)
    # a corrected crosstable of a tournament of the July list, then that list again
    assert deliver_a_corrected_tournament(loaded_warehouse, tmp_path / "corrections")[1] == 1
    counts = quarterly_flow("elo_italia", date(SEASON, 7, 1), warehouse)
    assert counts["revision"] == 2
    with Warehouse(loaded_warehouse).reader() as con:
        differing = con.execute(
            "SELECT count(*) FROM list_diff WHERE list_date = ? AND revision = 2 "
            "AND against_revision = 1",
            [date(SEASON, 7, 1)],
        ).fetchone()[0]
        report = con.execute(
            "SELECT report FROM run WHERE flow = 'quarterly' ORDER BY started_at DESC LIMIT 1"
        ).fetchone()[0]
    assert differing > 0
    assert report.startswith(f"Revision 2 replaces revision 1: {differing} players differ")


def test_an_imported_list_warns_of_what_it_cannot_take_as_it_is(tmp_path):
    from flows.import_list import import_list_flow

    listing = tmp_path / "list.csv"
    listing.write_text(
        "player_id,rating,games,k,category\n1,1500,0,30,XX\n2,1600,10,20,1N\n", encoding="utf-8"
    )
    warehouse = tmp_path / "w.duckdb"
    import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), str(warehouse))
    with Warehouse(warehouse).reader() as con:
        warned = con.execute(
            "SELECT line_no, field, value FROM input_warning ORDER BY line_no, field"
        ).fetchall()
        report = con.execute("SELECT report FROM run WHERE flow = 'import-list'").fetchone()[0]
        listed = con.execute("SELECT player_id, category FROM rating_list ORDER BY 1").fetchall()
    # an unknown category and two players the registry (none loaded) does not know
    assert warned == [(2, "category", "XX"), (2, "player_id", "1"), (3, "player_id", "2")]
    assert "## Warnings (3)\n" in report
    assert "- WARNING: no registry snapshot in force on 2019-01-01 is loaded" in report
    assert "XX is not a category of elo_italia" in report
    assert listed == [("1", None), ("2", "1N")]


def test_a_list_is_refused_while_a_list_before_it_is_stale(loaded_warehouse, tmp_path):
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow
    from flows.publishing.arguments import ListError
    from tests.flows.helpers import deliver_a_corrected_tournament

    warehouse = str(loaded_warehouse)
    quarterly_flow("elo_italia", date(SEASON, 4, 1), warehouse)
    quarterly_flow("elo_italia", date(SEASON, 7, 1), warehouse)
    # a corrected crosstable of a tournament the July list rated: that list is stale, and the
    # October list would be built on its old numbers
    corrected, versions = deliver_a_corrected_tournament(loaded_warehouse, tmp_path / "inbox")
    assert versions == 1
    with pytest.raises(
        ListError,
        match=rf"list of {SEASON}-07-01 is stale \(its inputs changed since it was written: new "
        rf"versions of {corrected}\): replay it first with `graduatoria recalculate --system "
        r"elo_italia --stale`",
    ):
        quarterly_flow("elo_italia", date(SEASON, 10, 1), warehouse)
    assert recalculate_flow("elo_italia", warehouse, stale=True)["new_revisions"] == 1
    assert quarterly_flow("elo_italia", date(SEASON, 10, 1), warehouse)["revision"] == 1


def test_a_list_whose_receipt_window_is_still_open_is_refused(
    loaded_warehouse, monkeypatch, capsys
):
    import flows.publishing.arguments
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow
    from flows.publishing.arguments import ListError

    # on 10 June the April list can be published; the July one takes what arrives up to 15 June
    monkeypatch.setattr(flows.publishing.arguments, "today", lambda: date(SEASON, 6, 10))
    quarterly_flow("elo_italia", date(SEASON, 4, 1), str(loaded_warehouse))
    capsys.readouterr()
    with pytest.raises(ListError, match=rf"received up to {SEASON}-06-15, a window still open"):
        quarterly_flow("elo_italia", date(SEASON, 7, 1), str(loaded_warehouse))
    # nor may a replay run into it (a deployment calls the flow without the command line's
    # checks); both are refused before the run takes the standby, so neither copies the file
    with pytest.raises(ListError, match=rf"received up to {SEASON}-06-15, a window still open"):
        recalculate_flow(
            "elo_italia", str(loaded_warehouse), date(SEASON, 4, 1), date(SEASON, 7, 1)
        )
    assert "writing in a copy" not in capsys.readouterr().out
    monkeypatch.setattr(flows.publishing.arguments, "today", lambda: date(SEASON, 6, 16))
    assert quarterly_flow("elo_italia", date(SEASON, 7, 1), str(loaded_warehouse))["revision"] == 1


def test_the_report_counts_the_provisional_players_on_the_list(loaded_warehouse):
    # players the registry did not identify are on the list under provisional ids: the
    # analyst reads how many, and where to look, in the list's report
    from flows.elo.lists import quarterly_flow

    quarterly_flow("elo_italia", date(SEASON, 4, 1), str(loaded_warehouse))
    with Warehouse(loaded_warehouse).reader() as con:
        provisional = con.execute(
            "SELECT count(*) FROM rating_list WHERE system = 'elo_italia' AND player_id LIKE 'P-%'"
        ).fetchone()[0]
        report = con.execute(
            "SELECT report FROM run WHERE flow = 'quarterly' ORDER BY started_at DESC LIMIT 1"
        ).fetchone()[0]
    assert provisional > 0  # the demo season's files name players the registry lacks
    assert f"- provisional players (not found in the registry): {provisional}; " in report
