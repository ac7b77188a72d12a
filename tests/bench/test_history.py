"""The benchmark history generator: a tiny history, checked for internal consistency."""

import subprocess
import sys
from datetime import date
from pathlib import Path

import duckdb
import pytest

from bench.history import HistorySize, HistorySummary, list_date_for, write_history

TINY = HistorySize(players=300, first_year=2018, last_year=2019, tournaments_per_year=10)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> tuple[Path, HistorySummary]:
    path = tmp_path_factory.mktemp("bench") / "history.duckdb"
    return path, write_history(path, TINY, seed=7)


@pytest.fixture
def con(tiny):
    connection = duckdb.connect(str(tiny[0]), read_only=True)
    yield connection
    connection.close()


def _one(con, sql: str):
    return con.execute(sql).fetchone()


def test_summary_counts_match_the_tables(tiny, con):
    _, summary = tiny
    assert summary.tournaments == _one(con, "SELECT count(*) FROM tournament_version")[0] == 20
    assert summary.entries == _one(con, "SELECT count(*) FROM tournament_entry")[0]
    assert summary.game_rows == _one(con, "SELECT count(*) FROM tournament_game")[0]
    played_rows, played_games = _one(
        con,
        "SELECT (SELECT count(*) FROM tournament_game WHERE played), "
        "(SELECT sum(played_games) FROM tournament_version)",
    )
    assert summary.games == played_rows // 2 == played_games
    assert summary.byes == _one(con, "SELECT count(*) FROM tournament_game WHERE kind = 'bye'")[0]
    assert summary.registry_loads == 2
    assert summary.players == _one(con, "SELECT count(*) FROM registry_player WHERE load_id = 2")[0]
    assert summary.games > 1000
    assert 0.2 < summary.draw_share < 0.4
    assert 0.1 < summary.fide_share < 0.5
    assert summary.first_list == date(2018, 4, 1)
    assert summary.last_list <= date(2019, 10, 1)


def test_tournaments_are_well_formed(con):
    bad = _one(
        con,
        """
        SELECT count(*) FILTER (WHERE players NOT BETWEEN 20 AND 150),
               count(*) FILTER (WHERE rounds NOT BETWEEN 5 AND 9),
               count(*) FILTER (WHERE start_date > end_date),
               count(*) FILTER (WHERE received_on < end_date OR received_on > end_date + 40),
               count(*) FILTER (WHERE system <> 'elo_italia' OR status <> 'accepted'
                                OR version <> 1 OR version_key IS NULL),
               count(DISTINCT version_key) = count(*)
        FROM tournament_version
        """,
    )
    assert bad == (0, 0, 0, 0, 0, True)
    # Entries: start numbers 1..n, the count the tournament says, registry ids, no one twice.
    mismatched = _one(
        con,
        """
        SELECT count(*) FROM (
            SELECT v.tournament_id, v.players, count(*) AS n, min(start_number) AS lo,
                   max(start_number) AS hi, count(DISTINCT player_id) AS people
            FROM tournament_version v JOIN tournament_entry e USING (tournament_id, version)
            GROUP BY ALL
        ) WHERE n <> players OR lo <> 1 OR hi <> players OR people <> players
        """,
    )[0]
    assert mismatched == 0
    assert _one(
        con, "SELECT count(*) FROM tournament_entry WHERE match_method <> 'national_id'"
    ) == (0,)


def test_every_player_has_one_row_per_round_and_points_add_up(con):
    wrong = _one(
        con,
        """
        SELECT count(*) FROM (
            SELECT e.tournament_id, e.start_number, e.points, v.rounds,
                   count(g.round) AS rows, count(DISTINCT g.round) AS rounds_seen,
                   coalesce(sum(g.score), 0) AS total
            FROM tournament_entry e
            JOIN tournament_version v USING (tournament_id, version)
            LEFT JOIN tournament_game g USING (tournament_id, version, start_number)
            GROUP BY ALL
        ) WHERE rows <> rounds OR rounds_seen <> rounds OR total <> points
        """,
    )[0]
    assert wrong == 0


def test_every_pairing_is_symmetric(con):
    # Both sides present, each naming the other, opposite colours, scores adding up to 1.
    broken = _one(
        con,
        """
        SELECT count(*) FILTER (WHERE o.start_number IS NULL),
               count(*) FILTER (WHERE o.opponent <> g.start_number OR o.color = g.color
                                OR g.score + o.score <> 1 OR o.kind <> g.kind
                                OR o.played <> g.played),
               count(*) FILTER (WHERE g.played AND g.result_code NOT IN ('1', '=', '0')),
               count(*) FILTER (WHERE NOT g.played AND g.result_code NOT IN ('+', '-')),
               count(*) FILTER (WHERE g.opponent = g.start_number)
        FROM tournament_game g
        LEFT JOIN tournament_game o
          ON o.tournament_id = g.tournament_id AND o.version = g.version
         AND o.round = g.round AND o.start_number = g.opponent
        WHERE g.opponent IS NOT NULL
        """,
    )
    assert broken == (0, 0, 0, 0, 0)
    kinds = dict(
        con.execute(
            "SELECT result_code, count(*) FROM tournament_game GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    )
    assert kinds["1"] == kinds["0"] > 0 and kinds["="] > 0 and kinds["U"] > 0


def test_byes_only_in_odd_tournaments_one_per_round(con):
    wrong = _one(
        con,
        """
        SELECT count(*) FROM (
            SELECT v.tournament_id, v.players, g.round,
                   count(*) FILTER (WHERE g.kind = 'bye') AS byes,
                   count(*) FILTER (WHERE g.kind = 'bye' AND (g.opponent IS NOT NULL
                                    OR g.played OR g.score <> 1 OR g.result_code <> 'U')) AS odd
            FROM tournament_version v JOIN tournament_game g USING (tournament_id, version)
            GROUP BY ALL
        ) WHERE byes <> players % 2 OR odd > 0
        """,
    )[0]
    assert wrong == 0


def test_no_player_twice_in_a_round(con):
    # The key (tournament, version, start number, round) is unique, and a start number stands
    # for one registry player: so nobody plays two games in one round.
    duplicates = _one(
        con,
        """
        SELECT count(*) FROM (
            SELECT g.tournament_id, g.round, e.player_id, count(*) AS n
            FROM tournament_game g
            JOIN tournament_entry e USING (tournament_id, version, start_number)
            GROUP BY ALL HAVING n > 1
        )
        """,
    )[0]
    assert duplicates == 0
    per_round = _one(
        con,
        "SELECT count(*) FROM (SELECT tournament_id, round, opponent, count(*) AS n "
        "FROM tournament_game WHERE opponent IS NOT NULL GROUP BY ALL HAVING n > 1)",
    )[0]
    assert per_round == 0


def test_registry_has_one_snapshot_per_year(con):
    loads = con.execute(
        "SELECT load_id, as_of, players, memberships FROM registry_load ORDER BY load_id"
    ).fetchall()
    assert [(load_id, as_of) for load_id, as_of, _, _ in loads] == [
        (1, date(2018, 1, 1)),
        (2, date(2019, 1, 1)),
    ]
    for load_id, as_of, players, memberships in loads:
        counted = _one(
            con,
            f"SELECT (SELECT count(*) FROM registry_player WHERE load_id = {load_id}), "
            f"(SELECT count(*) FROM registry_membership WHERE load_id = {load_id}), "
            f"(SELECT max(year) FROM registry_membership WHERE load_id = {load_id})",
        )
        assert counted == (players, memberships, as_of.year)
    assert loads[0][2] <= loads[1][2] <= TINY.players
    rows = con.execute(
        "SELECT sex, category, country, name, fide_id, fide_standard FROM registry_player"
    ).fetchall()
    assert {sex for sex, *_ in rows} == {"M", "F"}
    assert {category for _, category, *_ in rows} <= {"NC", "2S", "1S", "3N", "2N", "1N", "CM", "M"}
    assert {country for _, _, country, *_ in rows} == {"ITA"}
    assert all(", " in name for *_, name, _, _ in rows)
    # A FIDE rating always comes with a FIDE id.
    assert all(fide_id is not None for *_, fide_id, rating in rows if rating is not None)
    # Every participant is registered by the tournament's year and a member for that year.
    outsiders = _one(
        con,
        """
        SELECT count(*) FROM tournament_entry e
        JOIN tournament_version v USING (tournament_id, version)
        WHERE NOT EXISTS (
            SELECT 1 FROM registry_membership m JOIN registry_load l USING (load_id)
            WHERE m.player_id = e.player_id AND m.year = year(v.end_date)
              AND year(l.as_of) = year(v.end_date)
        )
        """,
    )[0]
    assert outsiders == 0


def test_same_seed_same_history_and_refuses_an_existing_file(tmp_path, tiny):
    size = HistorySize(players=120, first_year=2019, last_year=2019, tournaments_per_year=4)
    digests = []
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        path = tmp_path / f"{name}.duckdb"
        write_history(path, size, seed=seed)
        with duckdb.connect(str(path), read_only=True) as connection:
            digests.append(
                _one(
                    connection,
                    "SELECT md5(string_agg(concat_ws('|', tournament_id, start_number, round, "
                    "opponent, color, result_code), ',' ORDER BY ALL)) FROM tournament_game",
                )[0]
            )
    assert digests[0] == digests[1] != digests[2]
    with pytest.raises(FileExistsError):
        write_history(tiny[0], TINY, seed=7)


def test_an_interrupted_draw_leaves_no_file(tmp_path, monkeypatch):
    # drawn a year at a time into a .partial file: a draw stopped in its second year leaves
    # neither the file nor anything that could pass for it
    import bench.history as history

    size = HistorySize(players=120, first_year=2018, last_year=2019, tournaments_per_year=4)
    path = tmp_path / "history.duckdb"
    real_write_year = history._write_year
    years: list[int] = []

    def write_year(*arguments, **keywords):
        years.append(1)
        if len(years) == 2:
            raise KeyboardInterrupt
        real_write_year(*arguments, **keywords)

    monkeypatch.setattr(history, "_write_year", write_year)
    with pytest.raises(KeyboardInterrupt):
        write_history(path, size)
    assert sorted(tmp_path.iterdir()) == []
    monkeypatch.setattr(history, "_write_year", real_write_year)
    summary = write_history(path, size)
    assert sorted(item.name for item in tmp_path.iterdir()) == ["history.duckdb"]
    with duckdb.connect(str(path), read_only=True) as connection:
        assert _one(connection, "SELECT count(*) FROM tournament_version") == (8,)
        assert _one(connection, "SELECT count(*) FROM registry_load") == (2,)
    assert summary.tournaments == 8


def test_list_date_by_receipt():
    assert list_date_for(date(2019, 3, 15)) == date(2019, 4, 1)
    assert list_date_for(date(2019, 3, 16)) == date(2019, 7, 1)
    assert list_date_for(date(2019, 9, 15)) == date(2019, 10, 1)
    assert list_date_for(date(2019, 12, 15)) == date(2020, 1, 1)
    assert list_date_for(date(2019, 12, 16)) == date(2020, 4, 1)


def test_does_not_import_prefect():
    code = "import sys, bench.history; sys.exit('prefect' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0
