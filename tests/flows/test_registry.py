"""Registry snapshots, published lists and merges through their flows into a temporary DuckDB."""

import csv
import io
import shutil
from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse
from tests.flows.helpers import SHARED_TRF, write_manifest

pytestmark = pytest.mark.usefixtures("prefect_server")

PLAYERS_HEADER = (
    "player_id,name,sex,birth_date,country,fide_id,fide_standard,fide_rapid,category,k_override\n"
)
JANUARY = (
    PLAYERS_HEADER
    + '100001,"Rossi, Mario",M,1980-01-02,ITA,,,,1N,\n'
    + '100002,"Bianchi, Anna",F,2010-05-06,ITA,2250001,1650,,2N,\n'
    + '100003,"Verdi, Luca",M,1999-13-01,ITA,,,,NC,\n'  # month 13: rejected
    + '100004,"Neri, Paolo",X,1970-01-01,ITA,,,,NC,\n'  # sex X: rejected
)
JULY = (
    PLAYERS_HEADER
    + '100001,"Rossi, Mario",M,1980-01-02,ITA,2250009,1810,,1N,\n'  # now FIDE-rated
    + '100002,"Bianchi, Anna",F,2010-05-06,ITA,2250001,1702,,1N,\n'
)
MEMBERSHIPS = "player_id,year\n100001,2026\n100002,2026\n999999,2026\n"


def _snapshot(folder: Path, players: str, memberships: str = MEMBERSHIPS) -> str:
    folder.mkdir(parents=True)
    (folder / "players.csv").write_text(players, encoding="utf-8")
    (folder / "memberships.csv").write_text(memberships, encoding="utf-8")
    return str(folder)


def _separated_by(text: str, separator: str) -> str:
    """The CSV as a spreadsheet writes it with another separator (Excel in an Italian locale
    writes ';'): a comma inside a name is no longer quoted."""
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator="\n").writerows(
        csv.reader(io.StringIO(text))
    )
    return out.getvalue()


def _registry_state(warehouse: str) -> dict[str, object]:
    """What a registry load may change, besides the rejections and the run record."""
    with Warehouse(warehouse).reader() as con:
        state = {
            table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("registry_load", "registry_player", "registry_membership", "raw_file")
        }
        state["registry_at"] = con.execute(
            "SELECT * FROM registry_at('2026-12-31'::DATE) ORDER BY player_id"
        ).fetchall()
    return state


def _last_run(warehouse: str) -> tuple[str, str]:
    with Warehouse(warehouse).reader() as con:
        return con.execute(
            "SELECT status, report FROM run_record WHERE flow = 'load-registry' "
            "ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()


def _rejections_of_last_run(warehouse: str) -> list[tuple]:
    with Warehouse(warehouse).reader() as con:
        return con.execute(
            "SELECT file_name, line_no, field, reason FROM rejection WHERE run_id = "
            "(SELECT run_id FROM run_record WHERE flow = 'load-registry' "
            "ORDER BY ended_at DESC LIMIT 1) ORDER BY file_name, line_no"
        ).fetchall()


def test_snapshots_are_read_as_they_stood_and_reloads_change_nothing(tmp_path):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    january = _snapshot(tmp_path / "2026-01-01", JANUARY)
    july = _snapshot(tmp_path / "2026-07-01", JULY)
    first = load_registry_flow(january, date(2026, 1, 1), warehouse)
    assert first == {
        "players": 2,
        "memberships": 2,
        "rejections_new": 3,
        "players_rematched": 0,
        "players_still_provisional": 0,
        "imported_lists_refreshed": 0,
    }
    load_registry_flow(july, date(2026, 7, 1), warehouse)
    again = load_registry_flow(january, date(2026, 1, 1), warehouse)
    assert again == {"players": 0, "memberships": 0, "rejections_new": 0, "players_rematched": 0}
    with Warehouse(warehouse).reader() as con:

        def fide(day: str) -> list:
            return con.execute(
                "SELECT player_id, fide_standard FROM registry_at(?::DATE) ORDER BY player_id",
                [day],
            ).fetchall()

        assert fide("2025-12-31") == []
        assert fide("2026-03-01") == [("100001", None), ("100002", 1650)]
        assert fide("2026-07-01") == [("100001", 1810), ("100002", 1702)]
        rejections = con.execute(
            "SELECT file_name, line_no, field, reason FROM rejection ORDER BY file_name, line_no"
        ).fetchall()
        loads = con.execute("SELECT count(*) FROM registry_load").fetchone()[0]
    assert loads == 2
    assert ("memberships.csv", 4, "player_id", "player_id 999999 is not in players.csv") in (
        rejections
    )
    assert ("players.csv", 4, "birth_date", "birth_date must be a date written YYYY-MM-DD") in (
        rejections
    )
    assert ("players.csv", 5, "sex", "sex must be one of M, F") in rejections


def test_import_list_bootstraps_and_refuses_a_different_file_for_the_same_date(tmp_path):
    from flows.import_list import import_list_flow
    from flows.publishing.arguments import ListError

    warehouse = str(tmp_path / "w.duckdb")
    listing = tmp_path / "list.csv"
    listing.write_text(
        "player_id,rating,games,k,category,last_played\n"
        "100001,1712,45,15,2N,2018-05-20\n100002,abc,3,30,NC,\n",
        encoding="utf-8",
    )
    # a row rejected: nothing imported (the player would enter the next list as a newcomer)
    with pytest.raises(
        ListError, match=r"list\.csv: 1 row rejected \(line 3, rating 'abc': .*\), nothing imported"
    ):
        import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), warehouse)
    listing.write_text(listing.read_text(encoding="utf-8").replace(",abc,", ",1490,"))
    counts = import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), warehouse)
    assert counts == {"players": 2, "rejections_new": 0}
    assert import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), warehouse)["players"] == 0
    listing.write_text("player_id,rating,games,k,category\n100001,1700,45,15,2N\n")
    with pytest.raises(ListError, match="is not replaced by an import"):
        import_list_flow(str(listing), "elo_italia", date(2019, 1, 1), warehouse)
    with Warehouse(warehouse).reader() as con:
        listed = con.execute(
            "SELECT player_id, rating, total_games, rating_basis, revision, source, "
            "last_played::VARCHAR, is_active FROM rating_list ORDER BY player_id"
        ).fetchall()
    # the published list is revision 1 of its list date: the base of the next quarter, with
    # activity from the date of the player's last rated tournament (within 24 months)
    assert listed[0] == ("100001", 1712, 45, "imported", 1, "imported", "2018-05-20", True)
    assert [row[:2] for row in listed] == [("100001", 1712), ("100002", 1490)]


def test_unmatched_players_get_provisional_ids_that_a_merge_resolves(tmp_path):
    from flows.elo.ingest import ingest_flow
    from flows.elo.registry import load_registry_flow
    from flows.registry import merge_player_flow

    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "reg", JANUARY), date(2026, 1, 1), warehouse)
    delivery = tmp_path / "inbox" / "d1"
    delivery.mkdir(parents=True)
    name = "sanichi_icu_tournament__spec_samples_krause_latin-1.tab"
    shutil.copyfile(SHARED_TRF / name, delivery / name)
    write_manifest(
        delivery,
        [
            {
                "tournament_id": "LV-1",
                "file": name,
                "system": "elo_italia",
                "received_on": "2026-02-01",
            }
        ],
    )
    counts = ingest_flow(str(delivery.parent), warehouse)
    assert counts["players_unmatched"] == 3
    with Warehouse(warehouse).reader() as con:
        waiting = [
            row[0]
            for row in con.execute(
                "SELECT provisional_id FROM unmatched_player ORDER BY start_number"
            ).fetchall()
        ]
    # the Latin-1 name "Úrr,Márk" survives decoding into the provisional id
    assert waiting[1].startswith("P-") and "RR" in waiting[1]
    merge_player_flow(waiting[0], "100001", warehouse, note="same person, checked by phone")
    with Warehouse(warehouse).reader() as con:
        resolved = con.execute(
            "SELECT player_id, match_method FROM tournament_player WHERE start_number = 1"
        ).fetchone()
        left = con.execute("SELECT count(*) FROM unmatched_player").fetchone()[0]
    assert resolved == ("100001", "merge")
    assert left == 2
    with pytest.raises(Exception, match="not in any registry snapshot"):
        merge_player_flow(waiting[1], "424242", warehouse)
    # 100001 already plays LV-1 (the first merge): a second entry of LV-1 cannot be him too
    with pytest.raises(Exception, match="both play in LV-1, and one person cannot play twice"):
        merge_player_flow(waiting[2], "100001", warehouse)
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT count(*) FROM unmatched_player").fetchone()[0] == 2


def _two_players_waiting(tmp_path: Path) -> tuple[str, list[tuple]]:
    """A warehouse with the January registry and AR-1 ingested, whose two foreign players
    wait with provisional ids: the warehouse, and (provisional_id, fide_id) of each."""
    from flows.elo.ingest import ingest_flow
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "reg", JANUARY), date(2026, 1, 1), warehouse)
    delivery = tmp_path / "inbox" / "d1"
    delivery.mkdir(parents=True)
    name = "sanichi_icu_tournament__spec_samples_krause_armstrong_2012_with_bom.tab"
    # its id column holds the Irish federation's ids (6897, 159), read as no FIDE ids: they
    # become FIDE ids of the same width
    raw = (SHARED_TRF / name).read_bytes()
    assert raw.count(b"   6897 ") == raw.count(b"    159 ") == 1
    raw = raw.replace(b"   6897 ", b"2506897 ").replace(b"    159 ", b"2500159 ")
    (delivery / name).write_bytes(raw)
    write_manifest(
        delivery,
        [
            {
                "tournament_id": "AR-1",
                "file": name,
                "system": "elo_italia",
                "received_on": "2026-02-01",
                # the file gives none: said here, it adds no warning to those counted below
                "time_control": "90+30",
            }
        ],
    )
    ingest_flow(str(delivery.parent), warehouse)
    with Warehouse(warehouse).reader() as con:
        waiting = con.execute(
            "SELECT provisional_id, fide_id FROM unmatched_player ORDER BY start_number"
        ).fetchall()
    return warehouse, waiting


def test_a_registry_snapshot_loaded_later_identifies_waiting_players(tmp_path):
    from flows.elo.registry import load_registry_flow

    warehouse, waiting = _two_players_waiting(tmp_path)
    assert len(waiting) == 2 and waiting[0][1] is not None
    (provisional, fide_id), _ = waiting
    # the July snapshot registers the first player, under his FIDE id (the name is spelled
    # differently in the registry: the FIDE id decides, as it does at ingest)
    july = JULY + f'100777,"Griffiths, Ryan",M,1990-01-01,IRL,{fide_id},2322,,NC,\n'
    counts = load_registry_flow(_snapshot(tmp_path / "july", july), date(2026, 7, 1), warehouse)
    assert counts["players_rematched"] == 1
    with Warehouse(warehouse).reader() as con:
        merged = con.execute(
            "SELECT player_id, note FROM player_merge WHERE provisional_id = ?", [provisional]
        ).fetchone()
        resolved = con.execute(
            "SELECT player_id, match_method FROM tournament_player WHERE start_number = 1"
        ).fetchone()
        left = con.execute("SELECT count(*) FROM unmatched_player").fetchone()[0]
    assert merged == ("100777", "matched by the registry snapshot of 2026-07-01 (fide_id)")
    assert resolved == ("100777", "merge")
    assert left == 1
    # the one still waiting is named in the load's report, with why
    (_, still_waiting) = waiting
    assert counts["players_still_provisional"] == 1
    with Warehouse(warehouse).reader() as con:
        report = con.execute(
            "SELECT report FROM run_record WHERE flow = 'load-registry' "
            "ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()[0]
    assert "- provisional players this snapshot could not place: 1\n" in report
    assert f"  - {still_waiting[0]}: " in report
    # loading the same snapshot again finds nothing new
    again = load_registry_flow(str(tmp_path / "july"), date(2026, 7, 1), warehouse)
    assert again["players_rematched"] == 0


def test_a_rematch_that_would_make_one_person_play_twice_is_left_to_the_analyst(tmp_path):
    from flows.elo.registry import load_registry_flow
    from flows.registry import merge_player_flow

    warehouse, waiting = _two_players_waiting(tmp_path)
    (first, fide_id), (second, _) = waiting
    assert fide_id is not None
    # the analyst says the second waiting player is 100001, who thus plays AR-1
    merge_player_flow(second, "100001", warehouse, note="checked with the arbiter")
    # then a snapshot gives 100001 the first waiting player's FIDE id and name: the registry
    # would identify the first one as 100001 too, a second entry of one person in AR-1
    with Warehouse(warehouse).reader() as con:
        name = con.execute(
            "SELECT name FROM unmatched_player WHERE provisional_id = ?", [first]
        ).fetchone()[0]
    july = (
        PLAYERS_HEADER
        + f'100001,"{name}",M,1980-01-02,ITA,{fide_id},1810,,1N,\n'
        + '100002,"Bianchi, Anna",F,2010-05-06,ITA,2250001,1702,,1N,\n'
    )
    counts = load_registry_flow(_snapshot(tmp_path / "july", july), date(2026, 7, 1), warehouse)
    assert counts["players_rematched"] == 0
    with Warehouse(warehouse).reader() as con:
        merged = con.execute(
            "SELECT count(*) FROM player_merge WHERE provisional_id = ?", [first]
        ).fetchone()[0]
        still_waiting = [
            row[0] for row in con.execute("SELECT provisional_id FROM unmatched_player").fetchall()
        ]
        report = con.execute(
            "SELECT report FROM run_record WHERE flow = 'load-registry' "
            "ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()[0]
    assert merged == 0
    assert still_waiting == [first]
    assert "left to the analyst" in report and first in report


REFUSED_HEADERS = {
    # as the review wrote it (no comma left anywhere: every row reads as one empty column)
    "players-semicolon-plain": ("players.csv", JULY.replace(",", ";"), "';'"),
    # as Excel writes it (the name's comma is left unquoted: the rows are ragged)
    "players-semicolon-excel": ("players.csv", _separated_by(JULY, ";"), "';'"),
    "players-tabs": ("players.csv", _separated_by(JULY, "\t"), "tabs"),
    "memberships-semicolon": ("memberships.csv", _separated_by(MEMBERSHIPS, ";"), "';'"),
}


# what a load refused for one reason counts: nothing stored, one rejection
REFUSED_WITH_ONE_REJECTION = {
    "players": 0,
    "memberships": 0,
    "rejections_new": 1,
    "players_rematched": 0,
    "refused": 1,
}


@pytest.mark.parametrize("case", list(REFUSED_HEADERS))
def test_a_file_separated_by_semicolons_or_tabs_is_refused_and_the_snapshot_stays(tmp_path, case):
    from flows.elo.registry import load_registry_flow

    file_name, content, separator = REFUSED_HEADERS[case]
    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "jan", JANUARY), date(2026, 1, 1), warehouse)
    before = _registry_state(warehouse)
    july = _snapshot(tmp_path / "jul", JULY)
    (Path(july) / file_name).write_text(content, encoding="utf-8")
    counts = load_registry_flow(july, date(2026, 7, 1), warehouse)
    assert counts == REFUSED_WITH_ONE_REJECTION
    # nothing stored: from July the January snapshot is still the registry in force
    assert _registry_state(warehouse) == before
    missing = (
        "player_id, year"
        if file_name == "memberships.csv"
        else "player_id, name, sex, country, category"
    )
    assert _rejections_of_last_run(warehouse) == [
        (
            file_name,
            1,
            None,
            f"the header lacks the required columns {missing}: the file seems separated by "
            f"{separator} and must be comma-separated (save it as CSV with commas)",
        )
    ]
    status, report = _last_run(warehouse)
    assert status == "refused"
    assert "refused" in report and file_name in report
    # the same refused files again: no new rejection, still nothing stored
    again = load_registry_flow(july, date(2026, 7, 1), warehouse)
    assert again["rejections_new"] == 0
    assert _registry_state(warehouse) == before


def test_a_players_file_that_is_not_utf8_is_refused_with_the_line_of_the_first_bad_byte(
    tmp_path,
):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "jan", JANUARY), date(2026, 1, 1), warehouse)
    before = _registry_state(warehouse)
    july = _snapshot(tmp_path / "jul", JULY)
    windows = JULY + '100005,"Nicolò, Zeno",M,1980-01-01,ITA,,,,NC,\n'  # line 4
    (Path(july) / "players.csv").write_bytes(windows.encode("cp1252"))
    counts = load_registry_flow(july, date(2026, 7, 1), warehouse)
    assert counts == REFUSED_WITH_ONE_REJECTION
    assert _registry_state(warehouse) == before
    assert _rejections_of_last_run(warehouse) == [
        (
            "players.csv",
            4,
            None,
            "the file is not UTF-8 (byte 0xF2 on line 4 cannot be read): save the file as UTF-8",
        )
    ]
    assert _last_run(warehouse)[0] == "refused"


def test_a_membership_of_a_rejected_player_says_his_row_was_rejected(tmp_path):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    # 100003 (line 4, month 13) and 100004 (line 5, sex X) are in players.csv but rejected
    memberships = MEMBERSHIPS + "100003,2026\n100004,2026\n"
    counts = load_registry_flow(
        _snapshot(tmp_path / "jan", JANUARY, memberships), date(2026, 1, 1), warehouse
    )
    assert counts["memberships"] == 2
    rejections = [row for row in _rejections_of_last_run(warehouse) if row[0] != "players.csv"]
    assert rejections == [
        ("memberships.csv", 4, "player_id", "player_id 999999 is not in players.csv"),
        (
            "memberships.csv",
            5,
            "player_id",
            "player_id 100003's row in players.csv was rejected (line 4)",
        ),
        (
            "memberships.csv",
            6,
            "player_id",
            "player_id 100004's row in players.csv was rejected (line 5)",
        ),
    ]


def test_a_fide_id_on_two_rows_is_set_aside_on_both_and_neither_player_is_lost(tmp_path):
    from flows.elo.registry import load_registry_flow

    # AR-1's first foreign player waits under a provisional id, with his FIDE id
    warehouse, waiting = _two_players_waiting(tmp_path)
    (provisional, fide_id), _ = waiting
    assert fide_id is not None
    # July gives his FIDE id to two registered players (lines 2 and 4): whose it is cannot be
    # known, so neither is dropped and neither may take his tournament entries
    july = (
        PLAYERS_HEADER
        + f'100001,"Rossi, Mario",M,1980-01-02,ITA,{fide_id},1810,,1N,\n'
        + '100002,"Bianchi, Anna",F,2010-05-06,ITA,2250001,1702,,1N,\n'
        + f'100777,"Griffiths, Ryan",M,1990-01-01,IRL,{fide_id},2322,,NC,\n'
    )
    counts = load_registry_flow(_snapshot(tmp_path / "july", july), date(2026, 7, 1), warehouse)
    assert counts["players"] == 3
    assert counts["players_rematched"] == 0
    # no row rejected (memberships.csv's 999999 was already rejected, same file, in January)
    assert counts["rejections_new"] == 0
    with Warehouse(warehouse).reader() as con:
        registry = con.execute(
            "SELECT player_id, fide_id, fide_standard, category FROM registry_at('2026-07-01') "
            "ORDER BY player_id"
        ).fetchall()
        # the registry's (the ingest before it warns of a 2012 tournament received in 2026)
        warnings = con.execute(
            "SELECT file_name, line_no, field, value, reason FROM input_warning "
            "WHERE file_name = 'players.csv' ORDER BY line_no"
        ).fetchall()
        still_waiting = con.execute(
            "SELECT provisional_id FROM unmatched_player WHERE provisional_id = ?", [provisional]
        ).fetchall()
        player_rejections = con.execute(
            "SELECT count(*) FROM rejection WHERE file_name = 'players.csv' AND line_no IN (2, 4)"
            " AND file_sha256 = (SELECT players_sha256 FROM registry_load "
            "WHERE as_of = '2026-07-01')"
        ).fetchone()[0]
    # both kept, FIDE ratings and all the rest as written; only the shared id is set aside
    assert registry == [
        ("100001", None, 1810, "1N"),
        ("100002", 2250001, 1702, "1N"),
        ("100777", None, 2322, "NC"),
    ]
    assert player_rejections == 0
    aside = "set aside on both lines: no tournament entry is matched to either by this FIDE id"
    assert warnings == [
        (
            "players.csv",
            2,
            "fide_id",
            str(fide_id),
            f"fide_id {fide_id} is also given to player 100777 on line 4; {aside}",
        ),
        (
            "players.csv",
            4,
            "fide_id",
            str(fide_id),
            f"fide_id {fide_id} is also given to player 100001 on line 2; {aside}",
        ),
    ]
    # the waiting player is still left to the analyst, not matched to the wrong person
    assert still_waiting == [(provisional,)]
    _, report = _last_run(warehouse)
    assert "- warnings: 2 (new: 2)" in report


def test_a_missing_memberships_file_refuses_the_load_and_a_repeated_year_counts_once(tmp_path):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    folder = tmp_path / "no-memberships"
    folder.mkdir()
    (folder / "players.csv").write_text(JULY, encoding="utf-8")
    counts = load_registry_flow(str(folder), date(2026, 7, 1), warehouse)
    assert counts["players"] == 0 and counts["rejections_new"] == 1
    with Warehouse(warehouse).reader() as con:
        loads = con.execute("SELECT count(*) FROM registry_load").fetchall()
        refused = con.execute("SELECT file_name, reason FROM rejection").fetchall()
    assert loads == [(0,)]
    assert refused == [
        ("memberships.csv", f"memberships.csv is not in {folder}: a snapshot needs both files")
    ]

    # the same year written twice for one player (line 3 repeats line 2): one membership
    repeated = "player_id,year\n100001,2026\n100001,2026\n100002,2026\n"
    counts = load_registry_flow(
        _snapshot(tmp_path / "repeated", JULY, repeated), date(2026, 7, 1), warehouse
    )
    assert (counts["players"], counts["memberships"]) == (2, 2)
    with Warehouse(warehouse).reader() as con:
        members = con.execute(
            "SELECT player_id FROM membership_at('2026-07-01'::DATE) WHERE year = 2026 ORDER BY 1"
        ).fetchall()
        warned = con.execute("SELECT line_no, reason FROM input_warning").fetchall()
    assert members == [("100001",), ("100002",)]
    assert warned == [(3, "player_id 100001 is a member for 2026 on line 2 already; counted once")]


def test_a_players_file_without_rows_refuses_the_load(tmp_path):
    # a header, then only the ",,,," a spreadsheet leaves: a snapshot of nobody would say the
    # federation has no players from its date
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    folder = _snapshot(tmp_path / "empty", PLAYERS_HEADER + ",,,,,,,,,\n,,,,,,,,,\n")
    counts = load_registry_flow(folder, date(2026, 7, 1), warehouse)
    assert (counts["players"], counts["rejections_new"]) == (0, 1)
    with Warehouse(warehouse).reader() as con:
        loads = con.execute("SELECT count(*) FROM registry_load").fetchall()
        refused = con.execute("SELECT file_name, reason FROM rejection").fetchall()
    assert loads == [(0,)]
    assert refused == [("players.csv", "players.csv holds no rows: a snapshot cannot be empty")]


def test_a_rejected_row_keeps_the_players_row_of_the_snapshot_before(tmp_path):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "jan", JULY), date(2026, 1, 1), warehouse)
    # July: Rossi's birth date is mistyped, Bianchi's row is written twice to the letter, and
    # Verdi is new with a mistyped date: Rossi keeps his January row (and his membership), the
    # repeat is read once, Verdi stays out as his rejection says
    july = (
        PLAYERS_HEADER
        + '100001,"Rossi, Mario",M,02/01/1980,ITA,2250009,1810,,1N,\n'
        + '100002,"Bianchi, Anna",F,2010-05-06,ITA,2250001,1702,,1N,\n'
        + '100002,"Bianchi, Anna",F,2010-05-06,ITA,2250001,1702,,1N,\n'
        + '100003,"Verdi, Luca",M,1999-13-01,ITA,,,,NC,\n'
    )
    memberships = "player_id,year\n100001,2026\n100002,2026\n100003,2026\n"
    counts = load_registry_flow(
        _snapshot(tmp_path / "jul", july, memberships), date(2026, 7, 1), warehouse
    )
    assert (counts["players"], counts["memberships"]) == (2, 2)
    with Warehouse(warehouse).reader() as con:
        july_rows = con.execute(
            "SELECT player_id, name, birth_date, category FROM registry_at('2026-07-01'::DATE) "
            "ORDER BY player_id"
        ).fetchall()
        members = con.execute(
            "SELECT m.player_id FROM registry_membership m JOIN registry_load l USING (load_id) "
            "WHERE l.as_of = '2026-07-01' ORDER BY m.player_id"
        ).fetchall()
    assert july_rows == [
        ("100001", "Rossi, Mario", date(1980, 1, 2), "1N"),
        ("100002", "Bianchi, Anna", date(2010, 5, 6), "1N"),
    ]
    assert members == [("100001",), ("100002",)]
    assert _rejections_of_last_run(warehouse) == [
        (
            "memberships.csv",
            4,
            "player_id",
            "player_id 100003's row in players.csv was rejected (line 5)",
        ),
        ("players.csv", 2, "birth_date", "birth_date must be a date written YYYY-MM-DD"),
        ("players.csv", 5, "birth_date", "birth_date must be a date written YYYY-MM-DD"),
    ]
    with Warehouse(warehouse).reader() as con:
        warnings = con.execute(
            "SELECT file_name, line_no, reason FROM input_warning ORDER BY line_no"
        ).fetchall()
    assert warnings == [
        (
            "players.csv",
            2,
            "player_id 100001's row in players.csv was rejected: his row of the snapshot of "
            "2026-01-01 is kept until the file is corrected",
        ),
        ("players.csv", 4, "this row repeats line 3 exactly; read once"),
    ]


def test_a_row_with_an_unquoted_comma_is_rejected_and_the_rest_loads(tmp_path):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    slipped = JULY + "100004,Neri, Paolo,M,1970-01-01,ITA,,,,NC,\n"
    counts = load_registry_flow(_snapshot(tmp_path / "jul", slipped), date(2026, 7, 1), warehouse)
    assert (counts["players"], counts["memberships"], counts.get("refused", 0)) == (2, 2, 0)
    assert _rejections_of_last_run(warehouse)[-1] == (
        "players.csv",
        4,
        None,
        "the line has 11 values and the header names 10 columns: a value holding a comma must "
        "be written in double quotes",
    )


@pytest.mark.parametrize(
    "memberships",
    [
        # every year written 2026.0 (a spreadsheet's number format): every row rejected
        "player_id,year\n100001,2026.0\n100002,2026.0\n",
        # the federation's ids written with a prefix: no membership names a player of the file
        "player_id,year\nFSI100001,2026\nFSI100002,2026\n",
    ],
)
def test_a_snapshot_left_without_a_member_is_refused(tmp_path, memberships):
    # a snapshot of no members would take every player out of the rankings from its date
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "jan", JULY), date(2026, 1, 1), warehouse)
    before = _registry_state(warehouse)
    counts = load_registry_flow(
        _snapshot(tmp_path / "jul", JULY, memberships), date(2026, 7, 1), warehouse
    )
    assert (counts["refused"], counts["memberships"]) == (1, 0)
    assert _registry_state(warehouse) == before
    status, report = _last_run(warehouse)
    assert status == "refused"
    assert (
        "- memberships.csv: every row was rejected (each row's rejection says why): a snapshot "
        "of them would say the federation has no members from 2026-07-01" in report
    )
    assert [line for _, line, _, _ in _rejections_of_last_run(warehouse)] == [2, 3, None]


def test_a_player_id_also_on_a_rejected_row_is_not_taken_from_the_other(tmp_path):
    # 100001 twice, the second row with a mistyped birth date: which row is Mario Rossi's
    # cannot be told, so neither is taken (not the first as if his id were written once)
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    doubled = JULY + '100001,"Rossi, Maria",F,1982-02-30,ITA,,,,NC,\n'
    counts = load_registry_flow(_snapshot(tmp_path / "jul", doubled), date(2026, 7, 1), warehouse)
    assert counts["players"] == 1
    rejected = [
        (line, field, reason)
        for name, line, field, reason in _rejections_of_last_run(warehouse)
        if name == "players.csv"
    ]
    assert rejected[0] == (
        2,
        "player_id",
        "player_id 100001 is also on line 4, rejected: which of the two rows is right cannot "
        "be told",
    )
    assert [line for line, _, _ in rejected] == [2, 4]


def test_what_a_snapshot_changes_of_the_players_before_it_is_warned(tmp_path):
    # July's file: Bianchi's birth date and sex changed (the youth and women's rankings read
    # them), Rossi's name corrected, and Verdi, held in January, left out
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    january = JULY + '100003,"Verdi, Luca",M,1999-01-01,ITA,,,,NC,\n'
    july = (
        PLAYERS_HEADER
        + '100001,"Rossi, Mario Luigi",M,1980-01-02,ITA,2250009,1810,,1N,\n'
        + '100002,"Bianchi, Anna",M,2012-05-06,ITA,2250001,1702,,1N,\n'
    )
    load_registry_flow(_snapshot(tmp_path / "jan", january), date(2026, 1, 1), warehouse)
    load_registry_flow(_snapshot(tmp_path / "jul", july), date(2026, 7, 1), warehouse)
    # the players left out are named in the report's summary, not only among the warnings
    assert (
        "- players of the snapshot of 2026-01-01 not in this file: 1 (100003); from its date "
        "they hold no category and no membership\n" in _last_run(warehouse)[1]
    )
    with Warehouse(warehouse).reader() as con:
        warned = con.execute(
            "SELECT line_no, field, reason FROM input_warning WHERE file_name = 'players.csv' "
            "ORDER BY line_no NULLS LAST, field"
        ).fetchall()
    assert warned == [
        (2, "name", "player_id 100001: the name was Rossi, Mario in the snapshot of 2026-01-01"),
        (
            3,
            "birth_date",
            "player_id 100002: the birth date was 2010-05-06 in the snapshot of 2026-01-01: the "
            "youth rankings read the new one",
        ),
        (
            3,
            "sex",
            "player_id 100002: the sex was F in the snapshot of 2026-01-01: the women's ranking "
            "reads the new one",
        ),
        (
            None,
            "player_id",
            "players of the snapshot of 2026-01-01 not in this file: 1 (100003); from its date "
            "they hold no category and no membership",
        ),
    ]


def test_a_player_whose_line_has_an_unquoted_comma_keeps_his_earlier_row(tmp_path):
    # Rossi's July line has a comma too many: like a row with a bad cell, it leaves his January
    # row standing (and his membership), instead of taking him out of the registry
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    load_registry_flow(_snapshot(tmp_path / "jan", JULY), date(2026, 1, 1), warehouse)
    july = JULY.replace('100001,"Rossi, Mario"', "100001,Rossi, Mario")
    counts = load_registry_flow(_snapshot(tmp_path / "jul", july), date(2026, 7, 1), warehouse)
    assert (counts["players"], counts["memberships"]) == (2, 2)
    with Warehouse(warehouse).reader() as con:
        rossi = con.execute(
            "SELECT name FROM registry_at('2026-07-01'::DATE) WHERE player_id = '100001'"
        ).fetchall()
        warned = con.execute(
            "SELECT line_no, reason FROM input_warning WHERE field = 'player_id' "
            "AND reason LIKE '%is kept%'"
        ).fetchall()
    assert rossi == [("Rossi, Mario",)]
    assert warned == [
        (
            2,
            "player_id 100001's row in players.csv was rejected: his row of the snapshot of "
            "2026-01-01 is kept until the file is corrected",
        )
    ]


def test_a_player_id_also_on_a_line_with_an_unquoted_comma_is_not_taken_from_the_other(
    tmp_path,
):
    from flows.elo.registry import load_registry_flow

    warehouse = str(tmp_path / "w.duckdb")
    doubled = JULY + "100002,Bianchi, Anna,F,2010-05-06,ITA,,,,2N,\n"
    counts = load_registry_flow(_snapshot(tmp_path / "jul", doubled), date(2026, 7, 1), warehouse)
    assert counts["players"] == 1
    assert (
        "players.csv",
        3,
        "player_id",
        "player_id 100002 is also on line 4, rejected: which of the two rows is right cannot "
        "be told",
    ) in _rejections_of_last_run(warehouse)


def test_a_merge_of_two_different_people_is_refused_unless_forced(season_warehouse, capsys):
    from flows.cli import main

    warehouse = str(season_warehouse(2019))
    with Warehouse(warehouse).reader() as con:
        provisional, name, born = con.execute(
            "SELECT provisional_id, name, birth_date FROM unmatched_player "
            "WHERE birth_date IS NOT NULL ORDER BY provisional_id LIMIT 1"
        ).fetchone()
        # someone else, who plays in none of the tournaments
        other, other_born = con.execute(
            "SELECT player_id, birth_date FROM registry_snapshot WHERE birth_date <> ? "
            "AND name <> ? AND player_id NOT IN (SELECT player_id FROM tournament_player) "
            "ORDER BY player_id LIMIT 1",
            [born, name],
        ).fetchone()
    merge = ["merge", provisional, other, "--warehouse", warehouse]
    assert main(merge) == 1
    refused = capsys.readouterr().err
    assert f"{provisional} does not look like {other}: the name ({name}, registered as " in refused
    assert f"the birth ({born}, registered as {other_born}) differ" in refused
    assert "merge with --force" in refused
    with Warehouse(warehouse).reader() as con:
        assert con.execute(
            "SELECT count(*) FROM player_merge WHERE provisional_id = ?", [provisional]
        ).fetchone() == (0,)
    assert main([*merge, "--force"]) == 0
    assert f"{provisional} is now {other}" in capsys.readouterr().out
    with Warehouse(warehouse).reader() as con:
        assert con.execute(
            "SELECT player_id FROM player_merge WHERE provisional_id = ?", [provisional]
        ).fetchone() == (other,)
