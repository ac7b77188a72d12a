"""``graduatoria problems``: what the inputs did not give, filtered, read from the warehouse."""

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
