"""The warehouse's write discipline, without Prefect: migrations, atomicity, readers."""

from datetime import date

import duckdb
import polars as pl
import pytest

from flows.warehouse import (
    BatchedInserts,
    Warehouse,
    apply_migrations,
    migration_files,
    scalar,
)


def _count(warehouse: Warehouse, table: str) -> int:
    with warehouse.reader() as con:
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_migrations_apply_once_and_views_exist(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction():
        pass
    with warehouse.transaction() as con:
        assert apply_migrations(con) == []  # nothing left to apply
        applied = con.execute("SELECT count(*) FROM schema_migration").fetchone()[0]
        assert applied == len(migration_files())
    with warehouse.reader() as con:
        views = {
            row[0]
            for row in con.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal"
            ).fetchall()
        }
    assert {"run", "rejection", "tournament", "registry_snapshot"} <= views


def test_the_hundredths_of_variations_written_before_them_are_filled_exactly(tmp_path):
    # a list written before migration 008 has only the decimals (-4.05 is -4.0499... as a
    # double): the migration gives it the hundredths, for FSI lists only
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        con.execute("ALTER TABLE list_variation DROP COLUMN raw_hundredths")
        con.execute("ALTER TABLE list_variation DROP COLUMN applied_hundredths")
        con.execute("DELETE FROM schema_migration WHERE name = '008_variation_hundredths.sql'")
        for system, raw, applied in (
            ("elo_italia", -4.05, 0.0),
            ("elo_rapid", 16.8, 16.8),
            ("rubele_italiana", 3.7, 4.0),
        ):
            con.execute(
                "INSERT INTO list_variation (system, scenario, list_date, revision, "
                "tournament_id, tournament_version, player_id, games, score, expected, "
                "raw_variation, applied_variation) VALUES (?, 'official', DATE '2019-04-01', "
                "1, 'T', 1, 'P', 1, 1, 0.5, ?, ?)",
                [system, raw, applied],
            )
    with warehouse.transaction() as con:  # applies 008 again
        applied = {row[0] for row in con.execute("SELECT name FROM schema_migration").fetchall()}
    assert "008_variation_hundredths.sql" in applied
    with warehouse.reader() as con:
        rows = con.execute(
            "SELECT system, raw_hundredths, applied_hundredths FROM list_variation ORDER BY 1"
        ).fetchall()
    assert rows == [
        ("elo_italia", -405, 0),
        ("elo_rapid", 1680, 1680),
        ("rubele_italiana", None, None),
    ]


def test_a_failed_transaction_leaves_the_file_as_it_was(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        con.execute("INSERT INTO player_merge VALUES ('P-A', '1', '', 'r1', now())")
    before = (tmp_path / "w.duckdb").read_bytes()
    with pytest.raises(RuntimeError), warehouse.transaction() as con:
        con.execute("INSERT INTO player_merge VALUES ('P-B', '2', '', 'r2', now())")
        raise RuntimeError("crash in the middle of a run")
    assert (tmp_path / "w.duckdb").read_bytes() == before
    assert _count(warehouse, "player_merge") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb", "w.duckdb.lock"]


def test_a_reader_holding_the_file_open_does_not_block_a_write(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction():
        pass
    with warehouse.reader() as reader:
        with warehouse.transaction() as con:
            con.execute("INSERT INTO player_merge VALUES ('P-A', '1', '', 'r1', now())")
        # the open reader still sees the state it opened
        assert reader.execute("SELECT count(*) FROM player_merge").fetchone()[0] == 0
    assert _count(warehouse, "player_merge") == 1


def test_written_files_open_read_only_in_a_separate_connection(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction():
        pass
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM run").fetchone()[0] == 0
    con.close()


def _ranking_rows(count: int, rating: int | None = 1800) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": ["elo_italia"] * count,
            "scenario": ["official"] * count,
            "list_date": [date(2020, 1, 1)] * count,
            "revision": [1] * count,
            "ranking": ["overall"] * count,
            "position": list(range(1, count + 1)),
            "player_id": [f"P{index}" for index in range(count)],
            "rating": [rating] * count,
        }
    )


@pytest.mark.parametrize("background", [False, True])
def test_batched_rows_are_all_written_in_order_of_arrival(tmp_path, background):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        threads = scalar(con, "SELECT current_setting('threads')")
        with BatchedInserts(con, flush_rows=250, background=background) as rows:
            for _ in range(7):
                rows.add("list_ranking", _ranking_rows(100))
            # below the batch size: still waiting, written when the block ends
            assert rows.waiting
        # the writer runs on one DuckDB thread; the connection gets its threads back
        assert scalar(con, "SELECT current_setting('threads')") == threads
    assert _count(warehouse, "list_ranking") == 700


@pytest.mark.parametrize("background", [False, True])
def test_batches_append_whole_row_groups_and_keep_the_rest_for_the_next(tmp_path, background):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    written = []
    with (
        warehouse.transaction() as con,
        BatchedInserts(con, flush_rows=250, background=background, row_group_rows=100) as rows,
    ):
        for _ in range(7):
            rows.add("list_ranking", _ranking_rows(90))
            written.append(sum(part.height for part in rows.waiting.get("list_ranking", [])))
    # 270 waiting: 200 written, 70 kept; 250 waiting: 200 written, 50 kept; 230 kept at the
    # end, written by the final flush
    assert written == [90, 180, 70, 160, 50, 140, 230]
    assert _count(warehouse, "list_ranking") == 630


def test_a_failed_background_append_fails_the_run_and_leaves_the_file_as_it_was(tmp_path):
    warehouse = Warehouse(tmp_path / "w.duckdb")
    with warehouse.transaction() as con:
        con.execute("INSERT INTO player_merge VALUES ('P-A', '1', '', 'r1', now())")
    before = (tmp_path / "w.duckdb").read_bytes()
    with (
        pytest.raises(duckdb.ConstraintException),
        warehouse.transaction() as con,
        BatchedInserts(con, flush_rows=100, background=True) as rows,
    ):
        con.execute("INSERT INTO player_merge VALUES ('P-B', '2', '', 'r2', now())")
        rows.add("list_ranking", _ranking_rows(100))
        rows.add("list_ranking", _ranking_rows(100, rating=None))  # rating is NOT NULL
        rows.add("list_ranking", _ranking_rows(100))
    assert (tmp_path / "w.duckdb").read_bytes() == before
    assert _count(warehouse, "list_ranking") == 0
    assert _count(warehouse, "player_merge") == 1
