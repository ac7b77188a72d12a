"""End to end (RULES.md §1.5, corrected): after ``import-list``, which carries no FIDE status, a
player whose FIDE rating the registry's next snapshot no longer shows is on the next Elo Italia
list at the FIDE minimum - 1, though he played nothing and no list ever showed him."""

from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")

HEADER = (
    "player_id,name,sex,birth_date,country,fide_id,fide_standard,fide_rapid,category,k_override"
)


def write_snapshot(folder: Path, players: list[str]) -> str:
    folder.mkdir(parents=True)
    (folder / "players.csv").write_text("\n".join([HEADER, *players]) + "\n", encoding="utf-8")
    members = [line.split(",")[0] for line in players]
    (folder / "memberships.csv").write_text(
        "player_id,year\n" + "".join(f"{pid},2019\n" for pid in members), encoding="utf-8"
    )
    return str(folder)


def test_a_player_delisted_by_fide_reenters_after_an_imported_list(tmp_path: Path) -> None:
    from flows.elo.lists import quarterly_flow
    from flows.elo.registry import load_registry_flow
    from flows.import_list import import_list_flow

    warehouse = str(tmp_path / "w.duckdb")
    # X is a CM with FIDE 1500 on 2019-01-01; on 2019-05-01 the registry shows no FIDE rating.
    # Z keeps his FIDE rating; O is an Elo Italia player.
    first = [
        '100,"Rossi, Mario",M,1980-01-01,ITA,5000,1500,,CM,',
        '200,"Bianchi, Luca",M,1981-01-01,ITA,,,,NC,',
        '300,"Verdi, Carlo",M,1982-01-01,ITA,5001,1600,,CM,',
    ]
    later = [
        '100,"Rossi, Mario",M,1980-01-01,ITA,5000,,,CM,',
        '200,"Bianchi, Luca",M,1981-01-01,ITA,,,,NC,',
        '300,"Verdi, Carlo",M,1982-01-01,ITA,5001,1600,,CM,',
    ]
    load_registry_flow(write_snapshot(tmp_path / "r1", first), date(2019, 1, 1), warehouse)
    load_registry_flow(write_snapshot(tmp_path / "r2", later), date(2019, 5, 1), warehouse)
    listing = tmp_path / "list.csv"
    listing.write_text("player_id,rating,games,k,category\n200,1500,40,15,NC\n", encoding="utf-8")
    import_list_flow(str(listing), "elo_italia", date(2019, 4, 1), warehouse)

    quarterly_flow("elo_italia", date(2019, 7, 1), warehouse)

    with Warehouse(Path(warehouse)).reader() as con:
        rows = con.execute(
            "SELECT player_id, rating, note FROM rating_list "
            "WHERE system = 'elo_italia' AND list_date = DATE '2019-07-01' ORDER BY player_id"
        ).fetchall()
    # 2019 is in the era of FIDE minimum 1000: re-entry at 999 (a CM would otherwise be 2000)
    assert rows == [
        ("100", 999, "left the FIDE list (FIDE 1500 at the period start): re-enters at 999"),
        ("200", 1500, "category 3N"),
    ]
