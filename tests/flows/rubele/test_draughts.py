"""Draughts end to end: FID registry, a draughts delivery with faults, Elo-Rubele lists."""

from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")

PLAYERS = (
    (
        "player_id,name,sex,birth_date,country,category_italiana,category_internazionale,"
        "capital_italiana,capital_internazionale\n"
    )
    + """D001,"Rossi, Anna",F,1990-01-01,ITA,NC,,,
D002,"Bianchi, Marco",M,2010-05-05,ITA,NC,3C,,
D003,"Verdi, Luca",M,1980-02-02,ITA,NC,NC,,
D004,"Neri, Paolo",M,1975-03-03,ITA,CM,,,
F001,"Dupont, Jean",M,1985-04-04,FRA,,,,2100
"""
)
MEMBERSHIPS = "player_id,year\nD001,2019\nD002,2019\nD003,2019\nD004,2019\n"
TOURNAMENTS = (
    ("tournament_id,variant,name,city,start_date,end_date,validity,received_on,file,points_scale\n")
    + """DI-1,italiana,Coppa Uno,Roma,2019-03-02,2019-03-03,100,2019-03-10,di1.csv,fid
DN-1,internazionale,Open,Milano,2019-04-06,2019-04-06,50,2019-04-20,dn1.csv,one
DI-2,italiana,Coppa Due,Napoli,2019-05-04,2019-05-04,100,2019-05-10,di2.csv,fid
DI-3,italiana,Coppa Tre,Bari,2019-05-11,2019-05-11,100,,di3.csv,fid
"""
)
# DI-1: a round robin of three debutants at 1500 (NC): PA = Phi(0) = 0.5 per game.
# D001 beats D002, draws D003 (PO 1.5, PA 1.0, D +0.5, S 150: +75 -> 1575); D002 beats D003
# (PO 1, PA 1: 1500); D003 (PO 0.5: -75 -> 1425).
DI1 = """tournament_id,round,player_id,opponent_id,result,status
DI-1,1,D001,D002,2,played
DI-1,2,D001,D003,1,played
DI-1,3,D002,D003,2,played
"""
# DN-1, 50 %: D002 (3C: 1000) and the foreign F001 (2100 from the registry); one game lost by
# D002 by forfeit, one bye: no counted game for anyone, capitals unchanged
DN1 = """tournament_id,round,player_id,opponent_id,result,status
DN-1,1,F001,D002,1,forfeit
DN-1,2,D002,,1,bye
"""
DI2 = """tournament_id,round,player_id,opponent_id,result,status
DI-2,1,D001,D004,3,played
"""
DI3 = """tournament_id,round,player_id,opponent_id,result,status
DI-3,1,D001,D004,2,played
"""


def _inputs(root: Path) -> tuple[Path, Path]:
    registry = root / "fid"
    registry.mkdir(parents=True)
    (registry / "players.csv").write_text(PLAYERS, encoding="utf-8")
    (registry / "memberships.csv").write_text(MEMBERSHIPS, encoding="utf-8")
    delivery = root / "inbox" / "2019-05"
    delivery.mkdir(parents=True)
    (delivery / "tournaments.csv").write_text(TOURNAMENTS, encoding="utf-8")
    for name, text in (("di1.csv", DI1), ("dn1.csv", DN1), ("di2.csv", DI2), ("di3.csv", DI3)):
        (delivery / name).write_text(text, encoding="utf-8")
    return registry, root / "inbox"


def _ingested(root: Path) -> tuple[str, Path]:
    """A warehouse holding the January FID registry and the inbox's deliveries."""
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(root / "w.duckdb")
    registry, inbox = _inputs(root)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    return warehouse, inbox


def test_a_draughts_season_from_files_to_lists(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    counts = ingest_draughts_flow(str(inbox), warehouse)
    assert (counts["accepted"], counts["quarantined"]) == (2, 2)
    again = ingest_draughts_flow(str(inbox), warehouse)
    assert (again["accepted"], again["quarantined"], again["unchanged"]) == (0, 0, 4)
    with Warehouse(warehouse).reader() as con:
        reasons = con.sql(
            "SELECT tournament_id, field, reason FROM rejection ORDER BY tournament_id"
        ).fetchall()
        statuses = dict(con.sql("SELECT tournament_id, status FROM tournament").fetchall())
    assert statuses == {
        "DI-1": "accepted",
        "DN-1": "accepted",
        "DI-2": "quarantined",
        "DI-3": "quarantined",
    }
    assert ("DI-2", "result", "is not a result on the fid scale (0, 1, 2)") in reasons
    with Warehouse(warehouse).reader() as con:
        ingest_report = con.sql(
            "SELECT report FROM run WHERE flow = 'ingest-draughts' ORDER BY started_at LIMIT 1"
        ).fetchall()[0][0]
    # the run report lists what it rejected, with file, line, field and reason
    assert f"## Rejections ({len(reasons)})" in ingest_report
    assert (
        "- inbox/2019-05/di2.csv, line 2, field result (value: `3`): is not a result on the "
        "fid scale" in ingest_report
    )
    assert any(field == "received_on" for _, field, _ in reasons)

    assert rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)["new_revision"]
    assert rubele_quarterly_flow("rubele_internazionale", date(2019, 7, 1), warehouse)[
        "new_revision"
    ]
    # the same inputs: nothing new, from either flow
    assert not rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)["new_revision"]
    recalculated = rubele_recalculate_flow(
        "rubele_italiana", warehouse, date(2019, 7, 1), date(2019, 7, 1)
    )
    assert recalculated["new_revisions"] == 0
    with Warehouse(warehouse).reader() as con:
        italiana = con.sql(
            "SELECT player_id, rating, frozen_rating, rating_basis, games, category, is_member, "
            "in_ranking FROM rating_list WHERE system = 'rubele_italiana' ORDER BY player_id"
        ).fetchall()
        internazionale = con.sql(
            "SELECT player_id, rating, rating_basis, games FROM rating_list "
            "WHERE system = 'rubele_internazionale' ORDER BY player_id"
        ).fetchall()
        variations = con.sql(
            "SELECT tournament_id, player_id, games, score, expected, k, applied_variation, note "
            "FROM variation WHERE system = 'rubele_internazionale' ORDER BY player_id"
        ).fetchall()
        ranking = con.sql(
            "SELECT ranking, position, player_id FROM ranking WHERE system = 'rubele_italiana' "
            "ORDER BY ranking, position"
        ).fetchall()
        excluded = con.sql(
            "SELECT system, list_date, tournament_id, reason FROM excluded_tournament"
        ).fetchall()
        report = con.sql(
            "SELECT report FROM list_revision WHERE system = 'rubele_italiana'"
        ).fetchall()[0][0]
    # DI-2 (received in the window) is named by the list that did not apply it, with its reason;
    # DI-3 has no receipt date, so no list's window holds it
    di2_reason = next(reason for tid, _, reason in reasons if tid == "DI-2")
    assert excluded == [("rubele_italiana", date(2019, 7, 1), "DI-2", di2_reason)]
    assert (
        ": 2: applied 1 (in order of end date, start date, tournament id), quarantined 1, "
        in report
    )
    assert f"- DI-2 (di2.csv): {di2_reason}" in report
    assert italiana == [
        ("D001", 1575, 1500, "debutant", 2, "NC", True, True),
        ("D002", 1500, 1500, "debutant", 2, "NC", True, True),
        ("D003", 1425, 1500, "debutant", 2, "NC", True, True),
    ]
    assert internazionale == [("D002", 1000, "debutant", 0), ("F001", 2100, "foreign", 0)]
    assert [row[:7] for row in variations] == [
        ("DN-1", "D002", 0, 0.0, 0.0, 240, 0.0),
        ("DN-1", "F001", 0, 0.0, 0.0, 160, 0.0),
    ]
    assert all("no counted game" in row[7] for row in variations)
    with Warehouse(warehouse).reader() as con:
        eras = con.sql("SELECT DISTINCT system, era_from FROM variation ORDER BY ALL").fetchall()
    # each variation names the era of its tournament's end date (2019: the era of 1994-01-16)
    assert eras == [
        ("rubele_internazionale", date(1994, 1, 16)),
        ("rubele_italiana", date(1994, 1, 16)),
    ]
    # women: D001 only; youth: D002 (born 2010)
    assert ("women", 1, "D001") in ranking and ("youth", 1, "D002") in ranking
    assert [row[2] for row in ranking if row[0] == "overall"] == ["D001", "D002", "D003"]

    from flows.status import status_text

    status = {
        line.rsplit(maxsplit=1)[0].strip(): line.rsplit(maxsplit=1)[1]
        for line in status_text(warehouse).splitlines()
        if "registry" in line or "registered" in line
    }
    assert status == {
        "FSI registry snapshots (chess)": "0",
        "FSI registered players (latest snapshot)": "0",
        "FID registry snapshots (draughts)": "1",
        "FID registered players (latest snapshot)": "5",
    }


def test_chess_and_draughts_tournaments_cannot_share_an_id(tmp_path):
    # Both federations' tournaments live in one warehouse under one list of ids: a draughts
    # tournament named like a chess one (or the other way round) is refused with the reason,
    # never turned into a new version of the other game's tournament.
    import shutil

    from flows.elo.ingest import ingest_flow
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow
    from tests.flows.helpers import SHARED_TRF, write_manifest

    warehouse = str(tmp_path / "w.duckdb")
    trf = "erral_fidetournament__tests_test_demo.trf"

    def chess_delivery(name: str, rows: list[tuple[str, str]]) -> Path:
        folder = tmp_path / name / "d"
        folder.mkdir(parents=True)
        shutil.copyfile(SHARED_TRF / trf, folder / trf)
        write_manifest(
            folder,
            [
                {"tournament_id": tournament, "file": trf, "system": system, "received_on": day}
                for (tournament, system), day in zip(
                    rows, ("2019-05-02", "2019-05-03"), strict=False
                )
            ],
        )
        return folder.parent

    # DI-2's system is misspelt: a quarantined chess tournament still holds its id
    chess = chess_delivery("chess", [("DI-1", "elo_italia"), ("DI-2", "elo_itlaia")])
    assert ingest_flow(str(chess), warehouse)["tournaments_accepted"] == 1
    registry, inbox = _inputs(tmp_path)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    counts = ingest_draughts_flow(str(inbox), warehouse)
    assert (counts["accepted"], counts["quarantined"]) == (1, 1)  # DI-1, DI-2 not among them
    later = ingest_flow(str(chess_delivery("chess-later", [("DN-1", "elo_italia")])), warehouse)
    assert later["tournaments_new_versions"] == 0
    with Warehouse(warehouse).reader() as con:
        kept = con.sql(
            "SELECT tournament_id, version, system FROM tournament ORDER BY 1"
        ).fetchall()
        refused = con.sql(
            "SELECT source, tournament_id, field, reason FROM rejection "
            "WHERE field = 'tournament_id' ORDER BY source"
        ).fetchall()
    assert kept == [
        ("DI-1", 1, "elo_italia"),
        ("DI-2", 1, "elo_itlaia"),
        ("DI-3", 1, "rubele_italiana"),
        ("DN-1", 1, "rubele_internazionale"),
    ]
    assert [(source, tournament) for source, tournament, _, _ in refused] == [
        ("draughts tournaments", "DI-1"),
        ("draughts tournaments", "DI-2"),
        ("manifest", "DN-1"),
    ]
    assert "DI-1 is already a chess tournament" in refused[0][3]
    assert "DI-2 is already a chess tournament" in refused[1][3]
    assert "DN-1 is already a draughts tournament" in refused[2][3]


def test_a_games_file_without_games_is_quarantined_with_the_reason(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    (inbox / "2019-05" / "dn1.csv").write_text(DN1.splitlines()[0] + "\n", encoding="utf-8")
    # a column the games file does not have is a warning, not a reason to set DI-1 aside
    board = "\n".join(
        line + (",board" if n == 0 else ",7") for n, line in enumerate(DI1.splitlines())
    )
    (inbox / "2019-05" / "di1.csv").write_text(board + "\n", encoding="utf-8")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        status = con.sql("SELECT status FROM tournament WHERE tournament_id = 'DN-1'").fetchall()
        di1 = con.sql("SELECT status FROM tournament WHERE tournament_id = 'DI-1'").fetchall()
        warned = con.sql("SELECT file_name, field FROM input_warning").fetchall()
        reasons = con.sql(
            "SELECT file_name, field, reason FROM rejection WHERE tournament_id = 'DN-1'"
        ).fetchall()
    assert status == [("quarantined",)]
    assert reasons == [("inbox/2019-05/dn1.csv", "file", "the games file dn1.csv holds no game")]
    assert di1 == [("accepted",)] and warned == [("inbox/2019-05/di1.csv", "board")]


def test_a_games_file_whose_header_lacks_a_column_is_refused_once_saying_which(tmp_path):
    # DI-1 saved by a spreadsheet with ';', DN-1 without its opponent_id column: one rejection
    # each on line 1 (not one per row and column), and both tournaments wait
    registry, inbox = _inputs(tmp_path)
    (inbox / "2019-05" / "di1.csv").write_text(DI1.replace(",", ";"), encoding="utf-8")
    without_opponent = "\n".join(
        ",".join(cell for n, cell in enumerate(line.split(",")) if n != 3)
        for line in DN1.splitlines()
    )
    (inbox / "2019-05" / "dn1.csv").write_text(without_opponent + "\n", encoding="utf-8")
    warehouse = str(tmp_path / "w.duckdb")
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        statuses = con.sql(
            "SELECT tournament_id, status FROM tournament WHERE tournament_id IN ('DI-1', 'DN-1') "
            "ORDER BY tournament_id"
        ).fetchall()
        reasons = con.sql(
            "SELECT tournament_id, line_no, reason FROM rejection "
            "WHERE tournament_id IN ('DI-1', 'DN-1') ORDER BY tournament_id"
        ).fetchall()
    assert statuses == [("DI-1", "quarantined"), ("DN-1", "quarantined")]
    assert reasons == [
        (
            "DI-1",
            1,
            "the header lacks the required columns tournament_id, round, player_id, "
            "opponent_id, result, status: the file seems separated by ';' and must be "
            "comma-separated (save it as CSV with commas)",
        ),
        ("DN-1", 1, "the header lacks the required column opponent_id"),
    ]


def test_a_corrected_games_file_makes_the_list_stale_and_stale_replays_it(tmp_path):
    from flows.publishing.staleness import stale_lists
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow
    from flows.rubele.periods import rubele_list_fingerprints
    from flows.rubele.rulebook import load_rubele_rulebook as rulebook_of

    warehouse, inbox = _ingested(tmp_path)
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    # the corrected file: D002 - D003 was a draw
    games_file = inbox / "2019-05" / "di1.csv"
    games_file.write_text(DI1.replace("DI-1,3,D002,D003,2,played", "DI-1,3,D002,D003,1,played"))
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        stale = stale_lists(
            con, "rubele_italiana", rulebook_of("rubele_italiana"), rubele_list_fingerprints
        )
    assert [item.list_date for item in stale] == [date(2019, 7, 1)]
    counts = rubele_recalculate_flow("rubele_italiana", warehouse, stale=True)
    assert counts["new_revisions"] == 1
    with Warehouse(warehouse).reader() as con:
        revisions = con.sql(
            "SELECT revision, player_id, rating FROM rating_list_revisions "
            "WHERE system = 'rubele_italiana' ORDER BY revision, player_id"
        ).fetchall()
    # everyone at 1500, PA 0.5 a game; now D002 lost to D001 and drew D003: PO 0.5, D -0.5,
    # 1425; D003 drew both: PO 1.0, D 0, 1500
    assert revisions == [
        (1, "D001", 1575),
        (1, "D002", 1500),
        (1, "D003", 1425),
        (2, "D001", 1575),
        (2, "D002", 1425),
        (2, "D003", 1500),
    ]
    assert rubele_recalculate_flow("rubele_italiana", warehouse, stale=True)["lists"] == 0


def test_a_tournament_sent_again_with_a_later_receipt_date_is_applied_once(tmp_path):
    from flows.publishing.staleness import stale_lists
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow
    from flows.rubele.periods import rubele_list_fingerprints
    from flows.rubele.rulebook import load_rubele_rulebook as rulebook_of

    warehouse, inbox = _ingested(tmp_path)
    for list_date in (date(2019, 7, 1), date(2020, 1, 1)):
        rubele_quarterly_flow("rubele_italiana", list_date, warehouse)
    # the same games file of DI-1, sent again and recorded as received on 10 August
    listing = inbox / "2019-05" / "tournaments.csv"
    listing.write_text(TOURNAMENTS.replace("100,2019-03-10,di1.csv", "100,2019-08-10,di1.csv"))
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        stale = stale_lists(
            con, "rubele_italiana", rulebook_of("rubele_italiana"), rubele_list_fingerprints
        )
        warned = con.sql(
            "SELECT reason FROM input_warning WHERE tournament_id = 'DI-1' "
            "AND field = 'received_on'"
        ).fetchall()
    # the list of 1 July applied DI-1: it no longer holds it, and the one after follows it
    assert [item.list_date for item in stale] == [date(2019, 7, 1), date(2020, 1, 1)]
    assert len(warned) == 1 and "moves the tournament" in warned[0][0]
    rubele_recalculate_flow("rubele_italiana", warehouse, stale=True)
    with Warehouse(warehouse).reader() as con:
        applied_in = con.sql(
            "SELECT DISTINCT list_date FROM variation WHERE tournament_id = 'DI-1'"
        ).fetchall()
        rows = con.sql("SELECT count(*) FROM variation WHERE tournament_id = 'DI-1'").fetchall()
    # applied once, by the list of its new receipt date: one variation for each of its players
    assert applied_in == [(date(2020, 1, 1),)] and rows == [(3,)]


def test_a_first_list_cannot_leave_out_tournaments_received_before_its_window(tmp_path):
    from flows.publishing.arguments import ListError
    from flows.publishing.staleness import stale_lists
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.rubele.periods import rubele_list_fingerprints
    from flows.rubele.rulebook import load_rubele_rulebook as rulebook_of

    warehouse, _inbox = _ingested(tmp_path)
    # DI-1 was received on 2019-03-10: the list of 2020-01-01 (received after 2019-06-30)
    # cannot be the first, it would never apply DI-1
    with pytest.raises(ListError, match="the first on 2019-03-10: publish the list of 2019-07-01"):
        rubele_quarterly_flow("rubele_italiana", date(2020, 1, 1), warehouse)
    # a first list with nothing received before its window may be published before the list
    # before it; that one, published later, makes it stale
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    rubele_quarterly_flow("rubele_italiana", date(2019, 1, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        stale = stale_lists(
            con, "rubele_italiana", rulebook_of("rubele_italiana"), rubele_list_fingerprints
        )
    assert [(item.list_date, item.reason) for item in stale] == [
        (
            date(2019, 7, 1),
            "it was computed from no list, but the list of 2019-01-01 now precedes it",
        )
    ]


def test_an_unknown_variant_is_quarantined_under_no_system(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    listing = inbox / "2019-05" / "tournaments.csv"
    listing.write_text(TOURNAMENTS.replace("DI-1,italiana,", "DI-1,inglese,"), encoding="utf-8")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        di1 = con.sql("SELECT status, system FROM tournament WHERE tournament_id = 'DI-1'")
        fields = con.sql("SELECT field FROM rejection WHERE tournament_id = 'DI-1'").fetchall()
        assert di1.fetchall() == [("quarantined", None)]
    assert ("variant",) in fields


def test_a_tournament_quarantined_for_an_unregistered_player_passes_once_he_is_registered(
    tmp_path,
):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    # D005 is not in the registry of January: DI-1 is quarantined
    games = inbox / "2019-05" / "di1.csv"
    games.write_text(DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"), encoding="utf-8")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    # the registry of April knows him: its load checks DI-1 again from the archived files, and
    # accepts it as version 2 (it took a delivery of it again)
    april = tmp_path / "fid-april"
    april.mkdir()
    (april / "players.csv").write_text(
        PLAYERS + 'D005,"Gialli, Marco",M,1990-05-05,ITA,NC,,,\n', encoding="utf-8"
    )
    (april / "memberships.csv").write_text(MEMBERSHIPS + "D005,2019\n", encoding="utf-8")
    loaded = load_fid_registry_flow(str(april), date(2019, 4, 1), warehouse)
    assert loaded["draughts_tournaments_accepted_now"] == 1
    # the same delivery again adds nothing
    assert ingest_draughts_flow(str(inbox), warehouse)["unchanged"] == 4
    with Warehouse(warehouse).reader() as con:
        versions = con.sql(
            "SELECT version, status FROM tournament_version WHERE tournament_id = 'DI-1' "
            "ORDER BY version"
        ).fetchall()
    assert versions == [(1, "quarantined"), (2, "accepted")]


def test_the_rulebook_decides_which_games_and_validities_count_in_a_list(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.rubele.registry import load_fid_registry_flow
    from transforms.lists.eras import default_rulebook_path

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    # DI-1 at 75 %: a validity the default rulebook does not know
    listing = inbox / "2019-05" / "tournaments.csv"
    listing.write_text(TOURNAMENTS.replace(",100,2019-03-10,di1.csv", ",75,2019-03-10,di1.csv"))
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    # a rulebook counting a lost forfeit for its loser: D002's forfeit of DN-1 (50 %) counts,
    # a loss at 1000 against F001's 2100: PA = Phi(-1100 / 1414.21) = 0.2184, D = -0.2184,
    # V = 240 x -0.2184 x 0.5 = -26.2: 974
    counting = tmp_path / "counting.toml"
    counting.write_text(
        default_rulebook_path("rubele_internazionale")
        .read_text()
        .replace("counted_for_loser = []", 'counted_for_loser = ["forfeit"]'),
        encoding="utf-8",
    )
    rubele_quarterly_flow("rubele_internazionale", date(2019, 7, 1), warehouse, str(counting))
    with Warehouse(warehouse).reader() as con:
        excluded = con.sql(
            "SELECT tournament_id, reason FROM excluded_tournament "
            "WHERE system = 'rubele_italiana' ORDER BY tournament_id"
        ).fetchall()
        italiana = con.sql(
            "SELECT count(*) FROM rating_list WHERE system = 'rubele_italiana'"
        ).fetchall()
        report = con.sql(
            "SELECT report FROM list_revision WHERE system = 'rubele_italiana'"
        ).fetchall()[0][0]
        d002 = con.sql(
            "SELECT rating, games FROM rating_list WHERE system = 'rubele_internazionale' "
            "AND player_id = 'D002'"
        ).fetchall()
    assert [tid for tid, _ in excluded] == ["DI-1", "DI-2"]
    assert excluded[0][1].startswith("validity 75 % is not a validity of the rulebook's era")
    assert italiana == [(0,)]  # nobody played a tournament the list applied
    # every tournament of the window counted once: DI-2 quarantined (a 3 on the FID scale),
    # DI-1 set aside (DI-3, without a receipt date, is in no window)
    assert (
        "up to 2019-06-30: 2: applied 0 (in order of end date, start date, tournament id), "
        "quarantined 1, set aside by the list 1\n" in report
    )
    assert f"- DI-1: {excluded[0][1]}" in report
    assert d002 == [(974, 1)]


def test_a_draughts_system_starts_from_the_capitals_the_fid_published(tmp_path):
    from flows.import_list import import_list_flow
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow

    warehouse, _inbox = _ingested(tmp_path)
    published = tmp_path / "italiana-2019-01-01.csv"
    published.write_text(
        "player_id,rating,games,k,category,last_played\n"
        "D001,2950,120,,N,2018-11-04\n"
        "D002,1500,10,20,XX,\n",
        encoding="utf-8",
    )
    counts = import_list_flow(str(published), "rubele_italiana", date(2019, 1, 1), warehouse)
    assert counts["players"] == 2
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        imported = con.sql(
            "SELECT player_id, rating, rating_type, category, is_active, in_ranking "
            "FROM rating_list WHERE list_date = '2019-01-01' ORDER BY player_id"
        ).fetchall()
        warned = con.sql(
            "SELECT field, value, reason FROM input_warning WHERE source = 'list' "
            "ORDER BY line_no, field"
        ).fetchall()
        july = con.sql(
            "SELECT player_id, frozen_rating, rating_basis, previous_rating FROM rating_list "
            "WHERE list_date = '2019-07-01' ORDER BY player_id"
        ).fetchall()
    # D002's category XX is no FID category: a warning, and the registry's NC stands; his K
    # (a chess column) is not imported, and the import says so (reconcile compares none)
    assert imported == [
        ("D001", 2950, "rubele_italiana", "N", True, True),
        ("D002", 1500, "rubele_italiana", "NC", False, False),
    ]
    assert [(field, value) for field, value, _ in warned] == [("category", "XX"), ("k", "20")]
    assert warned[1][2] == (
        "k is given for 1 player: a capital has no K (Elo-Rubele's coefficient S goes by the "
        "capital before each tournament), so it is not imported"
    )
    # the July list applies DI-1 to the published capitals (D003 enters as a debutant)
    assert july[:2] == [("D001", 2950, "list", 2950), ("D002", 1500, "list", 1500)]
    assert july[2][:3] == ("D003", 1500, "debutant")
    # the federation's list is a given: no list computes it, nor one before it
    from flows.publishing.arguments import ListError

    with pytest.raises(ListError, match="2019-01-01 was imported"):
        rubele_quarterly_flow("rubele_italiana", date(2019, 1, 1), warehouse)
    with pytest.raises(ListError, match="start from the list of 2019-01-01"):
        rubele_recalculate_flow("rubele_italiana", warehouse, date(2018, 7, 1), date(2019, 7, 1))


def test_an_older_delivery_read_again_does_not_displace_a_later_quarantined_version(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    # a later delivery corrects DI-1 with a player in no registry: version 2, quarantined
    later = inbox / "2019-09"
    later.mkdir()
    header, *rows = TOURNAMENTS.splitlines()
    di1_row = next(row for row in rows if row.startswith("DI-1,"))
    (later / "tournaments.csv").write_text(f"{header}\n{di1_row}\n", encoding="utf-8")
    (later / "di1.csv").write_text(DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"))
    ingest_draughts_flow(str(inbox), warehouse)

    def versions() -> list[tuple]:
        with Warehouse(warehouse).reader() as con:
            return con.sql(
                "SELECT version, status FROM tournament_version WHERE tournament_id = 'DI-1' "
                "ORDER BY version"
            ).fetchall()

    assert versions() == [(1, "accepted"), (2, "quarantined")]
    # the same inbox again: the first delivery's file does not come back as version 3
    assert ingest_draughts_flow(str(inbox), warehouse)["accepted"] == 0
    assert versions() == [(1, "accepted"), (2, "quarantined")]


def test_a_list_cannot_be_imported_after_lists_computed_from_nothing(tmp_path):
    from flows.import_list import import_list_flow
    from flows.publishing.arguments import ListError
    from flows.rubele.lists import rubele_quarterly_flow

    warehouse, _inbox = _ingested(tmp_path)
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    published = tmp_path / "published.csv"
    published.write_text("player_id,rating,games,k,category\nD001,2950,120,,N\n")
    # after it, the list of 2019-07-01 would stand before the system's first list for good
    with pytest.raises(ListError, match="lists of 2019-07-01 … 2019-07-01 were computed"):
        import_list_flow(str(published), "rubele_italiana", date(2020, 1, 1), warehouse)
    # before it, the computed list goes stale and a replay rebuilds it on the imported one
    import_list_flow(str(published), "rubele_italiana", date(2019, 1, 1), warehouse)
    from flows.cli import main

    assert main(["recalculate", "--stale", "--warehouse", warehouse]) == 0
    with Warehouse(warehouse).reader() as con:
        d001 = con.sql(
            "SELECT frozen_rating, rating_basis FROM rating_list WHERE player_id = 'D001' "
            "AND list_date = '2019-07-01'"
        ).fetchall()
    assert d001 == [(2950, "list")]


def test_a_list_no_longer_names_a_tournament_that_moved_to_another_list(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    # DI-1 quarantined (D005 in no registry): the list of 1 July names it as not applied
    (inbox / "2019-05" / "di1.csv").write_text(DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"))
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    # D005 registered, DI-1 sent again received on 10 August: accepted, for the January list
    april = tmp_path / "fid-april"
    april.mkdir()
    (april / "players.csv").write_text(PLAYERS + 'D005,"Gialli, Marco",M,1990-05-05,ITA,NC,,,\n')
    (april / "memberships.csv").write_text(MEMBERSHIPS + "D005,2019\n")
    load_fid_registry_flow(str(april), date(2019, 4, 1), warehouse)
    listing = inbox / "2019-05" / "tournaments.csv"
    listing.write_text(TOURNAMENTS.replace("100,2019-03-10,di1.csv", "100,2019-08-10,di1.csv"))
    ingest_draughts_flow(str(inbox), warehouse)
    # the July list's players do not change, but what it names as not applied does
    assert rubele_recalculate_flow("rubele_italiana", warehouse, stale=True)["new_revisions"] == 1
    with Warehouse(warehouse).reader() as con:
        named = con.sql(
            "SELECT tournament_id FROM excluded_tournament WHERE list_date = '2019-07-01' "
            "ORDER BY ALL"
        ).fetchall()
    assert named == [("DI-2",)]


def test_a_player_registered_after_the_list_date_leaves_his_tournament_quarantined(tmp_path):
    # The list of 1 July applies DI-1 (received 10 March) and reads the registry in force on
    # 1 July: a player first registered in August would enter it as a stranger.
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    (inbox / "2019-05" / "di1.csv").write_text(DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"))
    august = tmp_path / "fid-august"
    august.mkdir()
    (august / "players.csv").write_text(PLAYERS + 'D005,"Gialli, Marco",M,1990-05-05,ITA,NC,,,\n')
    (august / "memberships.csv").write_text(MEMBERSHIPS + "D005,2019\n")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    load_fid_registry_flow(str(august), date(2019, 8, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        status = con.sql("SELECT status FROM tournament WHERE tournament_id = 'DI-1'").fetchall()
        reasons = con.sql(
            "SELECT reason FROM rejection WHERE tournament_id = 'DI-1' AND field = 'opponent_id'"
        ).fetchall()
    assert status == [("quarantined",)]
    assert reasons == [
        (
            "player D005 is not in the FID registry in force on 2019-07-01 (the list date that "
            "applies the tournament)",
        )
    ]


def test_the_cli_refuses_a_draughts_list_date_that_is_not_one(tmp_path, capsys):
    from flows.cli import main
    from flows.rubele.registry import load_fid_registry_flow

    registry, _ = _inputs(tmp_path)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), str(tmp_path / "w.duckdb"))
    capsys.readouterr()
    code = main(
        [
            "quarterly",
            "--system",
            "rubele_italiana",
            "--list-date",
            "2019-04-01",
            "--warehouse",
            str(tmp_path / "w.duckdb"),
        ]
    )
    assert code == 1
    error = capsys.readouterr().err
    assert error.strip() == (
        "graduatoria: error: 2019-04-01 is not a list date of rubele_italiana "
        "(list dates: 01-01, 07-01)"
    )


def test_a_draughts_scenario_cannot_replay_the_stale_official_lists(tmp_path):
    from flows.publishing.arguments import ListError
    from flows.rubele.lists import rubele_recalculate_flow

    with pytest.raises(ListError, match="--stale replays official lists"):
        rubele_recalculate_flow(
            "rubele_italiana", str(tmp_path / "w.duckdb"), scenario="what-if", stale=True
        )


def test_files_the_file_system_refuses_are_rejected_with_the_reason_and_the_rest_loads(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    registry, inbox = _inputs(tmp_path)
    delivery = inbox / "2019-05"
    # DI-2's file written in other capitals than its listing's, DN-1's name too long to open
    (delivery / "di2.csv").rename(delivery / "DI2.CSV")
    listing = (delivery / "tournaments.csv").read_text(encoding="utf-8")
    (delivery / "tournaments.csv").write_text(
        listing.replace("dn1.csv", "x" * 300 + ".csv"), encoding="utf-8"
    )
    (inbox / "2019-06" / "tournaments.csv").mkdir(parents=True)  # a folder, not a listing
    warehouse = str(tmp_path / "w.duckdb")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)

    counts = ingest_draughts_flow(str(inbox), warehouse)

    # DI-3 waits for its receipt date, as in every test here
    assert (counts["accepted"], counts["quarantined"], counts["deliveries_refused"]) == (1, 3, 1)
    with Warehouse(warehouse).reader() as con:
        reasons = con.sql(
            "SELECT file_name, tournament_id, reason FROM rejection "
            "WHERE tournament_id IS DISTINCT FROM 'DI-3' ORDER BY ALL"
        ).fetchall()
    assert reasons[0] == (
        "inbox/2019-05/tournaments.csv",
        "DI-2",
        "the games file di2.csv is not in the delivery: the folder has DI2.CSV, a name that "
        "differs in capitals only (correct the manifest or the file's name)",
    )
    assert [(name, tid) for name, tid, _ in reasons[1:]] == [
        ("inbox/2019-05/tournaments.csv", "DN-1"),
        ("inbox/2019-06/tournaments.csv", None),
    ]
    assert (
        (reasons[1][2])
        == "the games file " + "x" * 300 + ".csv cannot be read (File name too long)"
    )
    assert "it cannot be read (Is a directory)" in reasons[2][2]


def test_a_draughts_scenario_cannot_build_on_its_lists_of_another_rulebook(tmp_path):
    from flows.publishing.arguments import ListError
    from flows.rubele.lists import rubele_recalculate_flow
    from transforms.lists.eras import default_rulebook_path

    warehouse, _inbox = _ingested(tmp_path)
    text = default_rulebook_path("rubele_italiana").read_text(encoding="utf-8")
    first, edited = tmp_path / "wide.toml", tmp_path / "narrow.toml"
    first.write_text(text.replace("s = [150, 100, 50]", "s = [200, 100, 50]"), encoding="utf-8")
    edited.write_text(text.replace("s = [150, 100, 50]", "s = [120, 100, 50]"), encoding="utf-8")

    def replay(start: date, end: date, rulebook: Path) -> dict[str, int]:
        return rubele_recalculate_flow(
            "rubele_italiana", warehouse, start, end, str(rulebook), scenario="s"
        )

    replay(date(2019, 7, 1), date(2019, 7, 1), first)
    with pytest.raises(ListError, match="scenario s's list of 2019-07-01, which a replay from"):
        replay(date(2020, 1, 1), date(2020, 1, 1), edited)
    assert replay(date(2019, 7, 1), date(2020, 1, 1), edited)["lists"] == 2


def test_a_quarantined_tournament_is_listed_with_a_reason_of_its_latest_version(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    games = inbox / "2019-05" / "di1.csv"
    # version 1: D002 plays himself; version 2 corrects that, but D005 is registered nowhere
    games.write_text(DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D002"), encoding="utf-8")
    ingest_draughts_flow(str(inbox), warehouse)
    games.write_text(DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"), encoding="utf-8")
    ingest_draughts_flow(str(inbox), warehouse)
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        reasons = con.sql(
            "SELECT reason FROM excluded_tournament WHERE tournament_id = 'DI-1'"
        ).fetchall()
        earlier = con.sql(
            "SELECT count(*) FROM rejection WHERE tournament_id = 'DI-1' "
            "AND reason LIKE '%himself%'"
        ).fetchall()
    assert earlier == [(1,)]  # still recorded, with the file it was found in
    assert len(reasons) == 1 and "D005" in reasons[0][0] and "himself" not in reasons[0][0]


def _season(root: Path, players: str, tournaments: str, games: dict[str, str]) -> tuple[Path, Path]:
    """A FID registry (players.csv; every player a member in 1987 and 2019) and one delivery of
    draughts tournaments."""
    registry = root / "fid"
    registry.mkdir(parents=True)
    (registry / "players.csv").write_text(PLAYERS.splitlines()[0] + "\n" + players)
    ids = [line.split(",")[0] for line in players.splitlines()]
    (registry / "memberships.csv").write_text(
        "player_id,year\n" + "".join(f"{pid},{year}\n" for pid in ids for year in (1987, 2019))
    )
    delivery = root / "inbox" / "d"
    delivery.mkdir(parents=True)
    (delivery / "tournaments.csv").write_text(TOURNAMENTS.splitlines()[0] + "\n" + tournaments)
    for name, text in games.items():
        header = "tournament_id,round,player_id,opponent_id,result,status\n"
        (delivery / name).write_text(header + text)
    return registry, root / "inbox"


def test_a_tournament_before_dama_italiana_was_rated_is_named_at_ingest_and_set_aside(tmp_path):
    # dama italiana is rated from 1987-01-01 (the rulebook's first era): OLD ended on
    # 1986-12-20. The ingest accepts it with a warning; the list of 1987-07-01, whose window
    # holds it, sets it aside with the reason. NEW is applied: P1 and P2 (CM, 3000) draw; P3,
    # a 1C, is not rated in 1987 (only M, CM, N): no capital, no row, and his loss to P1 is
    # dropped for both (the report names him).
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.rubele.registry import load_fid_registry_flow

    registry, inbox = _season(
        tmp_path,
        'P1,"Primo, Uno",M,1960-01-01,ITA,CM,,,\nP2,"Secondo, Due",M,1960-01-01,ITA,CM,,,\n'
        'P3,"Terzo, Tre",M,1960-01-01,ITA,1C,,,\n',
        "OLD,italiana,Vecchio,Roma,1986-12-20,1986-12-20,100,1987-01-10,old.csv,one\n"
        "NEW,italiana,Nuovo,Roma,1987-02-01,1987-02-01,100,1987-02-10,new.csv,one\n",
        {
            "old.csv": "OLD,1,P1,P2,1,played\n",
            "new.csv": "NEW,1,P1,P2,0.5,played\nNEW,2,P1,P3,1,played\n",
        },
    )
    warehouse = str(tmp_path / "w.duckdb")
    load_fid_registry_flow(str(registry), date(1986, 1, 1), warehouse)
    counts = ingest_draughts_flow(str(inbox), warehouse)
    assert counts["accepted"] == 2
    rubele_quarterly_flow("rubele_italiana", date(1987, 7, 1), warehouse)
    reason = (
        "ends on 1986-12-20, before dama italiana is rated (from 1987-01-01, the rulebook's "
        "first era)"
    )
    with Warehouse(warehouse).reader() as con:
        warned = con.sql(
            "SELECT tournament_id, field, reason FROM input_warning WHERE field = 'end_date'"
        ).fetchall()
        excluded = con.sql("SELECT tournament_id, reason FROM excluded_tournament").fetchall()
        rows = con.sql(
            "SELECT player_id, rating, games FROM rating_list ORDER BY player_id"
        ).fetchall()
        report = con.sql("SELECT report FROM list_revision").fetchall()[0][0]
    assert warned == [
        (
            "OLD",
            "end_date",
            "ends before dama italiana is rated (from 1987-01-01, the rulebook's first era): "
            "no list will rate it, each sets it aside",
        )
    ]
    assert excluded == [("OLD", reason)]
    assert f"- OLD: {reason}" in report
    assert rows == [("P1", 3000, 1), ("P2", 3000, 1)]
    assert (
        "- players not rated (their category is not rated in the era of their tournaments: no "
        "capital, no list row): 1 (P3)" in report
    )


def test_the_first_time_rescaling_remembers_the_capitals_of_earlier_lists(tmp_path):
    # Dama italiana, 2019-2020 (minimum 500, no Q); P1 and P2 enter as CM at 3000 (S 100:
    # 3000 is the middle band).
    # List of 2019-07-01, T1: P1 beats P2 (PA 0.5): P1 3050, P2 2950.
    # List of 2020-01-01, T2: P1 (3050) loses to P2 (2950): d = 100, P1's PA = Phi(100 /
    #   1414.21) = 0.52819: V = 100 x -0.52819 -> 2997.18 -> 2997. P2 (S 150): +79.23 ->
    #   3029.23, over 3000, which his 3000 never passed: 3000 + 29.23 x 100/150 -> 3019.
    # List of 2020-07-01, T3: P1 (2997) beats P2 (3019): d = -22, PA = 0.49379, V = 150 x
    #   0.50621 = 75.93 -> 3072.93, over 3000 again. P1 held 3050 on the list of 2019-07-01
    #   (the previous list says 2997, CM): not rescaled, 3073. Rescaled every time (a scenario
    #   on such a rulebook): 3000 + 72.93 x 100/150 -> 3048.62 -> 3049. P2: 3019 - 50.62 ->
    #   2968 either way.
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow
    from flows.rubele.registry import load_fid_registry_flow
    from transforms.lists.eras import default_rulebook_path

    registry, inbox = _season(
        tmp_path,
        'P1,"Primo, Uno",M,1960-01-01,ITA,CM,,,\nP2,"Secondo, Due",M,1960-01-01,ITA,CM,,,\n',
        "T1,italiana,Uno,Roma,2019-03-02,2019-03-02,100,2019-03-10,t1.csv,one\n"
        "T2,italiana,Due,Roma,2019-09-01,2019-09-01,100,2019-09-10,t2.csv,one\n"
        "T3,italiana,Tre,Roma,2020-03-01,2020-03-01,100,2020-03-10,t3.csv,one\n",
        {
            "t1.csv": "T1,1,P1,P2,1,played\n",
            "t2.csv": "T2,1,P1,P2,0,played\n",
            "t3.csv": "T3,1,P1,P2,1,played\n",
        },
    )
    warehouse = str(tmp_path / "w.duckdb")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    dates = (date(2019, 7, 1), date(2020, 1, 1), date(2020, 7, 1))
    for list_date in dates:
        rubele_quarterly_flow("rubele_italiana", list_date, warehouse)
    every = tmp_path / "every.toml"
    every.write_text(
        default_rulebook_path("rubele_italiana")
        .read_text()
        .replace('upward = "first"', 'upward = "every"')
    )
    rubele_recalculate_flow(
        "rubele_italiana", warehouse, dates[0], dates[-1], str(every), scenario="every"
    )
    with Warehouse(warehouse).reader() as con:
        official = con.sql(
            "SELECT list_date, player_id, rating FROM rating_list ORDER BY ALL"
        ).fetchall()
        scenario = con.sql(
            "SELECT e.list_date, e.player_id, e.rating FROM list_entry e "
            "WHERE e.scenario = 'every' ORDER BY ALL"
        ).fetchall()
        note = con.sql(
            "SELECT note FROM variation WHERE tournament_id = 'T3' AND player_id = 'P1'"
        ).fetchall()
    assert official == [
        (dates[0], "P1", 3050),
        (dates[0], "P2", 2950),
        (dates[1], "P1", 2997),
        (dates[1], "P2", 3019),
        (dates[2], "P1", 3073),
        (dates[2], "P2", 2968),
    ]
    assert scenario == [*official[:4], (dates[2], "P1", 3049), (dates[2], "P2", 2968)]
    assert note == [
        ("1 threshold(s) crossed again, not rescaled (passed before: capital 3050 held)",)
    ]


def test_an_ingest_with_no_fid_registry_loaded_says_so_and_names_the_command(tmp_path, capsys):
    # Without a FID snapshot every player is unknown: every tournament is quarantined with two
    # rejections per game. The report says why in one line, and what to run; once a snapshot
    # is loaded, the line is gone.
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    counts = ingest_draughts_flow(str(inbox), warehouse)
    assert (counts["accepted"], counts["quarantined"]) == (0, 4)
    warning = (
        "- WARNING: no FID registry snapshot is loaded, so every player is unknown and every "
        "tournament is quarantined: load the FID registry (graduatoria load-fid-registry "
        "FOLDER --as-of DATE); its load checks the quarantined tournaments again\n"
    )
    printed = capsys.readouterr().out
    assert printed.count(warning) == 1
    # the same inbox again: unchanged, still for want of a registry
    ingest_draughts_flow(str(inbox), warehouse)
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        reports = [
            report
            for (report,) in con.sql(
                "SELECT report FROM run WHERE flow = 'ingest-draughts' ORDER BY started_at"
            ).fetchall()
        ]
    assert [warning in report for report in reports] == [True, True, False]


# DI-1 with four rejections, out of alphabetical order: line 3 names two players the registry
# does not know (player_id D009 first, then opponent_id D008), line 4 a result off the scale,
# line 5 a bye with an opponent ("a bye has no opponent; ...", the smallest)
DI1_FAULTY = """tournament_id,round,player_id,opponent_id,result,status
DI-1,1,D001,D002,2,played
DI-1,2,D009,D008,1,played
DI-1,3,D002,D003,5,played
DI-1,4,D003,D001,2,bye
"""
DI1_FIRST_REASON = (
    "player D009 is not in the FID registry in force on 2019-07-01 (the list date that applies "
    "the tournament); and 3 more rejections"
)


def _quarantined_for_four_reasons(root: Path) -> str:
    """A warehouse holding the January FID registry and the inbox, with DI-1 quarantined for
    :data:`DI1_FAULTY`'s four rejections."""
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(root / "w.duckdb")
    registry, inbox = _inputs(root)
    (inbox / "2019-05" / "di1.csv").write_text(DI1_FAULTY, encoding="utf-8")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        found = con.sql(
            "SELECT line_no, field FROM rejection WHERE tournament_id = 'DI-1' ORDER BY ALL"
        ).fetchall()
    assert found == [
        (3, "opponent_id"),
        (3, "player_id"),
        (4, "result"),
        (5, "status, opponent_id"),
    ]
    return warehouse


def _shown_reasons(warehouse: str) -> tuple[str, str, str, str]:
    """DI-1's reason as the warehouse, ``problems``, the list of 1 July and its report give it."""
    from flows.problems import ProblemFilter, problems_text
    from flows.rubele.lists import rubele_quarterly_flow

    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        stored = con.sql(
            "SELECT coalesce(quarantine_reason, '') FROM tournament WHERE tournament_id = 'DI-1'"
        ).fetchall()[0][0]
        excluded = con.sql(
            "SELECT reason FROM excluded_tournament WHERE tournament_id = 'DI-1'"
        ).fetchall()[0][0]
        report = con.sql(
            "SELECT report FROM run WHERE flow = 'quarterly' ORDER BY started_at DESC LIMIT 1"
        ).fetchall()[0][0]
    shown = problems_text(warehouse, ProblemFilter(tournament="DI-1"))
    line = next(line for line in shown.splitlines() if line.startswith("  DI-1 ("))
    listed = next(line for line in report.splitlines() if line.startswith("- DI-1 ("))
    return stored, line.split("): ", 1)[1], excluded, listed.split("): ", 1)[1]


def test_a_quarantined_tournament_is_shown_with_its_first_rejection_and_how_many_more(tmp_path):
    # the first rejection in the file (line, then column), not the alphabetically smallest
    warehouse = _quarantined_for_four_reasons(tmp_path)
    assert _shown_reasons(warehouse) == (DI1_FIRST_REASON,) * 4


def test_a_version_that_stored_no_reason_is_shown_with_its_first_rejection_too(tmp_path):
    # versions written before the reason was stored (migration 013) read it from their
    # rejections: the first in the input too, with how many more, never the smallest. Within
    # a line, the rejections are taken by field name: opponent_id's comes first here.
    from flows.warehouse import execute

    warehouse = _quarantined_for_four_reasons(tmp_path)
    with Warehouse(warehouse).transaction() as con:
        execute(con, "UPDATE tournament_version SET quarantine_reason = NULL")
    from_rejections = DI1_FIRST_REASON.replace("D009", "D008")
    assert _shown_reasons(warehouse) == ("", *(from_rejections,) * 3)


def test_an_ingest_again_says_how_many_unchanged_tournaments_are_still_quarantined(tmp_path):
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    registry, inbox = _inputs(tmp_path)
    # D005 is in no registry: DI-1 is quarantined, and stays so when delivered again
    (inbox / "2019-05" / "di1.csv").write_text(
        DI1.replace("DI-1,3,D002,D003", "DI-1,3,D002,D005"), encoding="utf-8"
    )
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    ingest_draughts_flow(str(inbox), warehouse)
    again = ingest_draughts_flow(str(inbox), warehouse)
    with Warehouse(warehouse).reader() as con:
        quarantined = con.execute(
            "SELECT list(tournament_id ORDER BY tournament_id) FROM tournament "
            "WHERE status = 'quarantined'"
        ).fetchone()[0]
        report = con.execute(
            "SELECT report FROM run_record WHERE flow = 'ingest-draughts' "
            "ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()[0]
    assert "DI-1" in quarantined and "DI-3" in quarantined  # D005; no date of receipt
    assert (again["unchanged"], again["unchanged_quarantined"]) == (4, len(quarantined))
    assert (
        f"unchanged: 4 ({len(quarantined)} of them still quarantined: graduatoria problems "
        "says why)"
    ) in report


def test_an_ingest_names_its_quarantined_tournaments_and_warns_of_a_rated_one(tmp_path, capsys):
    # DI-3 has no receipt date: quarantined, and named (the draughts report named none); a
    # typo in DI-1 delivered again after a list rated it takes it out at the next replay
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow

    _ingested(tmp_path)
    first = capsys.readouterr().out
    assert "## Quarantined tournaments (not rated until delivered again)" in first
    assert (
        "\n- DI-3: received_on is required and is empty (tournament DI-3): the date of receipt "
        "decides the rating period and is never guessed; add it to the tournaments.csv and "
        "deliver again\n" in first
    )
    warehouse = str(tmp_path / "w.duckdb")
    rubele_quarterly_flow("rubele_italiana", date(2019, 7, 1), warehouse)
    games_file = tmp_path / "inbox" / "2019-05" / "di1.csv"
    games_file.write_text(DI1.replace("DI-1,1,D001,D002,2,played", "DI-1,1,D001,D002,2,playd"))
    capsys.readouterr()
    ingest_draughts_flow(str(tmp_path / "inbox"), warehouse)
    again = capsys.readouterr().out
    line = next(line for line in again.splitlines() if line.startswith("- DI-1: "))
    assert "— WARNING: rubele_italiana lists rate an earlier version of it (2019-07-01)" in line
    assert "\n- DI-3: " not in again  # unchanged since, and named by the first ingest
    # and the status names it apart from the tournaments merely corrected
    from flows.status import stale_of

    with Warehouse(warehouse).reader() as con:
        stale = {item.list_date: item.reason for item in stale_of(con, "rubele_italiana")}
    assert (
        "now quarantined (a replay takes it out until it is delivered again): DI-1"
        in stale[date(2019, 7, 1)]
    )
    assert "new versions of" not in stale[date(2019, 7, 1)]


def _last_report(warehouse: str, flow: str) -> str:
    with Warehouse(warehouse).reader() as con:
        return con.execute(
            "SELECT report FROM run_record WHERE flow = ? ORDER BY ended_at DESC LIMIT 1",
            [flow],
        ).fetchone()[0]


def test_a_replay_names_what_it_no_longer_applies_and_a_list_nobody_is_ranked_in(tmp_path):
    # the registry's memberships are of 2019 only: the list of 2020-01-01 ranks nobody, which
    # a quarterly said and a replay did not; a withdrawn tournament leaves the lists that
    # applied it, and the replay names it there
    from flows.rubele.lists import rubele_recalculate_flow
    from flows.withdraw import withdraw_flow

    warehouse, _ = _ingested(tmp_path)
    rubele_recalculate_flow("rubele_italiana", warehouse, date(2019, 7, 1), date(2020, 1, 1))
    report = _last_report(warehouse, "recalculate")
    assert (
        "WARNING: nobody is in the national ranking of 2020-01-01 (3 players, none both "
        "active and a member): is the registry loaded, with its memberships?" in report
    )
    assert "ranking of 2019-07-01" not in report
    assert "| capitals changed |" in report and "| largest capital difference |" in report
    assert "no longer apply" not in report  # first revisions: nothing to compare with
    withdraw_flow("DI-1", "sent by mistake", warehouse)
    # and a tournament new to the list that it sets aside (a validity its era does not know):
    # never applied, so not among what the replay takes out (the list's report names it)
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.status import stale_of

    late = tmp_path / "late" / "2019-06"
    late.mkdir(parents=True)
    (late / "tournaments.csv").write_text(
        TOURNAMENTS.splitlines()[0]
        + "\nDI-9,italiana,Coppa Nove,Roma,2019-06-01,2019-06-01,75,2019-06-05,di9.csv,fid\n"
    )
    (late / "di9.csv").write_text(
        "tournament_id,round,player_id,opponent_id,result,status\nDI-9,1,D001,D003,2,played\n"
    )
    ingest_draughts_flow(str(tmp_path / "late"), warehouse)
    with Warehouse(warehouse).reader() as con:
        stale = {item.list_date: item.reason for item in stale_of(con, "rubele_italiana")}
    # a withdrawal is named as one, not as a new version
    assert "withdrawn: DI-1" in stale[date(2019, 7, 1)]
    assert "new versions of DI-1" not in stale[date(2019, 7, 1)]
    rubele_recalculate_flow("rubele_italiana", warehouse, stale=True)
    report = _last_report(warehouse, "recalculate")
    assert (
        "## Tournaments the new revisions no longer apply\n"
        "- 2019-07-01: DI-1 (withdrawn: sent by mistake)\n" in report
    )
    assert "DI-9" not in report


def test_a_tournament_received_long_after_it_ended_is_a_warning(tmp_path):
    # OLD ended in 2017 and was received in 2019: rated as received, with a warning naming how
    # late (a wrong file or a wrong receipt date, more often than a late arbiter)
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.registry import load_fid_registry_flow

    registry, inbox = _season(
        tmp_path,
        'P1,"Primo, Uno",M,1960-01-01,ITA,CM,,,\nP2,"Secondo, Due",M,1960-01-01,ITA,CM,,,\n',
        "OLD,italiana,Vecchio,Roma,2017-03-04,2017-03-05,100,2019-04-10,old.csv,one\n"
        "NEW,italiana,Nuovo,Roma,2019-03-02,2019-03-03,100,2019-04-10,new.csv,one\n",
        {"old.csv": "OLD,1,P1,P2,1,played\n", "new.csv": "NEW,1,P1,P2,0.5,played\n"},
    )
    warehouse = str(tmp_path / "w.duckdb")
    load_fid_registry_flow(str(registry), date(2019, 1, 1), warehouse)
    assert ingest_draughts_flow(str(inbox), warehouse)["accepted"] == 2
    with Warehouse(warehouse).reader() as con:
        warned = con.sql(
            "SELECT tournament_id, line_no, reason FROM input_warning WHERE field = 'received_on'"
        ).fetchall()
    assert warned == [
        (
            "OLD",
            2,
            "received on 2019-04-10, 766 days after the tournament ended (2017-03-05): is it "
            "the right file and the right receipt date? It is rated as received, in the list "
            "whose window holds that date",
        )
    ]
