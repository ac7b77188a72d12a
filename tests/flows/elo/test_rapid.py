"""Elo Rapid end to end: validity at ingest, rapid lists with letters, idempotent replays."""

from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")

FIRST, LAST = date(2019, 4, 1), date(2020, 1, 1)


def test_rapid_lists_have_letters_that_only_go_up(season_warehouse):
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, FIRST, LAST)  # rapid newcomers may enter with it
    assert recalculate_flow("elo_rapid", warehouse, FIRST, LAST)["new_revisions"] == 4
    # the same inputs give nothing new, from either flow
    assert recalculate_flow("elo_rapid", warehouse, FIRST, LAST)["new_revisions"] == 0
    assert quarterly_flow("elo_rapid", LAST, warehouse)["new_revision"] == 0

    with Warehouse(warehouse).reader() as con:
        rows = con.sql(
            "SELECT list_date, player_id, rating, rating_type, category, letter, "
            "letter_provisional, letter_held FROM rating_list WHERE system = 'elo_rapid' "
            "ORDER BY player_id, list_date"
        ).pl()
        history = con.sql("SELECT * FROM letter_history ORDER BY player_id, list_date").pl()
        bases = dict(
            con.sql(
                "SELECT rating_basis, count(*) FROM rating_list WHERE system = 'elo_rapid' "
                "GROUP BY ALL"
            ).fetchall()
        )
        excluded = con.sql(
            "SELECT reason FROM excluded_tournament WHERE system = 'elo_rapid' ORDER BY ALL"
        ).fetchall()
        rapid_in_italia = con.sql(
            "SELECT count(*) FROM variation v JOIN tournament t USING (tournament_id) "
            "WHERE v.system = 'elo_italia' AND t.system = 'elo_rapid'"
        ).fetchall()[0][0]
    assert rows.height > 0 and rapid_in_italia == 0
    # the quarantined rapid tournaments are named with their reason by the lists they miss
    assert ("not valid for elo_rapid: 13 players, at least 14 required",) in excluded
    assert set(rows.get_column("rating_type")) == {"elo_rapid"}
    # every player has a letter (lists after 2006-01-01), shown as the category: D or Dx
    assert rows.get_column("letter").null_count() == 0
    for row in rows.iter_rows(named=True):
        expected = row["letter"] + ("x" if row["letter_provisional"] else "")
        assert row["category"] == expected
        assert row["letter_provisional"] == (row["letter_held"] < 2)
    # letters never go down from one list date to the next
    order = "GFEDCBA"
    for _, player_rows in rows.group_by("player_id"):
        ranks = [order.index(letter) for letter in player_rows.sort("list_date")["letter"]]
        assert ranks == sorted(ranks)
    assert history.height == rows.height  # the letter history: one row per player and list
    assert history.filter(history["changed"]).height > 0
    # newcomers entered through the precedence of the rulebook
    assert {"fide_rapid", "elo_italia", "entry"} <= set(bases)


def test_too_small_rapid_tournaments_are_quarantined_with_the_reason(season_warehouse):
    warehouse = str(season_warehouse(2019))
    with Warehouse(warehouse).reader() as con:
        reasons = con.sql(
            "SELECT r.tournament_id, r.field, r.reason FROM rejection r "
            "JOIN tournament t USING (tournament_id) "
            "WHERE t.system = 'elo_rapid' AND t.status = 'quarantined' ORDER BY ALL"
        ).fetchall()
    assert [(field, reason) for _, field, reason in reasons] == [
        ("players", "not valid for elo_rapid: 13 players, at least 14 required"),
        ("rounds", "not valid for elo_rapid: 5 rounds, at least 6 required"),
    ]


def test_an_imported_rapid_list_keeps_its_letters_and_refuses_unknown_ones(tmp_path):
    from flows.import_list import import_list_flow
    from flows.publishing.arguments import ListError

    warehouse = str(tmp_path / "w.duckdb")
    listing = tmp_path / "elo_rapid.csv"
    listing.write_text(
        "player_id,rating,games,k,category,last_played\n"
        "100001,1850,45,15,Dx,2018-05-20\n"
        "100002,1620,80,15,E,2018-06-01\n"
        "100003,1500,12,30,Q,2018-06-01\n",
        encoding="utf-8",
    )
    # a list with a row rejected is refused whole: its player would enter as a newcomer
    with pytest.raises(ListError, match=r"1 row rejected \(line 4, category 'Q': .*\), nothing"):
        import_list_flow(str(listing), "elo_rapid", date(2019, 1, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT count(*) FROM rating_list").fetchall() == [(0,)]
        assert con.execute("SELECT status FROM run").fetchall() == [("refused",)]
    # corrected: the third player is dropped from the file by the federation
    listing.write_text("\n".join(listing.read_text(encoding="utf-8").splitlines()[:3]) + "\n")
    counts = import_list_flow(str(listing), "elo_rapid", date(2019, 1, 1), warehouse)
    assert counts == {"players": 2, "rejections_new": 0}
    with Warehouse(warehouse).reader() as con:
        listed = con.sql(
            "SELECT player_id, rating_type, category, letter, letter_provisional, letter_held "
            "FROM rating_list ORDER BY player_id"
        ).fetchall()
        reasons = con.sql("SELECT line_no, field, reason FROM rejection").fetchall()
    # a provisional letter was held once, a definitive one at least the 2 list dates required
    assert listed == [
        ("100001", "elo_rapid", "Dx", "D", True, 1),
        ("100002", "elo_rapid", "E", "E", False, 2),
    ]
    assert reasons == [
        (
            4,
            "category",
            "'Q' is not a letter of this list (A, B, C, D, E, F, G, provisional with 'x')",
        )
    ]


def test_a_first_list_with_no_tournament_is_refused_not_published_empty(tmp_path):
    from flows.elo.lists import quarterly_flow
    from flows.import_list import import_list_flow
    from flows.publishing.arguments import ListError

    warehouse = str(tmp_path / "w.duckdb")
    listing = tmp_path / "elo_italia.csv"
    listing.write_text("player_id,rating,games,k,category\n100001,1712,45,15,2N\n")
    import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), warehouse)
    # no Elo Rapid list and no rapid tournament: an empty first list would block the import
    # of the federation's list at that date
    with pytest.raises(
        ListError, match="no elo_rapid tournament has been received: nothing to list"
    ):
        quarterly_flow("elo_rapid", date(2019, 4, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        lists = con.execute("SELECT DISTINCT system FROM list_revision").fetchall()
    assert lists == [("elo_italia",)]


def test_a_replay_from_the_first_list_date_goes_on_past_an_empty_first_list(tmp_path):
    # deliveries without a registry: every rapid tournament has a player who is no member, so
    # the first Elo Rapid list sets them all aside and lists nobody; the lists after it still
    # follow it (they were refused: "no elo_rapid list precedes 2019-07-01", the list the
    # replay had just written)
    from flows.elo.ingest import ingest_flow
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow
    from synthetic.chess import generate_federation
    from synthetic.demo_files import write_federation

    demo = tmp_path / "demo"
    write_federation(
        generate_federation(5, season=2019, n_players=200, tournaments_per_quarter=(3, 4)), demo
    )
    warehouse = str(tmp_path / "w.duckdb")
    ingest_flow(str(demo / "deliveries"), warehouse)
    replayed = recalculate_flow("elo_rapid", warehouse, FIRST, date(2019, 10, 1))
    assert replayed["lists"] == replayed["new_revisions"] == 3
    assert quarterly_flow("elo_rapid", LAST, warehouse)["revision"] == 1
    with Warehouse(warehouse).reader() as con:
        sizes = con.sql(
            "SELECT list_date, players FROM list_revision WHERE system = 'elo_rapid' "
            "ORDER BY list_date"
        ).fetchall()
    assert sizes == [(FIRST, 0), (date(2019, 7, 1), 0), (date(2019, 10, 1), 0), (LAST, 0)]
    # nothing of this is silent: the ingest and the list say why
    with Warehouse(warehouse).reader() as con:
        reports = dict(
            con.sql(
                "SELECT flow, report FROM run_record WHERE flow IN ('ingest', 'quarterly')"
            ).fetchall()
        )
    assert (
        "- WARNING: no registry snapshot is loaded, so every player is provisional"
        in (reports["ingest"])
    )
    assert reports["quarterly"].startswith(
        "WARNING: nobody is in the national ranking of this list (0 players, none both active "
        "and a member): is the registry loaded, with its memberships?"
    )


def test_a_stale_rapid_list_names_the_tournament_moved_away_and_the_list_it_reads(
    season_warehouse, tmp_path
):
    # two causes "its inputs changed" named nothing of: a rapid tournament delivered again as
    # an Elo Italia one, and a new revision of the Elo Italia list its newcomers enter with
    from flows.elo.ingest import ingest_flow
    from flows.elo.recalculate import recalculate_flow
    from flows.status import stale_of
    from tests.flows.helpers import deliver_a_corrected_tournament, write_manifest

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, FIRST, FIRST)
    recalculate_flow("elo_rapid", warehouse, FIRST, FIRST)
    with Warehouse(warehouse).reader() as con:
        tournament_id, file_name, received, content = con.execute(
            "SELECT t.tournament_id, t.file_name, t.received_on, f.content FROM tournament t "
            "JOIN raw_file f ON f.sha256 = t.file_sha256 WHERE t.status = 'accepted' "
            "AND t.system = 'elo_rapid' AND t.tournament_id IN (SELECT tournament_id FROM "
            "variation WHERE system = 'elo_rapid' AND list_date = ?) "
            "ORDER BY t.tournament_id LIMIT 1",
            [FIRST],
        ).fetchone()
    delivery = tmp_path / "inbox" / "2019-05"
    delivery.mkdir(parents=True)
    (delivery / file_name).write_bytes(content)
    write_manifest(
        delivery,
        [{"tournament_id": tournament_id, "file": file_name, "system": "elo_italia",
          "received_on": str(received)}],
    )  # fmt: skip
    ingest_flow(str(tmp_path / "inbox"), warehouse)
    with Warehouse(warehouse).reader() as con:
        stale = {item.list_date: item.reason for item in stale_of(con, "elo_rapid")}
    assert f"moved to another system: {tournament_id} to elo_italia" in stale[FIRST]

    july = date(2019, 7, 1)
    recalculate_flow("elo_italia", warehouse, FIRST, july)
    recalculate_flow("elo_rapid", warehouse, FIRST, july)  # current again
    # a corrected Elo Italia tournament received in the April list's window: a new revision
    # of the Elo Italia list of April, which the rapid list of July reads (its newcomers')
    deliver_a_corrected_tournament(Path(warehouse), tmp_path / "later", received_on="2019-03-01")
    assert recalculate_flow("elo_italia", warehouse, FIRST, FIRST)["new_revisions"] == 1
    with Warehouse(warehouse).reader() as con:
        rapid = {item.list_date: item.reason for item in stale_of(con, "elo_rapid")}
    assert FIRST not in rapid
    assert rapid[july].endswith(": a new revision of the list it reads: elo_italia of 2019-04-01")
