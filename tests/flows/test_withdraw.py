"""Withdrawing a mistaken delivery: a new version rated by no list, the lists that rated it
stale until replayed, its files kept, and a withdrawal twice refused."""

from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_a_withdrawn_tournament_leaves_the_lists_that_rated_it(season_warehouse, capsys):
    from flows.elo.recalculate import recalculate_flow
    from flows.status import stale_of
    from flows.withdraw import WithdrawError, withdraw_flow

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2019, 7, 1))
    with Warehouse(warehouse).reader() as con:
        tournament_id, version = con.execute(
            "SELECT v.tournament_id, t.version FROM variation v JOIN tournament t "
            "USING (tournament_id) WHERE v.system = 'elo_italia' "
            "AND v.list_date = '2019-04-01' ORDER BY v.tournament_id LIMIT 1"
        ).fetchone()
    counts = withdraw_flow(tournament_id, "delivered by mistake: a club match", warehouse)
    assert counts == {"version": version + 1, "lists_rating_it": 1}
    with Warehouse(warehouse).reader() as con:
        assert [item.list_date for item in stale_of(con, "elo_italia")] == [
            date(2019, 4, 1),
            date(2019, 7, 1),
        ]
        report = con.execute("SELECT report FROM run_record WHERE flow = 'withdraw'").fetchone()[0]
        kept = con.execute(
            "SELECT count(*) FROM tournament_version v JOIN raw_file f "
            "ON f.sha256 = v.file_sha256 WHERE v.tournament_id = ?",
            [tournament_id],
        ).fetchone()[0]
    assert "- 1 list rated it and is now stale: elo_italia 2019-04-01" in report
    assert kept == version + 1  # every version, the withdrawn one too, names the archived file

    assert recalculate_flow("elo_italia", warehouse, stale=True)["new_revisions"] == 2
    with Warehouse(warehouse).reader() as con:
        rated = con.execute(
            "SELECT count(*) FROM variation WHERE tournament_id = ?", [tournament_id]
        ).fetchone()[0]
        excluded = con.execute(
            "SELECT list_date, reason FROM excluded_tournament WHERE tournament_id = ?",
            [tournament_id],
        ).fetchall()
        assert stale_of(con, "elo_italia") == []
    assert rated == 0
    assert excluded == [(date(2019, 4, 1), "withdrawn: delivered by mistake: a club match")]
    # refused on a read-only session: the standby stays, and no copy of the warehouse is made
    # to record the refused runs
    standby = Path(warehouse).with_name(f".{Path(warehouse).name}.standby")
    capsys.readouterr()
    with pytest.raises(WithdrawError, match=f"{tournament_id} is withdrawn already"):
        withdraw_flow(tournament_id, "again", warehouse)
    with pytest.raises(WithdrawError, match="no tournament NOPE-1 in the warehouse"):
        withdraw_flow("NOPE-1", "a typo", warehouse)
    assert "writing in a copy" not in capsys.readouterr().out
    assert standby.exists()
    with Warehouse(warehouse).reader() as con:
        refused = con.execute(
            "SELECT count(*) FROM run_record WHERE flow = 'withdraw' AND status = 'failed'"
        ).fetchone()[0]
    assert refused == 2
