"""Runs that change nothing: a current list is not computed again, the staleness check reads
each system's fingerprints in one query, and ``status`` and ``problems`` need no Prefect."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from flows.warehouse import Warehouse
from tests.flows.helpers import REPO_ROOT, deliver_a_corrected_tournament

pytestmark = pytest.mark.usefixtures("prefect_server")

SEASON = 2019


def _never(what: str) -> Callable[..., Any]:
    def called(*args: Any, **kwargs: Any) -> Any:
        pytest.fail(f"{what} was called: a current list was computed again")

    return called


def _count_writes(monkeypatch) -> list[Path]:
    """The files the runs swap in for the warehouse from now on (a write each)."""
    from flows.warehouse import Standby

    swapped: list[Path] = []
    original = Standby.keep

    def keep(self: Standby, aside: Path | None) -> None:
        swapped.append(self.path)
        original(self, aside)

    monkeypatch.setattr(Standby, "keep", keep)
    return swapped


def _lists(warehouse: Path | str) -> dict[str, list[tuple]]:
    """Every table a list run writes, whole (but the run records)."""
    with Warehouse(warehouse).reader() as con:
        return {
            table: con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            for table in ("list_revision", "list_entry", "list_ranking", "list_diff")
        }


def _runs(warehouse: Path | str) -> list[tuple]:
    with Warehouse(warehouse).reader() as con:
        return con.execute(
            "SELECT flow, status, counts, input_checksums, report FROM run_record ORDER BY ended_at"
        ).fetchall()


# ------------------------------------------------------------------------------- quarterly


@pytest.fixture
def published(season_warehouse) -> Path:
    """A demo season with its Elo Italia lists of April and July published."""
    from flows.elo.lists import quarterly_flow

    warehouse = season_warehouse(SEASON)
    for list_date in (date(SEASON, 4, 1), date(SEASON, 7, 1)):
        assert quarterly_flow("elo_italia", list_date, str(warehouse))["new_revision"] == 1
    return warehouse


def test_an_unchanged_quarterly_computes_nothing_and_writes_only_its_run_record(
    published, monkeypatch
):
    import flows.elo.lists
    import flows.publishing.quarterly
    from flows.elo.lists import quarterly_flow

    july = date(SEASON, 7, 1)
    # as before: the list computed again, found unchanged (the check made to find nothing)
    with monkeypatch.context() as patch:
        patch.setattr(
            flows.publishing.quarterly, "current_lists", lambda *args: None, raising=False
        )
        computed = quarterly_flow("elo_italia", july, str(published))
    lists = _lists(published)
    runs = _runs(published)

    writes = _count_writes(monkeypatch)
    monkeypatch.setattr(flows.elo.lists, "read_period", _never("read_period"))
    again = quarterly_flow("elo_italia", july, str(published))

    assert (
        again
        == computed
        == {
            "revision": 1,
            "new_revision": 0,
            "players": computed["players"],
            "in_ranking": computed["in_ranking"],
        }
    )
    assert computed["players"] > computed["in_ranking"] > 0
    assert _lists(published) == lists
    # one run record more, saying what the run that computed the list said
    new_runs = _runs(published)
    assert new_runs[:-1] == runs
    assert new_runs[-1] == runs[-1]
    assert new_runs[-1][4].startswith("Unchanged: revision 1 already holds this list.")
    assert sorted(json.loads(new_runs[-1][3])) == [
        "code of the lists",
        f"inputs of the elo_italia list of {july}",
    ]
    # the warehouse was written once, to write the record: no other program may write the
    # live file while dashboards read it
    assert len(writes) == 1


def test_a_list_last_computed_by_other_code_is_computed_again(published, monkeypatch):
    # a correction of the rules' code changes lists without making them stale: a run under
    # other code computes them (CHANGELOG: "replay a range"), then leaves them alone
    import flows.elo.lists
    import flows.publishing.current
    from flows.elo.lists import quarterly_flow
    from flows.elo.recalculate import recalculate_flow

    read_period = flows.elo.lists.read_period
    computed: list[date] = []

    def counted(con, system, scenario, list_date, rulebook):
        computed.append(list_date)
        return read_period(con, system, scenario, list_date, rulebook)

    monkeypatch.setattr(flows.elo.lists, "read_period", counted)
    monkeypatch.setattr(flows.publishing.current, "code_digest", lambda: "other code")
    july = date(SEASON, 7, 1)
    assert quarterly_flow("elo_italia", july, str(published))["new_revision"] == 0
    assert quarterly_flow("elo_italia", july, str(published))["new_revision"] == 0
    assert computed == [july]
    # April was last computed by the code before: a replay computes both (and writes nothing)
    replayed = recalculate_flow("elo_italia", str(published), date(SEASON, 4, 1), july)
    assert replayed["lists"] == 2 and replayed["new_revisions"] == 0
    assert "list dates replayed: 2 in" in _runs(published)[-1][4]


def test_a_change_between_the_check_and_the_write_is_not_missed(published, monkeypatch, tmp_path):
    # the read-only check holds no lock: an ingest may write between it and the run's
    # transaction, which checks again under the writer lock
    import flows.publishing.quarterly
    from flows.elo.lists import quarterly_flow

    checked = getattr(flows.publishing.quarterly, "read_only_verdict", None)

    def then_a_correction(warehouse, check):
        verdict = checked(warehouse, check)
        assert verdict is not None  # the list was current when checked
        assert deliver_a_corrected_tournament(Path(warehouse), tmp_path / "inbox")[1] == 1
        return verdict

    monkeypatch.setattr(
        flows.publishing.quarterly, "read_only_verdict", then_a_correction, raising=False
    )
    counts = quarterly_flow("elo_italia", date(SEASON, 7, 1), str(published))
    assert counts["revision"] == 2 and counts["new_revision"] == 1


def test_a_quarterly_after_a_stale_list_is_still_refused(published, tmp_path):
    # a run that would refuse is never taken for one that changes nothing
    from flows.elo.lists import quarterly_flow
    from flows.publishing.arguments import ListError

    july = date(SEASON, 7, 1)
    # a tournament of the April list, received again for it (its receipt date moved)
    deliver_a_corrected_tournament(published, tmp_path / "inbox", received_on="2019-03-01")
    with pytest.raises(ListError, match=f"list of {date(SEASON, 4, 1)} is stale"):
        quarterly_flow("elo_italia", july, str(published))


def test_a_version_moved_past_a_lists_cut_off_is_named_as_what_made_it_stale(published, tmp_path):
    # a tournament of the July list delivered again with a receipt date after its cut-off
    # (2019-06-15): it leaves the July list, which the status says, naming it
    from flows.status import stale_of

    tournament_id, versions = deliver_a_corrected_tournament(
        published, tmp_path / "inbox", received_on="2019-08-01"
    )
    assert versions == 1
    with Warehouse(published).reader() as con:
        stale = {item.list_date: item.reason for item in stale_of(con, "elo_italia")}
    assert f"new versions of {tournament_id}" in stale[date(SEASON, 7, 1)]


# ------------------------------------------------------------------------------- replays


def test_a_replay_of_current_lists_computes_nothing(published, monkeypatch):
    import flows.elo.recalculate
    from flows.elo.recalculate import recalculate_flow

    lists = _lists(published)
    writes = _count_writes(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(flows.elo.recalculate, "StreamedHistory", _never("StreamedHistory"))
        counts = recalculate_flow(
            "elo_italia", str(published), date(SEASON, 4, 1), date(SEASON, 7, 1)
        )
    assert counts == {"lists": 2, "new_revisions": 0, "players_changed": 0}
    assert _lists(published) == lists and len(writes) == 1
    flow, status, _, checksums, report = _runs(published)[-1]
    assert (flow, status) == ("recalculate", "succeeded")
    assert sorted(json.loads(checksums)) == [
        "code of the lists",
        f"inputs of the elo_italia list of {date(SEASON, 4, 1)}",
        f"inputs of the elo_italia list of {date(SEASON, 7, 1)}",
    ]
    # the table every recalculation's report has
    assert "| list date | revision | players differing |" in report
    assert f"| {date(SEASON, 7, 1)} | 1 (unchanged) | 0 | 0 | 0 | 0 | 0 / 0 | |" in report

    # a range holding a list not published yet, or a scenario, computes its lists
    wider = recalculate_flow("elo_italia", str(published), date(SEASON, 4, 1), date(SEASON, 10, 1))
    assert wider == {"lists": 3, "new_revisions": 1, "players_changed": 0}
    scenario = recalculate_flow(
        "elo_italia",
        str(published),
        date(SEASON, 4, 1),
        date(SEASON, 7, 1),
        scenario="same-rules",
    )
    assert scenario["lists"] == 2 and scenario["new_revisions"] == 2


def test_current_draughts_lists_are_not_computed_again(tmp_path, monkeypatch):
    import flows.rubele.lists
    from flows.rubele.lists import rubele_quarterly_flow, rubele_recalculate_flow
    from tests.flows.rubele.test_draughts import _ingested

    warehouse, _ = _ingested(tmp_path)
    dates = (date(2019, 7, 1), date(2020, 1, 1))
    for list_date in dates:
        assert rubele_quarterly_flow("rubele_italiana", list_date, warehouse)["new_revision"]
    lists = _lists(warehouse)
    monkeypatch.setattr(flows.rubele.lists, "read_rubele_facts", _never("read_rubele_facts"))
    again = rubele_quarterly_flow("rubele_italiana", dates[1], warehouse)
    assert again["new_revision"] == 0 and again["revision"] == 1
    replayed = rubele_recalculate_flow("rubele_italiana", warehouse, *dates)
    assert replayed == {"lists": 2, "new_revisions": 0, "players_changed": 0}
    assert _lists(warehouse) == lists
    assert [run[0] for run in _runs(warehouse)[-2:]] == ["quarterly", "recalculate"]


# ------------------------------------------------------------------------------- staleness


class _CountingConnection:
    """A DuckDB connection that keeps the text of every statement run through it."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.statements: list[str] = []

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self.statements.append(sql)
        return self.con.execute(sql, *args, **kwargs)

    def sql(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self.statements.append(sql)
        return self.con.sql(sql, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)


def test_the_staleness_check_reads_a_systems_fingerprints_in_one_query(published, tmp_path):
    from flows.elo.lists import quarterly_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.status import stale_of, status_text
    from tests.flows.rubele.test_draughts import _ingested

    quarterly_flow("elo_italia", date(SEASON, 10, 1), str(published))
    draughts, _ = _ingested(tmp_path / "draughts")
    for list_date in (date(2019, 7, 1), date(2020, 1, 1)):
        rubele_quarterly_flow("rubele_italiana", list_date, draughts)
    for warehouse, system, published_lists, marker in (
        (published, "elo_italia", 3, "md5_number_upper"),  # one hash per tournament version
        (draughts, "rubele_italiana", 2, "fid_registry_load"),
    ):
        with Warehouse(warehouse).reader() as con:
            counting = _CountingConnection(con)
            assert stale_of(counting, system) == []  # type: ignore[arg-type]
        reads = [sql for sql in counting.statements if marker in sql]
        assert len(reads) == 1, f"{system}: {len(reads)} reads of {published_lists} lists"
    assert "elo_italia: 4 list dates published, 0 stale" in status_text(str(published))


def _stale_list_rows(con: duckdb.DuckDBPyConnection, rulebook_hash: str, rows: list) -> None:
    """Official computed lists of elo_italia: (list date, inputs hash), each computed from the
    one before."""
    previous = None
    for list_date, inputs_hash in rows:
        con.execute(
            "INSERT INTO list_revision (system, scenario, list_date, revision, source, run_id, "
            "rulebook_hash, previous_list_date, previous_revision, content_hash, players, "
            "tournaments, created_at, inputs_hash) VALUES ('elo_italia', 'official', ?, 1, "
            "'computed', 'r', ?, ?, ?, 'c', 0, 0, ?, ?)",
            [
                list_date,
                rulebook_hash,
                previous,
                1 if previous else None,
                datetime.now(),
                inputs_hash,
            ],
        ).fetchall()
        previous = list_date


def test_stale_lists_are_found_as_before_reading_the_fingerprints_at_once(tmp_path):
    from flows.elo.rulebook import load_rulebook
    from flows.publishing.staleness import stale_lists

    rulebook = load_rulebook("elo_italia")
    asked: list[list[date]] = []

    def fingerprints(con, system, rulebook, list_dates):
        asked.append(list(list_dates))
        return {day: f"now {day}" for day in list_dates}

    warehouses = itertools.count()

    def stale_of(rows: list[tuple[date, str]]) -> list[tuple[date, str]]:
        path = tmp_path / f"w{next(warehouses)}.duckdb"
        with Warehouse(path).transaction() as con:
            _stale_list_rows(con, rulebook.content_hash, rows)
        with Warehouse(path).reader() as con:
            return [
                (item.list_date, item.reason)
                for item in stale_lists(con, "elo_italia", rulebook, fingerprints)
            ]

    days = [date(2019, 4, 1), date(2019, 7, 1), date(2019, 10, 1), date(2020, 1, 1)]
    assert stale_of([(day, f"now {day}") for day in days]) == []
    assert asked == [days]  # every list's fingerprint, in one call

    asked.clear()
    changed = [(day, f"now {day}" if day != days[1] else "before") for day in days]
    assert stale_of(changed) == [
        (days[1], "its inputs changed since it was written"),
        (days[2], f"follows the stale list of {days[1]}"),
        (days[3], f"follows the stale list of {days[1]}"),
    ]
    assert asked == [days]

    # a list on a day the rulebook's calendar no longer has: read alone, and only when the
    # check reaches it (here never: it follows a stale list)
    asked.clear()
    off = date(2019, 11, 1)
    assert stale_of([*changed[:3], (off, "whatever")]) == [
        (days[1], "its inputs changed since it was written"),
        (days[2], f"follows the stale list of {days[1]}"),
        (off, f"follows the stale list of {days[1]}"),
    ]
    assert asked == [days[:3]]
    asked.clear()
    assert stale_of([(days[0], f"now {days[0]}"), (off, f"now {off}")]) == []
    assert asked == [[days[0]], [off]]


# the fingerprint of a draughts list as it was read one list at a time, before the batched
# query: the lists written then must still read as current
DRAUGHTS_FINGERPRINT_ONE_BY_ONE = """
SELECT sha256(concat_ws('#',
    (SELECT coalesce(string_agg(tournament_id || ':' || version || ':' || version_key || ':'
                                || status, ',' ORDER BY tournament_id, version), '')
     FROM (
         SELECT * FROM tournament_version
         QUALIFY bool_or(system = $system) OVER (PARTITION BY tournament_id)
             AND min(received_on) OVER (PARTITION BY tournament_id) <= $up_to
     )),
    (SELECT coalesce(string_agg(load_id::VARCHAR, ',' ORDER BY load_id), '')
     FROM fid_registry_load WHERE as_of <= $list_date)
)) AS fingerprint
"""


def test_draughts_fingerprints_read_at_once_are_those_read_one_by_one(tmp_path):
    from flows.rubele.periods import rubele_list_fingerprints
    from flows.rubele.rulebook import load_rubele_rulebook
    from tests.flows.rubele.test_draughts import _ingested
    from transforms.lists.periods import cutoff_for

    warehouse, _ = _ingested(tmp_path)
    days = [date(2018, 7, 1), date(2019, 1, 1), date(2019, 7, 1), date(2020, 1, 1)]
    with Warehouse(warehouse).reader() as con:
        for system in ("rubele_italiana", "rubele_internazionale"):
            rulebook = load_rubele_rulebook(system)
            together = rubele_list_fingerprints(con, system, rulebook, days)
            alone = {
                day: con.execute(
                    DRAUGHTS_FINGERPRINT_ONE_BY_ONE,
                    {
                        "system": system,
                        "list_date": day,
                        "up_to": cutoff_for(rulebook.era_at(day).calendar, day),
                    },
                ).fetchall()[0][0]
                for day in days
            }
            assert together == alone
            # nothing; the registry; its first tournaments (and no more by 2020)
            assert len(set(together.values())) == 3


# ------------------------------------------------------------------------------- imports


def test_status_and_problems_import_neither_prefect_nor_the_server(published):
    # the read-only verbs answer from DuckDB: importing Prefect alone costs 2 s, and
    # flows.prefect_server is what starts the project's Prefect server
    code = (
        "import sys\n"
        "from flows.problems import ProblemFilter, problems_text\n"
        "from flows.status import status_text\n"
        f"status_text({str(published)!r})\n"
        f"problems_text({str(published)!r}, ProblemFilter())\n"
        "loaded = set(sys.modules) | {name.split('.')[0] for name in sys.modules}\n"
        "print(sorted(loaded & {'prefect', 'uvicorn', 'fastapi', 'flows.prefect_server'}))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert found.stdout.strip() == "[]", found.stdout + found.stderr
