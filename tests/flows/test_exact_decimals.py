"""Every number a person reads in the public views is exact (issue 30, the audit trail): a
DECIMAL or an integer, never a binary double (no 5.1000000000000005 on a dashboard), and a
sum of a player's variations in SQL gives the list's change exactly."""

import re
from datetime import date, datetime
from decimal import Decimal

import duckdb
import polars as pl
import pytest

from flows.warehouse import Warehouse, insert_frame, read_sql

# The public views of docs/WAREHOUSE.md: their names are the contract dashboards rely on.
PUBLIC_VIEWS = {
    "run",
    "rejection",
    "input_warning",
    "tournament",
    "tournament_player",
    "unmatched_player",
    "registry_snapshot",
    "fid_registry_snapshot",
    "rating_list",
    "letter_history",
    "rating_list_revisions",
    "variation",
    "variation_revisions",
    "ranking",
    "ranking_revisions",
    "excluded_tournament",
    "unrated_tournament",
}
# public tables and table macros, read the same way
PUBLIC_RELATIONS = {
    "list_diff": "list_diff",
    "registry_at": "registry_at(DATE '2020-01-01')",
    "membership_at": "membership_at(DATE '2020-01-01')",
}
# the queries behind what `status`, `problems` and the run reports print, with parameters
REPORT_QUERIES = {
    "queries/status.sql": None,
    "queries/tournaments_by_system.sql": None,
    "queries/status_scenarios.sql": None,
    "queries/published_systems.sql": None,
    "queries/unrated_tournaments.sql": {"run_id": None},
    "queries/run_problems.sql": {"run_id": "r"},
    "queries/problems/tournaments.sql": {"delivery": None, "system": None, "tournament": None},
    "queries/problems/recorded.sql": {
        "delivery": None,
        "system": None,
        "tournament": None,
        "runs": 5,
    },
    "queries/lists/latest_ranking.sql": {"system": "elo_italia", "ranking": "overall", "top": 5},
    "queries/lists/revision_rows.sql": {
        "system": "elo_italia",
        "scenario": "official",
        "list_date": date(2019, 4, 1),
        "revision": 1,
    },
    "queries/lists/recorded_diff.sql": {
        "system": "elo_italia",
        "scenario": "official",
        "list_date": date(2019, 4, 1),
        "revision": 2,
        "against_scenario": "official",
        "against_revision": 1,
    },
}
# binary floating point, alone or inside a list, struct or map
BINARY = re.compile(r"\b(DOUBLE|FLOAT|REAL|FLOAT4|FLOAT8)\b")


def _binary_columns(con: duckdb.DuckDBPyConnection, relation: str) -> list[str]:
    return [
        f"{relation}.{name} {kind}"
        for name, kind, *_ in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
        if BINARY.search(kind)
    ]


def _types(con: duckdb.DuckDBPyConnection, view: str) -> dict[str, str]:
    return {name: kind for name, kind, *_ in con.execute(f"DESCRIBE {view}").fetchall()}


def test_no_public_view_or_report_query_gives_a_binary_double(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction():
        pass
    with warehouse.reader() as con:
        views = {
            row[0]
            for row in con.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal"
            ).fetchall()
        }
        assert views >= PUBLIC_VIEWS
        # every view, public or not: a view added later is checked without a word here
        found = [column for view in sorted(views) for column in _binary_columns(con, view)]
        found += [
            column
            for relation in PUBLIC_RELATIONS.values()
            for column in _binary_columns(con, relation)
        ]
        for name, params in REPORT_QUERIES.items():
            relation = con.sql(read_sql(name), params=params)
            found += [
                f"{name}: {column} {kind}"
                for column, kind in zip(relation.columns, relation.types, strict=True)
                if BINARY.search(str(kind))
            ]
        variation = _types(con, "variation")
        points = _types(con, "tournament_player")["points"]
    assert found == []
    # the scales chosen (docs/WAREHOUSE.md): halves, pico-points (the draughts PA), hundredths
    assert {name: variation[name] for name in ("score", "expected")} == {
        "score": "DECIMAL(18,1)",
        "expected": "DECIMAL(18,12)",
    }
    assert {name: variation[name] for name in ("raw_variation", "applied_variation")} == {
        "raw_variation": "DECIMAL(18,2)",
        "applied_variation": "DECIMAL(18,2)",
    }
    assert points == "DECIMAL(18,1)"


LIST_DATE = date(2019, 4, 1)
# Elo Italia variations as the engine gives them (transforms/elo/period.py): points won and
# expected in its fixed-point unit, a billionth of a point, and K x (won - expected) in
# hundredths, beside their doubles (units / 10**9 and hundredths / 100 in Polars, which
# multiplies by the reciprocal: 510 / 100 becomes 5.1000000000000005). A's variations sum to
# 5.10, though their doubles add up to 5.1000000000000005; B's to -13.50, a list change of -14,
# though their doubles add up to -13.499999999999998 (which rounds to -13); C has one
# tournament, +5.10; E one under the logistic method (expected to the billionth).
FSI_VARIATIONS = [
    # player, tournament, k, won (hundredths), expected (billionths), raw = applied hundredths
    ("A", "T1", 15, 300, 3_200_000_000, -300),
    ("A", "T2", 15, 250, 2_320_000_000, 270),
    ("A", "T3", 15, 450, 4_140_000_000, 540),
    ("B", "T1", 30, 300, 3_270_000_000, -810),
    ("B", "T2", 30, 150, 1_660_000_000, -480),
    ("B", "T3", 30, 400, 4_020_000_000, -60),
    ("C", "T1", 15, 550, 5_160_000_000, 510),
    ("E", "T2", 15, 300, 2_318_274_651, 1023),
]
POINT = 1_000_000_000
FROZEN = 1500
# a draughts variation: PO 2.5, PA = 1234567890123 pico-points, S 150, V = S x (PO - PA)
PA_UNITS = 1_234_567_890_123


def _revision(system: str) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": [system],
            "scenario": ["official"],
            "list_date": [LIST_DATE],
            "revision": [1],
            "source": ["computed"],
            "run_id": ["r"],
            "content_hash": ["h"],
            "players": [3],
            "tournaments": [3],
            "created_at": [datetime(2019, 4, 1, 12)],
        }
    )


def _tag(frame: pl.DataFrame, system: str) -> pl.DataFrame:
    return frame.with_columns(
        pl.lit(system).alias("system"),
        pl.lit("official").alias("scenario"),
        pl.lit(LIST_DATE).alias("list_date"),
        pl.lit(1, dtype=pl.Int32).alias("revision"),
    )


def _write_lists(con: duckdb.DuckDBPyConnection) -> None:
    """An Elo Italia list and a draughts list, written as the list flows write them: the
    engine's frames (doubles beside the hundredths) appended by insert_frame."""
    fsi = pl.DataFrame(
        FSI_VARIATIONS,
        schema=["player_id", "tournament_id", "k", "won_h", "expected_units", "hundredths"],
        orient="row",
    )
    variations = fsi.select(
        "tournament_id",
        pl.lit(1, dtype=pl.Int32).alias("tournament_version"),
        "player_id",
        pl.lit(FROZEN, dtype=pl.Int32).alias("own_rating"),
        pl.lit(6, dtype=pl.Int32).alias("games"),
        (pl.col("won_h") * (POINT // 100) / POINT).alias("score"),
        (pl.col("expected_units") / POINT).alias("expected"),
        pl.col("k").cast(pl.Int32),
        (pl.col("hundredths") / 100).alias("raw_variation"),
        (pl.col("hundredths") / 100).alias("applied_variation"),
        pl.col("hundredths").alias("raw_hundredths"),
        pl.col("hundredths").alias("applied_hundredths"),
    )
    change = fsi.group_by("player_id").agg(pl.col("hundredths").sum())
    # the list's change: the period sum rounded once, halves away from zero
    change = change.with_columns(
        (pl.col("hundredths").sign() * ((pl.col("hundredths").abs() + 50) // 100))
        .cast(pl.Int32)
        .alias("period_change")
    )
    entries = change.select(
        "player_id",
        pl.lit(FROZEN, dtype=pl.Int32).alias("frozen_rating"),
        (FROZEN + pl.col("period_change")).cast(pl.Int32).alias("rating"),
        "period_change",
        pl.lit("elo_italia").alias("rating_type"),
        pl.lit(18, dtype=pl.Int32).alias("games"),
        pl.lit(18, dtype=pl.Int32).alias("total_games"),
        pl.lit(True).alias("is_active"),
        pl.lit(True).alias("is_member"),
        pl.lit(True).alias("in_ranking"),
    )
    insert_frame(con, "list_revision", _revision("elo_italia"))
    insert_frame(con, "list_entry", _tag(entries, "elo_italia"))
    insert_frame(con, "list_variation", _tag(variations, "elo_italia"))
    # draughts: doubles only, as transforms/rubele/lists.py gives them
    expected = PA_UNITS * 1e-12
    draughts = pl.DataFrame(
        {
            "tournament_id": ["D1"],
            "tournament_version": [1],
            "player_id": ["D001"],
            "own_rating": [2950],
            "games": [5],
            "score": [2.5],
            "expected": [expected],
            "k": [150],
            "raw_variation": [150 * (2.5 - expected)],
            "applied_variation": [190.0],
        }
    )
    insert_frame(con, "list_revision", _revision("rubele_italiana"))
    insert_frame(con, "list_variation", _tag(draughts, "rubele_italiana"))
    insert_frame(
        con,
        "tournament_version",
        pl.DataFrame(
            {
                "tournament_id": ["T1"],
                "version": [1],
                "version_key": ["k"],
                "status": ["accepted"],
                "system": ["elo_italia"],
                "file_name": ["t1.trf"],
                "manifest_sha256": ["m"],
                "manifest_line": [2],
                "run_id": ["r"],
                "ingested_at": [datetime(2019, 3, 1)],
            }
        ),
    )
    insert_frame(
        con,
        "tournament_entry",
        pl.DataFrame(
            {
                "tournament_id": ["T1"],
                "version": [1],
                "start_number": [1],
                "points": [5.5],
                "player_id": ["A"],
                "match_method": ["national_id"],
            }
        ),
    )


def test_variations_read_back_exactly_and_add_up_to_the_list_change(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        _write_lists(con)
    with warehouse.reader() as con:
        kind, one = con.execute(
            "SELECT typeof(applied_variation), applied_variation FROM variation "
            "WHERE player_id = 'C'"
        ).fetchone()
        totals = dict(
            con.execute(
                "SELECT player_id, sum(applied_variation) FROM variation "
                "WHERE system = 'elo_italia' GROUP BY ALL"
            ).fetchall()
        )
        # a dashboard rebuilding each rating: the frozen rating plus the rounded sum of the
        # player's variations (halves away from zero, as the list rounds the period sum)
        rebuilt = con.execute(
            """
            SELECT l.player_id, l.period_change, round(sum(v.applied_variation))::INTEGER,
                   l.rating - l.frozen_rating
            FROM rating_list l
            JOIN variation v USING (system, list_date, player_id)
            GROUP BY ALL ORDER BY 1
            """
        ).fetchall()
        fsi = con.execute(
            "SELECT score, expected, raw_variation FROM variation "
            "WHERE player_id IN ('A', 'E') AND tournament_id = 'T2' ORDER BY player_id"
        ).fetchall()
        draughts = con.execute(
            "SELECT score, expected, raw_variation, applied_variation FROM variation "
            "WHERE system = 'rubele_italiana'"
        ).fetchone()
        points = con.execute("SELECT points FROM tournament_player").fetchone()[0]
    assert kind == "DECIMAL(18,2)"
    assert isinstance(one, Decimal) and str(one) == "5.10"
    assert {player: str(total) for player, total in totals.items()} == {
        "A": "5.10",
        "B": "-13.50",
        "C": "5.10",
        "E": "10.23",
    }
    assert rebuilt == [("A", 5, 5, 5), ("B", -14, -14, -14), ("C", 5, 5, 5), ("E", 10, 10, 10)]
    assert [[str(value) for value in row] for row in fsi] == [
        ["2.5", "2.320000000000", "2.70"],
        ["3.0", "2.318274651000", "10.23"],
    ]
    # draughts: PO in halves, PA in the engine's pico-points, V to the hundredth, CF - CI whole
    assert [str(value) for value in draughts] == ["2.5", "1.234567890123", "189.81", "190.00"]
    assert str(points) == "5.5"


def test_a_warehouse_written_before_reads_exactly_after_its_next_write(tmp_path):
    # a warehouse of an earlier version: its views give doubles, and its FSI variations were
    # written before migration 008 (only the doubles: -4.05 is -4.0499999999999998)
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        _write_lists(con)
        con.execute("ALTER TABLE list_variation DROP COLUMN raw_hundredths")
        con.execute("ALTER TABLE list_variation DROP COLUMN applied_hundredths")
        con.execute("DELETE FROM schema_migration WHERE name = '008_variation_hundredths.sql'")
        con.execute(
            "UPDATE list_variation SET raw_variation = -4.05, applied_variation = -4.05 "
            "WHERE player_id = 'C'"
        )
        con.execute(
            "CREATE OR REPLACE VIEW variation AS SELECT v.* FROM list_variation v "
            "JOIN list_revision_current c USING (system, scenario, list_date, revision)"
        )
    with warehouse.reader() as con:
        before = con.execute("SELECT typeof(applied_variation) FROM variation LIMIT 1").fetchone()
    assert before == ("DOUBLE",)
    with warehouse.transaction():  # the next write migrates the file and recreates the views
        pass
    with warehouse.reader() as con:
        kind, raw, applied = con.execute(
            "SELECT typeof(raw_variation), raw_variation, applied_variation FROM variation "
            "WHERE player_id = 'C'"
        ).fetchone()
        total = con.execute(
            "SELECT sum(applied_variation) FROM variation WHERE player_id = 'B'"
        ).fetchone()[0]
    assert kind == "DECIMAL(18,2)"
    assert (str(raw), str(applied)) == ("-4.05", "-4.05")
    assert str(total) == "-13.50"


@pytest.mark.usefixtures("prefect_server")
def test_a_computed_list_reads_back_in_exact_hundredths(season_warehouse):
    from flows.elo.lists import quarterly_flow

    warehouse = season_warehouse(2019)
    quarterly_flow("elo_italia", date(2019, 4, 1), str(warehouse))
    with Warehouse(warehouse).reader() as con:
        kinds = con.execute(
            "SELECT DISTINCT typeof(score), typeof(expected), typeof(raw_variation), "
            "typeof(applied_variation) FROM variation"
        ).fetchall()
        # the decimals are the engine's hundredths, to the last digit
        inexact = con.execute(
            "SELECT count(*) FROM variation WHERE raw_variation * 100 <> raw_hundredths "
            "OR applied_variation * 100 <> applied_hundredths "
            "OR expected * 100 <> round(expected * 100) OR score * 2 <> round(score * 2)"
        ).fetchone()[0]
        # every Elo Italia rating is the frozen rating plus the sum of its variations, rounded
        # half away from zero: summed in the view's decimals, as a dashboard does
        rebuilt, mismatched = con.execute(
            """
            SELECT count(*), count(*) FILTER (WHERE l.rating <> l.frozen_rating
                                              + round(v.total)::INTEGER)
            FROM rating_list l
            JOIN (SELECT system, list_date, player_id, sum(applied_variation) AS total
                  FROM variation GROUP BY ALL) v USING (system, list_date, player_id)
            WHERE l.list_date = DATE '2019-04-01' AND l.rating_type = 'elo_italia'
              AND l.rating_basis NOT IN ('fide', 'fide_reentry')
            """
        ).fetchone()
    assert kinds == [("DECIMAL(18,1)", "DECIMAL(18,12)", "DECIMAL(18,2)", "DECIMAL(18,2)")]
    assert inexact == 0
    assert rebuilt > 0 and mismatched == 0
