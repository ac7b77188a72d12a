"""End-to-end: real TRF files through the ingest flow into a temporary DuckDB warehouse."""

import re
import shutil
from pathlib import Path

import pytest

from flows.warehouse import Warehouse
from tests.flows.helpers import SHARED_TRF, shared_delivery, shared_trf_files, write_manifest

pytestmark = pytest.mark.usefixtures("prefect_server")

DATA_TABLES = [
    "raw_file",
    "tournament_version",
    "tournament_entry",
    "tournament_game",
    "input_problem",
    "player_match",
]
ERRAL = "erral_fidetournament__tests_test_demo.trf"
SKLANGEN = "sklangen_TRF__tests_example1.trf"


def _table_counts(warehouse: Path) -> dict[str, int]:
    with Warehouse(warehouse).reader() as con:
        return {
            table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in DATA_TABLES
        }


def _corrupt_copy(folder: Path) -> tuple[str, int]:
    """erral's player 2 meets 999 in round 1 instead of 65; returns the file name and line."""
    lines = (SHARED_TRF / ERRAL).read_text(encoding="ascii").splitlines(keepends=True)
    line_index = next(i for i, line in enumerate(lines) if line.startswith("001    2 "))
    assert "    65 w 1" in lines[line_index]
    lines[line_index] = lines[line_index].replace("    65 w 1", "   999 w 1", 1)
    name = "corrupt_" + ERRAL
    (folder / name).write_text("".join(lines), encoding="ascii")
    return name, line_index + 1


def test_every_shared_file_ingests_and_a_rerun_adds_nothing(tmp_path):
    from flows.elo.ingest import ingest_flow

    inbox = tmp_path / "inbox"
    rows = shared_delivery(inbox / "2026-03")
    warehouse = tmp_path / "w.duckdb"
    counts = ingest_flow(str(inbox), str(warehouse))
    assert len(shared_trf_files()) == len(rows) == 9
    # the two Irish files are played at 90 minutes + 10 seconds per move, 100 minutes per
    # player: Elo Italia rates games of at least 120 (RULES.md §1.0)
    assert counts["tournaments_accepted"] == 7
    assert counts["tournaments_quarantined"] == 2
    with Warehouse(warehouse).reader() as con:
        per_file = dict(con.execute("SELECT file_name, players FROM tournament").fetchall())
        archived = con.execute("SELECT count(*) FROM raw_file WHERE kind = 'trf'").fetchone()[0]
        time_rejections = con.execute(
            "SELECT file_name, line_no, field, value, reason FROM rejection ORDER BY file_name"
        ).fetchall()
        time_warnings = con.execute(
            "SELECT file_name, line_no, field, value FROM input_warning "
            "WHERE field IN ('time control', 'time_control') ORDER BY file_name"
        ).fetchall()
    folder = "inbox/2026-03/sanichi_icu_tournament__spec_samples_krause_"
    assert time_rejections == [
        (
            f"{folder}bunratty_major_2011.tab",
            12,
            "time control",
            "1:30 + 10 from move 1",
            "time control 1:30 + 10 from move 1 is 100 minutes per player: Elo Italia rates "
            "games of at least 120 minutes per player",
        ),
        (
            f"{folder}irish_junior_champs_2011.tab",
            12,
            "time control",
            "All moves in 90 minutes, plus 10 seconds per move",
            "time control All moves in 90 minutes, plus 10 seconds per move is 100 minutes per "
            "player: Elo Italia rates games of at least 120 minutes per player",
        ),
    ]
    # rated with a warning: a time control that cannot be read, or none
    assert time_warnings == [
        (
            "inbox/2026-03/GrzegorzKi_CompetiChess__test_backend_testTrfFile.txt",
            12,
            "time control",
            "moves/time, increment",
        ),
        (
            "inbox/2026-03/Sharly-Chess_bbpPairings__test_tests_team_utf8_names.input",
            None,
            "time_control",
            None,
        ),
        (f"{folder}armstrong_2012_with_bom.tab", None, "time_control", None),
        (f"{folder}latin-1.tab", None, "time_control", None),
    ]
    # player counts checked by hand with grep -c '^001' on each file
    assert per_file["erral_fidetournament__tests_test_demo.trf"] == 137
    # (less sklangen's "spielfrei" line, the bye of its pairing program)
    assert per_file["sklangen_TRF__tests_example1.trf"] == 283
    assert per_file["Molrn_TRF__tests_example_trf26.trf"] == 249
    assert archived == len(rows)

    before = _table_counts(warehouse)
    again = ingest_flow(str(inbox), str(warehouse))
    assert again["tournaments_new_versions"] == 0
    assert again["tournaments_unchanged"] == len(rows)
    assert _table_counts(warehouse) == before
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT count(*) FROM run WHERE flow = 'ingest'").fetchone()[0] == 2


def test_a_corrupt_file_is_rejected_while_the_rest_loads(tmp_path):
    from flows.elo.ingest import ingest_flow

    delivery = tmp_path / "inbox" / "2026-04"
    delivery.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / ERRAL)
    corrupt_name, corrupt_line = _corrupt_copy(delivery)
    write_manifest(
        delivery,
        [
            {
                "tournament_id": "OK-1",
                "file": ERRAL,
                "system": "elo_italia",
                "received_on": "2026-04-02",
            },
            {
                "tournament_id": "BAD-1",
                "file": corrupt_name,
                "system": "elo_italia",
                "received_on": "2026-04-02",
            },
            {"tournament_id": "NODATE-1", "file": ERRAL, "system": "elo_italia", "received_on": ""},
            {
                "tournament_id": "GONE-1",
                "file": "missing.trf",
                "system": "elo_rapid",
                "received_on": "2026-04-02",
            },
        ],
    )
    warehouse = tmp_path / "w.duckdb"
    counts = ingest_flow(str(delivery.parent), str(warehouse))
    assert counts["tournaments_accepted"] == 1
    assert counts["tournaments_quarantined"] == 3
    with Warehouse(warehouse).reader() as con:
        status = dict(con.execute("SELECT tournament_id, status FROM tournament").fetchall())
        bad = con.execute(
            "SELECT file_name, line_no, field, reason FROM rejection WHERE tournament_id = 'BAD-1'"
        ).fetchall()
        no_date = con.execute(
            "SELECT file_name, line_no, field, reason, tournament_id FROM rejection "
            "WHERE file_name = 'inbox/2026-04/manifest.csv' AND field = 'received_on'"
        ).fetchall()
        gone = con.execute(
            "SELECT line_no, reason FROM rejection WHERE tournament_id = 'GONE-1'"
        ).fetchall()
        ok_games = con.execute(
            "SELECT count(*) FROM tournament_game WHERE tournament_id = 'OK-1'"
        ).fetchone()[0]
    assert status == {
        "OK-1": "accepted",
        "BAD-1": "quarantined",
        "NODATE-1": "quarantined",
        "GONE-1": "quarantined",
    }
    assert any(
        # named from the inbox, so the analyst knows which delivery to look in
        file == f"inbox/2026-04/{corrupt_name}" and line == corrupt_line and "999" in reason
        for file, line, _field, reason in bad
    ), bad
    assert no_date and no_date[0][1] == 4 and "never guessed" in no_date[0][3]
    assert no_date[0][4] == "NODATE-1"  # the manifest row names its tournament
    assert gone == [(5, "the file missing.trf listed in the manifest is not in the delivery")]
    assert ok_games > 0


def test_deliveries_with_nothing_storable_are_rejected_and_the_others_load(tmp_path):
    # One good delivery beside three that used to stop the whole ingest: one whose only file
    # is missing (nothing parsed at all), one whose only row has no file name, and one whose
    # file seats two players at start number 136 (its rows cannot be keyed).
    from flows.elo.ingest import ingest_flow

    inbox = tmp_path / "inbox"
    good, missing, blank, seated_twice, empty = (inbox / name for name in "abcde")
    row = {"system": "elo_italia", "received_on": "2026-04-02"}
    good.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, good / ERRAL)
    write_manifest(good, [{**row, "tournament_id": "OK-1", "file": ERRAL}])
    write_manifest(missing, [{**row, "tournament_id": "GONE-1", "file": "missing.trf"}])
    write_manifest(blank, [{**row, "tournament_id": "BLANK-1", "file": ""}])
    lines = (SHARED_TRF / ERRAL).read_text(encoding="ascii").splitlines(keepends=True)
    last = next(i for i, line in enumerate(lines) if line.startswith("001  137 "))
    lines[last] = lines[last].replace("001  137 ", "001  136 ", 1)
    seated_twice.mkdir()
    (seated_twice / "twice.trf").write_text("".join(lines), encoding="ascii")
    write_manifest(seated_twice, [{**row, "tournament_id": "TWICE-1", "file": "twice.trf"}])
    write_manifest(empty, [])  # a header, then only the ",,,," a spreadsheet leaves
    with (empty / "manifest.csv").open("a", encoding="utf-8") as manifest:
        manifest.write(",,,,,,,\n,,,,,,,\n")
    warehouse = tmp_path / "w.duckdb"

    counts = ingest_flow(str(inbox), str(warehouse))

    assert (counts["deliveries"], counts["deliveries_refused"]) == (5, 1)  # e lists nothing
    assert (counts["tournaments_accepted"], counts["tournaments_quarantined"]) == (1, 2)
    with Warehouse(warehouse).reader() as con:
        status = dict(con.execute("SELECT tournament_id, status FROM tournament").fetchall())
        blank_rejection = con.execute(
            "SELECT line_no, reason FROM rejection WHERE file_name = 'inbox/c/manifest.csv' "
            "AND field = 'file' AND tournament_id = 'BLANK-1'"
        ).fetchall()
        twice = con.execute(
            "SELECT line_no FROM rejection WHERE tournament_id = 'TWICE-1' "
            "AND field = 'start number' ORDER BY line_no"
        ).fetchall()
        nothing = con.execute(
            "SELECT line_no, reason FROM rejection WHERE reason LIKE '%lists no tournament%'"
        ).fetchall()
        stored = dict(
            con.execute(
                "SELECT tournament_id, count(*) FROM tournament_entry GROUP BY ALL"
            ).fetchall()
        )
    assert status == {"OK-1": "accepted", "GONE-1": "quarantined", "TWICE-1": "quarantined"}
    assert blank_rejection == [(2, "file is required and is empty")]
    assert twice == [(last,), (last + 1,)]  # the two lines of start number 136
    assert stored == {"OK-1": 137}  # nothing of TWICE-1 but its version, problems and file
    assert nothing == [(None, "the manifest lists no tournament")]


def test_the_very_file_of_another_tournament_is_quarantined(tmp_path):
    # The same bytes under a second id, in a later delivery or in the same one, would have
    # their games rated twice: the second id is quarantined with the reason.
    from flows.elo.ingest import ingest_flow

    row = {"system": "elo_italia", "received_on": "2026-04-02", "file": ERRAL}
    first, second = tmp_path / "inbox" / "a", tmp_path / "inbox" / "b"
    first.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, first / ERRAL)
    write_manifest(first, [{**row, "tournament_id": "OK-1"}])
    warehouse = tmp_path / "w.duckdb"
    assert ingest_flow(str(first.parent), str(warehouse))["tournaments_accepted"] == 1
    second.mkdir()
    shutil.copyfile(SHARED_TRF / ERRAL, second / ERRAL)
    write_manifest(
        second, [{**row, "tournament_id": "AGAIN-1"}, {**row, "tournament_id": "AGAIN-2"}]
    )

    counts = ingest_flow(str(first.parent), str(warehouse))

    assert (counts["tournaments_unchanged"], counts["tournaments_quarantined"]) == (1, 2)
    with Warehouse(warehouse).reader() as con:
        status = dict(con.execute("SELECT tournament_id, status FROM tournament").fetchall())
        reasons = con.execute(
            "SELECT tournament_id, line_no, reason FROM rejection WHERE field = 'file' ORDER BY 1"
        ).fetchall()
    assert status == {"OK-1": "accepted", "AGAIN-1": "quarantined", "AGAIN-2": "quarantined"}
    assert [(tournament, line) for tournament, line, _ in reasons] == [
        ("AGAIN-1", 2),
        ("AGAIN-2", 3),
    ]
    assert all("the very file of tournament OK-1" in reason for _, _, reason in reasons)

    # corrections of the manifest rows (a later receipt date), the file unchanged: OK-1 still
    # rates its own file, and AGAIN-1 is still its twin, whichever comes first by id
    write_manifest(first, [{**row, "tournament_id": "OK-1", "received_on": "2026-04-03"}])
    write_manifest(second, [{**row, "tournament_id": "AGAIN-1", "received_on": "2026-04-03"}])
    counts = ingest_flow(str(first.parent), str(warehouse))
    assert (counts["tournaments_accepted"], counts["tournaments_quarantined"]) == (1, 1)
    with Warehouse(warehouse).reader() as con:
        latest = con.execute("SELECT tournament_id, version, status FROM tournament ORDER BY 1")
        assert latest.fetchall() == [
            ("AGAIN-1", 2, "quarantined"),
            ("AGAIN-2", 1, "quarantined"),
            ("OK-1", 2, "accepted"),
        ]


def test_a_changed_file_becomes_a_new_version_and_the_old_one_is_kept(tmp_path):
    from flows.elo.ingest import ingest_flow

    inbox = tmp_path / "inbox"
    first = inbox / "2026-03"
    first.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, first / "t.trf")
    row = {
        "tournament_id": "T-1",
        "file": "t.trf",
        "system": "elo_italia",
        "received_on": "2026-03-01",
    }
    write_manifest(first, [row])
    warehouse = tmp_path / "w.duckdb"
    ingest_flow(str(inbox), str(warehouse))

    # a corrected crosstable arrives later in its own delivery folder
    second = inbox / "2026-05"
    second.mkdir()
    text = (
        (first / "t.trf")
        .read_text(encoding="ascii")
        .replace("Torneo San Viator", "Torneo San Viator (corrected)", 1)
    )
    (second / "t.trf").write_text(text, encoding="ascii")
    write_manifest(second, [{**row, "received_on": "2026-05-02"}])
    counts = ingest_flow(str(inbox), str(warehouse))
    assert counts["tournaments_new_versions"] == 1
    with Warehouse(warehouse).reader() as con:
        versions = con.execute(
            "SELECT version, received_on::VARCHAR, name FROM tournament_version "
            "WHERE tournament_id = 'T-1' ORDER BY version"
        ).fetchall()
        latest = con.execute(
            "SELECT version FROM tournament WHERE tournament_id = 'T-1'"
        ).fetchone()
        games_per_version = con.execute(
            "SELECT version, count(*) FROM tournament_game GROUP BY version ORDER BY version"
        ).fetchall()
    assert [v[0] for v in versions] == [1, 2]
    assert versions[1][1] == "2026-05-02" and "corrected" in versions[1][2]
    assert latest == (2,)
    assert games_per_version[0][1] == games_per_version[1][1]

    # the inbox still holds both deliveries: running it again must not flip back to version 1,
    # nor must reading the first delivery's folder on its own, or after an edit of its manifest
    assert ingest_flow(str(inbox), str(warehouse))["tournaments_new_versions"] == 0
    assert ingest_flow(str(first), str(warehouse))["tournaments_new_versions"] == 0
    shutil.copyfile(SHARED_TRF / SKLANGEN, first / "other.trf")
    write_manifest(first, [row, {**row, "tournament_id": "T-9", "file": "other.trf"}])
    edited = ingest_flow(str(inbox), str(warehouse))
    assert (edited["tournaments_new_versions"], edited["tournaments_unchanged"]) == (1, 2)

    # the correction undone: a new delivery of the first file brings version 1's file back
    third = inbox / "2026-06"
    third.mkdir()
    shutil.copyfile(first / "t.trf", third / "t.trf")
    write_manifest(third, [row])
    assert ingest_flow(str(inbox), str(warehouse))["tournaments_new_versions"] == 1
    with Warehouse(warehouse).reader() as con:
        back = con.execute(
            "SELECT version, name, delivery FROM tournament WHERE tournament_id = 'T-1'"
        ).fetchone()
    assert (back[0], "corrected" in back[1], back[2]) == (3, False, "2026-06")
    assert ingest_flow(str(inbox), str(warehouse))["tournaments_new_versions"] == 0


def test_a_manifest_separated_by_semicolons_is_refused_whole_with_one_plain_reason(tmp_path):
    # a spreadsheet in an Italian locale saves CSV with ';': read as commas, its one column
    # would give a rejection for every required column of every row
    from flows.elo.ingest import ingest_flow

    delivery = tmp_path / "inbox" / "2026-04"
    delivery.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / ERRAL)
    (delivery / "manifest.csv").write_text(
        f"tournament_id;file;system;received_on\nSEMI-1;{ERRAL};elo_italia;2026-04-02\n",
        encoding="utf-8",
    )
    warehouse = tmp_path / "w.duckdb"
    counts = ingest_flow(str(tmp_path / "inbox"), str(warehouse))
    assert counts["tournaments_new_versions"] == 0
    with Warehouse(warehouse).reader() as con:
        rejections = con.execute("SELECT line_no, reason FROM rejection").fetchall()
        warnings = con.execute("SELECT count(*) FROM input_warning").fetchone()[0]
    assert len(rejections) == 1 and warnings == 0
    line_no, reason = rejections[0]
    assert line_no == 1
    assert reason.startswith("the header lacks the required columns tournament_id, file, ")
    assert "the file seems separated by ';' and must be comma-separated" in reason


def test_a_file_the_manifest_does_not_list_is_reported_and_not_read(tmp_path):
    # a tournament left out of its manifest would never be rated: the analyst is told
    from flows.elo.ingest import ingest_flow

    delivery = tmp_path / "inbox" / "2026-04"
    delivery.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / ERRAL)
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / "forgotten.trf")
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / "listed.trf")  # listed as ./listed.trf
    (delivery / ".DS_Store").write_bytes(b"\0")  # hidden files are the file manager's
    write_manifest(
        delivery,
        [
            {
                "tournament_id": "OK-1",
                "file": ERRAL,
                "system": "elo_italia",
                "received_on": "2026-04-02",
            },
            {
                "tournament_id": "OK-2",
                "file": "./listed.trf",
                "system": "elo_rapid",
                "received_on": "2026-04-02",
            },
        ],
    )
    warehouse = tmp_path / "w.duckdb"
    counts = ingest_flow(str(tmp_path / "inbox"), str(warehouse))
    # the two listed files also give the one warning of their year-only birth dates, and one
    # each of their receipt in 2026 of a tournament played in 2018
    assert counts["tournaments_new_versions"] == 2 and counts["warnings_new"] == 5
    # the report counts the warnings it lists, and says which are new (it said "new warnings:
    # 0" over a list of 13 when a delivery was read again)
    again = ingest_flow(str(tmp_path / "inbox"), str(warehouse))
    assert again["warnings_new"] == 0
    with Warehouse(warehouse).reader() as con:
        first_report, second_report = (
            row[0]
            for row in con.execute(
                "SELECT report FROM run_record WHERE flow = 'ingest' ORDER BY ended_at"
            ).fetchall()
        )
    # the twin of OK-1, and (OK-2 being Elo Rapid) its 120 minutes per player
    assert "- rejections: 2 (new: 2); warnings: 5 (new: 5)" in first_report
    counted = re.search(
        r"- rejections: (\d+) \(new: 0\); warnings: (\d+) \(new: 0\)", second_report
    )
    assert counted is not None
    warnings_listed = second_report.split("## Warnings", 1)[-1].count("\n- ")
    assert int(counted[2]) == (warnings_listed if "## Warnings" in second_report else 0)
    with Warehouse(warehouse).reader() as con:
        warnings = con.execute(
            "SELECT file_name, line_no, field, value, reason FROM input_warning "
            "ORDER BY file_name, line_no NULLS FIRST"
        ).fetchall()
    births = (
        14,
        "birth date",
        "1981",
        "137 players' birth dates give only the year (the first: player 1, line 14, '1981'): "
        "the year is kept, the day is left empty",
    )
    assert warnings == [
        (f"inbox/2026-04/{ERRAL}", *births),
        ("inbox/2026-04/listed.trf", *births),
        (
            "inbox/2026-04/manifest.csv",
            None,
            "file",
            "forgotten.trf",
            "forgotten.trf is in the delivery folder but manifest.csv does not list it: it was "
            "not read (add a row for it, or take it out of the folder)",
        ),
        *(
            (
                "inbox/2026-04/manifest.csv",
                line,
                "received_on",
                "2026-04-02",
                "received on 2026-04-02, 2853 days after the tournament ended (2018-06-10): is "
                "it the right file and the right receipt date? It is rated as received, in the "
                "list whose window holds that date",
            )
            for line in (2, 3)
        ),
    ]


def test_a_rejection_is_recorded_once_whichever_folder_the_inbox_is_read_from(tmp_path):
    # the file's name says where it was found (inbox/2026-04/… or 2026-04/…); the rejection
    # of the manifest's row without a receipt date is the same one
    from flows.elo.ingest import ingest_flow

    delivery = tmp_path / "inbox" / "2026-04"
    delivery.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / ERRAL)
    write_manifest(
        delivery,
        [{"tournament_id": "NODATE-1", "file": ERRAL, "system": "elo_italia", "received_on": ""}],
    )
    warehouse = tmp_path / "w.duckdb"
    first = ingest_flow(str(tmp_path / "inbox"), str(warehouse))
    again = ingest_flow(str(delivery), str(warehouse))
    assert first["rejections_new"] > 0 and again["rejections_new"] == 0
    with Warehouse(warehouse).reader() as con:
        names = con.execute("SELECT DISTINCT file_name FROM rejection").fetchall()
    assert names == [("inbox/2026-04/manifest.csv",)]


def test_files_the_file_system_refuses_are_rejected_and_the_rest_loads(tmp_path):
    from flows.elo.ingest import ingest_flow

    inbox = tmp_path / "inbox"
    good, odd, folder = inbox / "a", inbox / "b", inbox / "c"
    row = {"system": "elo_italia", "received_on": "2026-04-02"}
    good.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, good / ERRAL)
    write_manifest(good, [{**row, "tournament_id": "OK-1", "file": ERRAL}])
    (folder / "manifest.csv").mkdir(parents=True)  # a folder where the manifest should be
    # a name with a NUL byte, one too long for the file system, one written in other capitals
    # than the file's
    odd.mkdir()
    shutil.copyfile(SHARED_TRF / ERRAL, odd / "Agosto.TRF")
    write_manifest(
        odd,
        [
            {**row, "tournament_id": "NUL-1", "file": "a\x00b.trf"},
            {**row, "tournament_id": "LONG-1", "file": "x" * 300 + ".trf"},
            {**row, "tournament_id": "CASE-1", "file": "agosto.trf"},
        ],
    )
    warehouse = tmp_path / "w.duckdb"

    counts = ingest_flow(str(inbox), str(warehouse))

    assert (counts["deliveries"], counts["deliveries_refused"]) == (3, 1)
    assert (counts["tournaments_accepted"], counts["tournaments_quarantined"]) == (1, 3)
    with Warehouse(warehouse).reader() as con:
        reasons = con.execute(
            "SELECT file_name, tournament_id, reason FROM rejection ORDER BY ALL"
        ).fetchall()
    assert reasons[0] == (
        "inbox/b/manifest.csv",
        "CASE-1",
        "the file agosto.trf listed in the manifest is not in the delivery: the folder has "
        "Agosto.TRF, a name that differs in capitals only (correct the manifest or the file's "
        "name)",
    )
    reasons = reasons[1:]
    assert [(name, tid) for name, tid, _ in reasons] == [
        ("inbox/b/manifest.csv", "LONG-1"),
        ("inbox/b/manifest.csv", "NUL-1"),
        ("inbox/c/manifest.csv", None),
    ]
    assert "cannot be read (File name too long)" in reasons[0][2]
    assert "cannot be read (embedded null byte)" in reasons[1][2]
    assert "it cannot be read (Is a directory)" in reasons[2][2]


def test_a_tournament_received_before_the_first_list_is_named_as_never_rated(
    season_warehouse, tmp_path
):
    # the season's lists start from the federation's list of 2019-01-01 (cut-off 2018-12-15):
    # a tournament received by then is rated by no list here (it was accepted in silence)
    from flows.status import status_text
    from tests.flows.helpers import deliver_a_tournament_before_the_first_list

    warehouse = season_warehouse(2019)
    ended, counts = deliver_a_tournament_before_the_first_list(
        warehouse, tmp_path / "late" / "2019-05"
    )
    assert counts["tournaments_accepted"] == 1 and counts["tournaments_unrated"] == 1
    reason = (
        f"received on {ended}, by the cut-off (2018-12-15) of the elo_italia list of 2019-01-01, "
        "imported as the federation published it: no list computed here rates it (its "
        "players' participations count for the activity of the lists after it)"
    )
    with Warehouse(warehouse).reader() as con:
        report = con.execute(
            "SELECT report FROM run_record WHERE flow = 'ingest' ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()[0]
        unrated = con.execute("SELECT tournament_id, reason FROM unrated_tournament").fetchall()
    assert f"## Tournaments no list will rate (1)\n- OLD-1 (elo_italia): {reason}" in report
    assert unrated == [("OLD-1", reason)]
    assert f"  OLD-1 (elo_italia): {reason}" in status_text(str(warehouse))


def test_time_controls_and_rapid_arbiter_ratings_reach_the_analyst(tmp_path):
    # TC-1: erral's file (122: 90 minutes + 30 seconds per move, 120 minutes) with the
    # manifest's 25'+10" (35 minutes), which wins: quarantined, named by `graduatoria
    # problems`. RA-1: a copy of it delivered for Elo Rapid at 15+10 (25 minutes) with an
    # arbiter rating for its player 1: the rating is left out with a warning, the tournament
    # is accepted (RULES.md §1.0, §2)
    from flows.elo.ingest import ingest_flow
    from flows.problems import ProblemFilter, problems_text

    delivery = tmp_path / "inbox" / "2026-04"
    delivery.mkdir(parents=True)
    shutil.copyfile(SHARED_TRF / ERRAL, delivery / ERRAL)
    (delivery / "rapid.trf").write_bytes((SHARED_TRF / ERRAL).read_bytes() + b"\n")
    write_manifest(
        delivery,
        [
            {
                "tournament_id": "TC-1",
                "file": ERRAL,
                "system": "elo_italia",
                "received_on": "2026-04-02",
                "time_control": "25'+10\"",
            },
            {
                "tournament_id": "RA-1",
                "file": "rapid.trf",
                "system": "elo_rapid",
                "received_on": "2026-04-02",
                "time_control": "15+10",
                "arbiter_ratings": "1=1650",
            },
        ],
    )
    warehouse = tmp_path / "w.duckdb"
    counts = ingest_flow(str(tmp_path / "inbox"), str(warehouse))
    assert (counts["tournaments_accepted"], counts["tournaments_quarantined"]) == (1, 1)
    reason = (
        "time control 25'+10\" is 35 minutes per player: Elo Italia rates games of at least 120 "
        "minutes per player"
    )
    shown = problems_text(str(warehouse), ProblemFilter(runs=100))
    assert f"  TC-1 (elo_italia, delivery 2026-04, received 2026-04-02): {reason}" in shown
    with Warehouse(warehouse).reader() as con:
        rejected = con.execute(
            "SELECT file_name, line_no, field, value, reason, tournament_id FROM rejection"
        ).fetchall()
        warned = con.execute(
            "SELECT file_name, line_no, field, value, reason, tournament_id FROM input_warning "
            "WHERE field IN ('arbiter_ratings', 'time control') ORDER BY tournament_id, field"
        ).fetchall()
        arbiter = con.execute(
            "SELECT arbiter_rating FROM tournament_player "
            "WHERE tournament_id = 'RA-1' AND start_number = 1"
        ).fetchone()
        report = con.execute("SELECT report FROM run WHERE flow = 'ingest'").fetchone()[0]
    manifest = "inbox/2026-04/manifest.csv"
    assert rejected == [(manifest, 2, "time_control", "25'+10\"", reason, "TC-1")]
    assert f"- TC-1: {reason}" in report
    assert warned == [
        (
            manifest,
            3,
            "arbiter_ratings",
            "1=1650",
            "arbiter_ratings gives start number 1 (Sarabia Utrilla, Joaquin) of tournament RA-1 "
            "the rating 1650: Elo Rapid takes no rating from the arbiter, so it is left out (a "
            "newcomer enters by FIDE rapid, FIDE standard, Elo Italia, the entry rating)",
            "RA-1",
        ),
        (
            "inbox/2026-04/rapid.trf",
            12,
            "time control",
            "90 minutes + 30 seconds per move",
            "time control 90 minutes + 30 seconds per move (line 122 of the file, 120 minutes "
            "per player) differs from 15+10 (the manifest's time_control, 25 minutes per "
            "player); the manifest's time_control is used",
            "RA-1",
        ),
        (
            f"inbox/2026-04/{ERRAL}",
            12,
            "time control",
            "90 minutes + 30 seconds per move",
            "time control 90 minutes + 30 seconds per move (line 122 of the file, 120 minutes "
            "per player) differs from 25'+10\" (the manifest's time_control, 35 minutes per "
            "player); the manifest's time_control is used",
            "TC-1",
        ),
    ]
    assert arbiter == (None,)


def test_the_national_federation_defaults_to_the_rulebooks_country():
    # no "ITA" in the command line: --national-federation only overrides the rulebook's
    # federation.country
    from flows.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["ingest", "."]).national_federation is None
    assert parser.parse_args(
        ["ingest", ".", "--national-federation", "SMR"]
    ).national_federation == ("SMR")
