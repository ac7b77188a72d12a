"""Recalculation: eras by date, a corrected tournament cascading, scenarios, idempotence."""

import itertools
from dataclasses import replace
from datetime import date, datetime

import polars as pl
import pytest

from flows.elo.periods import fsi_fingerprint, fsi_fingerprints, validity_in_force
from flows.warehouse import Warehouse
from tests.flows.helpers import deliver_a_corrected_tournament
from transforms.elo.lists import last_played
from transforms.lists.periods import cutoff_for, list_dates_between

pytestmark = pytest.mark.usefixtures("prefect_server")


NEWCOMER_K_LINE = "{ games_below = 30, k = 30 }"


def always_compute(monkeypatch) -> None:
    """Every list run computes its lists again, as if under new code each time: a run leaves
    a list last computed by the same code from the same inputs alone, computing nothing
    (tests/flows/test_no_change_runs.py)."""
    import flows.publishing.current

    runs = itertools.count()
    monkeypatch.setattr(flows.publishing.current, "code_digest", lambda: f"code {next(runs)}")


def newcomer_k(text: str, k: int) -> str:
    """The Elo Italia rulebook with the newcomers' K changed (the line must be there)."""
    assert NEWCOMER_K_LINE in text
    return text.replace(NEWCOMER_K_LINE, f"{{ games_below = 30, k = {k} }}")


def _publish(warehouse, season: int) -> None:
    from flows.elo.recalculate import recalculate_flow

    recalculate_flow("elo_italia", str(warehouse), date(season, 4, 1), date(season + 1, 1, 1))


def _official(warehouse) -> list[tuple]:
    with Warehouse(warehouse).reader() as con:
        return con.execute(
            "SELECT list_date, revision, content_hash FROM list_revision "
            "WHERE scenario = 'official' ORDER BY ALL"
        ).fetchall()


def test_each_list_uses_the_era_in_force_on_its_date(season_warehouse):
    warehouse = season_warehouse(2009)  # cap 350 until the list of 2009-07-01, then 400
    _publish(warehouse, 2009)
    with Warehouse(warehouse).reader() as con:
        eras = dict(
            con.execute(
                "SELECT list_date, era_from FROM list_revision WHERE source = 'computed'"
            ).fetchall()
        )
        capped = dict(
            con.execute(
                "SELECT list_date, list_aggregate(list_distinct(list(regexp_extract(note, "
                "'capped at (\\d+)', 1))), 'string_agg', ',') FROM variation "
                "WHERE note LIKE '%capped at%' GROUP BY ALL"
            ).fetchall()
        )
    assert eras[date(2009, 4, 1)] == date(2006, 4, 1)
    assert eras[date(2009, 7, 1)] == date(2009, 7, 1)
    assert capped.get(date(2009, 4, 1), "350") == "350"
    assert all(value == "400" for day, value in capped.items() if day >= date(2009, 7, 1))
    assert capped  # the demo has mismatched pairings that reach the cap


def test_the_2021_era_keeps_the_frozen_values(season_warehouse):
    warehouse = season_warehouse(2021)
    _publish(warehouse, 2021)
    with Warehouse(warehouse).reader() as con:
        moved = con.execute(
            "SELECT count(*) FROM variation WHERE applied_variation <> 0 OR k <> 0"
        ).fetchone()[0]
        played = con.execute("SELECT count(*) FROM variation WHERE games > 0").fetchone()[0]
        changed = con.execute(
            "SELECT count(*) FROM rating_list WHERE rating_basis = 'list' "
            "AND rating_type = 'elo_italia' AND rating <> frozen_rating"
        ).fetchone()[0]
    assert played > 0 and moved == 0 and changed == 0


def test_a_corrected_tournament_makes_its_period_and_later_ones_stale(season_warehouse, tmp_path):
    from flows.elo.recalculate import recalculate_flow
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists

    warehouse = season_warehouse(2019)
    _publish(warehouse, 2019)
    before = _official(warehouse)
    rulebook = load_rulebook("elo_italia")
    with Warehouse(warehouse).reader() as con:
        assert stale_lists(con, "elo_italia", rulebook, fsi_fingerprints) == []
    assert deliver_a_corrected_tournament(warehouse, tmp_path / "corrections")[1] == 1

    with Warehouse(warehouse).reader() as con:
        stale = [
            item.list_date for item in stale_lists(con, "elo_italia", rulebook, fsi_fingerprints)
        ]
        # a replay reads every date's fingerprint in one query: the same as one by one
        dates = [row[0] for row in before]
        together = fsi_fingerprints(con, "elo_italia", rulebook, dates)
        assert together == {day: fsi_fingerprint(con, "elo_italia", rulebook, day) for day in dates}
        assert len(set(together.values())) == len(dates)
    assert stale == [date(2019, 7, 1), date(2019, 10, 1), date(2020, 1, 1)]

    counts = recalculate_flow("elo_italia", str(warehouse), stale=True)
    assert counts["lists"] == 3 and counts["new_revisions"] == 3
    after = _official(warehouse)
    assert [row for row in after if row[0] == date(2019, 4, 1)] == [
        row for row in before if row[0] == date(2019, 4, 1)
    ]
    assert {row[0] for row in after if row[1] == 2} == set(stale)
    with Warehouse(warehouse).reader() as con:
        assert stale_lists(con, "elo_italia", rulebook, fsi_fingerprints) == []
        old_kept = con.execute(
            "SELECT count(DISTINCT revision) FROM rating_list_revisions "
            "WHERE list_date = '2019-07-01'"
        ).fetchone()[0]
        diff = con.execute(
            "SELECT count(*) FROM list_diff WHERE list_date = '2019-07-01'"
        ).fetchone()[0]
    assert old_kept == 2 and diff >= 2  # both players of the flipped game at least
    with Warehouse(warehouse).reader() as con:
        follows = con.execute(
            "SELECT list_date, previous_list_date, previous_revision FROM list_revision "
            "WHERE scenario = 'official' AND revision = 2 ORDER BY list_date"
        ).fetchall()
    # each new revision names the revision it was computed from: the unchanged list before the
    # range, then the new revisions settled one after the other in the background
    assert follows == [
        (date(2019, 7, 1), date(2019, 4, 1), 1),
        (date(2019, 10, 1), date(2019, 7, 1), 2),
        (date(2020, 1, 1), date(2019, 10, 1), 2),
    ]

    again = recalculate_flow("elo_italia", str(warehouse), date(2019, 4, 1), date(2020, 1, 1))
    assert again["new_revisions"] == 0


def test_a_scenario_never_touches_the_official_lists(season_warehouse, tmp_path):
    from flows.elo.recalculate import recalculate_flow
    from transforms.lists.eras import default_rulebook_path

    warehouse = season_warehouse(2019)
    _publish(warehouse, 2019)
    before = _official(warehouse)
    with Warehouse(warehouse).reader() as con:
        official_view = con.execute("SELECT * FROM rating_list ORDER BY ALL").fetchall()
    other = tmp_path / "no_groups.toml"
    text = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
    other.write_text(newcomer_k(text, 40), encoding="utf-8")

    def replay_season(rulebook, scenario: str = "official") -> dict[str, int]:
        return recalculate_flow(
            "elo_italia",
            str(warehouse),
            date(2019, 4, 1),
            date(2020, 1, 1),
            rulebook_path=str(rulebook),
            scenario=scenario,
        )

    counts = replay_season(other, "k40")
    assert counts["new_revisions"] == 4 and counts["players_changed"] > 0
    assert _official(warehouse) == before
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT * FROM rating_list ORDER BY ALL").fetchall() == official_view
        scenario_rows = con.execute(
            "SELECT count(*) FROM rating_list_revisions WHERE scenario = 'k40'"
        ).fetchone()[0]
        against = con.execute(
            "SELECT DISTINCT against_scenario FROM list_diff WHERE scenario = 'k40'"
        ).fetchall()
        k_values = con.execute(
            "SELECT DISTINCT k FROM variation_revisions WHERE scenario = 'k40' AND k = 40"
        ).fetchall()
        # a scenario's variations and rankings are public too, beside the official ones;
        # variation and ranking stay the official lists'
        public = con.execute(
            "SELECT (SELECT count(*) FROM ranking_revisions WHERE scenario = 'k40'), "
            "(SELECT count(*) FROM variation WHERE scenario = 'k40'), "
            "(SELECT count(*) FROM variation_revisions WHERE scenario = 'official') "
            "= (SELECT count(*) FROM list_variation WHERE scenario = 'official')"
        ).fetchone()
    assert scenario_rows > 0 and against == [("official",)] and k_values == [(40,)]
    assert public[0] > 0 and public[1:] == (0, True)
    # the same scenario again: nothing new
    again = replay_season(other, "k40")
    assert again["new_revisions"] == 0
    # its report still tells how the scenario differs from the official lists, from the
    # differences recorded the first time (not recorded twice)
    assert again["players_changed"] == counts["players_changed"]
    from flows.status import status_text

    with Warehouse(warehouse).reader() as con:
        diff_rows = con.execute("SELECT count(*) FROM list_diff WHERE scenario = 'k40'").fetchone()
        report = con.execute(
            "SELECT report FROM run WHERE flow = 'recalculate' ORDER BY started_at DESC LIMIT 1"
        ).fetchone()[0]
    assert diff_rows[0] == counts["players_changed"]
    assert "| 2019-04-01 | 1 (unchanged) | 0 |" not in report
    status = status_text(str(warehouse))
    assert "elo_italia k40: 4 list dates, 2019-04-01 .. 2020-01-01" in status
    assert "official list revisions" in status

    # the official lists get new revisions (same rows: only the rulebook's text changed) and
    # the scenario, left as it was, is compared with them: recorded once more, against them
    commented = tmp_path / "commented.toml"
    commented.write_text(text + "\n# a comment\n", encoding="utf-8")
    official = replay_season(commented)
    assert official["new_revisions"] == 4 and official["players_changed"] == 0
    third = replay_season(other, "k40")
    assert (third["new_revisions"], third["players_changed"]) == (0, counts["players_changed"])
    with Warehouse(warehouse).reader() as con:
        compared = con.execute(
            "SELECT against_revision, count(*) FROM list_diff WHERE scenario = 'k40' "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    assert compared == [(1, counts["players_changed"]), (2, counts["players_changed"])]


@pytest.mark.parametrize("name", ["", "K20", "k 20", "-k"])
def test_a_scenario_name_is_lowercase_letters_digits_dashes(season_warehouse, name):
    from flows.elo.recalculate import recalculate_flow
    from flows.publishing.arguments import ListError

    warehouse = str(season_warehouse(2019))
    with pytest.raises(ListError, match="use lowercase letters, digits"):
        recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2019, 4, 1), scenario=name)


def test_a_scenario_with_a_gap_is_refused_not_filled_with_official_lists(season_warehouse):
    from flows.elo.recalculate import recalculate_flow
    from flows.publishing.arguments import ListError

    warehouse = str(season_warehouse(2019))
    _publish(warehouse, 2019)
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2019, 7, 1), scenario="gap")
    # its list of 2020-01-01 would follow the official list of 2019-10-01: a mix of both
    with pytest.raises(ListError, match="2019-10-01 has not been published in scenario gap"):
        recalculate_flow(
            "elo_italia", warehouse, date(2020, 1, 1), date(2020, 1, 1), scenario="gap"
        )


def test_a_scenario_cannot_build_on_its_lists_of_another_rulebook(season_warehouse, tmp_path):
    from flows.elo.recalculate import recalculate_flow
    from flows.publishing.arguments import ListError
    from transforms.lists.eras import default_rulebook_path

    warehouse = str(season_warehouse(2019))
    _publish(warehouse, 2019)
    text = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
    first, edited = tmp_path / "what_if.toml", tmp_path / "what_if_edited.toml"
    first.write_text(newcomer_k(text, 40), encoding="utf-8")
    edited.write_text(newcomer_k(text, 25), encoding="utf-8")

    def replay(start: date, end: date, rulebook) -> dict[str, int]:
        return recalculate_flow(
            "elo_italia", warehouse, start, end, rulebook_path=str(rulebook), scenario="what-if"
        )

    replay(date(2019, 4, 1), date(2019, 7, 1), first)
    # the scenario's later lists under the edited file would follow lists of the first one
    with pytest.raises(ListError) as refused:
        replay(date(2019, 10, 1), date(2020, 1, 1), edited)
    assert str(refused.value) == (
        "scenario what-if's list of 2019-07-01, which a replay from 2019-10-01 builds on, was "
        "computed under another rulebook than what_if_edited.toml: replay the scenario from its "
        "first list date (2019-04-01), or name a new scenario"
    )
    # under its own rulebook it goes on; from its first list date, under the edited one too
    assert replay(date(2019, 10, 1), date(2020, 1, 1), first)["new_revisions"] == 2
    assert replay(date(2019, 4, 1), date(2020, 1, 1), edited)["new_revisions"] == 4


def test_a_list_that_fails_to_be_written_leaves_the_warehouse_as_it_was(
    season_warehouse, monkeypatch, tmp_path
):
    import flows.elo.recalculate as recalculate
    from transforms.lists.eras import default_rulebook_path

    warehouse = season_warehouse(2019)
    _publish(warehouse, 2019)
    before = _official(warehouse)
    with Warehouse(warehouse).reader() as con:
        rows_before = con.execute("SELECT count(*) FROM list_entry").fetchone()[0]
    write_list = recalculate.write_list
    written = []

    def failing_on_the_third(con, run, context, *rest):
        if context.list_date == date(2019, 10, 1):
            raise OSError("disk full")
        written.append(write_list(con, run, context, *rest))
        return written[-1]

    # another rulebook makes every list a new revision; the third fails in the background,
    # after the first two were written to the staging copy
    other = tmp_path / "newcomers_40.toml"
    text = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
    other.write_text(newcomer_k(text, 40), encoding="utf-8")
    monkeypatch.setattr(recalculate, "write_list", failing_on_the_third)
    with pytest.raises(OSError, match="disk full"):
        recalculate.recalculate_flow(
            "elo_italia",
            str(warehouse),
            date(2019, 4, 1),
            date(2020, 1, 1),
            rulebook_path=str(other),
        )
    assert [(item.revision, item.written) for item in written] == [(2, True), (2, True)]
    assert _official(warehouse) == before
    with Warehouse(warehouse).reader() as con:
        assert con.execute("SELECT count(*) FROM list_entry").fetchone()[0] == rows_before


def test_each_list_s_progress_line_reaches_the_run_log(season_warehouse, monkeypatch):
    import prefect.logging

    logged: list[str] = []
    run_logger = prefect.logging.get_run_logger

    def recording_logger(*args, **kwargs):
        logger = run_logger(*args, **kwargs)  # raises outside a run, as say expects

        class Recording:
            def info(self, message: str) -> None:
                logged.append(message)
                logger.info(message)

        return Recording()

    warehouse = season_warehouse(2019)
    monkeypatch.setattr(prefect.logging, "get_run_logger", recording_logger)
    _publish(warehouse, 2019)
    # the lists are finished on a background thread: it runs in the flow run's context
    assert [line.split(":")[0].strip() for line in logged if line.startswith("  [")] == [
        "[1/4] 2019-04-01",
        "[2/4] 2019-07-01",
        "[3/4] 2019-10-01",
        "[4/4] 2020-01-01",
    ]


def _period_rows(part) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A period's entries and games named by ids (the integer keys are the period's own)."""
    ids = part.entries.select("entry_key", "player_code", "tournament_id", "player_id")
    games = (
        part.games.join(ids.select("entry_key", "player_id"), on="entry_key")
        .join(
            ids.select("player_code", pl.col("player_id").alias("opponent_id")).unique(),
            left_on="opponent_code",
            right_on="player_code",
        )
        .select("tournament_id", "player_id", "opponent_id", "score", "received_on")
        .sort(pl.all())
    )
    entries = part.entries.drop("entry_key", "player_code", "tournament_code")
    return entries, games


@pytest.mark.parametrize("list_dates_per_read", [1, 3, 100])
def test_the_history_is_read_the_same_whatever_the_size_of_its_reads(
    season_warehouse, list_dates_per_read
):
    """A replay reads its history a few list dates at a time (flows/elo/history.py): each
    period gets the same entries and games however the reads are cut, the entries in entry
    key order (the engine's, no sort a period), and the earlier lists' participations are the
    same too."""
    from flows.elo.history import StreamedHistory
    from flows.elo.rulebook import load_rulebook

    warehouse = season_warehouse(2019)
    rulebook = load_rulebook("elo_italia")
    calendar = rulebook.era_at(date(2019, 4, 1)).calendar
    dates = list_dates_between(calendar, date(2019, 4, 1), date(2020, 1, 1))
    up_to = cutoff_for(calendar, dates[-1])
    validity = validity_in_force(rulebook)

    def read(per_read: int, first: int) -> tuple[pl.DataFrame, list]:
        with (
            Warehouse(warehouse).reader() as con,
            StreamedHistory(con, "elo_italia", calendar, dates[first:], up_to, per_read) as history,
        ):
            played = history.played_before(dates[first], validity).sort("player_id")
            return played, [history.period(day) for day in dates[first:]]

    one_by_one_played, one_by_one = read(1, 1)
    played, periods = read(list_dates_per_read, 1)
    assert played.equals(one_by_one_played)
    # the earlier lists' participations are those of the periods of a replay from the first
    played_earlier, from_the_first = read(list_dates_per_read, 0)
    assert played.equals(last_played(played_earlier, from_the_first[0].entries).sort("player_id"))
    assert sum(part.entries.height for part in periods) > 0
    for part, expected in zip(periods, one_by_one, strict=True):
        assert part.entries.get_column("entry_key").is_sorted()
        for got, want in zip(_period_rows(part), _period_rows(expected), strict=True):
            assert got.equals(want)
    for part, expected in zip(from_the_first[1:], periods, strict=True):
        for got, want in zip(_period_rows(part), _period_rows(expected), strict=True):
            assert got.equals(want)


def test_a_list_is_the_same_whichever_replay_computes_it(season_warehouse, monkeypatch):
    # The demo loads a registry snapshot as of 2019-07-01, a list date: that list reads it
    # whether a replay ends there, goes on past it, or the quarterly flow publishes it alone
    # (a replay ending later used to see it, the others not, so the same inputs gave two
    # different lists and every replay wrote a new revision).
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow

    always_compute(monkeypatch)
    warehouse = str(season_warehouse(2019))
    assert recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2020, 1, 1))[
        "new_revisions"
    ]
    replayed = _official(warehouse)
    assert recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2019, 7, 1)) == {
        "lists": 2,
        "new_revisions": 0,
        "players_changed": 0,
    }
    assert quarterly_flow("elo_italia", date(2019, 7, 1), warehouse)["new_revision"] == 0
    assert (
        recalculate_flow("elo_italia", warehouse, date(2019, 7, 1), date(2019, 10, 1))[
            "new_revisions"
        ]
        == 0
    )
    assert _official(warehouse) == replayed
    with Warehouse(warehouse).reader() as con:  # each replay's report, in the public view
        reports = con.execute(
            "SELECT report FROM run WHERE flow = 'recalculate' ORDER BY started_at"
        ).fetchall()
    assert len(reports) == 3
    assert all("| list date | revision | players differing |" in report for (report,) in reports)


def test_a_range_holding_the_imported_opening_list_is_refused(season_warehouse, capsys):
    # The demo's 2019-01-01 list is imported: computed from nothing, it would replace every
    # rating of the federation's published list, and the lists after it with it.
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow
    from flows.publishing.arguments import ListError

    warehouse = str(season_warehouse(2019))
    before = _official(warehouse)
    with Warehouse(warehouse).transaction():
        pass  # in service: the next write finds its standby
    capsys.readouterr()
    with pytest.raises(ListError, match=r"2019-01-01 was imported .* \(--from 2019-04-01\)"):
        recalculate_flow("elo_italia", warehouse, date(2019, 1, 1), date(2019, 4, 1))
    # nor can a quarterly run compute it (it wrote an empty list over it), nor any official
    # list before it: the system's lists start from the federation's
    with pytest.raises(ListError, match="2019-01-01 was imported"):
        quarterly_flow("elo_italia", date(2019, 1, 1), warehouse)
    before_opening = "start from the list of 2019-01-01, .* a list before it \\(2018-07-01\\)"
    with pytest.raises(ListError, match=before_opening):
        recalculate_flow("elo_italia", warehouse, date(2018, 7, 1), date(2019, 4, 1))
    with pytest.raises(ListError, match="a list before it \\(2018-10-01\\)"):
        quarterly_flow("elo_italia", date(2018, 10, 1), warehouse)
    assert _official(warehouse) == before
    # each was refused on a read-only session, before it took the standby: no run copied the
    # warehouse, not even to record its failure
    assert "writing in a copy" not in capsys.readouterr().out
    # each refused run is in the run view, with its reason (the data stays as it was)
    with Warehouse(warehouse).reader() as con:
        failed = con.execute(
            "SELECT flow, status, report FROM run WHERE status = 'failed' ORDER BY started_at"
        ).fetchall()
    assert [(flow, status) for flow, status, _ in failed] == [
        ("recalculate", "failed"),
        ("quarterly", "failed"),
        ("recalculate", "failed"),
        ("quarterly", "failed"),
    ]
    assert failed[0][2].startswith("# recalculate failed\n\n") and "was imported" in failed[0][2]


def test_a_new_receipt_date_moves_a_tournament_and_it_is_rated_once(season_warehouse, tmp_path):
    from flows.elo.recalculate import recalculate_flow
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists

    warehouse = season_warehouse(2019)
    _publish(warehouse, 2019)
    rulebook = load_rulebook("elo_italia")
    # received again on 20 August: after the cut-off of the list of 1 July (15 June), before
    # that of 1 October (15 September)
    tournament_id, new_versions = deliver_a_corrected_tournament(
        warehouse, tmp_path / "corrections", received_on="2019-08-20"
    )
    assert new_versions == 1
    with Warehouse(warehouse).reader() as con:
        # the list of 1 July rated the first version: it no longer holds the tournament
        stale = [
            item.list_date for item in stale_lists(con, "elo_italia", rulebook, fsi_fingerprints)
        ]
        warned = con.execute(
            "SELECT reason FROM input_warning WHERE tournament_id = ? AND field = 'received_on'",
            [tournament_id],
        ).fetchall()
    assert stale == [date(2019, 7, 1), date(2019, 10, 1), date(2020, 1, 1)]
    assert len(warned) == 1 and "moves the tournament" in warned[0][0]

    recalculate_flow("elo_italia", str(warehouse), stale=True)
    with Warehouse(warehouse).reader() as con:
        rated_in = con.execute(
            "SELECT list_date, tournament_version FROM variation "
            "WHERE system = 'elo_italia' AND tournament_id = ? GROUP BY ALL ORDER BY ALL",
            [tournament_id],
        ).fetchall()
        assert stale_lists(con, "elo_italia", rulebook, fsi_fingerprints) == []
    assert rated_in == [(date(2019, 10, 1), 2)]


def test_a_list_computed_from_a_replaced_revision_of_the_one_before_is_stale(season_warehouse):
    import duckdb

    from flows.elo.recalculate import recalculate_flow
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2020, 1, 1))
    # a second revision of 2019-04-01 from the same inputs and rulebook (as a replay of that
    # list alone would write after any change its content shows): the lists after it were
    # computed from revision 1
    with duckdb.connect(warehouse) as con:
        con.execute(
            "INSERT INTO list_revision SELECT * REPLACE (2 AS revision) FROM list_revision "
            "WHERE system = 'elo_italia' AND scenario = 'official' AND list_date = '2019-04-01'"
        )
    with Warehouse(warehouse).reader() as con:
        found = stale_lists(con, "elo_italia", load_rulebook("elo_italia"), fsi_fingerprints)
    assert [(stale.list_date, stale.reason) for stale in found] == [
        (
            date(2019, 7, 1),
            "it was computed from revision 1 of the list of 2019-04-01, which revision 2 has "
            "replaced",
        ),
        (date(2019, 10, 1), "follows the stale list of 2019-07-01"),
        (date(2020, 1, 1), "follows the stale list of 2019-07-01"),
    ]


def test_a_late_tournament_is_named_as_new_in_the_stale_reason(season_warehouse, tmp_path):
    from flows.elo.ingest import ingest_flow
    from flows.elo.recalculate import recalculate_flow
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists
    from tests.flows.helpers import flip_one_decisive_game, write_manifest

    warehouse = str(season_warehouse(2019))
    with Warehouse(warehouse).reader() as con:
        content = con.execute(
            "SELECT f.content FROM tournament t JOIN raw_file f ON f.sha256 = t.file_sha256 "
            "WHERE t.status = 'accepted' AND t.system = 'elo_italia' "
            "AND t.received_on BETWEEN '2019-03-16' AND '2019-06-15' ORDER BY t.tournament_id "
            "LIMIT 1"
        ).fetchone()[0]
    row = {"tournament_id": "LATE-1", "file": "late.trf", "system": "elo_italia"}
    for folder, received, text in (
        # first delivered as received after the lists' range, so none of them reads it
        ("first", "2020-02-20", content.decode("ascii")),
        # then corrected, with the receipt date it should have had
        ("corrected", "2019-08-20", flip_one_decisive_game(content.decode("ascii"))),
    ):
        delivery = tmp_path / folder / "late"
        delivery.mkdir(parents=True)
        (delivery / "late.trf").write_text(text)
        write_manifest(delivery, [{**row, "received_on": received}])
        assert ingest_flow(str(tmp_path / folder), warehouse)["tournaments_new_versions"] == 1
        if folder == "first":
            recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2020, 1, 1))
    with Warehouse(warehouse).reader() as con:
        found = stale_lists(con, "elo_italia", load_rulebook("elo_italia"), fsi_fingerprints)
    assert (found[0].list_date, found[0].reason) == (
        date(2019, 10, 1),
        "its inputs changed since it was written: new tournaments LATE-1",
    )


def test_a_registry_snapshot_loaded_late_is_named_in_the_stale_reason(season_warehouse, tmp_path):
    import shutil

    from flows.demo import registry_snapshots
    from flows.elo.recalculate import recalculate_flow
    from flows.elo.registry import load_registry_flow
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2020, 1, 1))
    # the last snapshot before the season again, one member fewer, dated within the season
    folder = [
        folder
        for day, folder in registry_snapshots(season_warehouse.demo_dir(2019))
        if day <= date(2019, 4, 1)
    ][-1]
    late = tmp_path / "late"
    shutil.copytree(folder, late)
    memberships = (late / "memberships.csv").read_text(encoding="utf-8").splitlines()
    (late / "memberships.csv").write_text("\n".join(memberships[:-1]) + "\n", encoding="utf-8")
    load_registry_flow(str(late), date(2019, 8, 15), warehouse)
    with Warehouse(warehouse).reader() as con:
        found = stale_lists(con, "elo_italia", load_rulebook("elo_italia"), fsi_fingerprints)
    assert found[0].list_date == date(2019, 10, 1)
    assert found[0].reason == (
        "its inputs changed since it was written: the registry snapshot of 2019-08-15 loaded"
    )


def test_a_merge_makes_stale_only_the_lists_that_read_the_merged_player(season_warehouse):
    # A provisional player whose first tournament was received late in the season: his merge
    # changes the lists from the one that takes that tournament, not every list of the system.
    from flows.elo.recalculate import recalculate_flow
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists
    from flows.registry import merge_player_flow
    from transforms.lists.periods import assign_list_dates

    warehouse = str(season_warehouse(2019))
    recalculate_flow("elo_italia", warehouse, date(2019, 4, 1), date(2020, 1, 1))
    with Warehouse(warehouse).reader() as con:
        provisional, first_received = con.execute(
            "SELECT u.provisional_id, min(t.received_on) FROM unmatched_player u "
            "JOIN tournament t USING (tournament_id) WHERE t.system = 'elo_italia' "
            "GROUP BY ALL ORDER BY 2 DESC, 1 LIMIT 1"
        ).fetchone()
        # a registered player in none of the season's tournaments: no one plays twice
        idle = con.execute(
            "SELECT player_id FROM registry_snapshot WHERE player_id NOT IN "
            "(SELECT player_id FROM tournament_player) ORDER BY 1 LIMIT 1"
        ).fetchone()[0]
    rulebook = load_rulebook("elo_italia")
    received = pl.DataFrame({"received_on": [first_received]})
    first_list = assign_list_dates(received, rulebook.era_at(first_received).calendar)["list_date"][
        0
    ]
    assert first_list > date(2019, 4, 1)  # the test needs a merge that spares some lists
    # an arbitrary registered player: not the same person, so the merge is forced
    merge_player_flow(provisional, idle, warehouse, force=True)
    with Warehouse(warehouse).reader() as con:
        found = stale_lists(con, "elo_italia", rulebook, fsi_fingerprints)
    assert found[0].list_date == first_list
    assert found[0].reason == "its inputs changed since it was written: 1 merge recorded"
    # a list of another system, which none of his tournaments feeds, is not told of the merge
    from flows.publishing.staleness import _inputs_changed_since

    with Warehouse(warehouse).reader() as con:
        rapid = con.execute(
            "SELECT count(*) FROM tournament_player p JOIN tournament t USING (tournament_id) "
            "WHERE t.system = 'elo_rapid' AND p.ingested_player_id = ?",
            [provisional],
        ).fetchone()[0]
        told = _inputs_changed_since(
            con, "elo_rapid", load_rulebook("elo_rapid"), first_list, datetime(2000, 1, 1)
        )
    assert rapid == 0 and "merge" not in told


def test_a_read_of_the_history_that_fails_is_recorded_and_leaves_the_warehouse_as_it_was(
    season_warehouse, monkeypatch
):
    """The history is read on a thread of its own (flows/elo/history.py): a failure there
    reaches the replay, which records it, and leaves every list as it was."""
    import flows.elo.history as history
    from flows.elo.recalculate import recalculate_flow

    always_compute(monkeypatch)
    warehouse = season_warehouse(2019)
    _publish(warehouse, 2019)
    before = _official(warehouse)
    reads = []
    keyed_period = history.keyed_period

    def failing_on_a_period(entries, games):
        reads.append(entries.height)
        if entries.height:  # not the empty frames the reader keys when it starts
            raise OSError("the disk went away")
        return keyed_period(entries, games)

    monkeypatch.setattr(history, "keyed_period", failing_on_a_period)
    with pytest.raises(OSError, match="the disk went away"):
        recalculate_flow("elo_italia", str(warehouse), date(2019, 4, 1), date(2020, 1, 1))
    assert _official(warehouse) == before
    assert reads[-1] > 0
    with Warehouse(warehouse).reader() as con:
        flow, status = con.execute(
            "SELECT flow, status FROM run_record ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
    assert (flow, status) == ("recalculate", "failed")


def test_a_read_whose_rows_are_not_where_they_were_located_reads_them_all(
    season_warehouse, monkeypatch
):
    """The entries and rounds of a read are looked for within the row ids their tournaments
    span; should the count read differ from the count located, the read takes the whole
    table instead."""
    import flows.elo.history as history
    from flows.elo.rulebook import load_rulebook

    warehouse = season_warehouse(2019)
    calendar = load_rulebook("elo_italia").era_at(date(2019, 4, 1)).calendar
    dates = list_dates_between(calendar, date(2019, 4, 1), date(2020, 1, 1))
    up_to = cutoff_for(calendar, dates[-1])

    def periods() -> list:
        with (
            Warehouse(warehouse).reader() as con,
            history.StreamedHistory(con, "elo_italia", calendar, dates, up_to) as read,
        ):
            return [_period_rows(read.period(day)) for day in dates]

    located = periods()
    located_reads = history.located
    monkeypatch.setattr(
        history,
        "located",
        lambda reads, tables: [
            replace(read, located={table: (0, 0, n) for table, (_, _, n) in read.located.items()})
            for read in located_reads(reads, tables)
        ],
    )
    misplaced = periods()
    assert sum(entries.height for entries, _ in located) > 0
    for got, want in zip(misplaced, located, strict=True):
        assert all(a.equals(b) for a, b in zip(got, want, strict=True))
