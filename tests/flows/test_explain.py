"""``graduatoria explain`` and the ``game_calculation`` view on demo seasons: for random players
of a published list, the explained games add up exactly to the stored variations, the stored
change and the stored rating (Elo Italia, Elo Rapid, Elo-Rubele dama italiana); the view holds
the same rows; an explanation that would not reproduce the list is refused, not printed."""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
from collections import defaultdict
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
import pytest

from flows.explain import (
    ExplainError,
    ExplainMismatch,
    add_explain_parser,
    explain,
    explain_text,
    run_explain,
)
from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")

SEASON = 2019
LIST_DATE = date(SEASON, 4, 1)
DRAUGHTS_DATES = (date(2021, 7, 1), date(2022, 1, 1), date(2022, 7, 1))
SAMPLED = 12  # players with games, per list; and a few without
SEED = 32


@pytest.fixture(scope="module")
def chess_lists(_season_bases, tmp_path_factory) -> Path:
    """The 2019 demo season (the one ``season_warehouse`` copies) with the Elo Italia and Elo
    Rapid lists of 2019-04-01 published."""
    from flows.elo.lists import quarterly_flow
    from tests.flows.conftest import _build_season

    if SEASON not in _season_bases:
        _season_bases[SEASON] = _build_season(tmp_path_factory.mktemp(f"season{SEASON}"), SEASON)
    warehouse = tmp_path_factory.mktemp("explain") / "w.duckdb"
    shutil.copyfile(_season_bases[SEASON][0], warehouse)
    for system in ("elo_italia", "elo_rapid"):
        assert quarterly_flow(system, LIST_DATE, str(warehouse))["new_revision"] == 1
    return warehouse


@pytest.fixture(scope="module")
def draughts_lists(prefect_server, tmp_path_factory) -> Path:
    """The draughts demo (seed 5, 2021-2022) with its first three dama italiana lists: the
    second and third apply their tournaments to the capitals of the list before, the third
    under the era of 2022 (the anti-deflation Q)."""
    from flows.rubele.ingest import ingest_draughts_flow
    from flows.rubele.lists import rubele_quarterly_flow
    from flows.rubele.registry import load_fid_registry_flow
    from synthetic.demo_files import write_draughts_federation

    folder = tmp_path_factory.mktemp("explain_draughts")
    warehouse = str(folder / "w.duckdb")
    draughts = write_draughts_federation(folder / "demo", seed=5)
    for as_of, snapshot in draughts.snapshots:
        load_fid_registry_flow(str(snapshot), as_of, warehouse)
    ingest_draughts_flow(str(draughts.inbox), warehouse)
    for list_date in DRAUGHTS_DATES:
        rubele_quarterly_flow("rubele_italiana", list_date, warehouse)
    return Path(warehouse)


def _sample(warehouse: Path, system: str, list_date: date) -> list[str]:
    """Random players of a list (seeded): some with counted games, a few without."""
    with Warehouse(warehouse).reader() as con:
        rows = con.execute(
            "SELECT player_id, games > 0 FROM rating_list WHERE system = ? AND list_date = ? "
            "ORDER BY player_id",
            [system, list_date],
        ).fetchall()
    rng = random.Random(SEED)
    played = [player for player, has_games in rows if has_games]
    idle = [player for player, has_games in rows if not has_games]
    return rng.sample(played, min(SAMPLED, len(played))) + rng.sample(idle, min(3, len(idle)))


def _stored(warehouse: Path, system: str, list_date: date, player_id: str) -> tuple[dict, dict]:
    """The player's row of the list and his variations, as the public views give them."""
    with Warehouse(warehouse).reader() as con:
        row = con.execute(
            "SELECT rating, frozen_rating, period_change, rating_type, rating_basis, games "
            "FROM rating_list WHERE system = ? AND list_date = ? AND player_id = ?",
            [system, list_date, player_id],
        ).fetchone()
        variations = con.execute(
            "SELECT tournament_id, games, score, expected, own_rating, k, raw_variation, "
            "applied_variation FROM variation WHERE system = ? AND list_date = ? "
            "AND player_id = ?",
            [system, list_date, player_id],
        ).fetchall()
    names = ("rating", "frozen_rating", "period_change", "rating_type", "rating_basis", "games")
    columns = ("games", "score", "expected", "own_rating", "k", "raw", "applied")
    return dict(zip(names, row, strict=True)), {
        tournament: dict(zip(columns, rest, strict=True)) for tournament, *rest in variations
    }


def _hundredths(value: Decimal) -> Decimal:
    """Half away from zero, as the engine turns units into hundredths."""
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


@pytest.mark.parametrize("system", ["elo_italia", "elo_rapid"])
def test_explained_games_add_up_to_the_stored_elo_list(chess_lists, system):
    players = _sample(chess_lists, system, LIST_DATE)
    assert len(players) >= SAMPLED
    for player_id in players:
        model = explain(str(chess_lists), player_id, system, LIST_DATE)
        row, stored = _stored(chess_lists, system, LIST_DATE, player_id)
        assert {t["tournament_id"] for t in model["tournaments"]} == set(stored), player_id
        applied_sum = Decimal(0)
        for tournament in model["tournaments"]:
            kept = stored[tournament["tournament_id"]]
            counted = [game for game in tournament["games"] if game["counted"]]
            # the games, each K x (W - We), give the tournament's raw V exactly
            raw = sum((game["variation"] for game in counted), Decimal(0))
            assert raw == tournament["raw_variation"], (player_id, tournament["tournament_id"])
            assert sum((game["score"] for game in counted), Decimal(0)) == kept["score"]
            assert sum((game["expected"] for game in counted), Decimal(0)) == kept["expected"]
            for game in counted:
                assert game["w_minus_we"] == game["score"] - game["expected"]
                assert game["variation"] == game["k"] * game["w_minus_we"]
            assert len(counted) == kept["games"] == tournament["counted_games"]
            assert _hundredths(raw) == kept["raw"]
            applied = Decimal(0) if tournament["winner_protection_applied"] else raw
            assert applied == tournament["applied_variation"]
            assert _hundredths(applied) == kept["applied"]
            assert (tournament["own_rating"], tournament["k"]) == (kept["own_rating"], kept["k"])
            applied_sum += applied
        # the period sum, rounded once, is the stored change; frozen + change the rating
        assert applied_sum == model["period"]["sum"]
        change = int(applied_sum.quantize(Decimal(1), rounding=ROUND_HALF_UP))
        assert change == model["period"]["change"] == row["period_change"], player_id
        # the FIDE table's values are whole hundredths: so are the variations and their sum
        assert sum((v["applied"] for v in stored.values()), Decimal(0)) == applied_sum
        assert model["frozen_rating"] == row["frozen_rating"]
        if row["rating_type"] == system and row["rating_basis"] not in ("fide", "fide_reentry"):
            assert row["rating"] == row["frozen_rating"] + change
        assert model["close"]["rating"] == row["rating"]


@pytest.mark.parametrize("system", ["elo_italia", "elo_rapid"])
def test_the_view_holds_the_explained_rows(chess_lists, system):
    with Warehouse(chess_lists).reader() as con:
        # every variation of the list: the view's games add up to it
        wrong = con.execute(
            """
            WITH g AS (
                SELECT tournament_id, player_id, count(*) FILTER (WHERE counted) AS games,
                       coalesce(sum(score) FILTER (WHERE counted), 0) AS score,
                       coalesce(sum(expected) FILTER (WHERE counted), 0) AS expected,
                       coalesce(sum(variation) FILTER (WHERE counted), 0) AS raw
                FROM game_calculation WHERE system = $system AND list_date = $day
                GROUP BY ALL
            )
            SELECT count(*), count(*) FILTER (WHERE g.games IS DISTINCT FROM v.games
                OR g.score <> v.score OR g.expected <> v.expected
                OR round(g.raw, 2) <> v.raw_variation)
            FROM variation v LEFT JOIN g USING (tournament_id, player_id)
            WHERE v.system = $system AND v.list_date = $day
            """,
            {"system": system, "day": LIST_DATE},
        ).fetchone()
        assert wrong[0] > 0 and wrong[1] == 0
        for player_id in _sample(chess_lists, system, LIST_DATE)[:5]:
            viewed = con.execute(
                "SELECT tournament_id, round, opponent_id, counted, score, own_rating, "
                "opponent_rating, difference, capped_difference, expected, k, variation "
                "FROM game_calculation WHERE system = ? AND list_date = ? AND player_id = ? "
                "AND kind = 'played' ORDER BY tournament_id, round",
                [system, LIST_DATE, player_id],
            ).fetchall()
            model = explain(str(chess_lists), player_id, system, LIST_DATE)
            explained = sorted(
                (
                    t["tournament_id"],
                    g["round"],
                    g["opponent_id"],
                    g["counted"],
                    g["score"],
                    g["own_rating"],
                    g["opponent_rating"],
                    g["difference"],
                    g["capped_difference"],
                    g["expected"],
                    g["k"],
                    g["variation"],
                )
                for t in model["tournaments"]
                for g in t["games"]
            )
            assert viewed == explained, player_id


def test_explained_capitals_add_up_to_the_stored_draughts_list(draughts_lists):
    system = "rubele_italiana"
    q_seen = 0
    for list_date in DRAUGHTS_DATES[1:]:
        for player_id in _sample(draughts_lists, system, list_date):
            model = explain(str(draughts_lists), player_id, system, list_date)
            row, stored = _stored(draughts_lists, system, list_date, player_id)
            assert {t["tournament_id"] for t in model["tournaments"]} == set(stored)
            capital = model["capital_before"]
            assert capital == row["frozen_rating"]
            for tournament in model["tournaments"]:
                kept = stored[tournament["tournament_id"]]
                # PA = the sum of the games' PA(n), exactly; PO likewise; CF - CI the change
                assert tournament["initial"] == capital == kept["own_rating"]
                games = tournament["games"]
                assert len(games) == kept["games"] == tournament["counted_games"]
                assert sum((g["expected"] for g in games), Decimal(0)) == kept["expected"]
                assert sum((g["score"] for g in games), Decimal(0)) == kept["score"]
                assert tournament["s"] == kept["k"]
                assert Decimal(tournament["final"] - capital) == kept["applied"]
                assert tournament["final"] == int(
                    Decimal(repr(tournament["unrounded"])).quantize(
                        Decimal(1), rounding=ROUND_HALF_UP
                    )
                )
                q_seen += tournament["q"] > 0
                capital = tournament["final"]
            assert capital == model["capital"] == row["rating"], player_id
            assert sum((v["applied"] for v in stored.values()), Decimal(0)) == (
                row["rating"] - row["frozen_rating"]
            )
    assert q_seen, "no tournament of the sample under the era with Q"
    with Warehouse(draughts_lists).reader() as con:
        wrong = con.execute(
            """
            WITH g AS (
                SELECT list_date, tournament_id, player_id,
                       count(*) FILTER (WHERE counted) AS games,
                       coalesce(sum(score) FILTER (WHERE counted), 0) AS score,
                       coalesce(sum(expected) FILTER (WHERE counted), 0) AS expected
                FROM game_calculation WHERE system = 'rubele_italiana' GROUP BY ALL
            )
            SELECT count(*), count(*) FILTER (WHERE g.games IS DISTINCT FROM v.games
                OR g.score <> v.score OR g.expected <> v.expected)
            FROM variation v LEFT JOIN g USING (list_date, tournament_id, player_id)
            WHERE v.system = 'rubele_italiana'
            """
        ).fetchone()
    assert wrong[0] > 0 and wrong[1] == 0


def test_the_text_is_aligned_columns_that_add_up(chess_lists):
    player_id = _sample(chess_lists, "elo_italia", LIST_DATE)[0]
    text = explain_text(str(chess_lists), player_id, "elo_italia", LIST_DATE, False)
    assert "K(W-We)" in text and "Period sum of the applied V" in text
    assert "Checked against the stored list" in text
    header = next(line for line in text.splitlines() if "K(W-We)" in line)
    rows = text.splitlines()[text.splitlines().index(header) + 1 :]
    first_row = rows[0]
    # right-aligned numbers: every row of the table ends where its header does
    assert len(first_row) == len(header)
    parsed = explain_text(str(chess_lists), player_id, "elo_italia", LIST_DATE, True)
    assert f'"player_id": "{player_id}"' in parsed


def test_a_list_the_explanation_does_not_reproduce_is_refused_loudly(chess_lists, tmp_path):
    tampered = tmp_path / "w.duckdb"
    shutil.copyfile(chess_lists, tampered)
    player_id = _sample(chess_lists, "elo_italia", LIST_DATE)[0]
    con = duckdb.connect(str(tampered))
    con.execute(
        "UPDATE list_entry SET rating = rating + 1, period_change = period_change + 1 "
        "WHERE system = 'elo_italia' AND list_date = ? AND player_id = ?",
        [LIST_DATE, player_id],
    )
    con.close()
    with pytest.raises(ExplainMismatch) as refused:
        explain_text(str(tampered), player_id, "elo_italia", LIST_DATE, False)
    first = str(refused.value).splitlines()[0]
    assert "does not reproduce the stored elo_italia list of 2019-04-01" in first
    assert "no explanation printed" in first and "period_change" in str(refused.value)


def test_an_imported_list_or_an_absent_player_has_nothing_to_explain(chess_lists):
    with pytest.raises(ExplainError, match="imported as the federation published it"):
        explain(str(chess_lists), "x", "elo_italia", date(SEASON, 1, 1))
    with pytest.raises(ExplainError, match="'nobody' is not on the elo_italia list"):
        explain(str(chess_lists), "nobody", "elo_italia", LIST_DATE)
    with pytest.raises(ExplainError, match="no official rubele_italiana list"):
        explain(str(chess_lists), "x", "rubele_italiana", None)


def test_the_verb_parses_and_prints(chess_lists, capsys):
    parser = argparse.ArgumentParser(prog="graduatoria")
    verbs = parser.add_subparsers(dest="verb")
    warehouses: list[argparse.ArgumentParser] = []

    def add_warehouse(sub: argparse.ArgumentParser) -> None:
        # as flows.cli's _add_warehouse does
        warehouses.append(sub)
        sub.add_argument("--warehouse")

    add_explain_parser(verbs, add_warehouse)
    assert warehouses == [verbs.choices["explain"]]
    player_id = _sample(chess_lists, "elo_italia", LIST_DATE)[0]
    args = parser.parse_args(
        ["explain", player_id, "--system", "elo_italia", "--warehouse", str(chess_lists)]
    )
    assert (args.list_date, args.json) == (None, False)
    run_explain(args)  # the latest list: 2019-04-01
    assert capsys.readouterr().out.startswith(f"elo_italia list of {LIST_DATE} (revision 1)")
    for option in ("--system", "--list-date", "--json"):
        action = next(a for a in verbs.choices["explain"]._actions if option in a.option_strings)
        assert action.help, option
    with pytest.raises(SystemExit):
        parser.parse_args(["explain", "p", "--system", "elo_italia", "--list-date", "2019-02-30"])


def test_explain_imports_neither_prefect_nor_heavy_modules_until_it_runs(chess_lists):
    # the command line builds its parser from this module: --help must stay light; and the
    # verb, read-only, never imports Prefect
    code = (
        "import sys\n"
        "import flows.explain\n"
        "print(sorted(m for m in ('polars', 'duckdb', 'prefect') if m in sys.modules))\n"
        "from flows.explain import explain\n"
        f"explain({str(chess_lists)!r}, {_sample(chess_lists, 'elo_italia', LIST_DATE)[0]!r}, "
        "'elo_italia')\n"
        "print('prefect' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:2] == ["[]", "False"]


def test_summed_by_tournament_the_view_matches_the_variation_view(chess_lists):
    # what a dashboard does: rebuild a player's change from the view alone
    with Warehouse(chess_lists).reader() as con:
        rows = con.execute(
            "SELECT g.player_id, g.tournament_id, g.variation, l.period_change, l.rating_type, "
            "l.rating_basis FROM game_calculation g JOIN rating_list l USING (system, "
            "list_date, player_id) WHERE g.system = 'elo_italia' AND g.list_date = ? "
            "AND g.counted",
            [LIST_DATE],
        ).fetchall()
        protected = {
            (player, tournament)
            for player, tournament in con.execute(
                "SELECT player_id, tournament_id FROM variation WHERE system = 'elo_italia' "
                "AND list_date = ? AND applied_variation <> raw_variation",
                [LIST_DATE],
            ).fetchall()
        }
    totals: dict[str, Decimal] = defaultdict(Decimal)
    changes = {}
    for player, tournament, variation, change, rating_type, basis in rows:
        if (player, tournament) in protected:
            continue
        totals[player] += variation
        if rating_type == "elo_italia" and basis not in ("fide", "fide_reentry"):
            changes[player] = change
    assert changes
    for player, change in changes.items():
        # players whose every tournament was protected or not counted are not in totals
        assert int(totals[player].quantize(Decimal(1), rounding=ROUND_HALF_UP)) == change, player


def test_a_debutant_entering_by_his_dama_italiana_category_is_said_to() -> None:
    # an italiana M enters dama internazionale at 2000: "(M)" alone read as the
    # internazionale M's 3000
    from flows.explain import _rubele_basis_text

    by_italiana = {
        "rating_basis": "debutant",
        "entry_italiana_category": "M",
        "entry_category": None,
        "entry_capital": None,
    }
    assert _rubele_basis_text(by_italiana) == (
        "a debutant's entry capital (by his dama italiana category, M)"
    )
    own = {**by_italiana, "entry_italiana_category": None, "entry_category": "3C"}
    assert _rubele_basis_text(own) == "a debutant's entry capital (category 3C)"
