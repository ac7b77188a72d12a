"""A quarantined chess tournament's reason, as ``problems`` and the lists give it: its first
rejection in the order of its files (manifest row, then TRF line by line), with how many more
it has. Draughts: tests/flows/rubele/test_draughts.py."""

from datetime import date

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_a_quarantined_chess_tournament_is_named_with_its_first_rejection(season_warehouse):
    from flows.elo.recalculate import recalculate_flow
    from flows.problems import ProblemFilter, problems_text

    warehouse = str(season_warehouse(2019))
    with Warehouse(warehouse).reader() as con:
        # the demo season's TRF whose pairings disagree: two rejections, the later line's the
        # alphabetically smaller
        tournament_id, lines, reasons = con.sql(
            "SELECT r.tournament_id, list(r.line_no ORDER BY r.line_no), "
            "list(r.reason ORDER BY r.line_no) FROM tournament t JOIN rejection r "
            "USING (tournament_id) WHERE t.status = 'quarantined' AND t.system = 'elo_italia' "
            "GROUP BY ALL HAVING count(*) = 2"
        ).fetchall()[0]
    assert lines[0] < lines[1] and reasons[1] < reasons[0]
    expected = f"{reasons[0]}; and 1 more rejection"

    shown = problems_text(warehouse, ProblemFilter(tournament=tournament_id))
    assert f"): {expected}\n" in shown
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2020, 1, 1))
    with Warehouse(warehouse).reader() as con:
        excluded = con.sql(
            "SELECT DISTINCT reason FROM excluded_tournament WHERE tournament_id = ?",
            params=[tournament_id],
        ).fetchall()
    assert excluded == [(expected,)]


def _cut_half_way(content: bytes) -> bytes:
    """A TRF file cut in the middle of a player line half-way down its player lines."""
    lines = content.split(b"\n")
    players = [number for number, line in enumerate(lines) if line.startswith(b"001 ")]
    middle = players[len(players) // 2]
    return b"\n".join([*lines[:middle], lines[middle][:60]])


def test_a_chess_file_cut_short_is_named_by_its_cut_everywhere(season_warehouse, tmp_path):
    # a demo TRF cut in the middle of a player line half-way down: the opponents it lost are
    # errors of the lines above, and the cut, which explains them, is the reason shown by the
    # ingest, `problems` and the lists alike (stored with the version)
    from flows.elo.ingest import ingest_flow
    from flows.problems import ProblemFilter, problems_text
    from tests.flows.helpers import write_manifest

    warehouse = str(season_warehouse(2019))
    with Warehouse(warehouse).reader() as con:
        content = con.execute(
            "SELECT f.content FROM tournament t JOIN raw_file f ON f.sha256 = t.file_sha256 "
            "WHERE t.status = 'accepted' AND t.system = 'elo_italia' AND t.players >= 20 "
            "ORDER BY t.tournament_id LIMIT 1"
        ).fetchone()[0]
    cut = _cut_half_way(content)
    delivery = tmp_path / "inbox" / "2019-05"
    delivery.mkdir(parents=True)
    (delivery / "cut.trf").write_bytes(cut)
    write_manifest(
        delivery,
        [{"tournament_id": "CUT-1", "file": "cut.trf", "system": "elo_italia",
          "received_on": "2019-05-02"}],
    )  # fmt: skip
    ingest_flow(str(tmp_path / "inbox"), warehouse)
    with Warehouse(warehouse).reader() as con:
        report = con.execute(
            "SELECT report FROM run_record WHERE flow = 'ingest' ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()[0]
        errors = con.execute(
            "SELECT count(*) FROM rejection WHERE tournament_id = 'CUT-1'"
        ).fetchone()
    assert errors[0] > 1
    reason = next(line for line in report.splitlines() if line.startswith("- CUT-1: "))
    assert reason.startswith("- CUT-1: the file looks truncated")
    assert reason.endswith(f"; and {errors[0] - 1} more rejection{'s' if errors[0] > 2 else ''}")
    shown = problems_text(warehouse, ProblemFilter(tournament="CUT-1"))
    assert f"): {reason.removeprefix('- CUT-1: ')}\n" in shown


def test_a_rated_tournament_quarantined_by_its_new_version_is_a_warning_of_the_ingest(
    season_warehouse, tmp_path
):
    # one bad line in a file delivered again takes a tournament the lists rate out of them at
    # their next replay: the ingest says so, naming the lists, not only "quarantined"
    from flows.elo.ingest import ingest_flow
    from flows.elo.recalculate import recalculate_flow
    from tests.flows.helpers import write_manifest

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2019, 4, 1))
    with Warehouse(warehouse).reader() as con:
        tournament_id, content, received_on = con.execute(
            "SELECT t.tournament_id, f.content, t.received_on FROM tournament t "
            "JOIN raw_file f ON f.sha256 = t.file_sha256 WHERE t.tournament_id IN "
            "(SELECT tournament_id FROM variation WHERE system = 'elo_italia') "
            "ORDER BY t.tournament_id LIMIT 1"
        ).fetchone()
    cut = _cut_half_way(content)
    delivery = tmp_path / "inbox" / "2019-06"
    (delivery).mkdir(parents=True)
    (delivery / "again.trf").write_bytes(cut)
    write_manifest(
        delivery,
        [{"tournament_id": tournament_id, "file": "again.trf", "system": "elo_italia",
          "received_on": str(received_on)}],
    )  # fmt: skip
    ingest_flow(str(tmp_path / "inbox"), warehouse)
    with Warehouse(warehouse).reader() as con:
        report = con.execute(
            "SELECT report FROM run_record WHERE flow = 'ingest' ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()[0]
    line = next(line for line in report.splitlines() if line.startswith(f"- {tournament_id}: "))
    assert line.endswith(
        "— WARNING: elo_italia lists rate an earlier version of it (2019-04-01): the next "
        "`graduatoria recalculate --stale` takes it out of them; deliver a corrected file "
        "first (or withdraw it, to take it out on purpose)"
    )
