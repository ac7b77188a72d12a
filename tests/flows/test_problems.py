"""``graduatoria problems``: what the inputs did not give, filtered, read from the warehouse."""

from datetime import date

import pytest

from flows.problems import ProblemFilter, problems_text
from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_problems_lists_quarantined_withdrawn_and_recorded_problems_with_filters(
    season_warehouse,
):
    from flows.withdraw import withdraw_flow

    warehouse = str(season_warehouse(2019))
    with Warehouse(warehouse).reader() as con:
        quarantined = con.execute(
            "SELECT tournament_id, system, delivery FROM tournament "
            "WHERE status = 'quarantined' ORDER BY tournament_id"
        ).fetchall()
        accepted = con.execute(
            "SELECT tournament_id FROM tournament WHERE status = 'accepted' "
            "ORDER BY tournament_id LIMIT 1"
        ).fetchone()[0]
        rejections = con.execute("SELECT count(*) FROM rejection").fetchone()[0]
    assert quarantined and rejections
    withdraw_flow(accepted, "delivered twice under two ids", warehouse)

    everything = problems_text(warehouse, ProblemFilter(runs=100))
    assert f"Quarantined tournaments (not rated until delivered again): {len(quarantined)}" in (
        everything
    )
    for tournament_id, _, _ in quarantined:
        assert f"  {tournament_id} (" in everything
    # the demo's delivery row without a date of receipt says so, not "received None"
    assert "no date of receipt)" in everything and "received None" not in everything
    assert f"Withdrawn tournaments: 1\n  {accepted} (" in everything
    assert "delivered twice under two ids" in everything
    assert f"Rejections recorded by the latest 100 runs that recorded any: {rejections}" in (
        everything
    )

    first_id, system, delivery = quarantined[0]
    one = problems_text(warehouse, ProblemFilter(tournament=first_id, runs=100))
    assert f"  {first_id} (" in one and accepted not in one
    assert all(
        f"[{first_id}]" in line
        for line in one.splitlines()
        if line.startswith("  ") and "line" in line and "[" in line
    )
    by_delivery = problems_text(warehouse, ProblemFilter(delivery=delivery, runs=100))
    assert f"  {first_id} ({system}, delivery {delivery}," in by_delivery
    other_system = "elo_rapid" if system == "elo_italia" else "elo_italia"
    assert f"  {first_id} (" not in problems_text(
        warehouse, ProblemFilter(system=other_system, runs=100)
    )


def test_problems_of_one_delivery_name_its_tournaments_no_list_will_rate(
    season_warehouse, tmp_path
):
    from tests.flows.helpers import deliver_a_tournament_before_the_first_list

    warehouse = season_warehouse(2019)
    deliver_a_tournament_before_the_first_list(warehouse, tmp_path / "inbox" / "late-delivery")
    shown = problems_text(str(warehouse), ProblemFilter(delivery="late-delivery"))
    assert "Tournaments no list will rate: 1\n  OLD-1 (elo_italia): received on" in shown
    elsewhere = problems_text(str(warehouse), ProblemFilter(delivery="2019-05"))
    assert "Tournaments no list will rate: 0" in elsewhere


def test_problems_name_a_tournament_a_list_set_aside_and_leave_out_rejections_since_resolved(
    tmp_path,
):
    # DI-1 (dama italiana, 75 %) names D005, whom the January FID registry does not know: it is
    # quarantined. April's registry knows him, and DI-1 is accepted; the July list then sets
    # it aside for its validity. `problems` names it among the tournaments set aside, and no
    # longer lists the rejections that quarantined it (it counts them)
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.rubele.registry import load_fid_registry_flow
    from tests.flows.rubele.test_draughts import DI1, MEMBERSHIPS, PLAYERS, TOURNAMENTS, _inputs

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    delivery = inbox / "2019-05"
    (delivery / "di1.csv").write_text(
        DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"), encoding="utf-8"
    )
    (delivery / "tournaments.csv").write_text(
        TOURNAMENTS.replace(",100,2019-03-10,di1.csv", ",75,2019-03-10,di1.csv"),
        encoding="utf-8",
    )
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    before = problems_text(warehouse, ProblemFilter(tournament="DI-1", runs=100))
    assert "Quarantined tournaments (not rated until delivered again): 1" in before
    assert "[DI-1]" in before  # its rejections, while they stand

    april = tmp_path / "fid-april"
    april.mkdir()
    (april / "players.csv").write_text(
        PLAYERS + 'D005,"Gialli, Marco",M,1990-05-05,ITA,NC,,,\n', encoding="utf-8"
    )
    (april / "memberships.csv").write_text(MEMBERSHIPS + "D005,2019\n", encoding="utf-8")
    load_fid_registry_flow(str(april), date(2019, 4, 1), warehouse)
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)

    after = problems_text(warehouse, ProblemFilter(tournament="DI-1", runs=100))
    assert "Quarantined tournaments (not rated until delivered again): 0" in after
    assert (
        "Tournaments accepted but set aside by a list: 1\n"
        "  DI-1 (rubele_italiana, list of 2019-07-01, delivery 2019-05): validity 75 % is not"
    ) in after
    resolved = [line for line in after.splitlines() if line.startswith("Rejections recorded")]
    assert resolved and "of tournaments accepted since, not listed" in resolved[0]
    assert "[DI-1]" not in after


def test_a_tournaments_problems_are_listed_up_to_ten_then_counted_with_the_command():
    from datetime import datetime

    import polars as pl

    from flows.problems import LISTED_PER_TOURNAMENT, _listed_by_tournament

    tournaments = ["T-1"] * 12 + ["T-2"] * 2 + [None]
    problems = pl.DataFrame(
        {
            "file_name": ["a.csv"] * 15,
            "line_no": list(range(15)),
            "field": ["player_id"] * 15,
            "value": ["D1"] * 15,
            "reason": ["not in the FID registry"] * 15,
            "tournament_id": tournaments,
            "flow": ["ingest-draughts"] * 15,
            "ended_at": [datetime(2026, 12, 4, 20, 0)] * 15,
        }
    )
    listed = _listed_by_tournament(problems, whole=False)
    assert LISTED_PER_TOURNAMENT == 10
    assert sum("[T-1]" in line for line in listed) == 10
    assert "  … and 2 more of T-1: graduatoria problems --tournament T-1" in listed
    assert sum("[T-2]" in line for line in listed) == 2 and len(listed) == 14
    assert len(_listed_by_tournament(problems, whole=True)) == 15
